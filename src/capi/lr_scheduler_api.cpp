// C API: learning-rate schedulers (lr_scheduler.h). A handle keeps a
// reference to its optimizer's handle (the scheduler holds the optimizer
// by reference) and, for SequentialLR, to its children's handles.
#include <tessera/lr_scheduler.h>

#include <climits>
#include <vector>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/optimizer_handle.h"
#include "capi/struct_size.h"
#include "optim/lr_scheduler.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_lr_scheduler {
  tsr_lr_scheduler(tsr_optimizer* o, std::shared_ptr<optim::Scheduler> s,
                   std::shared_ptr<optim::LrScheduler> c)
      : opt(o), impl(std::move(s)), chainable(std::move(c)) {
    retain(opt);
  }
  ~tsr_lr_scheduler() {
    children.clear();
    impl.reset();
    chainable.reset();
    release(opt);
  }
  std::atomic<int64_t> refs{1};
  tsr_optimizer* opt;
  std::shared_ptr<optim::Scheduler> impl;
  std::shared_ptr<optim::LrScheduler> chainable;  // null for SequentialLR
  std::vector<std::shared_ptr<optim::LrScheduler>> children;
};

namespace {

optim::Optimizer& opt_of(tsr_optimizer* o) { return *require(o, "optimizer")->impl; }

template <class F>
tsr_status make(tsr_optimizer* opt, tsr_lr_scheduler** out, F&& factory) {
  return guarded([&] {
    optim::Optimizer& o = opt_of(opt);
    require(out, "out");
    std::shared_ptr<optim::LrScheduler> s = factory(o);
    *out = new tsr_lr_scheduler(opt, s, s);
  });
}

std::vector<int64_t> int_list(const int64_t* v, size_t n, const char* what) {
  TSR_CHECK(n == 0 || v, TSR_ERR_INVALID_ARGUMENT, what, " is NULL");
  return n ? std::vector<int64_t>(v, v + n) : std::vector<int64_t>{};
}

std::vector<double> double_list(const double* v, size_t n, std::vector<double> fallback, const char* what) {
  if (!v) {
    TSR_CHECK(n == 0, TSR_ERR_INVALID_ARGUMENT, what, " is NULL but its count is ", n);
    return fallback;
  }
  TSR_CHECK(n > 0, TSR_ERR_INVALID_ARGUMENT, what, " has no values");
  return std::vector<double>(v, v + n);
}

tsr_one_cycle_options one_cycle_defaults() {
  tsr_one_cycle_options o{};
  o.struct_size = sizeof o;
  o.max_lr = nullptr;
  o.num_max_lr = 0;
  o.total_steps = o.epochs = o.steps_per_epoch = 0;
  o.pct_start = 0.3;
  o.anneal_strategy = TSR_ANNEAL_COS;
  o.cycle_momentum = true;
  o.base_momentum = o.max_momentum = nullptr;
  o.num_base_momentum = o.num_max_momentum = 0;
  o.div_factor = 25.;
  o.final_div_factor = 1e4;
  o.three_phase = false;
  o.last_epoch = -1;
  return o;
}

}  // namespace

