/**
 * @file tessera/lr_scheduler.h
 * @brief Learning-rate schedulers (torch.optim.lr_scheduler).
 *
 * A scheduler drives the "lr" of every parameter group of an optimizer
 * (optim.h), as torch.optim.lr_scheduler of PyTorch 1.13 does:
 *
 * @code
 *   tsr_lr_scheduler* s;
 *   tsr_lr_scheduler_step_lr(opt, 30, 0.1, -1, &s);   // StepLR(opt, 30, 0.1)
 *   for (epoch ...) {
 *     ... tsr_optimizer_step(opt) for each batch ...
 *     tsr_lr_scheduler_step(s);
 *   }
 *   tsr_lr_scheduler_release(s);
 * @endcode
 *
 * Creating a scheduler does what torch's constructor does: each group gets
 * "initial_lr" = its "lr" unless it has one (a group option, see
 * tsr_optimizer_set_group_option()), base_lrs are the groups' "initial_lr",
 * and one step runs (last_epoch becomes 0; the groups' "lr" is the
 * schedule's first value). Each step computes torch's recursive get_lr()
 * from the groups' current "lr" (so other changes to "lr" carry on, as in
 * torch), in the same double arithmetic as torch's Python, so the rates
 * are torch's bit for bit. A scheduler drives the groups the optimizer had
 * when it was created.
 *
 * last_epoch: -1 starts a schedule; another value resumes one and needs
 * "initial_lr" in every group (else TSR_ERR_INVALID_ARGUMENT, "param
 * 'initial_lr' is not specified in param_groups[0] when resuming an
 * optimizer").
 *
 * The scheduler keeps a reference to the optimizer. A scheduler is used by
 * one thread at a time, together with its optimizer; retain/release are
 * thread-safe.
 *
 * Statuses of every creating function: NULL opt or out:
 * TSR_ERR_INVALID_ARGUMENT; the checks named at each; a schedule's first
 * "lr" the optimizer refuses (negative): TSR_ERR_INVALID_ARGUMENT. On
 * failure nothing is created and the optimizer's groups are unchanged.
 */
#ifndef TESSERA_LR_SCHEDULER_H
#define TESSERA_LR_SCHEDULER_H

#include "optim.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque, reference-counted scheduler handle (torch.optim.lr_scheduler._LRScheduler). */
typedef struct tsr_lr_scheduler tsr_lr_scheduler;

