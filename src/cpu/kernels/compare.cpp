#include "cpu/kernels/compare.h"

#include <cmath>
#include <type_traits>

#include "core/factory.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/mask_simd.h"
#include "cpu/kernels/strided_loop.h"
#include "cpu/kernels/strided_split.h"

namespace tsr::kernels {
namespace {

// t converted to d (a contiguous copy; the output's layout comes from the
// operands as given, so the copy's does not matter).
Tensor in_dtype(const Tensor& t, tsr_dtype d) { return t.dtype() == d ? t : contiguous_copy(t, d); }

// out[i] = f(a[i], b[i]) for a, b of type T read through their broadcast
// strides (expand views) and out of type O. With `cmp` >= 0 (a simd::Cmp
// computing f, O bool), runs with a unit-stride output and unit-stride or
// broadcast inputs go through the SIMD kernel (mask_simd.h), same answers.
template <typename T, typename O, typename F>
void run_pairs(const Tensor& out, const Tensor& a0, const Tensor& b0, F f, int cmp = -1) {
  const Shape& shape = out.sizes();
  const Tensor a = views::expand(a0, shape), b = views::expand(b0, shape);
  auto g = make_geometry<3>(shape, {byte_strides(out), byte_strides(a), byte_strides(b)});
  parallel_for_each_run<3>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr()),
                               static_cast<char*>(b.data_ptr())},
                           out.numel(), [&](char** p, const int64_t* s, int64_t n) {
                    O* o = reinterpret_cast<O*>(p[0]);
                    const T* x = reinterpret_cast<const T*>(p[1]);
                    const T* y = reinterpret_cast<const T*>(p[2]);
                    const int64_t so = s[0] / int64_t(sizeof(O)), sx = s[1] / int64_t(sizeof(T)),
                                  sy = s[2] / int64_t(sizeof(T));
                    if constexpr (std::is_same_v<O, bool>) {
                      if (cmp >= 0 && so == 1 && (sx == 1 || sy == 1) && sx <= 1 && sy <= 1 && sx >= 0 &&
                          sy >= 0) {
                        const auto bc = sx == 0 ? simd::Bcast::A : sy == 0 ? simd::Bcast::B : simd::Bcast::None;
                        if (simd::compare(simd::Cmp(cmp), a.dtype(), o, x, y, n, bc)) return;
                      }
                    }
                    for (int64_t i = 0; i < n; ++i) o[i * so] = f(x[i * sx], y[i * sy]);
                  });
}

template <typename T, typename F>
Tensor map_same_dtype(const Tensor& a, F f) {
  Tensor out = empty_strided(a.sizes(), output_strides(a.sizes(), {&a}), a.dtype(), a.device());
  if (out.numel() == 0) return out;
  auto g = make_geometry<2>(out.sizes(), {byte_strides(out), byte_strides(a)});
  parallel_for_each_run<2>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr())}, out.numel(),
                           [&](char** p, const int64_t* s, int64_t n) {
                    T* o = reinterpret_cast<T*>(p[0]);
                    const T* x = reinterpret_cast<const T*>(p[1]);
                    const int64_t so = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T));
                    if (so == 1 && sx == 1) {  // unit strides: a loop the compiler vectorises
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * so] = f(x[i * sx]);
                    }
                  });
  return out;
}

}  // namespace

