// One functor per elementwise DeviceKernels method: f(i) computes element i
// of the iteration shape. Run by the grid-stride loop (thread_ctx.cuh) in a
// CUDA kernel or in the CPU grid emulator; plain data, copied to the device
// as a kernel argument.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"
#include "core/philox.h"

namespace tsr::gpu {

// dst[i] = convert<dst dtype>(src[i]) (kernels::copy_strided).
template <typename Index>
struct CopyFn {
  OffsetCalc<2, Index> calc;
  void* dst;
  tsr_dtype dst_dtype;
  const void* src;
  tsr_dtype src_dtype;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto off = calc.get(i);
    store_wide(dst, int64_t(off.v[0]), dst_dtype, load_wide(src, int64_t(off.v[1]), src_dtype));
  }
};

// dst[i] = convert<dst dtype>(value) (kernels::fill).
template <typename Index>
struct FillFn {
  OffsetCalc<1, Index> calc;
  void* dst;
  tsr_dtype dtype;
  double value;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    store_wide(dst, int64_t(calc.get(i).v[0]), dtype, wide_float(value));
  }
};

// out[i] = op(in[i], alpha) computed in C, in read as the op's dtype.
template <typename C, typename Index>
struct UnaryFn {
  OffsetCalc<2, Index> calc;
  UnaryKernel op;
  void* out;
  tsr_dtype out_dtype;
  const void* in;
  tsr_dtype in_dtype;
  tsr_dtype op_dtype;
  double alpha;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto off = calc.get(i);
    const C x = load_as<C>(in, int64_t(off.v[1]), in_dtype, op_dtype);
    C y;
    if constexpr (kIsIntCompute<C>) y = unary_int(op, x, alpha);
    else y = unary_float<C>(op, x, alpha, op_dtype);
    store_as<C>(out, int64_t(off.v[0]), out_dtype, y);
  }
};

// out[i] = op(a[i], b[i], alpha) computed in C.
template <typename C, typename Index>
struct BinaryFn {
  OffsetCalc<3, Index> calc;
  BinaryKernel op;
  void* out;
  tsr_dtype out_dtype;
  const void* a;
  tsr_dtype a_dtype;
  const void* b;
  tsr_dtype b_dtype;
  tsr_dtype op_dtype;
  C alpha;  // convert<C>(alpha); for bool ops 1 when alpha != 0, else 0

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto off = calc.get(i);
    const C x = load_as<C>(a, int64_t(off.v[1]), a_dtype, op_dtype);
    const C y = load_as<C>(b, int64_t(off.v[2]), b_dtype, op_dtype);
    C r;
    if constexpr (kIsIntCompute<C>) r = binary_int(op, x, y, alpha, op_dtype == TSR_BOOL);
    else r = binary_float<C>(op, x, y, alpha);
    store_as<C>(out, int64_t(off.v[0]), out_dtype, r);
  }
};

// Dropout's noise (ops/dropout.cpp's bernoulli_noise): element i is scale
// when Philox word start + i of seed, shifted right by 8, is below
// threshold, else 0.
struct BernoulliFn {
  void* out;
  tsr_dtype dtype;
  uint64_t seed, start;
  uint32_t threshold;
  double scale;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const uint64_t word = start + uint64_t(i);
    const uint32_t w = philox::block(seed, word / 4).w[word % 4];
    store_wide(out, i, dtype, wide_float((w >> 8) < threshold ? scale : 0.0));
  }
};

}  // namespace tsr::gpu
