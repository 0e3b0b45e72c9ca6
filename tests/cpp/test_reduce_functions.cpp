// The element-wise reductions the process groups hand to Gloo
// (distributed/reduce_functions.h) against the scalar loop Gloo's own
// gloo::sum<T> / gloo::product<T> run (c[i] = a[i] op b[i], the 16-bit
// floats widened and rounded once): bit for bit, for every floating dtype,
// lengths 0..80 (vector tails) and one of 2^18 + 3, out of place and in
// place (c == a, as Gloo's ring calls it), on every Highway target this
// CPU supports (SUM and PRODUCT run the elementwise kernels' SIMD loop).
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/dtype.h"
#include "core/half.h"
#include "distributed/reduce_functions.h"

namespace tsr::distributed {
namespace {

template <typename T>
constexpr tsr_dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>) return TSR_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return TSR_FLOAT64;
  else if constexpr (std::is_same_v<T, Half>) return TSR_FLOAT16;
  else return TSR_BFLOAT16;
}

// The type the 16-bit floats compute in.
template <typename T>
using wide_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Random normals with signed zeros, infinities, NaN and subnormals among them.
template <typename T>
std::vector<T> inputs(size_t n, unsigned seed) {
  using W = wide_t<T>;
  const W special[] = {W(0), -W(0), std::numeric_limits<W>::infinity(), -std::numeric_limits<W>::infinity(),
                       std::numeric_limits<W>::quiet_NaN(), std::numeric_limits<W>::denorm_min(), W(1e-3),
                       W(65504)};
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd(0, 3);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T((i + seed) % 5 == 0 ? special[(i + seed) % 8] : W(nd(rng)));
  return v;
}

template <typename T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

template <typename T>
void check(tsr_reduce_op op, size_t n, bool in_place) {
  using W = wide_t<T>;
  const std::vector<T> a = inputs<T>(n, 1), b = inputs<T>(n, 2);
  std::vector<T> want(n);
  for (size_t i = 0; i < n; ++i)
    want[i] = T(op == TSR_REDUCE_PRODUCT ? W(a[i]) * W(b[i]) : W(a[i]) + W(b[i]));
  std::vector<T> c = in_place ? a : std::vector<T>(n);
  reduce_function(dtype_of<T>(), op)(c.data(), in_place ? c.data() : a.data(), b.data(), n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_TRUE(same_bits(c[i], want[i])) << dtype_name(dtype_of<T>()) << " op " << reduce_op_name(op) << " n " << n
                                          << (in_place ? " in place" : "") << " i " << i << ": " << double(W(c[i]))
                                          << ", want " << double(W(want[i]));
}

template <typename T>
void check_dtype() {
  for (tsr_reduce_op op : {TSR_REDUCE_SUM, TSR_REDUCE_AVG, TSR_REDUCE_PRODUCT})
    for (bool in_place : {false, true}) {
      for (size_t n = 0; n <= 80; ++n) check<T>(op, n, in_place);
      check<T>(op, (size_t(1) << 18) + 3, in_place);
    }
}

TEST(ReduceFunctions, SumAndProductGiveGloosScalarBits) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    check_dtype<float>();
    check_dtype<double>();
    check_dtype<Half>();
    check_dtype<BFloat16>();
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace tsr::distributed