Tensor compare(CompareOp op, const Tensor& a0, const Tensor& b0) {
  TSR_CHECK(a0.device() == b0.device(), TSR_ERR_DEVICE_MISMATCH,
            "Expected all tensors to be on the same device");
  // add's promotion is torch.result_type (without sub's bool refusal).
  const tsr_dtype d = binary_result_dtype(BinaryOp::Add, a0, b0);
  const Shape shape = broadcast_shapes(a0.sizes(), b0.sizes());
  const Tensor a = in_dtype(a0, d), b = in_dtype(b0, d);
  Tensor out = empty_strided(shape, output_strides(shape, {&a0, &b0}), TSR_BOOL, a0.device());
  if (out.numel() == 0) return out;
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    switch (op) {
      case CompareOp::Eq: run_pairs<T, bool>(out, a, b, [](T x, T y) { return C(x) == C(y); }, int(simd::Cmp::Eq)); break;
      case CompareOp::Ne: run_pairs<T, bool>(out, a, b, [](T x, T y) { return C(x) != C(y); }, int(simd::Cmp::Ne)); break;
      case CompareOp::Lt: run_pairs<T, bool>(out, a, b, [](T x, T y) { return C(x) < C(y); }, int(simd::Cmp::Lt)); break;
      case CompareOp::Le: run_pairs<T, bool>(out, a, b, [](T x, T y) { return C(x) <= C(y); }, int(simd::Cmp::Le)); break;
      case CompareOp::Gt: run_pairs<T, bool>(out, a, b, [](T x, T y) { return C(x) > C(y); }, int(simd::Cmp::Gt)); break;
      case CompareOp::Ge: run_pairs<T, bool>(out, a, b, [](T x, T y) { return C(x) >= C(y); }, int(simd::Cmp::Ge)); break;
    }
  });
  return out;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  TSR_CHECK(a.device() == b.device(), TSR_ERR_DEVICE_MISMATCH,
            "Expected all tensors to be on the same device");
  TSR_CHECK(a.dtype() == b.dtype(), TSR_ERR_DTYPE_MISMATCH, dtype_name(a.dtype()),
            " did not match ", dtype_name(b.dtype()));
  const Shape shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor ok = empty_strided(shape, output_strides(shape, {&a, &b}), TSR_BOOL, a.device());
  if (ok.numel() == 0) return true;
  // torch.isclose, element by element in double (exact for every dtype but
  // int64 past 2^53, where torch's own float comparison rounds too).
  dispatch_all(a.dtype(), [&]<typename T>() {
    run_pairs<T, bool>(ok, a, b, [&](T x0, T y0) {
      const double x = convert<double>(x0), y = convert<double>(y0);
      if (x == y) return true;
      if (std::isnan(x) || std::isnan(y)) return equal_nan && std::isnan(x) && std::isnan(y);
      if (std::isinf(x) || std::isinf(y)) return false;
      return std::fabs(x - y) <= atol + rtol * std::fabs(y);
    });
  });
  const bool* p = ok.data<bool>();  // dense: output_strides of a fresh tensor
  for (int64_t i = 0; i < ok.numel(); ++i)
    if (!p[i]) return false;
  return true;
}

Tensor abs(const Tensor& a) {
  TSR_CHECK(a.dtype() != TSR_BOOL, TSR_ERR_DTYPE_MISMATCH, "\"abs_cpu\" not implemented for 'Bool'");
  return dispatch_all(a.dtype(), [&]<typename T>() -> Tensor {
    if constexpr (std::is_same_v<T, bool>) {
      return a;  // refused above
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      using U = std::make_unsigned_t<T>;
      // Through unsigned: |INT_MIN| wraps to itself, as torch's, without UB.
      return map_same_dtype<T>(a, [](T x) { return x < 0 ? T(U(0) - U(x)) : x; });
    } else if constexpr (std::is_integral_v<T>) {
      return map_same_dtype<T>(a, [](T x) { return x; });
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      // The sign bit cleared, without the trip through float: the same bits
      // as fabs in float and the rounding back, NaNs included (float_to_half
      // makes every NaN 0x7e00, float_to_bf16 sets the quiet bit).
      constexpr bool kHalf = std::is_same_v<T, Half>;
      constexpr uint16_t kInf = kHalf ? 0x7c00 : 0x7f80;
      return map_same_dtype<T>(a, [](T x) {
        uint16_t r = uint16_t(x.bits & 0x7fff);
        if (r > kInf) r = kHalf ? uint16_t(0x7e00) : uint16_t(r | 0x40);
        T o;
        o.bits = r;
        return o;
      });
    } else {
      return map_same_dtype<T>(a, [](T x) { return T(std::fabs(compute_t<T>(x))); });
    }
  });
}

Tensor sign(const Tensor& a) {
  return dispatch_all(a.dtype(), [&]<typename T>() -> Tensor {
    using C = compute_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      return map_same_dtype<T>(a, [](T x) { return x; });
    } else {
      // NaN compares false both ways: 0, as torch 1.13's CPU sign gives.
      return map_same_dtype<T>(a, [](T x) {
        const C v = C(x);
        return T(C((C(0) < v) - (v < C(0))));
      });
    }
  });
}

}  // namespace tsr::kernels
