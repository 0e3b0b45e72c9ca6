#include "cpu/kernels/loss.h"

#include <cmath>

#include "cpu/kernels/map.h"
#include "cpu/kernels/reduce.h"

namespace tsr::kernels {

namespace {
const char* kernel_name(PointwiseLoss kind) {
  switch (kind) {
    case PointwiseLoss::Mse: return "mse_cpu";
    case PointwiseLoss::SmoothL1: return "smooth_l1_cpu";
    case PointwiseLoss::Huber: return "huber_cpu";
  }
  return "";
}

// Float16/32/64 and bfloat16 (torch 1.13's mse kernel lacks bfloat16;
// tessera follows torch 2.x, which has it).
template <typename Fn>
void dispatch_loss(PointwiseLoss kind, const char* op, tsr_dtype d, Fn&& fn) {
  switch (d) {
    case TSR_FLOAT16: return fn.template operator()<Half>();
    case TSR_FLOAT32: return fn.template operator()<float>();
    case TSR_FLOAT64: return fn.template operator()<double>();
    case TSR_BFLOAT16: return fn.template operator()<BFloat16>();
    default: break;
  }
  not_implemented(op, kernel_name(kind), d);
}
}  // namespace

void check_pointwise_loss_dtype(PointwiseLoss kind, const char* op, tsr_dtype d) {
  dispatch_loss(kind, op, d, []<typename T>() {});
}

Tensor pointwise_loss(PointwiseLoss kind, const Tensor& x, const Tensor& y, double param) {
  Tensor out = new_output(x.sizes(), {&x, &y}, x.dtype());
  dispatch_loss(kind, "loss", x.dtype(), [&]<typename T>() {
    using C = compute_t<T>;
    const C p = C(param);
    switch (kind) {
      case PointwiseLoss::Mse:
        map_same<T, 2>(out, [](C a, C b) { C d = a - b; return d * d; }, {x, y});
        break;
      case PointwiseLoss::SmoothL1:
        map_same<T, 2>(out, [p](C a, C b) {
          C z = std::abs(a - b);
          return z < p ? C(0.5) * z * z / p : z - C(0.5) * p;
        }, {x, y});
        break;
      case PointwiseLoss::Huber:
        map_same<T, 2>(out, [p](C a, C b) {
          C z = std::abs(a - b);
          return z < p ? C(0.5) * z * z : p * (z - C(0.5) * p);
        }, {x, y});
        break;
    }
  });
  return out;
}

Tensor reduce_loss(const Tensor& l, LossReduction r) {
  if (r == LossReduction::None) return l;
  auto mask = reduction_mask(l, {});
  return r == LossReduction::Mean ? mean(l, mask, false) : sum(l, mask, false);
}

Tensor div_scalar(const Tensor& t, double s) {
  Tensor out = new_output(t.sizes(), {&t}, t.dtype());
  dispatch_floating(t.dtype(), "div", [&]<typename T>() {
    using C = compute_t<T>;
    const C d = C(s);
    map_same<T, 1>(out, [d](C a) { return a / d; }, {t});
  });
  return out;
}

Tensor abs_below(const Tensor& t, double bound, bool inclusive) {
  Tensor out = new_output(t.sizes(), {&t}, TSR_BOOL);
  dispatch_floating(t.dtype(), "abs_below", [&]<typename T>() {
    using C = compute_t<T>;
    const C b = C(bound);
    if (inclusive) map<bool, T>(out, [b](C a) { return std::abs(a) <= b; }, {t});
    else map<bool, T>(out, [b](C a) { return std::abs(a) < b; }, {t});
  });
  return out;
}

}  // namespace tsr::kernels

// ---- nll_loss over [N, C, S] -----------------------------------------------
#include <sstream>

#include "cpu/kernels/copy.h"

