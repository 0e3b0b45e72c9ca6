// torch/optim/lr_scheduler.py (1.13): _LRScheduler, StepLR, MultiStepLR,
// ExponentialLR, CosineAnnealingLR, LinearLR, OneCycleLR, SequentialLR.
// Each formula is torch's, operation for operation (Python floats are
// doubles; int * float converts the int first, as here), so the learning
// rates agree bit for bit; Python's % and // on ints are floored.
#include "optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"

namespace tsr::optim {

namespace {

constexpr double kPi = 3.141592653589793;  // math.pi

int64_t floor_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
int64_t floor_div(int64_t a, int64_t b) { return (a - floor_mod(a, b)) / b; }

// Python's bisect.bisect_right, step for step (also on unsorted lists).
size_t bisect_right(const std::vector<int64_t>& a, int64_t x) {
  size_t lo = 0, hi = a.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (x < a[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Python's float division, which raises ZeroDivisionError on 0.
double divide(double a, double b) {
  TSR_CHECK(b != 0, TSR_ERR_INVALID_ARGUMENT, "float division by zero");
  return a / b;
}

// Constructs S and runs its initial step; on failure the optimizer's group
// options (initial_lr, OneCycleLR's momenta) are put back.
template <class S, class... A>
std::shared_ptr<LrScheduler> build(Optimizer& opt, A&&... args) {
  std::vector<Options> saved = opt.option_snapshot();
  try {
    auto s = std::make_shared<S>(opt, std::forward<A>(args)...);
    s->initial_step();
    return s;
  } catch (...) {
    opt.restore_options(std::move(saved));
    throw;
  }
}

}  // namespace

// ---- _LRScheduler -----------------------------------------------------------

LrScheduler::LrScheduler(Optimizer& opt, int64_t last_epoch) : Scheduler(opt) {
  for (size_t g = 0; g < opt.num_groups(); ++g) {
    if (last_epoch == -1) {
      if (!opt.has_option(g, "initial_lr")) opt.set_option(g, "initial_lr", opt.option(g, "lr"));
    } else {
      TSR_CHECK(opt.has_option(g, "initial_lr"), TSR_ERR_INVALID_ARGUMENT, "param 'initial_lr' is not specified in "
                "param_groups[", g, "] when resuming an optimizer");
    }
  }
  for (size_t g = 0; g < opt.num_groups(); ++g) base_lrs_.push_back(opt.option(g, "initial_lr"));
  last_epoch_ = last_epoch;
}

void LrScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LrScheduler::current_lrs() const {
  std::vector<double> v;
  for (size_t g = 0; g < groups(); ++g) v.push_back(lr(g));
  return v;
}

void LrScheduler::apply(const std::vector<double>& values) {
  std::vector<Options> saved = opt_.option_snapshot();
  try {
    for (size_t g = 0; g < values.size(); ++g) opt_.set_option(g, "lr", values[g]);
  } catch (...) {
    opt_.restore_options(std::move(saved));
    throw;
  }
  last_lr_ = current_lrs();
}

void LrScheduler::step() {
  const int64_t epoch = last_epoch_, count = step_count_;
  try {
    ++step_count_;
    ++last_epoch_;
    apply(get_lr());
  } catch (...) {
    last_epoch_ = epoch;
    step_count_ = count;
    throw;
  }
}

void LrScheduler::step_to(int64_t epoch) {
  const int64_t old_epoch = last_epoch_, count = step_count_;
  try {
    ++step_count_;
    last_epoch_ = epoch;
    auto closed = closed_form_lr();
    apply(closed ? *closed : get_lr());
  } catch (...) {
    last_epoch_ = old_epoch;
    step_count_ = count;
    throw;
  }
}

namespace {

// ---- StepLR, MultiStepLR, ExponentialLR -------------------------------------

class StepLR final : public LrScheduler {
 public:
  StepLR(Optimizer& opt, int64_t step_size, double gamma, int64_t last_epoch)
      : LrScheduler(opt, last_epoch), step_size_(step_size), gamma_(gamma) {}

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> v = current_lrs();
    if (last_epoch_ == 0 || floor_mod(last_epoch_, step_size_) != 0) return v;
    for (double& x : v) x = x * gamma_;
    return v;
  }
  std::optional<std::vector<double>> closed_form_lr() const override {
    std::vector<double> v;
    for (double b : base_lrs_) v.push_back(b * std::pow(gamma_, double(floor_div(last_epoch_, step_size_))));
    return v;
  }

 private:
  int64_t step_size_;
  double gamma_;
};

class MultiStepLR final : public LrScheduler {
 public:
  MultiStepLR(Optimizer& opt, std::vector<int64_t> milestones, double gamma, int64_t last_epoch)
      : LrScheduler(opt, last_epoch), gamma_(gamma) {
    for (int64_t m : milestones) ++counts_[m];  // collections.Counter(milestones)
    sorted_ = std::move(milestones);
    std::sort(sorted_.begin(), sorted_.end());
  }

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> v = current_lrs();
    auto it = counts_.find(last_epoch_);
    if (it == counts_.end()) return v;
    for (double& x : v) x = x * std::pow(gamma_, double(it->second));
    return v;
  }
  std::optional<std::vector<double>> closed_form_lr() const override {
    std::vector<double> v;
    for (double b : base_lrs_) v.push_back(b * std::pow(gamma_, double(bisect_right(sorted_, last_epoch_))));
    return v;
  }

 private:
  double gamma_;
  std::map<int64_t, int64_t> counts_;
  std::vector<int64_t> sorted_;
};

class ExponentialLR final : public LrScheduler {
 public:
  ExponentialLR(Optimizer& opt, double gamma, int64_t last_epoch) : LrScheduler(opt, last_epoch), gamma_(gamma) {}

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> v = current_lrs();
    if (last_epoch_ == 0) return v;
    for (double& x : v) x = x * gamma_;
    return v;
  }
  std::optional<std::vector<double>> closed_form_lr() const override {
    std::vector<double> v;
    for (double b : base_lrs_) v.push_back(b * std::pow(gamma_, double(last_epoch_)));
    return v;
  }

 private:
  double gamma_;
};

// ---- CosineAnnealingLR --------------------------------------------------------

class CosineAnnealingLR final : public LrScheduler {
 public:
  CosineAnnealingLR(Optimizer& opt, int64_t t_max, double eta_min, int64_t last_epoch)
      : LrScheduler(opt, last_epoch), t_max_(t_max), eta_min_(eta_min) {}

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> v = current_lrs();
    const double T = double(t_max_), e = double(last_epoch_);
    if (last_epoch_ == 0) return v;
    if (step_count_ == 1 && last_epoch_ > 0) {
      for (size_t g = 0; g < v.size(); ++g)
        v[g] = eta_min_ + (base_lrs_[g] - eta_min_) * (1 + std::cos(e * kPi / T)) / 2;
      return v;
    }
    if (floor_mod(last_epoch_ - 1 - t_max_, 2 * t_max_) == 0) {
      for (size_t g = 0; g < v.size(); ++g) v[g] = v[g] + (base_lrs_[g] - eta_min_) * (1 - std::cos(kPi / T)) / 2;
      return v;
    }
    for (double& x : v)
      x = (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (x - eta_min_) + eta_min_;
    return v;
  }
  std::optional<std::vector<double>> closed_form_lr() const override {
    std::vector<double> v;
    const double T = double(t_max_), e = double(last_epoch_);
    for (double b : base_lrs_) v.push_back(eta_min_ + (b - eta_min_) * (1 + std::cos(kPi * e / T)) / 2);
    return v;
  }

