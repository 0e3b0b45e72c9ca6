// The vectorized elementwise loops (elementwise_simd.h) against the scalar
// formulas of elementwise.cpp / activation.cpp, on every Highway target this
// CPU supports: bit for bit for the exact ops (add/sub/mul/div, relu, neg,
// sqrt, the relu/tanh/sigmoid/sqrt backwards), every floating dtype, every
// broadcast mode, lengths 0..80 (tails); the SLEEF functions (exp, log,
// tanh, erf, sigmoid, gelu, gelu backward) within a few ulp of std::.
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/dtype.h"
#include "cpu/kernels/elementwise_simd.h"

namespace tsr::kernels::simd {
namespace {

template <typename Fn>
void for_each_target(Fn fn) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    fn();
    if (::testing::Test::HasFailure()) std::printf("  (failed on target %s)\n", hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

template <typename T>
constexpr tsr_dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>) return TSR_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return TSR_FLOAT64;
  else if constexpr (std::is_same_v<T, Half>) return TSR_FLOAT16;
  else return TSR_BFLOAT16;
}

// Inputs with the values that tell kernels apart: signed zeros, infinities,
// NaN, subnormals, then random normals.
template <typename C>
std::vector<C> inputs(size_t n, unsigned seed) {
  const C special[] = {C(0),
                       -C(0),
                       std::numeric_limits<C>::infinity(),
                       -std::numeric_limits<C>::infinity(),
                       std::numeric_limits<C>::quiet_NaN(),
                       std::numeric_limits<C>::denorm_min(),
                       C(-1e-40),
                       C(1),
                       C(-2.5),
                       C(65504),
                       C(1e-3)};
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd(0, 3);
  std::vector<C> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (i + seed) % 7 == 0 ? special[(i + seed) % 11] : C(nd(rng));
  return v;
}

template <typename T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

template <typename T, typename F>
void check_binary(Bin op, F f) {
  using C = compute_t<T>;
  for (Bcast bc : {Bcast::None, Bcast::A, Bcast::B})
    for (size_t n = 0; n <= 80; ++n) {
      const auto ca = inputs<C>(n + 1, 1), cb = inputs<C>(n + 1, 2);
      std::vector<T> a(n + 1), b(n + 1), o(n + 1), want(n + 1);
      for (size_t i = 0; i <= n; ++i) a[i] = T(ca[i]), b[i] = T(cb[i]);
      for (size_t i = 0; i < n; ++i)
        want[i] = T(f(C(a[bc == Bcast::A ? 0 : i]), C(b[bc == Bcast::B ? 0 : i])));
      ASSERT_TRUE(binary(op, dtype_of<T>(), o.data(), a.data(), b.data(), int64_t(n), bc));
      for (size_t i = 0; i < n; ++i)
        ASSERT_TRUE(same_bits(o[i], want[i]))
            << "op " << int(op) << " bcast " << int(bc) << " n " << n << " i " << i << ": " << double(C(o[i]))
            << " want " << double(C(want[i]));
    }
}

template <typename T>
void check_exact_binaries() {
  using C = compute_t<T>;
  check_binary<T>(Bin::Add, [](C x, C y) { return C(x + y); });
  check_binary<T>(Bin::Sub, [](C x, C y) { return C(x - y); });
  check_binary<T>(Bin::Mul, [](C x, C y) { return C(x * y); });
  check_binary<T>(Bin::Div, [](C x, C y) { return C(x / y); });
  check_binary<T>(Bin::ReluBackward, [](C g, C y) { return y <= C(0) ? C(0) : g; });
  check_binary<T>(Bin::TanhBackward, [](C g, C y) { return g * (C(1) - y * y); });
  check_binary<T>(Bin::SigmoidBackward, [](C g, C y) { return g * (C(1) - y) * y; });
  check_binary<T>(Bin::SqrtBackward, [](C g, C y) { return g / (C(2) * y); });
}

TEST(ElementwiseSimd, ExactBinaryOpsBitForBit) {
  for_each_target([] {
    check_exact_binaries<float>();
    check_exact_binaries<double>();
    check_exact_binaries<Half>();
    check_exact_binaries<BFloat16>();
  });
}

template <typename T>
void check_scalar_ops() {
  using C = compute_t<T>;
  const double k = 1.0 / 3.0;  // not representable in the 16-bit types: k stays in C
  for (size_t n = 0; n <= 80; ++n) {
    const auto ca = inputs<C>(n + 1, 3);
    std::vector<T> a(n + 1), o(n + 1);
    for (size_t i = 0; i <= n; ++i) a[i] = T(ca[i]);
    ASSERT_TRUE(binary_scalar(Bin::Mul, dtype_of<T>(), o.data(), a.data(), k, int64_t(n)));
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(o[i], T(C(C(a[i]) * C(k))))) << n << " " << i;
    ASSERT_TRUE(binary_scalar(Bin::Add, dtype_of<T>(), o.data(), a.data(), k, int64_t(n)));
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(o[i], T(C(C(a[i]) + C(k))))) << n << " " << i;
  }
}

TEST(ElementwiseSimd, ScalarOpsKeepTheScalarInComputeType) {
  for_each_target([] {
    check_scalar_ops<float>();
    check_scalar_ops<double>();
    check_scalar_ops<Half>();
    check_scalar_ops<BFloat16>();
  });
}

