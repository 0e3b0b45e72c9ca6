// Shared helpers of the emulator tests: CPU tensors with deterministic
// contents (special values included), KernelShape/KernelOperand views of
// them, and comparisons (bit for bit, or within a relative tolerance).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/device_kernels.h"
#include "core/factory.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "kernels/row_path.h"

namespace tsr::gpu::test {

constexpr Stream kNoStream{kCpu, 0};

// The launch name of row op `op` on path p (row_path.h's RowNames).
inline std::string row_launch(const std::string& op, RowPath p) {
  switch (p) {
    case RowPath::OneThread: return op;
    case RowPath::BlockPerRow: return op + "_block";
    case RowPath::Columns: return op + "_columns";
  }
  return op;
}

inline const std::vector<tsr_dtype>& all_dtypes() {
  static const std::vector<tsr_dtype> d{TSR_BOOL,    TSR_UINT8,   TSR_INT8,    TSR_INT16,   TSR_INT32,
                                        TSR_INT64,   TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64,
                                        // storage-only: copied and filled, no math
                                        TSR_UINT16,  TSR_UINT32,  TSR_UINT64,  TSR_FLOAT8_E4M3FN,
                                        TSR_FLOAT8_E5M2};
  return d;
}

// A contiguous float64 tensor of `sizes` with values v(i), then converted
// to dtype by the CPU's copy.
template <typename V>
Tensor make_tensor(const Shape& sizes, tsr_dtype dtype, V v) {
  Tensor d = empty(sizes, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  for (int64_t i = 0; i < d.numel(); ++i) d.data<double>()[i] = v(i);
  return kernels::contiguous_copy(d, dtype);
}

// Mixed values: small integers, fractions, negatives and, for floating
// dtypes, the specials (NaN, +-inf, -0, large) every few elements.
inline Tensor sample(const Shape& sizes, tsr_dtype dtype, int seed = 1, bool specials = true) {
  const bool fp = dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16 || dtype == TSR_FLOAT32 ||
                  dtype == TSR_FLOAT64 || dtype == TSR_FLOAT8_E4M3FN || dtype == TSR_FLOAT8_E5M2;
  return make_tensor(sizes, dtype, [&](int64_t i) {
    const int64_t h = (i * 7919 + seed * 104729) % 1009;
    if (fp && specials) {
      switch (h % 23) {
        case 3: return double(NAN);
        case 5: return double(INFINITY);
        case 7: return -double(INFINITY);
        case 11: return -0.0;
        case 13: return 1e10 * (h % 2 ? 1 : -1);
        default: break;
      }
    }
    if (dtype == TSR_BOOL) return double(h % 2);
    if (dtype == TSR_UINT8) return double(h % 251);
    return fp ? (double(h) - 504.0) / 37.0 : double(h % 201) - 100.0;
  });
}

// Transposing copies: a contiguous tensor of `base` sizes read through
// permute(perm) into a contiguous destination, and whether that copy (same
// dtype) takes the tiled kernel (kernels/tiled_copy.cuh): partial tiles both
// ways, a batch dim before or between the tile dims, NCHW -> NHWC with H and
// W merged, and shapes that stay element-per-thread.
struct TransposeCase {
  Shape base, perm;
  bool tiled;
};
inline const std::vector<TransposeCase>& transpose_cases() {
  static const std::vector<TransposeCase> c{
      {{45, 70}, {1, 0}, true},         // [70, 45]: partial tiles both ways
      {{150, 70}, {1, 0}, true},        // [70, 150]: 2 x 3 tiles
      {{16, 33}, {1, 0}, true},         // the shortest tiled extent, 16
      {{3, 33, 40}, {0, 2, 1}, true},   // batch dim first
      {{33, 3, 40}, {2, 1, 0}, true},   // batch dim between the tile dims
      {{2, 20, 35}, {0, 2, 1}, true},   // NCHW [2,20,5,7] -> NHWC, H*W merged
      {{15, 64}, {1, 0}, false},        // 15 < 16 columns: element per thread
      {{4, 17, 3, 19}, {3, 1, 2, 0}, false},  // last dim 4 long
  };
  return c;
}

// The (from, to) dtype pairs a dense copy converts as 4-element packs
// (kernels/dense_functors.cuh's DenseConversion).
inline const std::vector<std::pair<tsr_dtype, tsr_dtype>>& dense_conversion_pairs() {
  static const std::vector<std::pair<tsr_dtype, tsr_dtype>> p{{TSR_FLOAT32, TSR_FLOAT32},
                                                              {TSR_FLOAT32, TSR_FLOAT16},
                                                              {TSR_FLOAT32, TSR_BFLOAT16},
                                                              {TSR_FLOAT16, TSR_FLOAT32},
                                                              {TSR_BFLOAT16, TSR_FLOAT32}};
  return p;
}

inline KernelShape kshape(const Shape& sizes) {
  KernelShape s{};
  s.ndim = int32_t(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) s.sizes[d] = sizes[d];
  return s;
}

// t as an operand over `sizes` (t broadcasts to it: stride 0 on its size-1
// or missing dims).
inline KernelOperand kop(const Tensor& t, const Shape& sizes) {
  KernelOperand o{t.data_ptr(), t.dtype(), {}};
  const size_t off = sizes.size() - size_t(t.ndim());
  for (size_t d = 0; d < size_t(t.ndim()); ++d)
    o.strides[off + d] = (t.sizes()[d] == 1 && sizes[off + d] != 1) ? 0 : t.strides()[d];
  return o;
}
inline KernelOperand kop(const Tensor& t) { return kop(t, t.sizes()); }

// Contiguous copy's bytes.
inline std::vector<uint8_t> bytes_of(const Tensor& t) {
  Tensor c = kernels::contiguous_copy(t, t.dtype());
  std::vector<uint8_t> b(size_t(c.nbytes()));
  if (!b.empty()) std::memcpy(b.data(), c.data_ptr(), b.size());
  return b;
}

inline ::testing::AssertionResult same_bits(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != actual.dtype() || expected.sizes() != actual.sizes())
    return ::testing::AssertionFailure() << "dtype or sizes differ";
  if (bytes_of(expected) == bytes_of(actual)) return ::testing::AssertionSuccess();
  Tensor e = kernels::contiguous_copy(expected, TSR_FLOAT64), a = kernels::contiguous_copy(actual, TSR_FLOAT64);
  for (int64_t i = 0; i < e.numel(); ++i)
    if (std::memcmp(&e.data<double>()[i], &a.data<double>()[i], 8) != 0)
      return ::testing::AssertionFailure() << "element " << i << ": expected " << e.data<double>()[i]
                                           << ", got " << a.data<double>()[i];
  return ::testing::AssertionFailure() << "bits differ (NaN payloads)";
}

// same_bits, except that any NaN matches any NaN: the sign and payload of a
// NaN produced by arithmetic are unspecified (x86 produces a negative
// default NaN, NVIDIA GPUs the canonical positive one; PyTorch's CPU and
// CUDA results differ the same way).
inline ::testing::AssertionResult same_bits_any_nan(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != actual.dtype() || expected.sizes() != actual.sizes())
    return ::testing::AssertionFailure() << "dtype or sizes differ";
  if (bytes_of(expected) == bytes_of(actual)) return ::testing::AssertionSuccess();
  Tensor e = kernels::contiguous_copy(expected, TSR_FLOAT64), a = kernels::contiguous_copy(actual, TSR_FLOAT64);
  for (int64_t i = 0; i < e.numel(); ++i) {
    const double x = e.data<double>()[i], y = a.data<double>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (std::memcmp(&x, &y, 8) != 0)
      return ::testing::AssertionFailure() << "element " << i << ": expected " << x << ", got " << y;
  }
  return ::testing::AssertionSuccess();
}

