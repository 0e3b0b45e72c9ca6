// The vectorized integer/bool arithmetic (integer_simd.h), comparisons and
// where (mask_simd.h) and pow (pow_simd.h) against the scalar formulas of
// elementwise.cpp, compare.cpp, indexing.cpp and activation.cpp, on every
// Highway target this CPU supports, bit for bit: every dtype, every
// broadcast mode, lengths 0..80 (tails past every vector length), values at
// the wrapping edges (INT_MIN, -1, the largest values) and NaN, -0.0, inf.
// Each output is written one element short of its buffer, whose last
// element must stay untouched (a tail that writes too far).
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <memory>

#include "core/dtype.h"
#include "cpu/kernels/integer_simd.h"
#include "cpu/kernels/mask_simd.h"
#include "cpu/kernels/pow_simd.h"

namespace tsr::kernels::simd {
namespace {

// A plain array (Buf<bool> has no data()).
template <typename T>
struct Buf {
  explicit Buf(size_t n, T v = T()) : p(new T[n]) { std::fill(p.get(), p.get() + n, v); }
  T* data() { return p.get(); }
  const T* data() const { return p.get(); }
  T& operator[](size_t i) { return p[i]; }
  const T& operator[](size_t i) const { return p[i]; }
  std::unique_ptr<T[]> p;
};

template <typename T>
struct Unsigned {
  using type = std::make_unsigned_t<T>;
};
template <>
struct Unsigned<bool> {
  using type = uint8_t;
};

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
  if constexpr (std::is_same_v<T, bool>) return TSR_BOOL;
  else if constexpr (std::is_same_v<T, uint8_t>) return TSR_UINT8;
  else if constexpr (std::is_same_v<T, int8_t>) return TSR_INT8;
  else if constexpr (std::is_same_v<T, int16_t>) return TSR_INT16;
  else if constexpr (std::is_same_v<T, uint16_t>) return TSR_UINT16;
  else if constexpr (std::is_same_v<T, int32_t>) return TSR_INT32;
  else if constexpr (std::is_same_v<T, uint32_t>) return TSR_UINT32;
  else if constexpr (std::is_same_v<T, int64_t>) return TSR_INT64;
  else if constexpr (std::is_same_v<T, uint64_t>) return TSR_UINT64;
  else if constexpr (std::is_same_v<T, float>) return TSR_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return TSR_FLOAT64;
  else if constexpr (std::is_same_v<T, Half>) return TSR_FLOAT16;
  else return TSR_BFLOAT16;
}

// Values that tell kernels apart, then random ones (small ones repeat, so
// equal pairs occur for the comparisons).
template <typename T>
Buf<T> values(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  Buf<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = (r & 1) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      const T special[] = {T(0), T(1), T(-1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                           T(std::numeric_limits<T>::max() - 1), T(2), T(3)};
      v[i] = r % 3 == 0 ? special[(r >> 8) % 8] : r % 3 == 1 ? T(int64_t(r >> 8) % 5 - 2) : T(r >> 8);
    } else {
      using C = compute_t<T>;
      const C special[] = {C(0), -C(0), std::numeric_limits<C>::infinity(), -std::numeric_limits<C>::infinity(),
                           std::numeric_limits<C>::quiet_NaN(), C(1), C(-1), C(2.5)};
      std::normal_distribution<double> nd(0, 3);
      v[i] = r % 4 == 0 ? T(special[(r >> 8) % 8]) : r % 4 == 1 ? T(C(int(r % 7) - 3)) : T(C(nd(rng)));
    }
  }
  return v;
}

template <typename T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

constexpr Bcast kModes[] = {Bcast::None, Bcast::A, Bcast::B};

