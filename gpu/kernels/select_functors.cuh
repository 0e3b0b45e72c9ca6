// The selection functors of DeviceKernels (where, gather, scatter_add,
// index_bounds): src/cpu/kernels/indexing.cpp's loops, one output element
// (or one output column) per thread. Run by the grid-stride loop or the row
// launcher in a CUDA kernel and in the CPU grid emulator alike.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/block_rows.cuh"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

// dst[doff] = src[soff] converted from sdt to ddt: the element's bytes
// when the dtypes agree (a NaN's payload survives, as the CPU's copy),
// else convert's rules (dtype_access.cuh).
TSR_HOST_DEVICE inline void move_element(void* dst, int64_t doff, tsr_dtype ddt, const void* src, int64_t soff,
                                         tsr_dtype sdt) {
  if (ddt != sdt) return store_wide(dst, doff, ddt, load_wide(src, soff, sdt));
  switch (element_bytes(ddt)) {
    case 1: static_cast<uint8_t*>(dst)[doff] = static_cast<const uint8_t*>(src)[soff]; return;
    case 2: static_cast<uint16_t*>(dst)[doff] = static_cast<const uint16_t*>(src)[soff]; return;
    case 4: static_cast<uint32_t*>(dst)[doff] = static_cast<const uint32_t*>(src)[soff]; return;
    default: static_cast<uint64_t*>(dst)[doff] = static_cast<const uint64_t*>(src)[soff]; return;
  }
}

// An index element (int32 or int64) as int64.
TSR_HOST_DEVICE inline int64_t load_index(const void* index, int64_t off, tsr_dtype d) {
  return d == TSR_INT32 ? int64_t(static_cast<const int32_t*>(index)[off]) : static_cast<const int64_t*>(index)[off];
}

// out[i] = cond[i] ? a[i] : b[i] (kernels::where).
template <typename Index>
struct WhereFn {
  OffsetCalc<4, Index> calc;  // out, cond, a, b
  void* out;
  tsr_dtype out_dtype;
  const void* cond;
  tsr_dtype cond_dtype;
  const void* a;
  tsr_dtype a_dtype;
  const void* b;
  tsr_dtype b_dtype;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto off = calc.get(i);
    const Wide c = load_wide(cond, int64_t(off.v[1]), cond_dtype);
    if (c.i != 0) move_element(out, int64_t(off.v[0]), out_dtype, a, int64_t(off.v[2]), a_dtype);
    else move_element(out, int64_t(off.v[0]), out_dtype, b, int64_t(off.v[3]), b_dtype);
  }
};

// out[i] = in[i's offset + index[i] * in_dim_stride] (kernels::gather).
template <typename Index>
struct GatherFn {
  OffsetCalc<3, Index> calc;  // out, in (indexed dim's stride 0), index
  void* out;
  const void* in;
  tsr_dtype dtype;
  const void* index;
  tsr_dtype index_dtype;
  int64_t in_dim_stride;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto off = calc.get(i);
    const int64_t k = load_index(index, int64_t(off.v[2]), index_dtype);
    move_element(out, int64_t(off.v[0]), dtype, in, int64_t(off.v[1]) + k * in_dim_stride, dtype);
  }
};

// Column c of a scatter_add (ScatterAddArgs): its len additions in index
// order, each element read, added in the compute type C and stored, as
// indexing.cpp's loop does (float16 rounds after every addition; integers
// wrap; bool ors).
template <typename C, typename Index>
struct ScatterAddFn {
  OffsetCalc<3, Index> calc;  // out, src, index over the columns
  void* out;
  const void* src;
  tsr_dtype dtype;
  const void* index;
  tsr_dtype index_dtype;
  int64_t len, out_dim_stride, src_dim_stride, index_dim_stride;

  TSR_HOST_DEVICE void operator()(int64_t c) const {
    const auto off = calc.get(c);
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = load_index(index, int64_t(off.v[2]) + j * index_dim_stride, index_dtype);
      const int64_t o = int64_t(off.v[0]) + k * out_dim_stride;
      const C x = wide_to<C>(load_wide(out, o, dtype));
      const C y = wide_to<C>(load_wide(src, int64_t(off.v[1]) + j * src_dim_stride, dtype));
      C r;
      if constexpr (kIsIntCompute<C>) r = dtype == TSR_BOOL ? int64_t(x != 0 || y != 0) : wrap_add(x, y);
      else r = C(x + y);
      store_as<C>(out, o, dtype, r);
    }
  }
};