 private:
  int64_t t_max_;
  double eta_min_;
};

// ---- LinearLR -------------------------------------------------------------------

class LinearLR final : public LrScheduler {
 public:
  LinearLR(Optimizer& opt, double start, double end, int64_t total_iters, int64_t last_epoch)
      : LrScheduler(opt, last_epoch), start_(start), end_(end), total_(total_iters) {}

 protected:
  std::vector<double> get_lr() override {
    std::vector<double> v = current_lrs();
    if (last_epoch_ == 0) {
      for (double& x : v) x = x * start_;
      return v;
    }
    if (last_epoch_ > total_) return v;
    const double denom = double(total_) * start_ + double(last_epoch_ - 1) * (end_ - start_);
    for (double& x : v) x = x * (1. + divide(end_ - start_, denom));
    return v;
  }
  std::optional<std::vector<double>> closed_form_lr() const override {
    std::vector<double> v;
    for (double b : base_lrs_)
      v.push_back(b * (start_ + divide((end_ - start_) * double(std::min(total_, last_epoch_)), double(total_))));
    return v;
  }

 private:
  double start_, end_;
  int64_t total_;
};

// ---- OneCycleLR -------------------------------------------------------------------

class OneCycleLR final : public LrScheduler {
 public:
  struct Phase {
    double end_step;
    const char *start_lr, *end_lr, *start_momentum, *end_momentum;
  };

