// The vectorized conversions of the CPU copy kernel (convert_simd.h,
// convert_run.h) against the scalar conversions that define them
// (tsr::convert<To>(From), core/half.h): bit for bit, on every Highway target
// this CPU supports (the F16C hardware path and the integer-SIMD path on an
// AVX2 machine), with and without streaming stores, at odd sizes and offsets.
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "cpu/kernels/convert_run.h"
#include "cpu/kernels/convert_simd.h"

namespace tsr::kernels {
namespace {

// Runs fn once per Highway target this CPU supports, the dispatch forced to
// that target; restores the normal choice afterwards.
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

uint32_t bits(float f) { return float_bits(f); }

// Float inputs that stress the float -> 16-bit roundings: specials, every
// half and bfloat16 value, the midpoints between neighbours (ties) and one
// float ulp either side, values around the overflow and subnormal
// thresholds, and a sweep over all exponents.
std::vector<float> float_cases() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f,
                          65536.0f, 1e30f, -1e30f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::signaling_NaN(),
                          std::numeric_limits<float>::denorm_min(),
                          -std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(), 5.9604645e-8f, 2.9802322e-8f,
                          6.097555e-5f, 6.1035156e-5f, 3e9f, -3e9f, 2147483648.0f,
                          -2147483648.0f, 9.3e18f, -9.3e18f, 255.5f, 256.0f, -128.5f, 0.5f, -0.5f};
  for (uint32_t u : {0x7f800001u, 0x7fc00001u, 0xffbfffffu, 0x7fffffffu, 0xffffffffu, 0x7f80e000u,
                     0x7fa00000u, 0x477ff000u, 0x477fefffu, 0x38800000u, 0x387fffffu, 0x33000000u,
                     0x33000001u, 0x32ffffffu, 0x3f808000u, 0x3f818000u, 0x7f7f8000u, 0xff7f8000u})
    v.push_back(bits_float(u));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t f = float_bits(half_to_float(uint16_t(h)));
    v.push_back(bits_float(f));
    // 13 dropped bits: the tie is 0x1000 above a half value; also 1 ulp off.
    for (uint32_t d : {0xfffu, 0x1000u, 0x1001u}) v.push_back(bits_float(f + d));
    const uint32_t b = h << 16;  // every bfloat16 value, its ties and neighbours
    for (uint32_t d : {0u, 0x7fffu, 0x8000u, 0x8001u}) v.push_back(bits_float(b + d));
  }
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 65537 * 13) v.push_back(bits_float(uint32_t(u)));
  return v;
}

TEST(ConvertSimd, TargetsTested) {
  std::printf("  dispatch picks %s; tested:", convert_simd_target());
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) std::printf(" %s", hwy::TargetName(target));
  std::printf("\n");
}

TEST(ConvertSimd, HalfToFloatEveryValue) {
  std::vector<uint16_t> src(0x10000 + 3);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint16_t(i);
  for_each_target([&] {
    for (bool stream : {false, true})
      for (size_t off : {0, 1, 3}) {
        std::vector<float> dst(src.size() + 8, -1.0f);
        half_to_float_n(src.data() + off, dst.data() + off, int64_t(src.size() - off), stream);
        for (size_t i = off; i < src.size(); ++i)
          ASSERT_EQ(bits(dst[i]), bits(half_to_float(src[i]))) << "half bits " << src[i];
        ASSERT_EQ(dst[src.size()], -1.0f) << "wrote past the end";
      }
  });
}

TEST(ConvertSimd, Bf16ToFloatEveryValue) {
  std::vector<uint16_t> src(0x10000 + 5);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint16_t(i);
  for_each_target([&] {
    for (bool stream : {false, true}) {
      std::vector<float> dst(src.size());
      bf16_to_float_n(src.data(), dst.data(), int64_t(src.size()), stream);
      for (size_t i = 0; i < src.size(); ++i)
        ASSERT_EQ(bits(dst[i]), bits(bf16_to_float(src[i]))) << "bf16 bits " << src[i];
    }
  });
}

