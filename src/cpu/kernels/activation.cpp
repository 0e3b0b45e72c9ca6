#include "cpu/kernels/activation.h"

#include <algorithm>
#include <cmath>

#include "core/layout.h"
#include "cpu/kernels/elementwise_simd.h"
#include "cpu/kernels/integer_simd.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/mask_simd.h"
#include "cpu/kernels/pow_simd.h"
#include "cpu/kernels/strided_split.h"

namespace tsr::kernels {

const char* act_name(Act op) {
  switch (op) {
    case Act::Gelu:
    case Act::GeluTanh: return "gelu";
    case Act::Tanh: return "tanh";
    case Act::Sigmoid: return "sigmoid";
    case Act::Sqrt: return "sqrt";
    case Act::Erf: break;
  }
  return "erf";
}

namespace {

// The kernel name torch 1.13's "not implemented" message gives.
const char* act_kernel(Act op) {
  switch (op) {
    case Act::Gelu:
    case Act::GeluTanh: return "GeluKernelImpl";
    case Act::Tanh: return "tanh_vml_cpu";
    case Act::Sigmoid: return "sigmoid_cpu";
    case Act::Sqrt: return "sqrt_vml_cpu";
    case Act::Erf: break;
  }
  return "erf_vml_cpu";
}

// ATen's GeluKernelImpl / GeluBackwardKernelImpl constants.
constexpr double kSqrt1_2 = 0.70710678118654752440;                   // M_SQRT1_2
constexpr double kAlpha = 1.12837916709551257390 * kSqrt1_2 * 0.5;    // M_2_SQRTPI * M_SQRT1_2 / 2
constexpr double kBeta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5;  // sqrt(2/pi)
constexpr double kKappa = 0.044715;

template <typename C>
C gelu(C x) {
  return x * C(0.5) * (C(1) + std::erf(x * C(kSqrt1_2)));
}
template <typename C>
C gelu_tanh(C x) {
  const C inner = C(kBeta) * (x + C(kKappa) * (x * x * x));
  return C(0.5) * x * (C(1) + std::tanh(inner));
}
template <typename C>
C gelu_backward(C dy, C x) {
  const C cdf = C(0.5) * (C(1) + std::erf(x * C(kSqrt1_2)));
  const C pdf = C(kAlpha) * std::exp(C(-0.5) * x * x);
  return dy * (cdf + x * pdf);
}
template <typename C>
C gelu_tanh_backward(C dy, C x) {
  const C x_sq = x * x;
  const C inner = C(kBeta) * (x + C(kKappa) * x_sq * x);
  const C t = std::tanh(inner);
  const C left = C(0.5) * x, right = C(1) + t;
  const C left_derivative = C(0.5) * right;
  const C right_derivative = C(1) - t * t;
  const C inner_derivative = C(kBeta) * (C(1) + C(3) * C(kKappa) * x_sq);
  return dy * (left_derivative + left * right_derivative * inner_derivative);
}

// A bound or exponent as torch's kernels see it: converted to the element
// type (Scalar::to<scalar_t>), then computed with.
template <typename T>
compute_t<T> as_element(double v) {
  return compute_t<T>(T(compute_t<T>(v)));
}

// The SIMD kernels (elementwise_simd.h) when every operand has out's sizes
// and strides and those are dense (one contiguous run over the storage).
bool dense_alike(const Tensor& out, std::initializer_list<const Tensor*> ins) {
  if (!is_non_overlapping_and_dense(out.sizes(), out.strides())) return false;
  for (const Tensor* t : ins)
    if (t->sizes() != out.sizes() || t->strides() != out.strides()) return false;
  return true;
}

// Element i of a dense operand: the SIMD calls below run on parts [begin,
// end) of the buffers, split across threads (parallel_dense).
char* element(const Tensor& t, int64_t i) { return static_cast<char*>(t.data_ptr()) + i * t.element_size(); }

bool simd_act(Act op, const Tensor& out, const Tensor& x) {
  simd::Un u;
  switch (op) {
    case Act::Gelu: u = simd::Un::Gelu; break;
    case Act::GeluTanh: u = simd::Un::GeluTanh; break;
    case Act::Tanh: u = simd::Un::Tanh; break;
    case Act::Sigmoid: u = simd::Un::Sigmoid; break;
    case Act::Sqrt: u = simd::Un::Sqrt; break;
    case Act::Erf: u = simd::Un::Erf; break;
    default: return false;
  }
  if (!dense_alike(out, {&x})) return false;
  return parallel_dense(out.numel(), [&](int64_t b, int64_t e) {
    return simd::unary(u, out.dtype(), element(out, b), element(x, b), e - b);
  });
}
bool simd_act_backward(Act op, const Tensor& out, const Tensor& g, const Tensor& s) {
  simd::Bin b;
  switch (op) {
    case Act::Gelu: b = simd::Bin::GeluBackward; break;
    case Act::GeluTanh: b = simd::Bin::GeluTanhBackward; break;
    case Act::Erf: b = simd::Bin::ErfBackward; break;
    case Act::Tanh: b = simd::Bin::TanhBackward; break;
    case Act::Sigmoid: b = simd::Bin::SigmoidBackward; break;
    case Act::Sqrt: b = simd::Bin::SqrtBackward; break;
    default: return false;
  }
  if (!dense_alike(out, {&g, &s})) return false;
  return parallel_dense(out.numel(), [&](int64_t i, int64_t e) {
    return simd::binary(b, out.dtype(), element(out, i), element(g, i), element(s, i), e - i, simd::Bcast::None);
  });
}

}  // namespace

tsr_dtype act_result_dtype(Act op, tsr_dtype d) {
  if (is_floating(d)) return d;  // float16: torch 2.x's opmath (torch 1.13 refuses)
  if (op == Act::Gelu || op == Act::GeluTanh) not_implemented(act_name(op), act_kernel(op), d);
  return TSR_FLOAT32;
}

Tensor act(Act op, const Tensor& x0) {
  const tsr_dtype d = act_result_dtype(op, x0.dtype());
  const Tensor x = converted(x0, d);
  Tensor out = new_output(x0.sizes(), {&x0}, d);
  if (simd_act(op, out, x)) return out;
  dispatch_float_opmath(d, act_name(op), act_kernel(op), [&]<typename T>() {
    using C = compute_t<T>;
    const std::array<Tensor, 1> in{x};
    switch (op) {
      case Act::Gelu: map_same<T>(out, [](C v) { return gelu(v); }, in); break;
      case Act::GeluTanh: map_same<T>(out, [](C v) { return gelu_tanh(v); }, in); break;
      case Act::Tanh: map_same<T>(out, [](C v) { return std::tanh(v); }, in); break;
      case Act::Sigmoid: map_same<T>(out, [](C v) { return C(1) / (C(1) + std::exp(-v)); }, in); break;
      case Act::Sqrt: map_same<T>(out, [](C v) { return std::sqrt(v); }, in); break;
      case Act::Erf: map_same<T>(out, [](C v) { return std::erf(v); }, in); break;
    }
  });
  return out;
}

Tensor act_backward(Act op, const Tensor& grad, const Tensor& saved0) {
  const tsr_dtype d = grad.dtype();
  const Tensor saved = converted(saved0, d);
  Tensor out = new_output(grad.sizes(), {&grad, &saved}, d);
  if (simd_act_backward(op, out, grad, saved)) return out;
  dispatch_float_opmath(d, act_name(op), act_kernel(op), [&]<typename T>() {
    using C = compute_t<T>;
    const std::array<Tensor, 2> in{grad, saved};
    switch (op) {
      case Act::Gelu: map_same<T>(out, [](C g, C x) { return gelu_backward(g, x); }, in); break;
      case Act::GeluTanh: map_same<T>(out, [](C g, C x) { return gelu_tanh_backward(g, x); }, in); break;
      case Act::Tanh: map_same<T>(out, [](C g, C y) { return g * (C(1) - y * y); }, in); break;
      case Act::Sigmoid: map_same<T>(out, [](C g, C y) { return g * (C(1) - y) * y; }, in); break;
      case Act::Sqrt: map_same<T>(out, [](C g, C y) { return g / (C(2) * y); }, in); break;
      case Act::Erf:
        map_same<T>(out, [](C g, C x) { return g * C(1.12837916709551257390) * std::exp(-x * x); }, in);
        break;
    }
  });
  return out;
}

// ---- pow ------------------------------------------------------------------

tsr_dtype pow_scalar_result_dtype(tsr_dtype d) { return is_floating(d) ? d : TSR_FLOAT32; }

void check_pow_scalar_exponent(double e, tsr_dtype d) {
  // float and double take the exponent as a double.
  if (d == TSR_FLOAT16 || d == TSR_BFLOAT16) check_scalar_fits(e, d);
}

Tensor pow_scalar(const Tensor& x0, double e) {
  const tsr_dtype d = pow_scalar_result_dtype(x0.dtype());
  const Tensor x = converted(x0, d);
  Tensor out = new_output(x0.sizes(), {&x0}, d);
  check_pow_scalar_exponent(e, d);
  // float32/float64 laid out densely alike: the SIMD kernel (pow_simd.h).
  if (dense_alike(out, {&x}) && parallel_dense(out.numel(), [&](int64_t b, int64_t end) {
        return simd::pow_scalar(d, element(out, b), element(x, b), e, end - b);
      }))
    return out;
  dispatch_floating(d, "pow", [&]<typename T>() {
    using C = compute_t<T>;
    const std::array<Tensor, 1> in{x};
    // sqrt, rsqrt and reciprocal have kernels of their own (not for Half).
    if (d != TSR_FLOAT16 && e == 0.5) return map_same<T>(out, [](C v) { return std::sqrt(v); }, in);
    if (d != TSR_FLOAT16 && e == -0.5) return map_same<T>(out, [](C v) { return C(1) / std::sqrt(v); }, in);
    if (d != TSR_FLOAT16 && e == -1.0) return map_same<T>(out, [](C v) { return C(1) / v; }, in);
    if (d == TSR_FLOAT16) {  // std::pow(base, exp) with exp rounded to Half
      const C ex = as_element<T>(e);
      return map_same<T>(out, [ex](C v) { return std::pow(v, ex); }, in);
    }
    // bfloat16 arithmetic rounds after every operation (BFloat16's
    // operators go through float one at a time); r() is that rounding.
    auto r = [](C v) { return C(T(v)); };
    if (e == 2.0) return map_same<T>(out, [](C v) { return v * v; }, in);
    if (e == 3.0) return map_same<T>(out, [r](C v) { return r(v * v) * v; }, in);
    if (e == -2.0) return map_same<T>(out, [r](C v) { return C(1) / r(v * v); }, in);
    if constexpr (std::is_same_v<T, BFloat16>) {
      const C ex = as_element<T>(e);
      return map_same<T>(out, [ex](C v) { return std::pow(v, ex); }, in);
    } else {  // float and double: the exponent as a double
      return map_same<T>(out, [e](C v) { return C(std::pow(double(v), e)); }, in);
    }
  });
  return out;
}

tsr_dtype pow_result_dtype(const Tensor& a, const Tensor& b) {
  const tsr_dtype d = binary_result_dtype(BinaryOp::Mul, a, b);
  if (d == TSR_BOOL) not_implemented("pow", "pow", d);
  return d;
}

namespace {
// ATen's powi: repeated squaring, wrapping on overflow (done unsigned).
template <typename T>
T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (-(b % 2)) ? T(-1) : T(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<T>;
  uint64_t result = 1, base = uint64_t(U(a));
  while (b) {
    if (b & 1) result = uint64_t(U(result * base));
    b /= 2;
    base = uint64_t(U(base * base));
  }
  return T(U(result));
}

// pow of float/double a, b through the SIMD kernel (pow_simd.h) run by run
// where out is unit-stride and each input unit-stride or broadcast (the
// others element by element, as map_same). Always true: every run is done.
template <typename T>
bool pow_simd_runs(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return true;
  const Shape& shape = out.sizes();
  auto g = make_geometry<3>(shape, {byte_strides(out), broadcast_byte_strides(a, shape),
                                    broadcast_byte_strides(b, shape)});
  constexpr int64_t E = sizeof(T);
  // simd::pow takes 64-byte blocks of a run, then a scalar tail, as ATen: a
  // cut inside a run must fall on a block boundary of it for the one-thread
  // bits, or not inside a run at all.
  constexpr int64_t kBlock = simd::kPowBlockBytes / E;
  const int64_t run = g.sizes.empty() ? 1 : g.sizes[0];
  const int64_t quantum = run % kBlock == 0 ? kBlock : run;
  parallel_for_each_run<3>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr()),
                               static_cast<char*>(b.data_ptr())},
                           out.numel(), [&](char** p, const int64_t* s, int64_t n) {
                    if (s[0] == E && (s[1] == E || s[2] == E) && (s[1] == 0 || s[1] == E) &&
                        (s[2] == 0 || s[2] == E)) {
                      const auto bc = s[1] == 0 ? simd::Bcast::A : s[2] == 0 ? simd::Bcast::B : simd::Bcast::None;
                      if (simd::pow(out.dtype(), p[0], p[1], p[2], n, bc)) return;
                    }
                    for (int64_t i = 0; i < n; ++i)
                      *reinterpret_cast<T*>(p[0] + i * s[0]) = T(std::pow(
                          *reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2])));
                  },
                  quantum);
  return true;
}
}  // namespace