// Runs kernel(o, a, b, n, bc) for every n and bcast mode and compares with
// want(x, y) element by element; O the output element type.
template <typename T, typename O, typename K, typename W>
void check_pairs(const char* what, K kernel, W want) {
  for (Bcast bc : kModes)
    for (size_t n = 0; n <= 80; ++n) {
      const auto a = values<T>(n + 1, unsigned(n) * 3 + 1), b = values<T>(n + 1, unsigned(n) * 3 + 2);
      Buf<O> o(n + 1);
      const O guard = o[n] = O(1);
      ASSERT_TRUE(kernel(o.data(), a.data(), b.data(), int64_t(n), bc)) << what;
      for (size_t i = 0; i < n; ++i) {
        const O w = want(a[bc == Bcast::A ? 0 : i], b[bc == Bcast::B ? 0 : i]);
        ASSERT_TRUE(same_bits(o[i], w)) << what << " dtype " << dtype_name(dtype_of<T>()) << " bcast "
                                        << int(bc) << " n " << n << " i " << i;
      }
      ASSERT_TRUE(same_bits(o[n], guard)) << what << " wrote past n=" << n;
    }
}

template <typename T>
void check_int_arith() {
  using U = typename Unsigned<T>::type;
  auto kernel = [](Bin op) {
    return [op](T* o, const T* a, const T* b, int64_t n, Bcast bc) {
      return int_binary(op, dtype_of<T>(), o, a, b, n, bc);
    };
  };
  if constexpr (std::is_same_v<T, bool>) {
    check_pairs<T, T>("bool add", kernel(Bin::Add), [](T x, T y) { return x || y; });
    check_pairs<T, T>("bool mul", kernel(Bin::Mul), [](T x, T y) { return x && y; });
    bool o = false, x = true;
    EXPECT_FALSE(int_binary(Bin::Sub, TSR_BOOL, &o, &x, &x, 1, Bcast::None));
  } else {
    check_pairs<T, T>("add", kernel(Bin::Add), [](T x, T y) { return T(U(U(x) + U(y))); });
    check_pairs<T, T>("sub", kernel(Bin::Sub), [](T x, T y) { return T(U(U(x) - U(y))); });
    check_pairs<T, T>("mul", kernel(Bin::Mul), [](T x, T y) { return T(U(uint64_t(U(x)) * uint64_t(U(y)))); });
    T o = 0, x = 1;
    EXPECT_FALSE(int_binary(Bin::Div, dtype_of<T>(), &o, &x, &x, 1, Bcast::None));  // integers divide in float32
    for (size_t n = 0; n <= 80; ++n) {
      const auto a = values<T>(n + 1, unsigned(n) + 7);
      Buf<T> neg(n + 1), relu(n + 1);
      ASSERT_TRUE(int_unary(Un::Neg, dtype_of<T>(), neg.data(), a.data(), int64_t(n)));
      ASSERT_TRUE(int_unary(Un::Relu, dtype_of<T>(), relu.data(), a.data(), int64_t(n)));
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(neg[i], T(U(U(0) - U(a[i])))) << n << " " << i;
        ASSERT_EQ(relu[i], a[i] <= T(0) ? T(0) : a[i]) << n << " " << i;
      }
      ASSERT_EQ(neg[n], T(0));
      ASSERT_EQ(relu[n], T(0));
    }
  }
}

TEST(IntegerSimd, AddSubMulNegReluWrapBitForBitInEveryIntegerDtype) {
  for_each_target([] {
    check_int_arith<bool>();
    check_int_arith<uint8_t>();
    check_int_arith<int8_t>();
    check_int_arith<int16_t>();
    check_int_arith<uint16_t>();
    check_int_arith<int32_t>();
    check_int_arith<uint32_t>();
    check_int_arith<int64_t>();
    check_int_arith<uint64_t>();
  });
}

TEST(IntegerSimd, FloatDtypesAreNotTaken) {
  float o = 0, x = 1;
  EXPECT_FALSE(int_binary(Bin::Add, TSR_FLOAT32, &o, &x, &x, 1, Bcast::None));
  EXPECT_FALSE(int_unary(Un::Neg, TSR_FLOAT32, &o, &x, 1));
  EXPECT_FALSE(int_unary(Un::Exp, TSR_INT32, &o, &x, 1));
}

