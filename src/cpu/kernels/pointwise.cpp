#include "cpu/kernels/pointwise.h"

#include <algorithm>
#include <cmath>

#include <optional>

#include "cpu/kernels/map.h"

namespace tsr::kernels {

const char* pw_name(Pw op) {
  switch (op) {
    case Pw::Silu: return "silu";
    case Pw::LeakyRelu: return "leaky_relu";
    case Pw::Elu: return "elu";
    case Pw::Softplus: return "softplus";
    case Pw::Hardtanh: return "hardtanh";
    case Pw::Sin: return "sin";
    case Pw::Cos: return "cos";
    case Pw::Rsqrt: return "rsqrt";
    case Pw::Reciprocal: return "reciprocal";
    case Pw::Floor: return "floor";
    case Pw::Ceil: return "ceil";
    case Pw::Round: return "round";
    case Pw::Trunc: return "trunc";
    case Pw::Sign: break;
  }
  return "sign";
}

namespace {

// The kernel name torch 1.13's "not implemented" message gives.
const char* pw_kernel(Pw op) {
  switch (op) {
    case Pw::Silu: return "silu_cpu";
    case Pw::LeakyRelu: return "leaky_relu_cpu";
    case Pw::Elu: return "elu_cpu";
    case Pw::Softplus: return "softplus_cpu";
    case Pw::Hardtanh: return "clamp_scalar_cpu";
    case Pw::Sin: return "sin_vml_cpu";
    case Pw::Cos: return "cos_vml_cpu";
    case Pw::Rsqrt: return "rsqrt_cpu";
    case Pw::Reciprocal: return "reciprocal_cpu";
    case Pw::Floor: return "floor_vml_cpu";
    case Pw::Ceil: return "ceil_vml_cpu";
    case Pw::Round: return "round_vml_cpu";
    case Pw::Trunc: return "trunc_vml_cpu";
    case Pw::Sign: break;
  }
  return "sign_cpu";
}

bool is_activation(Pw op) { return op == Pw::Silu || op == Pw::LeakyRelu || op == Pw::Elu || op == Pw::Softplus; }
bool is_rounding(Pw op) { return op == Pw::Floor || op == Pw::Ceil || op == Pw::Round || op == Pw::Trunc; }

// The floating formula of op in compute type C (bounds as the element
// type sees them: converted to T first, as Scalar::to<scalar_t>).
template <typename T, typename C = compute_t<T>>
void float_map(Pw op, const Tensor& out, const Tensor& x, const PwArgs& p) {
  const std::array<Tensor, 1> in{x};
  const C a = C(T(C(p.a))), b = C(T(C(p.b)));
  switch (op) {
    case Pw::Silu: map_same<T>(out, [](C v) { return v / (C(1) + std::exp(-v)); }, in); break;
    case Pw::LeakyRelu: map_same<T>(out, [a](C v) { return v > C(0) ? v : v * a; }, in); break;
    case Pw::Elu: map_same<T>(out, [a](C v) { return v > C(0) ? v : a * std::expm1(v); }, in); break;
    case Pw::Softplus:
      map_same<T>(out, [a, b](C v) { return v * a > b ? v : std::log1p(std::exp(v * a)) / a; }, in);
      break;
    case Pw::Hardtanh: map_same<T>(out, [a, b](C v) { return std::min(std::max(v, a), b); }, in); break;
    case Pw::Sin: map_same<T>(out, [](C v) { return std::sin(v); }, in); break;
    case Pw::Cos: map_same<T>(out, [](C v) { return std::cos(v); }, in); break;
    case Pw::Rsqrt: map_same<T>(out, [](C v) { return C(1) / std::sqrt(v); }, in); break;
    case Pw::Reciprocal: map_same<T>(out, [](C v) { return C(1) / v; }, in); break;
    case Pw::Floor: map_same<T>(out, [](C v) { return std::floor(v); }, in); break;
    case Pw::Ceil: map_same<T>(out, [](C v) { return std::ceil(v); }, in); break;
    // Half to even, as torch's nearbyint.
    case Pw::Round: map_same<T>(out, [](C v) { return std::nearbyint(v); }, in); break;
    case Pw::Trunc: map_same<T>(out, [](C v) { return std::trunc(v); }, in); break;
    case Pw::Sign: map_same<T>(out, [](C v) { return C((C(0) < v) - (v < C(0))); }, in); break;
  }
}

}  // namespace

tsr_dtype pw_result_dtype(Pw op, tsr_dtype d, const PwArgs& args) {
  if (op == Pw::Sign) return d;
  if (op == Pw::Hardtanh) {
    TSR_CHECK(d != TSR_BOOL, TSR_ERR_INVALID_ARGUMENT, "Bool inputs not supported for hardtanh");
    // Integer bounds are truncated first (Scalar::toLong), as torch's check.
    TSR_CHECK(d != TSR_UINT8 || (int64_t(args.a) >= 0 && int64_t(args.b) >= 0), TSR_ERR_INVALID_ARGUMENT,
              "cannot do hardtanh on an unsigned type with negative limits");
  }
  if (is_floating(d)) return d;  // float16: torch 2.x's opmath (torch 1.13 refuses most)
  if (is_activation(op) || (is_rounding(op) && d == TSR_BOOL)) not_implemented(pw_name(op), pw_kernel(op), d);
  if (is_rounding(op) || op == Pw::Hardtanh) return d;
  return TSR_FLOAT32;  // sin, cos, rsqrt, reciprocal of integers and bool
}

Tensor pointwise(Pw op, const Tensor& x0, const PwArgs& p) {
  const tsr_dtype d = pw_result_dtype(op, x0.dtype(), p);
  const Tensor x = converted(x0, d);
  Tensor out = new_output(x0.sizes(), {&x0}, d);
  if (!is_floating(d)) {
    // Integers: rounding is the identity, sign and hardtanh (clamp) exact.
    dispatch_all(d, [&]<typename T>() {
      const std::array<Tensor, 1> in{x};
      if (op == Pw::Sign) {
        map_same<T>(out, [](T v) { return T((T(0) < v) - (v < T(0))); }, in);
      } else if (op == Pw::Hardtanh) {
        const T lo = T(int64_t(p.a)), hi = T(int64_t(p.b));  // toLong, as torch
        map_same<T>(out, [lo, hi](T v) { return std::min(std::max(v, lo), hi); }, in);
      } else {
        map_same<T>(out, [](T v) { return v; }, in);
      }
    });
    return out;
  }
  dispatch_float_opmath(d, pw_name(op), pw_kernel(op), [&]<typename T>() { float_map<T>(op, out, x, p); });
  return out;
}

namespace {
// Kind of a dtype for result_type: bool < integer < floating.
int category(tsr_dtype d) { return is_floating(d) ? 2 : d == TSR_BOOL ? 0 : 1; }
}  // namespace

tsr_dtype clamp_tensor_result_dtype(const Tensor& x, const std::vector<Tensor>& bounds) {
  // torch.result_type: 0-dim tensors count only when of a higher category.
  std::optional<tsr_dtype> dim, zero;
  auto add = [](std::optional<tsr_dtype>& r, tsr_dtype d) { r = r ? promote_types(*r, d) : d; };
  add(x.ndim() > 0 ? dim : zero, x.dtype());
  for (const Tensor& b : bounds) add(b.ndim() > 0 ? dim : zero, b.dtype());
  tsr_dtype d = !dim ? *zero : (!zero || category(*zero) <= category(*dim)) ? *dim : promote_types(*dim, *zero);
  // Both bounds: torch's clamp kernel, which lacks bool (clamp_min and
  // clamp_max have it); float16 follows torch 2.x, which has it.
  if (bounds.size() == 2 && d == TSR_BOOL) not_implemented("clamp", "clamp_cpu", d);
  return d;
}

Tensor clamp_tensor(const Tensor& x0, const std::vector<Tensor>& bounds0, bool has_lo, bool has_hi) {
  const tsr_dtype d = clamp_tensor_result_dtype(x0, bounds0);
  Shape shape = x0.sizes();
  TensorRefs refs{&x0};
  for (const Tensor& b : bounds0) {
    shape = broadcast_shapes(shape, b.sizes());
    refs.push_back(&b);
  }
  const Tensor x = converted(x0, d);
  std::vector<Tensor> bounds;
  for (const Tensor& b : bounds0) bounds.push_back(converted(b, d));
  Tensor out = new_output(shape, refs, d);
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    // NaN anywhere gives NaN (torch's clamp kernel and maximum/minimum).
    auto lower = [](C v, C lo) { return lo != lo ? lo : std::max(v, lo); };
    auto upper = [](C v, C hi) { return hi != hi ? hi : std::min(v, hi); };
    if (has_lo && has_hi) {
      map_same<T>(out, [&](C v, C lo, C hi) { return lo != lo ? lo : upper(lower(v, lo), hi); },
                  std::array<Tensor, 3>{x, bounds[0], bounds[1]});
    } else if (has_lo) {
      map_same<T>(out, lower, std::array<Tensor, 2>{x, bounds[0]});
    } else {
      map_same<T>(out, upper, std::array<Tensor, 2>{x, bounds[0]});
    }
  });
  return out;
}

Tensor greater_mask(const Tensor& x, double v) {
  Tensor out = new_output(x.sizes(), {&x}, TSR_BOOL);
  dispatch_all(x.dtype(), [&]<typename T>() {
    using C = compute_t<T>;
    map<bool, T>(out, [v](C e) { return double(e) > v; }, std::array<Tensor, 1>{x});
  });
  return out;
}

}  // namespace tsr::kernels