TEST(ConvertSimd, FloatToHalfAndBf16SpecialValuesTiesAndSweep) {
  const std::vector<float> src = float_cases();
  for_each_target([&] {
    for (bool stream : {false, true})
      for (size_t off : {0, 1, 7}) {
        const int64_t n = int64_t(src.size() - off);
        std::vector<uint16_t> h(src.size() + 16, 0xabcd), b(src.size() + 16, 0xabcd);
        float_to_half_n(src.data() + off, h.data() + off, n, stream);
        float_to_bf16_n(src.data() + off, b.data() + off, n, stream);
        for (size_t i = off; i < src.size(); ++i) {
          ASSERT_EQ(h[i], float_to_half(src[i])) << std::hex << "float bits 0x" << bits(src[i]);
          ASSERT_EQ(b[i], float_to_bf16(src[i])) << std::hex << "float bits 0x" << bits(src[i]);
        }
        ASSERT_EQ(h[src.size()], 0xabcd) << "wrote past the end";
        ASSERT_EQ(b[src.size()], 0xabcd) << "wrote past the end";
      }
  });
}

// Values of every kind as doubles; each dtype gets them through convert<>
// from double (the way a user's data would arrive), so the sources hold
// NaN, infinities, signed zeros, subnormals and out-of-range values.
std::vector<double> double_cases() {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.0, 128.0, 255.0,
                           256.0, -129.0, 32767.5, 65504.0, 65520.0, 1e10, -1e10, 3e9, -3e9,
                           9.3e18, -9.3e18, 1e300, -1e300, 1e-300, 5.9604645e-8, 1e-45, -1e-45,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           -std::numeric_limits<double>::quiet_NaN(), 1.0 / 3, 2049.0, 16777217.0};
  for (int i = 0; i < 200; ++i) v.push_back(std::ldexp(1.0 + i / 7.0, i % 70 - 35) * (i % 3 ? 1 : -1));
  return v;
}

// convert_run<To, From> for one pair over runs of several shapes (contiguous
// of odd lengths, broadcast, strided), against convert<To> per element.
template <typename To, typename From>
void check_pair() {
  const std::vector<double> cases = double_cases();
  const int64_t n = int64_t(cases.size()) * 4 + 3;  // odd, so SIMD tails run
  // Arrays, not vectors: std::vector<bool> has no data().
  std::unique_ptr<From[]> src(new From[size_t(2 * n)]());
  for (int64_t i = 0; i < 2 * n; ++i) src[size_t(i)] = convert<From>(cases[size_t(i) % cases.size()]);
  auto expect = [](const From& v) { return convert<To>(v); };
  auto same = [](const To& a, const To& b) { return std::memcmp(&a, &b, sizeof(To)) == 0; };
  const char* s = reinterpret_cast<const char*>(src.get());
  for (bool stream : {false, true})
    for (int64_t len : {int64_t(1), int64_t(7), int64_t(33), n}) {
      std::unique_ptr<To[]> dst(new To[size_t(2 * n)]());
      char* d = reinterpret_cast<char*>(dst.get());
      convert_run<To, From>(d, sizeof(To), s, sizeof(From), len, stream);  // contiguous
      for (int64_t i = 0; i < len; ++i)
        ASSERT_TRUE(same(dst[size_t(i)], expect(src[size_t(i)]))) << "contiguous, element " << i;
      convert_run<To, From>(d, sizeof(To), s + 5 * sizeof(From), 0, len, stream);  // broadcast
      for (int64_t i = 0; i < len; ++i)
        ASSERT_TRUE(same(dst[size_t(i)], expect(src[5]))) << "broadcast, element " << i;
      convert_run<To, From>(d, 2 * sizeof(To), s, 2 * sizeof(From), len, stream);  // step 2
      for (int64_t i = 0; i < len; ++i)
        ASSERT_TRUE(same(dst[size_t(2 * i)], expect(src[size_t(2 * i)]))) << "strided, element " << i;
    }
}

TEST(ConvertRun, EveryDtypePairMatchesScalarConvert) {
  const tsr_dtype all[] = {TSR_BOOL,    TSR_UINT8,    TSR_INT8,    TSR_INT16,   TSR_INT32,
                           TSR_INT64,   TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};
  for_each_target([&] {
    for (tsr_dtype to : all)
      for (tsr_dtype from : all) {
        SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + dtype_name(to));
        dispatch_all(to, [&]<typename To>() {
          dispatch_all(from, [&]<typename From>() { check_pair<To, From>(); });
        });
      }
  });
}

}  // namespace
}  // namespace tsr::kernels