namespace tsr::kernels {

NllGeometry nll_geometry(const Shape& sizes) {
  if (sizes.size() == 1) return {1, sizes[0], 1};
  int64_t s = 1;
  for (size_t i = 2; i < sizes.size(); ++i) s *= sizes[i];
  return {sizes[0], sizes[1], s};
}

namespace {
std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << "]";
  return o.str();
}

const char* nll_kernel_name(int64_t ndim) { return ndim <= 2 ? "nll_loss_out_frame" : "nll_loss2d_forward_out_frame"; }

template <typename Fn>
void dispatch_nll(tsr_dtype d, int64_t ndim, Fn&& fn) {
  switch (d) {
    case TSR_FLOAT16: return fn.template operator()<Half>();  // torch 2.x (1.13 refuses it)
    case TSR_BFLOAT16: return fn.template operator()<BFloat16>();
    case TSR_FLOAT32: return fn.template operator()<float>();
    case TSR_FLOAT64: return fn.template operator()<double>();
    default: break;
  }
  not_implemented("nll_loss", nll_kernel_name(ndim), d);
}

// Weight of each target (0 where ignored), validating the indices; and
// their total.
std::vector<double> target_weights(const Tensor& target, const Tensor& weight, int64_t c, int64_t ignore_index,
                                   double* total) {
  Tensor t = contiguous_or_self(target);
  const int64_t* tv = static_cast<const int64_t*>(t.data_ptr());
  std::vector<double> w(size_t(t.numel()));
  std::vector<double> wc;
  if (weight.defined()) {
    Tensor wd = contiguous_copy(weight, TSR_FLOAT64);
    const double* p = static_cast<const double*>(wd.data_ptr());
    wc.assign(p, p + c);
  }
  double tot = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t k = tv[i];
    if (k == ignore_index) {
      w[size_t(i)] = 0;
      continue;
    }
    TSR_CHECK(k >= 0 && k < c, TSR_ERR_INDEX_OUT_OF_RANGE, "Target ", k, " is out of bounds.");
    w[size_t(i)] = weight.defined() ? wc[size_t(k)] : 1.0;
    tot += w[size_t(i)];
  }
  *total = tot;
  return w;
}
}  // namespace

double nll_total_weight(const Tensor& target, const Tensor& weight, int64_t classes, int64_t ignore_index) {
  double total = 0;
  target_weights(target, weight, classes, ignore_index, &total);
  return total;
}

void check_nll_nd_args(const Tensor& logp, const Tensor& target, const Tensor& weight) {
  const int64_t nd = logp.ndim();
  TSR_CHECK(nd >= 1, TSR_ERR_SHAPE_MISMATCH, "Expected 1 or more dimensions (got ", nd, ")");
  TSR_CHECK(nd == 1 || target.ndim() >= 1, TSR_ERR_SHAPE_MISMATCH,
            "1D target tensor expected, multi-target not supported");
  TSR_CHECK(nd == 1 || logp.sizes()[0] == target.sizes()[0], TSR_ERR_SHAPE_MISMATCH, "Expected input batch_size (",
            logp.sizes()[0], ") to match target batch_size (", target.sizes()[0], ").");
  if (nd == 1)
    TSR_CHECK(target.ndim() == 0, TSR_ERR_SHAPE_MISMATCH, "0D or 1D target tensor expected, multi-target not supported");
  else if (nd == 2)
    TSR_CHECK(target.ndim() == 1, TSR_ERR_SHAPE_MISMATCH, "1D target tensor expected, multi-target not supported");
  else {
    Shape want{logp.sizes()[0]};
    for (int64_t i = 2; i < nd; ++i) want.push_back(logp.sizes()[size_t(i)]);
    TSR_CHECK(target.sizes() == want, TSR_ERR_SHAPE_MISMATCH, "Expected target size ", shape_str(want), ", got ",
              shape_str(target.sizes()));
  }
  TSR_CHECK(target.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH, "expected scalar type Long but found ",
            scalar_type_name(target.dtype()));
  const int64_t c = nd == 1 ? logp.sizes()[0] : logp.sizes()[1];
  if (weight.defined()) {
    TSR_CHECK(weight.numel() == c, TSR_ERR_SHAPE_MISMATCH, "weight tensor should be defined either for all ", c,
              " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
    TSR_CHECK(weight.dtype() == logp.dtype(), TSR_ERR_DTYPE_MISMATCH, "expected scalar type ",
              scalar_type_name(logp.dtype()), " but found ", scalar_type_name(weight.dtype()));
  }
  dispatch_nll(logp.dtype(), nd, []<typename T>() {});
}

Tensor nll_loss_nd(const Tensor& logp, const Tensor& target, const Tensor& weight, NllArgs a) {
  const NllGeometry g = nll_geometry(logp.sizes());
  double total = 0;
  std::vector<double> w = target_weights(target, weight, g.c, a.ignore_index, &total);
  Tensor t = contiguous_or_self(target);
  const int64_t* tv = static_cast<const int64_t*>(t.data_ptr());
  Tensor lp = contiguous_or_self(logp);
  Shape out_sizes = a.reduction == LossReduction::None ? target.sizes() : Shape{};
  Tensor out = empty(out_sizes, logp.dtype(), TSR_CONTIGUOUS_FORMAT, logp.device());
  dispatch_nll(logp.dtype(), logp.ndim(), [&]<typename T>() {
    const T* p = static_cast<const T*>(lp.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    double acc = 0;
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t s = 0; s < g.s; ++s) {
        const int64_t i = n * g.s + s;
        const double wi = w[size_t(i)];
        const double v = wi == 0 ? 0.0 : -wi * double(compute_t<T>(p[(n * g.c + tv[i]) * g.s + s]));
        if (a.reduction == LossReduction::None) o[i] = T(v);
        else acc += v;
      }
    if (a.reduction == LossReduction::Sum) o[0] = T(acc);
    if (a.reduction == LossReduction::Mean) o[0] = T(acc / total);
  });
  return out;
}

Tensor nll_loss_nd_backward(const Tensor& grad, const Shape& logp_sizes, const Tensor& target, const Tensor& weight,
                            NllArgs a) {
  const NllGeometry g = nll_geometry(logp_sizes);
  double total = 0;
  std::vector<double> w = target_weights(target, weight, g.c, a.ignore_index, &total);
  Tensor t = contiguous_or_self(target);
  const int64_t* tv = static_cast<const int64_t*>(t.data_ptr());
  Tensor gr = contiguous_or_self(grad);
  Tensor out = zeros(logp_sizes, grad.dtype());
  dispatch_nll(grad.dtype(), int64_t(logp_sizes.size()), [&]<typename T>() {
    const T* gp = static_cast<const T*>(gr.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    const double scale = a.reduction == LossReduction::Mean ? 1.0 / total : 1.0;
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t s = 0; s < g.s; ++s) {
        const int64_t i = n * g.s + s;
        if (w[size_t(i)] == 0) continue;
        const double gi = double(compute_t<T>(gp[a.reduction == LossReduction::None ? i : 0]));
        o[(n * g.c + tv[i]) * g.s + s] = T(-w[size_t(i)] * gi * scale);
      }
  });
  return out;
}

}  // namespace tsr::kernels