Tensor pow(const Tensor& a0, const Tensor& b0) {
  const tsr_dtype d = pow_result_dtype(a0, b0);
  const Shape shape = broadcast_shapes(a0.sizes(), b0.sizes());
  const Tensor a = converted(a0, d), b = converted(b0, d);
  Tensor out = new_output(shape, {&a0, &b0}, d);
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    const std::array<Tensor, 2> in{a, b};
    if constexpr (std::is_same_v<T, bool>) {
      fail(TSR_ERR_INTERNAL, "pow: unreachable bool");
    } else if constexpr (std::is_integral_v<T>) {
      map_same<T>(out, [](T x, T y) { return powi(x, y); }, in);
    } else {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        if (pow_simd_runs<T>(out, a, b)) return;
      }
      map_same<T>(out, [](C x, C y) { return C(std::pow(x, y)); }, in);
    }
  });
  return out;
}

// ---- clamp ----------------------------------------------------------------

tsr_dtype clamp_result_dtype(tsr_dtype d) { return is_floating(d) ? d : TSR_FLOAT32; }

Tensor clamp(const Tensor& x0, std::optional<double> lo, std::optional<double> hi) {
  TSR_CHECK(lo || hi, TSR_ERR_INVALID_ARGUMENT,
            "torch.clamp: At least one of 'min' or 'max' must not be None");
  const tsr_dtype d = clamp_result_dtype(x0.dtype());
  const char* kernel = lo && hi ? "clamp_scalar_cpu" : lo ? "clamp_min_scalar_cpu" : "clamp_max_scalar_cpu";
  // Scalar::to<scalar_t>: a finite bound beyond the dtype's range fails.
  if (lo) check_scalar_fits(*lo, d);
  if (hi) check_scalar_fits(*hi, d);
  const Tensor x = converted(x0, d);
  Tensor out = new_output(x0.sizes(), {&x0}, d);
  dispatch_float_opmath(d, "clamp", kernel, [&]<typename T>() {
    using C = compute_t<T>;
    const std::array<Tensor, 1> in{x};
    if (lo && hi && (std::isnan(*lo) || std::isnan(*hi))) {  // at::clamp fills NaN
      map_same<T>(out, [](C) { return C(NAN); }, in);
      return;
    }
    const C l = lo ? as_element<T>(*lo) : C(0), h = hi ? as_element<T>(*hi) : C(0);
    if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) {
      // Dense 16-bit floats: converted by blocks and clamped by the SIMD kernel.
      if (dense_alike(out, {&x}) && parallel_dense(out.numel(), [&](int64_t b, int64_t e) {
            return simd::clamp_16bit(d, element(out, b), element(x, b), e - b, lo ? &l : nullptr, hi ? &h : nullptr);
          }))
        return;
    }
    if (lo && hi)
      map_same<T>(out, [l, h](C v) { return std::min(std::max(v, l), h); }, in);
    else if (lo)
      map_same<T>(out, [l](C v) { return std::max(v, l); }, in);
    else
      map_same<T>(out, [h](C v) { return std::min(v, h); }, in);
  });
  return out;
}

