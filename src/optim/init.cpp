#include "optim/init.h"

#include <cctype>
#include <cmath>
#include <string>

#include "autograd/grad_mode.h"
#include "core/dtype.h"
#include "core/error.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/math.h"

namespace tsr::init {

double calculate_gain(std::string_view nl, std::optional<double> param) {
  for (const char* linear : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                             "conv_transpose3d", "sigmoid"})
    if (nl == linear) return 1;
  if (nl == "tanh") return 5.0 / 3;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") {
    const double slope = param ? *param : 0.01;
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nl == "selu") return 3.0 / 4;
  fail(TSR_ERR_INVALID_ARGUMENT, "Unsupported nonlinearity ", nl);
}

std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t) {
  TSR_CHECK(t.ndim() >= 2, TSR_ERR_INVALID_ARGUMENT,
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.ndim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

namespace {

void check_floating(const Tensor& t, const char* kernel) {
  TSR_CHECK(is_floating(t.dtype()), TSR_ERR_DTYPE_MISMATCH, "\"", kernel, "\" not implemented for '",
            dtype_name(t.dtype()), "'");
}

// Writes `values` (a contiguous CPU tensor of t's sizes and dtype) into t,
// restoring g's position if that fails.
void write_drawn(const Tensor& t, const Tensor& values, Generator& g, uint64_t seed, uint64_t offset) {
  try {
    autograd::NoGradGuard no_grad;
    ops::copy_(t, values);
  } catch (...) {
    g.set_state(seed, offset);
    throw;
  }
}

}  // namespace

void uniform_(const Tensor& t, double a, double b, Generator& g) {
  check_floating(t, "check_uniform_bounds");
  TSR_CHECK(a <= b, TSR_ERR_INVALID_ARGUMENT, "uniform_ expects to return a [from, to) range, but found from=", a,
            " > to=", b);
  const uint64_t seed = g.seed(), offset = g.offset();
  autograd::NoGradGuard no_grad;
  Tensor u;
  try {
    u = ops::add_scalar(ops::mul_scalar(rand(g, t.sizes(), t.dtype()), b - a), a);  // from + (to - from) * u
  } catch (...) {
    g.set_state(seed, offset);
    throw;
  }
  write_drawn(t, u, g, seed, offset);
}

void normal_(const Tensor& t, double mean, double std, Generator& g) {
  check_floating(t, "normal_kernel_cpu");
  TSR_CHECK(std >= 0.0, TSR_ERR_INVALID_ARGUMENT, "normal expects std >= 0.0, but found std ", std);
  const uint64_t seed = g.seed(), offset = g.offset();
  autograd::NoGradGuard no_grad;
  Tensor n;
  try {
    n = ops::add_scalar(ops::mul_scalar(randn(g, t.sizes(), t.dtype()), std), mean);
  } catch (...) {
    g.set_state(seed, offset);
    throw;
  }
  write_drawn(t, n, g, seed, offset);
}

void zeros_(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  ops::zero_(t);
}

void kaiming_uniform_(const Tensor& t, double a, std::string_view mode, std::string_view nonlinearity,
                      Generator& g) {
  // torch's order: empty tensors first, then mode (lower-cased), fans,
  // gain; the dtype when drawing.
  if (t.numel() == 0) return;  // torch: "Initializing zero-element tensors is a no-op"
  std::string m(mode);
  for (char& c : m) c = char(std::tolower(static_cast<unsigned char>(c)));
  TSR_CHECK(m == "fan_in" || m == "fan_out", TSR_ERR_INVALID_ARGUMENT, "Mode ", m,
            " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = fan_in_and_fan_out(t);
  const double fan = double(m == "fan_in" ? fan_in : fan_out);
  const double gain = calculate_gain(nonlinearity, a);
  const double bound = std::sqrt(3.0) * (gain / std::sqrt(fan));
  uniform_(t, -bound, bound, g);
}

void xavier_uniform_(const Tensor& t, double gain, Generator& g) {
  const auto [fan_in, fan_out] = fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  uniform_(t, -a, a, g);
}

}  // namespace tsr::init
