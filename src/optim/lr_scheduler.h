// Learning-rate schedulers as torch.optim.lr_scheduler of PyTorch 1.13:
// each writes param_groups[g]["lr"] of its optimizer at every step, with
// torch's recursive ("chainable") get_lr and, for step(epoch), its closed
// forms, in the same double arithmetic (same operations in the same
// order), so the learning rates are torch's bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace tsr::optim {

// What every scheduler offers (SequentialLR is one without base_lrs).
class Scheduler {
 public:
  explicit Scheduler(Optimizer& opt) : opt_(opt) {}
  virtual ~Scheduler() = default;
  // scheduler.step(): the next epoch's learning rates into the groups.
  virtual void step() = 0;
  const std::vector<double>& last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  Optimizer& optimizer() const { return opt_; }
  // What load_state_dict restores: last_epoch and the last rates (sizes
  // checked by the caller).
  void set_progress(int64_t last_epoch, std::vector<double> last_lr) {
    last_epoch_ = last_epoch;
    last_lr_ = std::move(last_lr);
  }

 protected:
  Optimizer& opt_;
  int64_t last_epoch_ = -1;
  std::vector<double> last_lr_;
};

// torch's _LRScheduler.
class LrScheduler : public Scheduler {
 public:
  // The base constructor's work: initial_lr (setdefault, or required when
  // resuming with last_epoch != -1) and base_lrs. The factories then call
  // initial_step().
  LrScheduler(Optimizer& opt, int64_t last_epoch);
  void initial_step();
  void step() override;
  // step(epoch), deprecated in torch: last_epoch = epoch, then the closed
  // form where the scheduler has one, else get_lr().
  void step_to(int64_t epoch);
  void set_last_epoch(int64_t e) { last_epoch_ = e; }
  int64_t step_count() const { return step_count_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  // load_state_dict's step count and base_lrs (sizes checked by the caller).
  void set_counts(int64_t step_count, std::vector<double> base_lrs) {
    step_count_ = step_count;
    base_lrs_ = std::move(base_lrs);
  }

 protected:
  virtual std::vector<double> get_lr() = 0;
  virtual std::optional<std::vector<double>> closed_form_lr() const { return std::nullopt; }
  // The groups this scheduler drives (those there at its construction).
  size_t groups() const { return base_lrs_.size(); }
  double lr(size_t g) const { return opt_.option(g, "lr"); }
  std::vector<double> current_lrs() const;

  std::vector<double> base_lrs_;
  int64_t step_count_ = 0;

 private:
  void apply(const std::vector<double>& values);
};

std::shared_ptr<LrScheduler> make_step_lr(Optimizer& opt, int64_t step_size, double gamma, int64_t last_epoch);
std::shared_ptr<LrScheduler> make_multi_step_lr(Optimizer& opt, std::vector<int64_t> milestones, double gamma,
                                                int64_t last_epoch);
std::shared_ptr<LrScheduler> make_exponential_lr(Optimizer& opt, double gamma, int64_t last_epoch);
std::shared_ptr<LrScheduler> make_cosine_annealing_lr(Optimizer& opt, int64_t t_max, double eta_min,
                                                      int64_t last_epoch);
std::shared_ptr<LrScheduler> make_linear_lr(Optimizer& opt, double start_factor, double end_factor,
                                            int64_t total_iters, int64_t last_epoch);

struct OneCycleOptions {
  std::vector<double> max_lr;  // one value, or one per group
  int64_t total_steps = 0;     // 0: epochs * steps_per_epoch
  int64_t epochs = 0, steps_per_epoch = 0;
  double pct_start = 0.3;
  bool linear = false;  // anneal_strategy 'linear' instead of 'cos'
  bool cycle_momentum = true;
  std::vector<double> base_momentum{0.85}, max_momentum{0.95};  // one, or one per group
  double div_factor = 25, final_div_factor = 1e4;
  bool three_phase = false;
  int64_t last_epoch = -1;
};
std::shared_ptr<LrScheduler> make_one_cycle_lr(Optimizer& opt, const OneCycleOptions& o);

// torch's SequentialLR: children[k] runs from milestones[k-1] on.
std::shared_ptr<Scheduler> make_sequential_lr(Optimizer& opt, std::vector<std::shared_ptr<LrScheduler>> children,
                                              std::vector<int64_t> milestones, int64_t last_epoch);

}  // namespace tsr::optim