  OneCycleLR(Optimizer& opt, const OneCycleOptions& o, int64_t total_steps, bool use_beta1)
      : LrScheduler(opt, o.last_epoch),
        total_steps_(total_steps),
        linear_(o.linear),
        cycle_momentum_(o.cycle_momentum),
        use_beta1_(use_beta1) {
    const double total = double(total_steps);
    if (o.three_phase) {
      phases_ = {{o.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
                 {2 * o.pct_start * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
                 {total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
    } else {
      phases_ = {{o.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
                 {total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
    }
  }

 protected:
  double anneal(double start, double end, double pct) const {
    if (linear_) return (end - start) * pct + start;
    const double cos_out = std::cos(kPi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }

  std::vector<double> get_lr() override {
    const int64_t step_num = last_epoch_;
    TSR_CHECK(step_num <= total_steps_, TSR_ERR_INVALID_ARGUMENT, "Tried to step ", step_num + 1,
              " times. The specified number of total steps is ", total_steps_);
    std::vector<double> lrs;
    std::vector<double> momenta;
    for (size_t g = 0; g < groups(); ++g) {
      double start_step = 0, computed_lr = 0, computed_momentum = 0;
      for (size_t i = 0; i < phases_.size(); ++i) {
        const Phase& ph = phases_[i];
        if (double(step_num) <= ph.end_step || i == phases_.size() - 1) {
          const double pct = divide(double(step_num) - start_step, ph.end_step - start_step);
          computed_lr = anneal(opt_.option(g, ph.start_lr), opt_.option(g, ph.end_lr), pct);
          if (cycle_momentum_)
            computed_momentum = anneal(opt_.option(g, ph.start_momentum), opt_.option(g, ph.end_momentum), pct);
          break;
        }
        start_step = ph.end_step;
      }
      lrs.push_back(computed_lr);
      momenta.push_back(computed_momentum);
    }
    if (cycle_momentum_) {  // group['betas'] = (m, beta2) or group['momentum'] = m
      std::vector<Options> saved = opt_.option_snapshot();
      try {
        for (size_t g = 0; g < groups(); ++g) opt_.set_option(g, use_beta1_ ? "beta1" : "momentum", momenta[g]);
      } catch (...) {
        opt_.restore_options(std::move(saved));
        throw;
      }
    }
    return lrs;
  }

 private:
  int64_t total_steps_;
  bool linear_, cycle_momentum_, use_beta1_;
  std::vector<Phase> phases_;
};

// One value per group from a list of one (repeated) or of one per group.
std::vector<double> per_group(const Optimizer& opt, const char* name, const std::vector<double>& v) {
  if (v.size() == 1) return std::vector<double>(opt.num_groups(), v[0]);
  TSR_CHECK(v.size() == opt.num_groups(), TSR_ERR_INVALID_ARGUMENT, "expected ", opt.num_groups(), " values for ",
            name, ", got ", v.size());
  return v;
}

// ---- SequentialLR -----------------------------------------------------------------

class SequentialLR final : public Scheduler {
 public:
  SequentialLR(Optimizer& opt, std::vector<std::shared_ptr<LrScheduler>> children, std::vector<int64_t> milestones,
               int64_t last_epoch)
      : Scheduler(opt), children_(std::move(children)), milestones_(std::move(milestones)) {
    last_epoch_ = last_epoch + 1;
    for (size_t g = 0; g < opt.num_groups(); ++g) opt.set_option(g, "lr", opt.option(g, "initial_lr"));
    for (auto& c : children_) c->set_last_epoch(c->last_epoch() - 1);  // undo their initial steps
    children_[0]->initial_step();
    last_lr_ = children_[0]->last_lr();
  }

  void step() override {
    ++last_epoch_;
    const size_t idx = bisect_right(milestones_, last_epoch_);
    LrScheduler& s = *children_[idx];
    try {
      if (idx > 0 && milestones_[idx - 1] == last_epoch_) s.step_to(0);
      else s.step();
    } catch (...) {
      --last_epoch_;
      throw;
    }
    last_lr_ = s.last_lr();
  }

 private:
  std::vector<std::shared_ptr<LrScheduler>> children_;
  std::vector<int64_t> milestones_;
};

}  // namespace

// ---- factories: torch's argument checks, in its order --------------------------

std::shared_ptr<LrScheduler> make_step_lr(Optimizer& opt, int64_t step_size, double gamma, int64_t last_epoch) {
  TSR_CHECK(step_size > 0, TSR_ERR_INVALID_ARGUMENT, "StepLR: step_size must be positive, got ", step_size);
  return build<StepLR>(opt, step_size, gamma, last_epoch);
}

std::shared_ptr<LrScheduler> make_multi_step_lr(Optimizer& opt, std::vector<int64_t> milestones, double gamma,
                                                int64_t last_epoch) {
  return build<MultiStepLR>(opt, std::move(milestones), gamma, last_epoch);
}

std::shared_ptr<LrScheduler> make_exponential_lr(Optimizer& opt, double gamma, int64_t last_epoch) {
  return build<ExponentialLR>(opt, gamma, last_epoch);
}

std::shared_ptr<LrScheduler> make_cosine_annealing_lr(Optimizer& opt, int64_t t_max, double eta_min,
                                                      int64_t last_epoch) {
  TSR_CHECK(t_max > 0, TSR_ERR_INVALID_ARGUMENT, "CosineAnnealingLR: T_max must be positive, got ", t_max);
  return build<CosineAnnealingLR>(opt, t_max, eta_min, last_epoch);
}

std::shared_ptr<LrScheduler> make_linear_lr(Optimizer& opt, double start_factor, double end_factor,
                                            int64_t total_iters, int64_t last_epoch) {
  TSR_CHECK(!(start_factor > 1.0 || start_factor < 0), TSR_ERR_INVALID_ARGUMENT,
            "Starting multiplicative factor expected to be between 0 and 1.");
  TSR_CHECK(!(end_factor > 1.0 || end_factor < 0), TSR_ERR_INVALID_ARGUMENT,
            "Ending multiplicative factor expected to be between 0 and 1.");
  return build<LinearLR>(opt, start_factor, end_factor, total_iters, last_epoch);
}

std::shared_ptr<LrScheduler> make_one_cycle_lr(Optimizer& opt, const OneCycleOptions& o) {
  int64_t total_steps = o.total_steps;
  if (o.total_steps == 0 && o.epochs == 0 && o.steps_per_epoch == 0) {
    fail(TSR_ERR_INVALID_ARGUMENT, "You must define either total_steps OR (epochs AND steps_per_epoch)");
  } else if (o.total_steps != 0) {
    TSR_CHECK(o.total_steps > 0, TSR_ERR_INVALID_ARGUMENT, "Expected positive integer total_steps, but got ",
              o.total_steps);
  } else {
    TSR_CHECK(o.epochs > 0, TSR_ERR_INVALID_ARGUMENT, "Expected positive integer epochs, but got ", o.epochs);
    TSR_CHECK(o.steps_per_epoch > 0, TSR_ERR_INVALID_ARGUMENT,
              "Expected positive integer steps_per_epoch, but got ", o.steps_per_epoch);
    TSR_CHECK(o.epochs <= INT64_MAX / o.steps_per_epoch, TSR_ERR_INVALID_ARGUMENT,
              "epochs * steps_per_epoch overflows int64");
    total_steps = o.epochs * o.steps_per_epoch;
  }
  TSR_CHECK(!(o.pct_start < 0 || o.pct_start > 1) && !std::isnan(o.pct_start), TSR_ERR_INVALID_ARGUMENT,
            "Expected float between 0 and 1 pct_start, but got ", py_float(o.pct_start));
  const std::vector<double> max_lrs = per_group(opt, "max_lr", o.max_lr);
  const bool use_beta1 = opt.defaults().count("beta1") != 0;
  TSR_CHECK(!o.cycle_momentum || use_beta1 || opt.defaults().count("momentum"), TSR_ERR_INVALID_ARGUMENT,
            "optimizer must support momentum with `cycle_momentum` option enabled");
  std::vector<double> max_m, base_m;
  if (o.cycle_momentum) {
    max_m = per_group(opt, "max_momentum", o.max_momentum);
    base_m = per_group(opt, "base_momentum", o.base_momentum);
  }
  std::vector<Options> saved = opt.option_snapshot();
  try {
    if (o.last_epoch == -1)
      for (size_t g = 0; g < opt.num_groups(); ++g) {
        const double initial = max_lrs[g] / o.div_factor;
        opt.set_option(g, "initial_lr", initial);
        opt.set_option(g, "max_lr", max_lrs[g]);
        opt.set_option(g, "min_lr", initial / o.final_div_factor);
      }
    if (o.cycle_momentum && o.last_epoch == -1)
      for (size_t g = 0; g < opt.num_groups(); ++g) {
        opt.set_option(g, use_beta1 ? "beta1" : "momentum", max_m[g]);
        opt.set_option(g, "max_momentum", max_m[g]);
        opt.set_option(g, "base_momentum", base_m[g]);
      }
    return build<OneCycleLR>(opt, o, total_steps, use_beta1);
  } catch (...) {
    opt.restore_options(std::move(saved));
    throw;
  }
}

std::shared_ptr<Scheduler> make_sequential_lr(Optimizer& opt, std::vector<std::shared_ptr<LrScheduler>> children,
                                              std::vector<int64_t> milestones, int64_t last_epoch) {
  for (size_t i = 0; i < children.size(); ++i)
    TSR_CHECK(&children[i]->optimizer() == &opt, TSR_ERR_INVALID_ARGUMENT,
              "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at "
              "index ", i, " to be different than the optimizer passed in.");
  TSR_CHECK(milestones.size() + 1 == children.size(), TSR_ERR_INVALID_ARGUMENT,
            "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
            "milestone points, but got number of schedulers ", children.size(),
            " and the number of milestones to be equal to ", milestones.size());
  for (size_t g = 0; g < opt.num_groups(); ++g)
    TSR_CHECK(opt.has_option(g, "initial_lr"), TSR_ERR_INVALID_ARGUMENT, "param_groups[", g,
              "] has no 'initial_lr' (KeyError in torch)");
  return std::make_shared<SequentialLR>(opt, std::move(children), std::move(milestones), last_epoch);
}

}  // namespace tsr::optim