// Within rel * max(1, |expected|); NaN matches NaN, infinities match exactly.
inline ::testing::AssertionResult close(const Tensor& expected, const Tensor& actual, double rel) {
  if (expected.dtype() != actual.dtype() || expected.sizes() != actual.sizes())
    return ::testing::AssertionFailure() << "dtype or sizes differ";
  Tensor e = kernels::contiguous_copy(expected, TSR_FLOAT64), a = kernels::contiguous_copy(actual, TSR_FLOAT64);
  for (int64_t i = 0; i < e.numel(); ++i) {
    const double x = e.data<double>()[i], y = a.data<double>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (std::isinf(x) || std::isinf(y) ? x == y : std::fabs(x - y) <= rel * std::max(1.0, std::fabs(x))) continue;
    return ::testing::AssertionFailure() << "element " << i << ": expected " << x << ", got " << y;
  }
  return ::testing::AssertionSuccess();
}

// The tolerance of a transcendental result stored as dtype.
inline double tolerance(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT64: return 1e-13;
    case TSR_FLOAT32: return 4e-6;
    default: return 1e-2;  // one 16-bit ULP
  }
}

// Expects f() to throw tsr::Error with `status`.
template <typename F>
void expect_error(tsr_status status, F f) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), status) << e.what();
    EXPECT_GT(std::strlen(e.what()), 10u);
  }
}

}  // namespace tsr::gpu::test