/**
 * @brief StepLR(opt, step_size, gamma, last_epoch): lr multiplied by gamma
 * every step_size epochs.
 * @param[in]  opt        the optimizer
 * @param[in]  step_size  period, > 0 (torch fails with ZeroDivisionError at
 *                        the second step for 0)
 * @param[in]  gamma      factor (torch's default 0.1)
 * @param[in]  last_epoch -1, or the epoch to resume from
 * @param[out] out        new reference
 * @return TSR_OK; step_size <= 0: TSR_ERR_INVALID_ARGUMENT; the statuses of
 * the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_step_lr(tsr_optimizer* opt, int64_t step_size, double gamma, int64_t last_epoch,
                                            tsr_lr_scheduler** out);
/**
 * @brief MultiStepLR(opt, milestones, gamma, last_epoch): lr multiplied by
 * gamma at each milestone (gamma^k where a milestone is listed k times).
 * @param[in]  opt            the optimizer
 * @param[in]  milestones     num_milestones epochs (any order, repeats count)
 * @param[in]  num_milestones their number (0 allowed)
 * @param[in]  gamma          factor (torch's default 0.1)
 * @param[in]  last_epoch     -1, or the epoch to resume from
 * @param[out] out            new reference
 * @return TSR_OK; NULL milestones with num_milestones > 0:
 * TSR_ERR_INVALID_ARGUMENT; the statuses of the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_multi_step_lr(tsr_optimizer* opt, const int64_t* milestones,
                                                  size_t num_milestones, double gamma, int64_t last_epoch,
                                                  tsr_lr_scheduler** out);
/**
 * @brief ExponentialLR(opt, gamma, last_epoch): lr multiplied by gamma
 * every epoch.
 * @param[in]  opt        the optimizer
 * @param[in]  gamma      factor
 * @param[in]  last_epoch -1, or the epoch to resume from
 * @param[out] out        new reference
 * @return TSR_OK; the statuses of the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_exponential_lr(tsr_optimizer* opt, double gamma, int64_t last_epoch,
                                                   tsr_lr_scheduler** out);
/**
 * @brief CosineAnnealingLR(opt, T_max, eta_min, last_epoch): torch's
 * recursive cosine annealing from base_lr to eta_min over T_max epochs
 * (and back up after, as torch's recursion does).
 * @param[in]  opt        the optimizer
 * @param[in]  t_max      half period in epochs, > 0
 * @param[in]  eta_min    the lowest lr (torch's default 0)
 * @param[in]  last_epoch -1, or the epoch to resume from
 * @param[out] out        new reference
 * @return TSR_OK; t_max <= 0: TSR_ERR_INVALID_ARGUMENT (ZeroDivisionError
 * in torch for 0); the statuses of the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_cosine_annealing_lr(tsr_optimizer* opt, int64_t t_max, double eta_min,
                                                        int64_t last_epoch, tsr_lr_scheduler** out);
/**
 * @brief LinearLR(opt, start_factor, end_factor, total_iters, last_epoch):
 * lr scaled from start_factor * base_lr to end_factor * base_lr linearly
 * over total_iters epochs.
 * @param[in]  opt          the optimizer
 * @param[in]  start_factor in [0, 1] (torch's default 1/3)
 * @param[in]  end_factor   in [0, 1] (torch's default 1.0)
 * @param[in]  total_iters  epochs (torch's default 5)
 * @param[in]  last_epoch   -1, or the epoch to resume from
 * @param[out] out          new reference
 * @return TSR_OK; a factor outside [0, 1]: TSR_ERR_INVALID_ARGUMENT
 * ("Starting multiplicative factor expected to be between 0 and 1." /
 * "Ending ..."); a step whose formula divides by zero (start_factor 0):
 * TSR_ERR_INVALID_ARGUMENT ("float division by zero", torch's
 * ZeroDivisionError); the statuses of the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_linear_lr(tsr_optimizer* opt, double start_factor, double end_factor,
                                              int64_t total_iters, int64_t last_epoch, tsr_lr_scheduler** out);

/** @brief OneCycleLR's anneal_strategy. Values are fixed. */
typedef enum tsr_anneal_strategy {
  TSR_ANNEAL_COS = 0,    /**< 'cos' (torch's default) */
  TSR_ANNEAL_LINEAR = 1, /**< 'linear' */
} tsr_anneal_strategy;

/**
 * @brief Options of OneCycleLR (struct_size as for tsr_sgd_options; call
 * tsr_one_cycle_options_init() for torch's defaults).
 *
 * The per-group values (max_lr, base_momentum, max_momentum) are arrays of
 * one value (used for every group) or of one value per group; the arrays
 * are read during tsr_lr_scheduler_one_cycle_lr() only.
 */
typedef struct tsr_one_cycle_options {
  size_t struct_size;            /**< sizeof(tsr_one_cycle_options) */
  const double* max_lr;          /**< peak lr per group; required */
  size_t num_max_lr;             /**< 1 or the number of groups */
  int64_t total_steps;           /**< > 0, or 0 for epochs * steps_per_epoch */
  int64_t epochs;                /**< with steps_per_epoch when total_steps is 0 */
  int64_t steps_per_epoch;       /**< with epochs when total_steps is 0 */
  double pct_start;              /**< in [0, 1]; default 0.3 */
  tsr_anneal_strategy anneal_strategy; /**< default TSR_ANNEAL_COS */
  bool cycle_momentum;           /**< default true: "momentum" (SGD) or "beta1" (Adam) cycled too */
  const double* base_momentum;   /**< default NULL: 0.85 for every group */
  size_t num_base_momentum;      /**< 1 or the number of groups (0 with NULL) */
  const double* max_momentum;    /**< default NULL: 0.95 for every group */
  size_t num_max_momentum;       /**< 1 or the number of groups (0 with NULL) */
  double div_factor;             /**< initial_lr = max_lr / div_factor; default 25 */
  double final_div_factor;       /**< min_lr = initial_lr / final_div_factor; default 1e4 */
  bool three_phase;              /**< default false */
  int64_t last_epoch;            /**< default -1 */
} tsr_one_cycle_options;

/**
 * @brief Fills *o with OneCycleLR's defaults (max_lr NULL: set it) and
 * struct_size = sizeof(*o). NULL o is ignored.
 * @param[out] o the options
 */
