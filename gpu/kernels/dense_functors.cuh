// Elementwise functors for dense float32 operands: every operand
// contiguous over the iteration shape and aligned to its pack, so a thread
// moves 4 neighbouring elements with one 16-byte (8 for 16-bit types) load
// or store per operand and no index math (ATen's vectorized elementwise
// path, vec_size 4). The general functors (elementwise_functors.cuh) go
// through a runtime dtype switch and a Wide per element; on an H200 that
// made a + b of 4096^2 float32 2.3x torch's time.
//
// Each functor computes exactly what the general one does for these
// dtypes: float32 through a Wide and back is the identity, the element math
// is the same function (unary_float, binary_float, float_to_half, ...).
// f(c) handles elements [4c, 4c + 4) of n: a whole pack, or the tail one by
// one. Launched over dense_chunks(n) indices by the same grid-stride loop.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/device_kernels.h"
#include "core/half.h"
#include "core/host_device.h"
#include "kernels/element_math.cuh"

namespace tsr::gpu {

constexpr int64_t kDenseVec = 4;

template <typename T>
struct alignas(sizeof(T) * kDenseVec) Pack {
  T v[kDenseVec];
};

inline int64_t dense_chunks(int64_t n) { return (n + kDenseVec - 1) / kDenseVec; }

// Whether op is dense over shape: its strides are shape's contiguous
// strides (size-1 dims may have any stride) and its data is aligned to a
// Pack of `element_bytes`-byte elements.
inline bool dense_operand(const KernelShape& shape, const KernelOperand& op, int64_t element_bytes) {
  if (reinterpret_cast<uintptr_t>(op.data) % uintptr_t(element_bytes * kDenseVec) != 0) return false;
  int64_t expected = 1;
  for (int32_t d = shape.ndim - 1; d >= 0; --d) {
    if (shape.sizes[d] == 1) continue;
    if (op.strides[d] != expected) return false;
    expected *= shape.sizes[d];
  }
  return true;
}

// Whether an elementwise launch over shape takes the float32 pack
// functors: float32 compute, every operand float32 and dense, some element.
template <int N>
bool dense_float32(const KernelShape& shape, tsr_dtype compute, const KernelOperand* const (&ops)[N]) {
  if (compute != TSR_FLOAT32 || shape.numel() == 0) return false;
  for (const KernelOperand* op : ops)
    if (op->dtype != TSR_FLOAT32 || !dense_operand(shape, *op, sizeof(float))) return false;
  return true;
}

// out = op(in, alpha), float32 (UnaryFn<float> with float32 operands).
struct DenseUnaryF32 {
  UnaryKernel op;
  float* out;
  const float* in;
  double alpha;
  int64_t n;

  TSR_HOST_DEVICE void operator()(int64_t c) const {
    const int64_t i = c * kDenseVec;
    if (i + kDenseVec <= n) {
      Pack<float> x = *reinterpret_cast<const Pack<float>*>(in + i);
      for (int64_t k = 0; k < kDenseVec; ++k) x.v[k] = unary_float<float>(op, x.v[k], alpha, TSR_FLOAT32);
      *reinterpret_cast<Pack<float>*>(out + i) = x;
    } else {
      for (int64_t j = i; j < n; ++j) out[j] = unary_float<float>(op, in[j], alpha, TSR_FLOAT32);
    }
  }
};

// out = op(a, b, alpha), float32 (BinaryFn<float> with float32 operands).
struct DenseBinaryF32 {
  BinaryKernel op;
  float* out;
  const float* a;
  const float* b;
  float alpha;
  int64_t n;