template <typename T, typename F>
void check_unary(Un op, F f, double ulps) {
  using C = compute_t<T>;
  for (size_t n = 0; n <= 80; ++n) {
    auto ca = inputs<C>(n + 1, 4);
    if (op == Un::Log)
      for (auto& v : ca) v = std::fabs(v);
    std::vector<T> a(n + 1), o(n + 1);
    for (size_t i = 0; i <= n; ++i) a[i] = T(ca[i]);
    ASSERT_TRUE(unary(op, dtype_of<T>(), o.data(), a.data(), int64_t(n)));
    for (size_t i = 0; i < n; ++i) {
      const C want = C(T(f(C(a[i])))), got = C(o[i]);
      if (ulps == 0 || std::isnan(want) || std::isinf(want)) {
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got)) << int(op) << " x=" << double(C(a[i]));
        } else {
          ASSERT_EQ(got, want) << int(op) << " x=" << double(C(a[i]));
        }
        if (ulps == 0) {
          ASSERT_TRUE(same_bits(o[i], T(f(C(a[i]))))) << int(op) << " x=" << double(C(a[i]));
        }
        continue;
      }
      // ulps of the storage type T around the wanted value
      const double eps = std::is_same_v<T, double>  ? 0x1p-52
                         : std::is_same_v<T, float> ? 0x1p-23
                         : std::is_same_v<T, Half>  ? 0x1p-10
                                                    : 0x1p-7;
      // gelu's 1 + erf(x) cancels for x << 0: an ulp of erf is an ulp of |x|
      const double scale = op == Un::Gelu ? std::max(std::fabs(double(want)), std::fabs(double(C(a[i]))))
                                          : std::fabs(double(want));
      const double tol = ulps * eps * std::max(scale, double(std::numeric_limits<C>::min()));
      ASSERT_LE(std::fabs(double(got) - double(want)), tol)
          << "op " << int(op) << " x=" << double(C(a[i])) << " got " << double(got) << " want " << double(want);
    }
  }
}

template <typename T>
void check_unaries() {
  using C = compute_t<T>;
  check_unary<T>(Un::Relu, [](C x) { return x <= C(0) ? C(0) : x; }, 0);
  check_unary<T>(Un::Neg, [](C x) { return C(-x); }, 0);
  check_unary<T>(Un::Sqrt, [](C x) { return std::sqrt(x); }, 0);
  check_unary<T>(Un::Exp, [](C x) { return std::exp(x); }, 2);
  check_unary<T>(Un::Log, [](C x) { return std::log(x); }, 2);
  check_unary<T>(Un::Tanh, [](C x) { return std::tanh(x); }, 2);
  check_unary<T>(Un::Erf, [](C x) { return std::erf(x); }, 2);
  check_unary<T>(Un::Sigmoid, [](C x) { return C(1) / (C(1) + std::exp(-x)); }, 4);
  check_unary<T>(Un::Gelu, [](C x) { return x * C(0.5) * (C(1) + std::erf(x * C(0.70710678118654752440))); },
                 4);
}

TEST(ElementwiseSimd, UnaryOps) {
  for_each_target([] {
    check_unaries<float>();
    check_unaries<double>();
    check_unaries<Half>();
    check_unaries<BFloat16>();
  });
}

// bfloat16 relu and relu backward, which work on the 16-bit patterns
// rather than through float32: every pattern (NaNs of either sign,
// signalling ones included, signed zeros, subnormals) against the float32
// formula rounded once; the backward with every pattern as y against a set
// of g, and as g against a set of y, in each broadcast mode.
TEST(ElementwiseSimd, Bfloat16ReluOnBitsMatchesFloat32Rounded) {
  auto bf = [](uint32_t bits) {
    BFloat16 b;
    b.bits = uint16_t(bits);
    return b;
  };
  auto relu = [](float x) { return x <= 0.0f ? 0.0f : x; };
  auto relu_bwd = [](float g, float y) { return y <= 0.0f ? 0.0f : g; };
  const uint16_t some[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x7f80, 0xff80,
                           0x7fc0, 0xffc0, 0x7f81, 0xff81, 0x7fff, 0x4049};
  for_each_target([&] {
    std::vector<BFloat16> x(65536), o(65536), other(65536);
    for (uint32_t i = 0; i < 65536; ++i) x[i] = bf(i);
    ASSERT_TRUE(unary(Un::Relu, TSR_BFLOAT16, o.data(), x.data(), 65536));
    for (uint32_t i = 0; i < 65536; ++i)
      ASSERT_EQ(o[i].bits, BFloat16(relu(float(x[i]))).bits) << "relu of bits " << std::hex << i;
    for (uint16_t k : some) {
      for (uint32_t i = 0; i < 65536; ++i) other[i] = bf(k);
      // every pattern as y, then as g
      ASSERT_TRUE(binary(Bin::ReluBackward, TSR_BFLOAT16, o.data(), other.data(), x.data(), 65536, Bcast::None));
      for (uint32_t i = 0; i < 65536; ++i)
        ASSERT_EQ(o[i].bits, BFloat16(relu_bwd(bf16_to_float(k), float(x[i]))).bits)
            << "g " << std::hex << k << " y " << i;
      ASSERT_TRUE(binary(Bin::ReluBackward, TSR_BFLOAT16, o.data(), other.data(), x.data(), 65536, Bcast::A));
      for (uint32_t i = 0; i < 65536; ++i)
        ASSERT_EQ(o[i].bits, BFloat16(relu_bwd(bf16_to_float(k), float(x[i]))).bits)
            << "broadcast g " << std::hex << k << " y " << i;
      ASSERT_TRUE(binary(Bin::ReluBackward, TSR_BFLOAT16, o.data(), x.data(), other.data(), 65536, Bcast::B));
      for (uint32_t i = 0; i < 65536; ++i)
        ASSERT_EQ(o[i].bits, BFloat16(relu_bwd(float(x[i]), bf16_to_float(k))).bits)
            << "g " << std::hex << i << " broadcast y " << k;
    }
  });
}

}  // namespace
}  // namespace tsr::kernels::simd