// ---- masks ----------------------------------------------------------------

namespace {
// in_range_mask of a dense x by compare()'s SIMD loops (mask_simd.h), in
// chunks of 1024: x >= lo into out, x <= hi into a buffer, then their and
// (a scalar && per byte branches: 5x slower).
// The bounds are elements of x's dtype, as the scalar loop's. False when x
// is not laid out as out.
template <typename T>
bool in_range_simd(const Tensor& out, const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  if (!dense_alike(out, {&x})) return false;
  const T l = T(as_element<T>(lo.value_or(0))), h = T(as_element<T>(hi.value_or(0)));
  bool* o = static_cast<bool*>(out.data_ptr());
  const T* px = static_cast<const T*>(x.data_ptr());
  return parallel_dense(out.numel(), [&](int64_t begin, int64_t end) {
    constexpr int64_t kChunk = 1024;
    bool below_hi[kChunk];
    for (int64_t i = begin; i < end; i += kChunk) {
      const int64_t m = std::min(kChunk, end - i);
      if (lo && !simd::compare(simd::Cmp::Ge, x.dtype(), o + i, px + i, &l, m, simd::Bcast::B)) return false;
      if (!hi) continue;
      if (!simd::compare(simd::Cmp::Le, x.dtype(), lo ? below_hi : o + i, px + i, &h, m, simd::Bcast::B))
        return false;
      // bool mul is logical and (integer_simd.h), vectorized.
      if (lo && !simd::int_binary(simd::Bin::Mul, TSR_BOOL, o + i, o + i, below_hi, m, simd::Bcast::None))
        return false;
    }
    return true;
  });
}
}  // namespace