TSR_API void tsr_one_cycle_options_init(tsr_one_cycle_options* o);

/**
 * @brief OneCycleLR(opt, **o): the 1cycle policy. When last_epoch is -1
 * every group gets "initial_lr" = max_lr / div_factor, "max_lr", "min_lr"
 * = initial_lr / final_div_factor and, with cycle_momentum, "momentum"
 * (SGD) or "beta1" (Adam/AdamW) = max_momentum, "max_momentum",
 * "base_momentum"; each step sets "lr" and the momentum from the phase
 * it is in.
 * @param[in]  opt the optimizer
 * @param[in]  o   the options
 * @param[out] out new reference
 * @return TSR_OK; NULL o or o->max_lr: TSR_ERR_INVALID_ARGUMENT; torch's
 * ValueErrors as TSR_ERR_INVALID_ARGUMENT with its messages ("You must
 * define either total_steps OR (epochs AND steps_per_epoch)", "Expected
 * positive integer total_steps, but got -1", "... epochs ...",
 * "... steps_per_epoch ...", "Expected float between 0 and 1 pct_start,
 * but got 1.5", "expected 2 values for max_lr, got 3"); an
 * anneal_strategy other than the enum's: TSR_ERR_INVALID_ARGUMENT; a bad
 * struct_size: TSR_ERR_INVALID_ARGUMENT; the statuses of the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_one_cycle_lr(tsr_optimizer* opt, const tsr_one_cycle_options* o,
                                                 tsr_lr_scheduler** out);
/**
 * @brief SequentialLR(opt, schedulers, milestones, last_epoch): schedulers[0]
 * until milestones[0], then schedulers[1] (restarted at epoch 0, through its
 * closed form where it has one), ...
 *
 * As torch's constructor: every group's "lr" goes back to its
 * "initial_lr", each scheduler's last_epoch is moved back by one, and
 * schedulers[0] makes its first step again. The children stay usable
 * handles (the sequence keeps a reference to each); stepping a child
 * yourself changes the sequence's course as in torch.
 * @param[in]  opt            the optimizer, the one every child drives
 * @param[in]  schedulers     num_schedulers schedulers (not SequentialLRs)
 * @param[in]  num_schedulers their number
 * @param[in]  milestones     num_schedulers - 1 epochs
 * @param[in]  num_milestones their number
 * @param[in]  last_epoch     torch's last_epoch (-1)
 * @param[out] out            new reference
 * @return TSR_OK; a child of another optimizer ("Sequential Schedulers
 * expects all schedulers to belong to the same optimizer, but got
 * schedulers at index 1 to be different than the optimizer passed in."),
 * num_milestones != num_schedulers - 1 ("Sequential Schedulers expects
 * number of schedulers provided to be one more than the number of
 * milestone points, ..."), a child that is a SequentialLR, NULL arrays
 * with non-zero counts or a NULL child: TSR_ERR_INVALID_ARGUMENT; the
 * statuses of the file comment.
 */
TSR_API tsr_status tsr_lr_scheduler_sequential_lr(tsr_optimizer* opt, tsr_lr_scheduler* const* schedulers,
                                                  size_t num_schedulers, const int64_t* milestones,
                                                  size_t num_milestones, int64_t last_epoch,
                                                  tsr_lr_scheduler** out);

/**
 * @brief scheduler.step(): last_epoch + 1 and the groups' "lr" set to the
 * schedule's next value (OneCycleLR also sets the momentum).
 * @param[in,out] s the scheduler
 * @return TSR_OK; OneCycleLR past its total steps: TSR_ERR_INVALID_ARGUMENT
 * ("Tried to step 12 times. The specified number of total steps is 10");
 * a value the optimizer refuses (a negative lr): TSR_ERR_INVALID_ARGUMENT;
 * NULL s: TSR_ERR_INVALID_ARGUMENT. On failure nothing changes.
 */
TSR_API tsr_status tsr_lr_scheduler_step(tsr_lr_scheduler* s);
/**
 * @brief scheduler.step(epoch), deprecated in torch but what SequentialLR
 * uses: last_epoch = epoch, then the closed form of StepLR, MultiStepLR,
 * ExponentialLR, CosineAnnealingLR and LinearLR, or OneCycleLR's get_lr.
 * @param[in,out] s     the scheduler (not a SequentialLR)
 * @param[in]     epoch the epoch
 * @return TSR_OK; a SequentialLR (whose step takes no epoch in torch):
 * TSR_ERR_INVALID_ARGUMENT; the statuses of tsr_lr_scheduler_step().
 */