// The first index outside [0, limit), as one row over every index element
// (a phase functor, block_rows.cuh): each thread's first bad position in
// its share, the smallest of them, written by thread 0 (-1: none).
template <typename Index>
struct IndexBoundsFn {
  using Partial = int64_t;
  static constexpr int kPasses = 1;
  static constexpr int64_t kNone = INT64_MAX;

  OffsetCalc<1, Index> calc;
  const void* index;
  tsr_dtype index_dtype;
  int64_t numel, limit;
  int64_t* first_bad;

  TSR_HOST_DEVICE int64_t partial(int64_t, int, const BlockThread& t, const int64_t*) const {
    for (int64_t j = t.tid; j < numel; j += t.nthreads) {
      const int64_t k = load_index(index, int64_t(calc.get(j).v[0]), index_dtype);
      if (k < 0 || k >= limit) return j;
    }
    return kNone;
  }

  TSR_HOST_DEVICE int64_t combine(int, int64_t a, int64_t b) const { return a < b ? a : b; }

  TSR_HOST_DEVICE void finish(int64_t, const BlockThread& t, const int64_t* done) const {
    if (t.tid == 0) *first_bad = done[0] == kNone ? -1 : done[0];
  }
};

}  // namespace tsr::gpu

namespace tsr::gpu {

// Row r of a contiguous [rows, cols] layer_norm (normalization.cpp's
// layer_norm_row) in C = float (float16, bfloat16, float32) or double,
// storage dtype D: pass 0 sums the row in double, pass 1 the squared
// deviations from the mean; then mean, rstd = 1 / sqrt(max(var, 0) + eps)
// and shift = -rstd * mean in C, and every element written as the CPU
// writes it (with weight and bias every operation rounded on its own, else
// two fused multiply-adds).
template <typename C, tsr_dtype D>
struct LayerNormFn {
  using Partial = double;
  static constexpr int kPasses = 2;

  void* out;
  const void* x;
  const void* weight;  // null: 1
  const void* bias;    // null: 0
  int64_t cols;
  double eps;

  TSR_HOST_DEVICE double at(int64_t r, int64_t j) const {
    return double(wide_to<C>(load_wide(x, r * cols + j, D)));
  }

  TSR_HOST_DEVICE double partial(int64_t r, int pass, const BlockThread& t, const double* done) const {
    double s = 0;
    if (pass == 0) {
      for (int64_t j = t.tid; j < cols; j += t.nthreads) s += at(r, j);
      return s;
    }
    const double mean = done[0] / double(cols);
    for (int64_t j = t.tid; j < cols; j += t.nthreads) {
      const double d = at(r, j) - mean;
      s += d * d;
    }
    return s;
  }

  TSR_HOST_DEVICE double combine(int, double a, double b) const { return a + b; }

  // a * b + c rounded once: float through double (exact product), double
  // by fma (normalization.cpp's fused).
  TSR_HOST_DEVICE static float fused(float a, float b, float c) {
    return float(double(a) * double(b) + double(c));
  }
  TSR_HOST_DEVICE static double fused(double a, double b, double c) { return ::fma(a, b, c); }

  TSR_HOST_DEVICE void finish(int64_t r, const BlockThread& t, const double* done) const {
    const double n = double(cols);
    const C mean = C(done[0] / n);
    const C var = C(done[1] / n);
    const C scale = C(1) / m_sqrt(C((var < C(0) ? C(0) : var) + C(eps)));  // std::max(var, 0): NaN stays
    const C shift = -scale * mean;
    for (int64_t j = t.tid; j < cols; j += t.nthreads) {
      const C v = wide_to<C>(load_wide(x, r * cols + j, D));
      C y;
      if (weight && bias) {
        const C w = wide_to<C>(load_wide(weight, j, D)), b = wide_to<C>(load_wide(bias, j, D));
        y = C(unfused_mul(C(unfused_mul(v, scale) + shift), w) + b);
      } else {
        const C w = weight ? wide_to<C>(load_wide(weight, j, D)) : C(1);
        const C b = bias ? wide_to<C>(load_wide(bias, j, D)) : C(0);
        y = fused(fused(v, scale, shift), w, b);
      }
      store_as<C>(out, r * cols + j, D, y);
    }
  }
};

}  // namespace tsr::gpu
