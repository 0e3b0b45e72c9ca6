// The functors of DeviceKernels' scatter / index family (scatter_reduce,
// nonzero_blocks): src/cpu/kernels/scatter.cpp's scatter_into and
// advanced_index.cpp's nonzero, one output column (or one block of the mask)
// per thread, walked in the CPU's order. Run by the grid-stride loop in a
// CUDA kernel and in the CPU grid emulator alike.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"
#include "kernels/select_functors.cuh"

namespace tsr::gpu {

// What a position scattered to starts from when self is left out
// (scatter.cpp's Reduce<T>::identity), as an element of dtype d.
TSR_HOST_DEVICE inline Wide scatter_identity(ScatterKernel op, tsr_dtype d) {
  const bool lowest = op == ScatterKernel::Amax;
  switch (op) {
    case ScatterKernel::Prod: return wide_int(1);
    case ScatterKernel::Amax:
    case ScatterKernel::Amin:
      switch (d) {
        case TSR_BOOL: return wide_int(lowest ? 0 : 1);
        case TSR_UINT8: return wide_int(lowest ? 0 : 255);
        case TSR_INT8: return wide_int(lowest ? -128 : 127);
        case TSR_INT16: return wide_int(lowest ? -32768 : 32767);
        case TSR_INT32: return wide_int(lowest ? -2147483647 - 1 : 2147483647);
        case TSR_INT64: return wide_int(lowest ? INT64_MIN : INT64_MAX);
        default: return wide_float(lowest ? -HUGE_VAL : HUGE_VAL);
      }
    default: return wide_int(0);
  }
}

// One step of the reduction in compute type C (Reduce<T>::apply): integers
// wrap, bool ors (sum) or ands (prod), amax / amin let a NaN win.
template <typename C>
TSR_HOST_DEVICE inline C scatter_apply(ScatterKernel op, C a, C b, bool is_bool) {
  switch (op) {
    case ScatterKernel::Assign: return b;
    case ScatterKernel::Sum:
    case ScatterKernel::Mean:
      if constexpr (kIsIntCompute<C>) return is_bool ? C(a != 0 || b != 0) : wrap_add(a, b);
      else return C(a + b);
    case ScatterKernel::Prod:
      if constexpr (kIsIntCompute<C>) return is_bool ? C(a != 0 && b != 0) : wrap_mul(a, b);
      else return C(a * b);
    case ScatterKernel::Amax:
      if constexpr (kIsIntCompute<C>) return b > a ? b : a;
      else return (b != b) || (a == a && b > a) ? b : a;
    case ScatterKernel::Amin:
      if constexpr (kIsIntCompute<C>) return b < a ? b : a;
      else return (b != b) || (a == a && b < a) ? b : a;
  }
  return b;
}

// mean's division (Reduce<T>::divide): floor for integers, bool kept.
template <typename C>
TSR_HOST_DEVICE inline C scatter_divide(C a, int64_t n, bool is_bool) {
  if constexpr (kIsIntCompute<C>) {
    if (is_bool) return a;
    const int64_t q = a / n, r = a % n;
    return (r != 0 && ((r < 0) != (n < 0))) ? q - 1 : q;
  } else {
    return C(a / C(n));
  }
}

// Column c of a scatter_reduce (ScatterReduceArgs): identities, then the
// len steps in index order, then mean's divisions, all on this thread.
template <typename C, typename Index>
struct ScatterReduceFn {
  OffsetCalc<4, Index> calc;  // out, src, index, count over the columns
  ScatterReduceArgs a;

  TSR_HOST_DEVICE int64_t out_at(const typename OffsetCalc<4, Index>::Offsets& off, int64_t j) const {
    return int64_t(off.v[0]) + index_at(off, j) * a.base.out_dim_stride;
  }
  TSR_HOST_DEVICE int64_t index_at(const typename OffsetCalc<4, Index>::Offsets& off, int64_t j) const {
    return load_index(a.base.index.data, int64_t(off.v[2]) + j * a.base.index_dim_stride, a.base.index.dtype);
  }

  TSR_HOST_DEVICE void operator()(int64_t c) const {
    const auto off = calc.get(c);
    const tsr_dtype d = a.base.out.dtype;
    void* out = a.base.out.data;
    const bool is_bool = d == TSR_BOOL;
    const bool mean = a.op == ScatterKernel::Mean;
    int64_t* count = static_cast<int64_t*>(a.count.data);
    if (!a.include_self && a.op != ScatterKernel::Assign) {
      const Wide id = scatter_identity(a.op, d);
      for (int64_t j = 0; j < a.base.len; ++j) store_wide(out, out_at(off, j), d, id);
    }
    if (a.op == ScatterKernel::Assign) {  // the element's bytes, as the CPU's copy (any dtype)
      for (int64_t j = 0; j < a.base.len; ++j)
        move_element(out, out_at(off, j), d, a.base.src.data, int64_t(off.v[1]) + j * a.base.src_dim_stride, d);
      return;
    }
    for (int64_t j = 0; j < a.base.len; ++j) {
      const int64_t o = out_at(off, j);
      const C x = wide_to<C>(load_wide(out, o, d));
      C y = wide_to<C>(load_wide(a.base.src.data, int64_t(off.v[1]) + j * a.base.src_dim_stride, d));
      if (a.alpha != 1.0) {  // index_add_'s alpha (add_into's k * b)
        if constexpr (kIsIntCompute<C>)
          y = is_bool ? C(a.alpha != 0.0 && y != 0) : wrap_mul(wide_to<C>(wide_float(a.alpha)), y);
        else
          y = C(C(a.alpha) * y);
      }
      store_as<C>(out, o, d, scatter_apply<C>(a.op, x, y, is_bool));
      if (mean) ++count[int64_t(off.v[3]) + index_at(off, j) * a.count_dim_stride];
    }
    if (!mean) return;
    for (int64_t j = 0; j < a.base.len; ++j) {
      int64_t& n = count[int64_t(off.v[3]) + index_at(off, j) * a.count_dim_stride];
      if (n <= 1) continue;
      const int64_t o = out_at(off, j);
      store_as<C>(out, o, d, scatter_divide<C>(wide_to<C>(load_wide(out, o, d)), n, is_bool));
      n = 1;  // a repeated position is divided once
    }
  }
};

// Block b of a nonzero (NonzeroArgs): its count, or its true elements'
// coordinates (or positions) written from row starts[b] on, in order.
struct NonzeroBlockFn {
  NonzeroArgs a;

  TSR_HOST_DEVICE void operator()(int64_t b) const {
    const uint8_t* m = static_cast<const uint8_t*>(a.mask);  // bool and uint8: one byte, nonzero is true
    const int64_t lo = b * a.block, hi = lo + a.block < a.numel ? lo + a.block : a.numel;
    if (!a.write) {
      int64_t n = 0;
      for (int64_t i = lo; i < hi; ++i) n += m[i] != 0;
      a.counts[b] = n;
      return;
    }
    int64_t row = a.starts[b];
    for (int64_t i = lo; i < hi; ++i) {
      if (m[i] == 0) continue;
      if (a.flat) {
        a.out[row++] = i;
        continue;
      }
      int64_t rest = i;
      int64_t* coords = a.out + row * a.shape.ndim;
      for (int32_t d = a.shape.ndim; d-- > 0;) {
        coords[d] = rest % a.shape.sizes[d];
        rest /= a.shape.sizes[d];
      }
      ++row;
    }
  }
};

}  // namespace tsr::gpu