TSR_EXTERN tsr_status tsr_lr_scheduler_step_lr(tsr_optimizer* opt, int64_t step_size, double gamma,
                                               int64_t last_epoch, tsr_lr_scheduler** out) {
  return make(opt, out, [&](optim::Optimizer& o) { return optim::make_step_lr(o, step_size, gamma, last_epoch); });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_multi_step_lr(tsr_optimizer* opt, const int64_t* milestones,
                                                     size_t num_milestones, double gamma, int64_t last_epoch,
                                                     tsr_lr_scheduler** out) {
  return make(opt, out, [&](optim::Optimizer& o) {
    return optim::make_multi_step_lr(o, int_list(milestones, num_milestones, "milestones"), gamma, last_epoch);
  });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_exponential_lr(tsr_optimizer* opt, double gamma, int64_t last_epoch,
                                                      tsr_lr_scheduler** out) {
  return make(opt, out, [&](optim::Optimizer& o) { return optim::make_exponential_lr(o, gamma, last_epoch); });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_cosine_annealing_lr(tsr_optimizer* opt, int64_t t_max, double eta_min,
                                                           int64_t last_epoch, tsr_lr_scheduler** out) {
  return make(opt, out,
              [&](optim::Optimizer& o) { return optim::make_cosine_annealing_lr(o, t_max, eta_min, last_epoch); });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_linear_lr(tsr_optimizer* opt, double start_factor, double end_factor,
                                                 int64_t total_iters, int64_t last_epoch, tsr_lr_scheduler** out) {
  return make(opt, out, [&](optim::Optimizer& o) {
    return optim::make_linear_lr(o, start_factor, end_factor, total_iters, last_epoch);
  });
}

TSR_EXTERN void tsr_one_cycle_options_init(tsr_one_cycle_options* o) {
  if (o) *o = one_cycle_defaults();
}

TSR_EXTERN tsr_status tsr_lr_scheduler_one_cycle_lr(tsr_optimizer* opt, const tsr_one_cycle_options* o,
                                                    tsr_lr_scheduler** out) {
  return make(opt, out, [&](optim::Optimizer& optimizer) {
    require(o, "options");
    const tsr_one_cycle_options in = read_struct(o, one_cycle_defaults(),
                                                 TSR_FIRST_VERSION_SIZE(tsr_one_cycle_options, last_epoch),
                                                 "options", "tsr_one_cycle_options");
    require(in.max_lr, "options.max_lr");
    const int strategy = enum_arg(o->anneal_strategy);
    TSR_CHECK(strategy == TSR_ANNEAL_COS || strategy == TSR_ANNEAL_LINEAR, TSR_ERR_INVALID_ARGUMENT,
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", strategy);
    optim::OneCycleOptions c;
    c.max_lr = double_list(in.max_lr, in.num_max_lr, {}, "options.max_lr");
    c.total_steps = in.total_steps;
    c.epochs = in.epochs;
    c.steps_per_epoch = in.steps_per_epoch;
    c.pct_start = in.pct_start;
    c.linear = strategy == TSR_ANNEAL_LINEAR;
    c.cycle_momentum = in.cycle_momentum;
    c.base_momentum = double_list(in.base_momentum, in.num_base_momentum, {0.85}, "options.base_momentum");
    c.max_momentum = double_list(in.max_momentum, in.num_max_momentum, {0.95}, "options.max_momentum");
    c.div_factor = in.div_factor;
    c.final_div_factor = in.final_div_factor;
    c.three_phase = in.three_phase;
    c.last_epoch = in.last_epoch;
    return optim::make_one_cycle_lr(optimizer, c);
  });
}

TSR_EXTERN tsr_status tsr_lr_scheduler_sequential_lr(tsr_optimizer* opt, tsr_lr_scheduler* const* schedulers,
                                                     size_t num_schedulers, const int64_t* milestones,
                                                     size_t num_milestones, int64_t last_epoch,
                                                     tsr_lr_scheduler** out) {
  return guarded([&] {
    optim::Optimizer& o = opt_of(opt);
    require(out, "out");
    TSR_CHECK(num_schedulers == 0 || schedulers, TSR_ERR_INVALID_ARGUMENT, "schedulers is NULL");
    std::vector<std::shared_ptr<optim::LrScheduler>> children;
    for (size_t i = 0; i < num_schedulers; ++i) {
      TSR_CHECK(schedulers[i], TSR_ERR_INVALID_ARGUMENT, "schedulers[", i, "] is NULL");
      TSR_CHECK(schedulers[i]->chainable, TSR_ERR_INVALID_ARGUMENT, "schedulers[", i,
                "] is a SequentialLR, whose step() takes no epoch");
      children.push_back(schedulers[i]->chainable);
    }
    std::vector<int64_t> ms = int_list(milestones, num_milestones, "milestones");
    auto seq = optim::make_sequential_lr(o, children, std::move(ms), last_epoch);
    auto* h = new tsr_lr_scheduler(opt, seq, nullptr);
    h->children = std::move(children);
    *out = h;
  });
}

TSR_EXTERN tsr_status tsr_lr_scheduler_step(tsr_lr_scheduler* s) {
  return guarded([&] { require(s, "scheduler")->impl->step(); });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_step_epoch(tsr_lr_scheduler* s, int64_t epoch) {
  return guarded([&] {
    require(s, "scheduler");
    TSR_CHECK(s->chainable, TSR_ERR_INVALID_ARGUMENT, "SequentialLR.step() takes no epoch");
    s->chainable->step_to(epoch);
  });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_get_last_lr(const tsr_lr_scheduler* s, double* lrs, size_t capacity,
                                                   size_t* count) {
  return guarded([&] {
    const std::vector<double>& v = require(s, "scheduler")->impl->last_lr();
    require(count, "count");
    TSR_CHECK(capacity == 0 || lrs, TSR_ERR_INVALID_ARGUMENT, "lrs is NULL");
    if (v.size() <= capacity) std::copy(v.begin(), v.end(), lrs);
    *count = v.size();
  });
}
TSR_EXTERN int64_t tsr_lr_scheduler_last_epoch(const tsr_lr_scheduler* s) {
  return guarded_value<int64_t>(INT64_MIN, [&] { return require(s, "scheduler")->impl->last_epoch(); });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_get_state(const tsr_lr_scheduler* s, int64_t* last_epoch,
                                                 int64_t* step_count, double* base_lrs, size_t capacity,
                                                 size_t* num_base_lrs) {
  return guarded([&] {
    require(s, "scheduler");
    require(last_epoch, "last_epoch");
    require(step_count, "step_count");
    require(num_base_lrs, "num_base_lrs");
    TSR_CHECK(capacity == 0 || base_lrs, TSR_ERR_INVALID_ARGUMENT, "base_lrs is NULL");
    const std::vector<double> none;
    const std::vector<double>& b = s->chainable ? s->chainable->base_lrs() : none;
    if (b.size() <= capacity) std::copy(b.begin(), b.end(), base_lrs);
    *last_epoch = s->impl->last_epoch();
    *step_count = s->chainable ? s->chainable->step_count() : 0;
    *num_base_lrs = b.size();
  });
}
TSR_EXTERN tsr_status tsr_lr_scheduler_set_state(tsr_lr_scheduler* s, int64_t last_epoch, int64_t step_count,
                                                 const double* base_lrs, size_t num_base_lrs, const double* last_lr,
                                                 size_t num_last_lr) {
  return guarded([&] {
    require(s, "scheduler");
    TSR_CHECK(num_base_lrs == 0 || base_lrs, TSR_ERR_INVALID_ARGUMENT, "base_lrs is NULL");
    TSR_CHECK(num_last_lr == 0 || last_lr, TSR_ERR_INVALID_ARGUMENT, "last_lr is NULL");
    const size_t groups = s->impl->last_lr().size();
    TSR_CHECK(num_last_lr == groups, TSR_ERR_INVALID_ARGUMENT, "set_state: ", num_last_lr,
              " last_lr values for a scheduler of ", groups, " groups");
    if (s->chainable) {
      TSR_CHECK(num_base_lrs == s->chainable->base_lrs().size(), TSR_ERR_INVALID_ARGUMENT, "set_state: ",
                num_base_lrs, " base_lrs for a scheduler of ", s->chainable->base_lrs().size(), " groups");
      TSR_CHECK(step_count >= 0, TSR_ERR_INVALID_ARGUMENT, "set_state: step_count must be >= 0, got ", step_count);
      s->chainable->set_counts(step_count, num_base_lrs ? std::vector<double>(base_lrs, base_lrs + num_base_lrs)
                                                        : std::vector<double>{});
    }
    s->impl->set_progress(last_epoch, num_last_lr ? std::vector<double>(last_lr, last_lr + num_last_lr)
                                                  : std::vector<double>{});
  });
}

TSR_EXTERN void tsr_lr_scheduler_retain(tsr_lr_scheduler* s) { retain(s); }
TSR_EXTERN void tsr_lr_scheduler_release(tsr_lr_scheduler* s) { release(s); }