TSR_API tsr_status tsr_lr_scheduler_step_epoch(tsr_lr_scheduler* s, int64_t epoch);
/**
 * @brief scheduler.get_last_lr(): the lr of each group after the last step.
 * @param[in]  s        the scheduler
 * @param[out] lrs      capacity values (may be NULL when capacity is 0)
 * @param[in]  capacity room in lrs
 * @param[out] count    the number of groups; lrs is filled when it fits
 * @return TSR_OK (also when lrs is too small: compare *count with capacity);
 * NULL s/count, NULL lrs with capacity > 0: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_lr_scheduler_get_last_lr(const tsr_lr_scheduler* s, double* lrs, size_t capacity,
                                                size_t* count);
/**
 * @brief scheduler.last_epoch.
 * @param[in] s the scheduler
 * @return last_epoch; INT64_MIN for NULL s (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_lr_scheduler_last_epoch(const tsr_lr_scheduler* s);
/**
 * @brief What scheduler.state_dict() of torch 1.13 holds beyond the
 * constructor's arguments: last_epoch, _step_count and base_lrs (the last
 * rates come from tsr_lr_scheduler_get_last_lr()). A SequentialLR has no
 * step count or base_lrs of its own: *step_count is 0 and *num_base_lrs 0
 * (its children have theirs).
 * @param[in]  s            the scheduler
 * @param[out] last_epoch   scheduler.last_epoch
 * @param[out] step_count   scheduler._step_count (1 after the constructor)
 * @param[out] base_lrs     capacity values (may be NULL when capacity is 0)
 * @param[in]  capacity     room in base_lrs
 * @param[out] num_base_lrs the number of groups it drives; base_lrs is
 *                          filled when it fits
 * @return TSR_OK; NULL s or outputs, NULL base_lrs with capacity > 0:
 * TSR_ERR_INVALID_ARGUMENT (outputs untouched).
 */
TSR_API tsr_status tsr_lr_scheduler_get_state(const tsr_lr_scheduler* s, int64_t* last_epoch, int64_t* step_count,
                                              double* base_lrs, size_t capacity, size_t* num_base_lrs);
/**
 * @brief scheduler.load_state_dict(): restores what
 * tsr_lr_scheduler_get_state() and tsr_lr_scheduler_get_last_lr() gave, so
 * that a scheduler made afresh over an optimizer whose state_dict was loaded
 * continues the saved schedule (the groups' "lr" come with the optimizer's
 * state_dict). The optimizer is not touched.
 * @param[in,out] s            the scheduler
 * @param[in]     last_epoch   scheduler.last_epoch
 * @param[in]     step_count   scheduler._step_count (ignored for a SequentialLR)
 * @param[in]     base_lrs     num_base_lrs values (ignored for a SequentialLR)
 * @param[in]     num_base_lrs one per group the scheduler drives (0 for a
 *                             SequentialLR)
 * @param[in]     last_lr      num_last_lr values
 * @param[in]     num_last_lr  one per group the scheduler drives
 * @return TSR_OK; counts that are not the scheduler's number of groups,
 * step_count < 0, NULL s or arrays with non-zero counts:
 * TSR_ERR_INVALID_ARGUMENT, nothing changed.
 */
TSR_API tsr_status tsr_lr_scheduler_set_state(tsr_lr_scheduler* s, int64_t last_epoch, int64_t step_count,
                                              const double* base_lrs, size_t num_base_lrs, const double* last_lr,
                                              size_t num_last_lr);
/**
 * @brief Adds one reference. NULL is ignored. Thread-safe.
 * @param[in] s the scheduler, or NULL
 */
TSR_API void tsr_lr_scheduler_retain(tsr_lr_scheduler* s);
/**
 * @brief Drops one reference; the last release frees the scheduler and its
 * references to the optimizer and (SequentialLR) its children. NULL is
 * ignored. Thread-safe.
 * @param[in] s the scheduler, or NULL
 */
TSR_API void tsr_lr_scheduler_release(tsr_lr_scheduler* s);

#ifdef __cplusplus
}
#endif

#endif