// ---- binary cross entropy -----------------------------------------------------
namespace tsr::kernels {

namespace {
template <typename Fn>
void dispatch_bce(tsr_dtype d, Fn&& fn) {
  // The 16-bit floats: torch 2.x's opmath (torch 1.13 refuses them).
  switch (d) {
    case TSR_FLOAT16: return fn.template operator()<Half>();
    case TSR_BFLOAT16: return fn.template operator()<BFloat16>();
    case TSR_FLOAT32: return fn.template operator()<float>();
    case TSR_FLOAT64: return fn.template operator()<double>();
    default: break;
  }
  not_implemented("binary_cross_entropy", "binary_cross_entropy", d);
}
}  // namespace

void check_bce_args(const Tensor& x, const Tensor& t) {
  dispatch_bce(x.dtype(), [&]<typename T>() {
    TSR_CHECK(t.dtype() == x.dtype(), TSR_ERR_DTYPE_MISMATCH, "Found dtype ", scalar_type_name(t.dtype()),
              " but expected ", scalar_type_name(x.dtype()));
    Tensor c = contiguous_copy(x, TSR_FLOAT64);
    const double* p = static_cast<const double*>(c.data_ptr());
    for (int64_t i = 0; i < c.numel(); ++i)
      TSR_CHECK(p[i] >= 0 && p[i] <= 1, TSR_ERR_INVALID_ARGUMENT, "all elements of input should be between 0 and 1");
  });
}

Tensor binary_cross_entropy(const Tensor& x, const Tensor& t, const Tensor& w) {
  Tensor out = new_output(x.sizes(), {&x, &t, &w}, x.dtype());
  dispatch_bce(x.dtype(), [&]<typename T>() {
    using C = compute_t<T>;  // the 16-bit floats: in float, rounded once (torch 2.x's opmath)
    map_same<T, 3>(out, [](C a, C b, C c) {
      C la = std::max(std::log(a), C(-100)), lb = std::max(std::log(C(1) - a), C(-100));
      return -c * (b * la + (C(1) - b) * lb);
    }, {x, t, w});
  });
  return out;
}

void check_bce_logits_dtype(tsr_dtype d) {
  if (!is_floating(d)) not_implemented("binary_cross_entropy_with_logits", "clamp_min_cpu", d);
}

Tensor bce_with_logits(const Tensor& x, const Tensor& t, const Tensor& w, const Tensor& pw) {
  Tensor out = new_output(x.sizes(), {&x, &t, &w, &pw}, x.dtype());
  dispatch_float_opmath(x.dtype(), "binary_cross_entropy_with_logits", "clamp_min_cpu", [&]<typename T>() {
    using C = compute_t<T>;
    map_same<T, 4>(out, [](C a, C b, C c, C p) {
      C m = std::max(-a, C(0));
      C l = C(1) + (p - C(1)) * b;
      return c * ((C(1) - b) * a + l * (std::log(std::exp(-m) + std::exp(-a - m)) + m));
    }, {x, t, w, pw});
  });
  return out;
}

}  // namespace tsr::kernels