template <typename T>
void check_compares() {
  using C = compute_t<T>;
  auto kernel = [](Cmp op) {
    return [op](bool* o, const T* a, const T* b, int64_t n, Bcast bc) {
      return compare(op, dtype_of<T>(), o, a, b, n, bc);
    };
  };
  check_pairs<T, bool>("eq", kernel(Cmp::Eq), [](T x, T y) { return C(x) == C(y); });
  check_pairs<T, bool>("ne", kernel(Cmp::Ne), [](T x, T y) { return C(x) != C(y); });
  check_pairs<T, bool>("lt", kernel(Cmp::Lt), [](T x, T y) { return C(x) < C(y); });
  check_pairs<T, bool>("le", kernel(Cmp::Le), [](T x, T y) { return C(x) <= C(y); });
  check_pairs<T, bool>("gt", kernel(Cmp::Gt), [](T x, T y) { return C(x) > C(y); });
  check_pairs<T, bool>("ge", kernel(Cmp::Ge), [](T x, T y) { return C(x) >= C(y); });
}

TEST(MaskSimd, ComparisonsInEveryDtypeNanComparesFalseExceptNe) {
  for_each_target([] {
    check_compares<bool>();
    check_compares<uint8_t>();
    check_compares<int8_t>();
    check_compares<int16_t>();
    check_compares<uint16_t>();
    check_compares<int32_t>();
    check_compares<uint32_t>();
    check_compares<int64_t>();
    check_compares<uint64_t>();
    check_compares<float>();
    check_compares<double>();
    check_compares<Half>();
    check_compares<BFloat16>();
  });
}

template <typename T>
void check_select() {
  for (int bits = 0; bits < 8; ++bits)
    for (size_t n = 0; n <= 80; ++n) {
      const auto a = values<T>(n + 1, unsigned(n) + 11), b = values<T>(n + 1, unsigned(n) + 12);
      Buf<uint8_t> c(n + 1);
      for (size_t i = 0; i <= n; ++i) c[i] = uint8_t((i * 7 + n) % 3 == 0 ? 0 : (i % 2 ? 1 : 0x80));
      Buf<T> o(n + 1, T(0));
      const T z[1] = {T(0)};
      const bool cb = bits & 1, ab = bits & 2, bb = bits & 4;
      ASSERT_TRUE(select(int(sizeof(T)), o.data(), reinterpret_cast<const bool*>(c.data()), a.data(), b.data(),
                         int64_t(n), cb, ab, bb));
      for (size_t i = 0; i < n; ++i) {
        const T want = c[cb ? 0 : i] ? a[ab ? 0 : i] : b[bb ? 0 : i];
        ASSERT_TRUE(same_bits(o[i], want)) << "size " << sizeof(T) << " bits " << bits << " n " << n << " i " << i;
      }
      ASSERT_TRUE(same_bits(o[n], z[0])) << "wrote past n=" << n;
    }
}

TEST(MaskSimd, WhereMovesBitsForEveryElementSizeAndBroadcast) {
  for_each_target([] {
    check_select<uint8_t>();
    check_select<Half>();
    check_select<float>();
    check_select<double>();
  });
  float o = 0, x = 1;
  bool c = true;
  EXPECT_FALSE(select(3, &o, &c, &x, &x, 1, false, false, false));
}