Tensor in_range_mask(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  Tensor out = new_output(x.sizes(), {&x}, TSR_BOOL);
  dispatch_floating(x.dtype(), "clamp backward", [&]<typename T>() {
    using C = compute_t<T>;
    if (in_range_simd<T>(out, x, lo, hi)) return;
    const C l = lo ? as_element<T>(*lo) : C(0), h = hi ? as_element<T>(*hi) : C(0);
    const bool has_lo = lo.has_value(), has_hi = hi.has_value();
    map<bool, T>(out, [=](C v) { return (!has_lo || v >= l) && (!has_hi || v <= h); }, {x});
  });
  return out;
}

Tensor eq_scalar_mask(const Tensor& x, double v) {
  Tensor out = new_output(x.sizes(), {&x}, TSR_BOOL);
  dispatch_all(x.dtype(), [&]<typename T>() {
    map<bool, T>(out, [v](compute_t<T> e) { return double(e) == v; }, {x});
  });
  return out;
}

Tensor zero_base_mask(const Tensor& x, const Tensor& y) {
  const Shape shape = broadcast_shapes(x.sizes(), y.sizes());
  Tensor out = new_output(shape, {&x, &y}, TSR_BOOL);
  dispatch_all(x.dtype(), [&]<typename T>() {
    dispatch_all(y.dtype(), [&]<typename U>() {
      map<bool, T, U>(out, [](compute_t<T> a, compute_t<U> b) { return double(a) == 0 && double(b) >= 0; },
                      {x, y});
    });
  });
  return out;
}

}  // namespace tsr::kernels
