// GradScaler's fused check and unscale (unscale_functor.cuh) run by the
// grid emulator: values equal the CPU's rule (value * inv_scale in float,
// double for float64, rounded to the gradient's dtype), found_inf set by a
// non-finite value in any gradient, at any position (chunk edges
// included), and one launch for up to kMaxUnscaleTensors gradients.
#include <cmath>
#include <limits>
#include <vector>

#include "core/half.h"
#include "emulator/emulated_kernels.h"
#include "emulator_test_util.h"

namespace tsr::gpu::test {
namespace {

template <typename T>
std::vector<T> values(size_t n, float base) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(base + 0.37f * float(i) - 2.0f);
  return v;
}

// CPU rule for one element.
template <typename T>
T unscaled(T v, float inv) {
  if constexpr (std::is_same_v<T, double>) return v * double(inv);
  else return T(float(v) * inv);
}

struct Grads {
  std::vector<float> f32 = values<float>(300, 1.0f);
  std::vector<double> f64 = values<double>(7, 2.0f);
  std::vector<BFloat16> bf16 = values<BFloat16>(65, 3.0f);
  std::vector<Half> f16 = values<Half>(1, 4.0f);
  std::vector<float> empty;

  UnscaleArgs args(float inv, float* found) {
    UnscaleArgs a{};
    a.inv_scale = inv;
    a.found_inf = found;
    int64_t end = 0;
    auto add = [&](void* p, tsr_dtype d, size_t n) {
      end += int64_t(n);
      a.data[a.count] = p;
      a.dtypes[a.count] = d;
      a.ends[a.count] = end;
      ++a.count;
    };
    add(f32.data(), TSR_FLOAT32, f32.size());
    add(empty.data(), TSR_FLOAT32, 0);  // an empty gradient between two others
    add(f64.data(), TSR_FLOAT64, f64.size());
    add(bf16.data(), TSR_BFLOAT16, bf16.size());
    add(f16.data(), TSR_FLOAT16, f16.size());
    return a;
  }
};

TEST(EmulatedUnscale, ScalesEveryDtypeAsTheCpuAndFindsNothing) {
  Grads g;
  const Grads before = g;
  float found = 0.0f;
  EmulatedKernels k;
  k.non_finite_check_and_unscale(g.args(0.125f / 3.0f, &found), kNoStream);
  EXPECT_EQ(found, 0.0f);
  const float inv = 0.125f / 3.0f;
  for (size_t i = 0; i < g.f32.size(); ++i) EXPECT_EQ(g.f32[i], unscaled(before.f32[i], inv)) << i;
  for (size_t i = 0; i < g.f64.size(); ++i) EXPECT_EQ(g.f64[i], unscaled(before.f64[i], inv)) << i;
  for (size_t i = 0; i < g.bf16.size(); ++i)
    EXPECT_EQ(float(g.bf16[i]), float(unscaled(before.bf16[i], inv))) << i;
  EXPECT_EQ(float(g.f16[0]), float(unscaled(before.f16[0], inv)));
  ASSERT_EQ(k.launches().size(), 1u);  // five gradients, one launch
}

TEST(EmulatedUnscale, AnyNonFiniteElementSetsFoundInf) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // The first and last element of each gradient, and one in the middle.
  for (int where = 0; where < 6; ++where) {
    Grads g;
    switch (where) {
      case 0: g.f32.front() = inf; break;
      case 1: g.f32.back() = -inf; break;
      case 2: g.f64.front() = double(nan); break;
      case 3: g.bf16[32] = BFloat16(inf); break;
      case 4: g.bf16.back() = BFloat16(nan); break;
      default: g.f16.back() = Half(inf); break;
    }
    float found = 0.0f;
    EmulatedKernels k;
    k.non_finite_check_and_unscale(g.args(0.5f, &found), kNoStream);
    EXPECT_EQ(found, 1.0f) << "case " << where;
    // Finite neighbours are still unscaled (torch unscales every element).
    EXPECT_EQ(g.f32[1], unscaled(Grads().f32[1], 0.5f)) << "case " << where;
  }
  // found_inf is never cleared: a clean launch after a dirty one keeps 1.
  Grads g;
  float found = 1.0f;
  EmulatedKernels k;
  k.non_finite_check_and_unscale(g.args(1.0f, &found), kNoStream);
  EXPECT_EQ(found, 1.0f);
}

TEST(EmulatedUnscale, BadArgumentsWriteNothing) {
  Grads g;
  const std::vector<float> f32 = g.f32;
  float found = 0.0f;
  EmulatedKernels k;
  UnscaleArgs a = g.args(0.5f, &found);
  a.dtypes[2] = TSR_INT32;
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.non_finite_check_and_unscale(a, kNoStream); });
  a = g.args(0.5f, &found);
  a.count = 0;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.non_finite_check_and_unscale(a, kNoStream); });
  a = g.args(0.5f, &found);
  a.count = kMaxUnscaleTensors + 1;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.non_finite_check_and_unscale(a, kNoStream); });
  a = g.args(0.5f, &found);
  a.ends[3] = 2;  // decreasing
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.non_finite_check_and_unscale(a, kNoStream); });
  a = g.args(0.5f, nullptr);
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.non_finite_check_and_unscale(a, kNoStream); });
  EXPECT_EQ(g.f32, f32);
  EXPECT_EQ(found, 0.0f);
  EXPECT_TRUE(k.launches().empty());
}

}  // namespace
}  // namespace tsr::gpu::test