// pow_scalar against activation.cpp's scalar formulas: the special
// exponents bit for bit; a general one bit for bit on the scalar tail and,
// on the vector body, within an ulp of pow(x, T(e)) in double (SLEEF's u10
// with the exponent rounded to T, as torch's vectorized pow).
template <typename T>
void check_pow_scalar() {
  for (double e : {2.0, 3.0, -2.0, 0.5, -0.5, -1.0, 2.5, -1.3, 0.0, 1.0}) {
    for (size_t n = 0; n <= 80; ++n) {
      auto x = values<T>(n + 1, unsigned(n) + 21);
      for (size_t k = 0; k <= n; ++k) x[k] = std::fabs(x[k]) * T(1.5);
      if (n > 3) x[3] = -x[3];  // a negative base: NaN for a fractional exponent
      Buf<T> o(n + 1, T(0));
      ASSERT_TRUE(pow_scalar(dtype_of<T>(), o.data(), x.data(), e, int64_t(n)));
      const size_t block = 64 / sizeof(T), body = n - n % block;
      for (size_t i = 0; i < n; ++i) {
        const T v = x[i];
        T want;
        if (e == 2.0) want = v * v;
        else if (e == 3.0) want = v * v * v;
        else if (e == -2.0) want = T(1) / (v * v);
        else if (e == 0.5) want = std::sqrt(v);
        else if (e == -0.5) want = T(1) / std::sqrt(v);
        else if (e == -1.0) want = T(1) / v;
        else want = T(std::pow(double(v), e));
        const bool exact = i >= body || e == 2.0 || e == 3.0 || e == -2.0 || e == 0.5 || e == -0.5 || e == -1.0;
        if (exact || std::isnan(want) || std::isinf(want) || want == 0) {
          if (std::isnan(want)) ASSERT_TRUE(std::isnan(o[i])) << e << " " << n << " " << i;
          else ASSERT_TRUE(same_bits(o[i], want)) << "e " << e << " n " << n << " i " << i << " x " << v
                                                  << " got " << o[i] << " want " << want;
        } else {
          // targets without SLEEF compute the body as the tail
          if (same_bits(o[i], want)) continue;
          // SLEEF's body takes the exponent as T(e), as torch's Vectorized<float>(exp)
          want = T(std::pow(double(v), double(T(e))));
          const double ulp = std::is_same_v<T, float> ? 0x1p-23 : 0x1p-52;
          // one ulp of want is at most 2^-23 (2^-52) of 2|want|
          ASSERT_LE(std::fabs(double(o[i]) - double(want)), 2 * ulp * std::fabs(double(want)))
              << e << " " << n << " " << i;
        }
      }
      ASSERT_EQ(o[n], T(0)) << "wrote past n=" << n;
    }
  }
  T o = 0, x = 1;
  EXPECT_FALSE(pow_scalar(TSR_INT32, &o, &x, 2.0, 1));
}

template <typename T>
void check_pow_tensor() {
  for (Bcast bc : kModes)
    for (size_t n = 0; n <= 80; ++n) {
      auto a = values<T>(n + 1, unsigned(n) + 31), b = values<T>(n + 1, unsigned(n) + 32);
      Buf<T> o(n + 1, T(0));
      ASSERT_TRUE(pow(dtype_of<T>(), o.data(), a.data(), b.data(), int64_t(n), bc));
      const size_t block = 64 / sizeof(T), body = n - n % block;
      for (size_t i = 0; i < n; ++i) {
        const T want = std::pow(a[bc == Bcast::A ? 0 : i], b[bc == Bcast::B ? 0 : i]);
        if (i >= body || std::isnan(want) || std::isinf(want) || want == 0) {
          if (std::isnan(want)) ASSERT_TRUE(std::isnan(o[i])) << n << " " << i;
          else ASSERT_TRUE(same_bits(o[i], want)) << "bcast " << int(bc) << " n " << n << " i " << i;
        } else {
          const double ulp = std::is_same_v<T, float> ? 0x1p-23 : 0x1p-52;
          ASSERT_LE(std::fabs(double(o[i]) - double(want)), 2 * ulp * std::fabs(double(want))) << n << " " << i;
        }
      }
      ASSERT_EQ(o[n], T(0)) << "wrote past n=" << n;
    }
}

TEST(PowSimd, SpecialExponentsBitForBitOthersTheScalarTailExact) {
  for_each_target([] {
    check_pow_scalar<float>();
    check_pow_scalar<double>();
    check_pow_tensor<float>();
    check_pow_tensor<double>();
  });
}

}  // namespace
}  // namespace tsr::kernels::simd