  TSR_HOST_DEVICE void operator()(int64_t c) const {
    const int64_t i = c * kDenseVec;
    if (i + kDenseVec <= n) {
      Pack<float> x = *reinterpret_cast<const Pack<float>*>(a + i);
      const Pack<float> y = *reinterpret_cast<const Pack<float>*>(b + i);
      for (int64_t k = 0; k < kDenseVec; ++k) x.v[k] = binary_float<float>(op, x.v[k], y.v[k], alpha);
      *reinterpret_cast<Pack<float>*>(out + i) = x;
    } else {
      for (int64_t j = i; j < n; ++j) out[j] = binary_float<float>(op, a[j], b[j], alpha);
    }
  }
};

// The conversions a dense copy runs as packs: float32 to and from float16
// and bfloat16 (their bits as uint16_t), and float32 to float32.
enum class DenseConversion : int32_t { F32ToF32, F32ToF16, F32ToBF16, F16ToF32, BF16ToF32 };

template <DenseConversion K>
struct DenseConvert {
  static constexpr bool kFromFloat = K == DenseConversion::F32ToF32 || K == DenseConversion::F32ToF16 ||
                                     K == DenseConversion::F32ToBF16;
  using From = std::conditional_t<kFromFloat, float, uint16_t>;
  using To = std::conditional_t<K == DenseConversion::F32ToF16 || K == DenseConversion::F32ToBF16, uint16_t,
                                float>;
  To* dst;
  const From* src;
  int64_t n;

  // CopyFn's store_wide(load_wide(x)) for this pair.
  TSR_HOST_DEVICE static To convert(From x) {
    if constexpr (K == DenseConversion::F32ToF16) return float_to_half(x);
    else if constexpr (K == DenseConversion::F32ToBF16) return float_to_bf16(x);
    else if constexpr (K == DenseConversion::F16ToF32) return half_to_float(x);
    else if constexpr (K == DenseConversion::BF16ToF32) return bf16_to_float(x);
    else return x;
  }

  TSR_HOST_DEVICE void operator()(int64_t c) const {
    const int64_t i = c * kDenseVec;
    if (i + kDenseVec <= n) {
      const Pack<From> x = *reinterpret_cast<const Pack<From>*>(src + i);
      Pack<To> y;
      for (int64_t k = 0; k < kDenseVec; ++k) y.v[k] = convert(x.v[k]);
      *reinterpret_cast<Pack<To>*>(dst + i) = y;
    } else {
      for (int64_t j = i; j < n; ++j) dst[j] = convert(src[j]);
    }
  }
};

// Launches dst <- src as DenseConvert<K> when both are dense for its
// element types; false (nothing launched) otherwise. shape has an element
// (dispatch_copy returns before on an empty one).
template <DenseConversion K, typename Launcher>
bool launch_dense_convert(Launcher& l, const KernelShape& shape, const KernelOperand& dst,
                          const KernelOperand& src) {
  using F = DenseConvert<K>;
  if (!dense_operand(shape, dst, sizeof(typename F::To)) || !dense_operand(shape, src, sizeof(typename F::From)))
    return false;
  const int64_t n = shape.numel();
  l.launch("copy_dense", dense_chunks(n),
           F{static_cast<typename F::To*>(dst.data), static_cast<const typename F::From*>(src.data), n});
  return true;
}

// dst <- src through a DenseConvert when the dtype pair has one and both
// operands are dense; false (nothing launched) otherwise. shape has an
// element.
template <typename Launcher>
bool launch_dense_copy(Launcher& l, const KernelShape& shape, const KernelOperand& dst,
                       const KernelOperand& src) {
  using enum DenseConversion;
  const tsr_dtype to = dst.dtype, from = src.dtype;
  if (from == TSR_FLOAT32 && to == TSR_FLOAT32) return launch_dense_convert<F32ToF32>(l, shape, dst, src);
  if (from == TSR_FLOAT32 && to == TSR_FLOAT16) return launch_dense_convert<F32ToF16>(l, shape, dst, src);
  if (from == TSR_FLOAT32 && to == TSR_BFLOAT16) return launch_dense_convert<F32ToBF16>(l, shape, dst, src);
  if (from == TSR_FLOAT16 && to == TSR_FLOAT32) return launch_dense_convert<F16ToF32>(l, shape, dst, src);
  if (from == TSR_BFLOAT16 && to == TSR_FLOAT32) return launch_dense_convert<BF16ToF32>(l, shape, dst, src);
  return false;
}

}  // namespace tsr::gpu
