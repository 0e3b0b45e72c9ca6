/* Learning-rate schedulers (lr_scheduler.h) against PyTorch 1.13
 * (tests/golden/gen_training.py -> golden/training_golden.h): the lr of two
 * parameter groups (0.1 and 0.01) after the constructor and each of 50 steps,
 * bit for bit, for StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR,
 * LinearLR, OneCycleLR (cos / linear three-phase, SGD momentum / Adam
 * beta1 cycled) and SequentialLR; the closed forms of step(epoch); torch's
 * errors, with the optimizer's groups unchanged by a failed call. */
#include "golden/training_golden.h"
#include "training_helpers.h"

#define SENTINEL_S ((tsr_lr_scheduler*)(uintptr_t)0x5e5e5e5e)

/* SGD(momentum=0.9) or Adam with groups [a] (lr 0.1) and [b] (lr 0.01). */
static tsr_optimizer* make_opt(int adam, tsr_tensor* ps[2]) {
  const int64_t s2[] = {2}, s3[] = {3};
  TSR_ASSERT_OK(tsr_zeros(1, s2, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &ps[0]));
  TSR_ASSERT_OK(tsr_zeros(1, s3, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &ps[1]));
  tsr_optimizer* opt;
  if (adam) {
    tsr_adam_options o;
    tsr_adam_options_init(&o);
    o.lr = 0.1;
    TSR_ASSERT_OK(tsr_optimizer_adam(ps, 1, &o, &opt));
  } else {
    tsr_sgd_options o;
    tsr_sgd_options_init(&o);
    o.lr = 0.1;
    o.momentum = 0.9;
    TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 1, &o, &opt));
  }
  const char* key = "lr";
  const double lr = 0.01;
  TSR_ASSERT_OK(tsr_optimizer_add_param_group(opt, ps + 1, 1, &key, &lr, 1));
  return opt;
}

static tsr_lr_scheduler* build(const tg_sched_case* k, tsr_optimizer* opt) {
  tsr_lr_scheduler* s = NULL;
  switch (k->kind) {
    case 0: TSR_ASSERT_OK(tsr_lr_scheduler_step_lr(opt, k->ints[0], k->reals[0], -1, &s)); break;
    case 1:
      TSR_ASSERT_OK(tsr_lr_scheduler_multi_step_lr(opt, k->milestones, (size_t)k->num_milestones, k->reals[0], -1,
                                                   &s));
      break;
    case 2: TSR_ASSERT_OK(tsr_lr_scheduler_exponential_lr(opt, k->reals[0], -1, &s)); break;
    case 3: TSR_ASSERT_OK(tsr_lr_scheduler_cosine_annealing_lr(opt, k->ints[0], k->reals[0], -1, &s)); break;
    case 4: TSR_ASSERT_OK(tsr_lr_scheduler_linear_lr(opt, k->reals[0], k->reals[1], k->ints[0], -1, &s)); break;
    case 5: {
      tsr_one_cycle_options o;
      tsr_one_cycle_options_init(&o);
      o.max_lr = k->reals;
      o.num_max_lr = 2;
      o.total_steps = k->ints[0];
      TSR_ASSERT_OK(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s));
      break;
    }
    case 6: {
      tsr_one_cycle_options o;
      tsr_one_cycle_options_init(&o);
      o.max_lr = k->reals;
      o.num_max_lr = 1;
      o.epochs = k->ints[0];
      o.steps_per_epoch = k->ints[1];
      o.pct_start = k->reals[1];
      o.anneal_strategy = TSR_ANNEAL_LINEAR;
      o.three_phase = true;
      o.div_factor = k->reals[2];
      o.final_div_factor = k->reals[3];
      TSR_ASSERT_OK(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s));
      break;
    }
    case 7: {
      tsr_lr_scheduler* c[3];
      TSR_ASSERT_OK(tsr_lr_scheduler_linear_lr(opt, 0.1, 1.0, 5, -1, &c[0]));
      TSR_ASSERT_OK(tsr_lr_scheduler_cosine_annealing_lr(opt, 20, 0.0, -1, &c[1]));
      TSR_ASSERT_OK(tsr_lr_scheduler_step_lr(opt, 5, 0.5, -1, &c[2]));
      TSR_ASSERT_OK(tsr_lr_scheduler_sequential_lr(opt, c, 3, k->milestones, (size_t)k->num_milestones, -1, &s));
      for (int i = 0; i < 3; ++i) tsr_lr_scheduler_release(c[i]); /* the sequence keeps its own */
      break;
    }
    case 8: {
      tsr_lr_scheduler* c[2];
      const int64_t ms[] = {3, 8};
      TSR_ASSERT_OK(tsr_lr_scheduler_exponential_lr(opt, 0.9, -1, &c[0]));
      TSR_ASSERT_OK(tsr_lr_scheduler_multi_step_lr(opt, ms, 2, 0.5, -1, &c[1]));
      TSR_ASSERT_OK(tsr_lr_scheduler_sequential_lr(opt, c, 2, k->milestones, (size_t)k->num_milestones, -1, &s));
      for (int i = 0; i < 2; ++i) tsr_lr_scheduler_release(c[i]);
      break;
    }
    default: cr_assert_fail("unknown kind %d", k->kind);
  }
  return s;
}

static void expect_lrs(const tsr_lr_scheduler* s, tsr_optimizer* opt, const double want[2], const char* name,
                       int step) {
  double lrs[2] = {-1, -1};
  size_t n = 0;
  TSR_ASSERT_OK(tsr_lr_scheduler_get_last_lr(s, lrs, 2, &n));
  cr_assert_eq(n, 2);
  for (size_t g = 0; g < 2; ++g) {
    cr_expect_eq(lrs[g], want[g], "%s, step %d, group %zu: %.17g, torch %.17g", name, step, g, lrs[g], want[g]);
    double lr = -1;
    TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, g, "lr", &lr));
    cr_expect_eq(lr, want[g], "%s, step %d, group %zu: the optimizer's lr %.17g", name, step, g, lr);
  }
}

Test(lr_scheduler, fifty_steps_match_torch_bit_for_bit) {
  for (size_t c = 0; c < TG_SCHED_NUM_CASES; ++c) {
    const tg_sched_case* k = &tg_sched_cases[c];
    tsr_tensor* ps[2];
    tsr_optimizer* opt = make_opt(k->adam, ps);
    tsr_lr_scheduler* s = build(k, opt);
    const char* mkey = k->adam ? "beta1" : "momentum";
    for (int step = 0; step <= TG_SCHED_STEPS; ++step) {
      if (step > 0) TSR_ASSERT_OK(tsr_lr_scheduler_step(s));
      expect_lrs(s, opt, k->lrs[step], k->name, step);
      for (size_t g = 0; g < 2; ++g) {
        double m = -1;
        TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, g, mkey, &m));
        cr_expect_eq(m, k->momentum[step][g], "%s, step %d, group %zu: %s %.17g, torch %.17g", k->name, step, g,
                     mkey, m, k->momentum[step][g]);
      }
    }
    cr_expect_eq(tsr_lr_scheduler_last_epoch(s), k->last_epoch, "%s", k->name);
    tsr_lr_scheduler_release(s);
    tsr_optimizer_release(opt);
    tsr_tensor_release(ps[0]);
    tsr_tensor_release(ps[1]);
  }
}

Test(lr_scheduler, closed_forms_match_torch) {
  for (size_t c = 0; c < 5; ++c) {
    const tg_sched_case* k = &tg_sched_cases[c];
    tsr_tensor* ps[2];
    tsr_optimizer* opt = make_opt(k->adam, ps);
    tsr_lr_scheduler* s = build(k, opt);
    for (int e = 0; e <= TG_SCHED_STEPS; ++e) {
      TSR_ASSERT_OK(tsr_lr_scheduler_step_epoch(s, e));
      expect_lrs(s, opt, tg_sched_closed[c][e], k->name, e);
    }
    tsr_lr_scheduler_release(s);
    tsr_optimizer_release(opt);
    tsr_tensor_release(ps[0]);
    tsr_tensor_release(ps[1]);
  }
}

/* Group 0's "lr" and whether it has "initial_lr" / "max_lr". */
static void expect_groups_untouched(tsr_optimizer* opt) {
  double lr;
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "lr", &lr));
  cr_expect_eq(lr, 0.1);
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 1, "lr", &lr));
  cr_expect_eq(lr, 0.01);
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "momentum", &lr));
  cr_expect_eq(lr, 0.9);
  cr_expect_eq(tsr_optimizer_group_option_count(opt, 0), 5, "no option added");
  cr_expect_eq(tsr_optimizer_group_option_count(opt, 1), 5, "no option added");
}

Test(lr_scheduler, errors_with_torch_messages_change_nothing) {
  tsr_tensor* ps[2];
  tsr_optimizer* opt = make_opt(0, ps);
  tsr_lr_scheduler* s = SENTINEL_S;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_linear_lr(opt, 1.5, 1.0, 5, -1, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_LINEAR_START);
  TSR_ASSERT_FAILS(tsr_lr_scheduler_linear_lr(opt, 0.5, -0.5, 5, -1, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_LINEAR_END);
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step_lr(opt, 3, 0.1, 4, &s), TSR_ERR_INVALID_ARGUMENT, TG_TRAIN_ERR_RESUME);
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step_lr(opt, 0, 0.1, -1, &s), TSR_ERR_INVALID_ARGUMENT, "step_size");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_cosine_annealing_lr(opt, 0, 0.0, -1, &s), TSR_ERR_INVALID_ARGUMENT, "T_max");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step_lr(NULL, 3, 0.1, -1, &s), TSR_ERR_INVALID_ARGUMENT, "optimizer is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step_lr(opt, 3, 0.1, -1, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_multi_step_lr(opt, NULL, 2, 0.1, -1, &s), TSR_ERR_INVALID_ARGUMENT,
                   "milestones is NULL");
  cr_expect_eq(s, SENTINEL_S);
  expect_groups_untouched(opt);
  {
    /* start_factor 0: torch's ZeroDivisionError at the first step; the
     * failed step changes nothing. */
    tsr_tensor* qs[2];
    tsr_optimizer* q = make_opt(0, qs);
    tsr_lr_scheduler* lin;
    TSR_ASSERT_OK(tsr_lr_scheduler_linear_lr(q, 0.0, 1.0, 5, -1, &lin));
    TSR_ASSERT_FAILS(tsr_lr_scheduler_step(lin), TSR_ERR_INVALID_ARGUMENT, "float division by zero");
    cr_expect_eq(tsr_lr_scheduler_last_epoch(lin), 0);
    double lr = -1;
    TSR_ASSERT_OK(tsr_optimizer_get_group_option(q, 0, "lr", &lr));
    cr_expect_eq(lr, 0.0);
    /* A schedule that makes a negative lr: refused, nothing changed. */
    tsr_lr_scheduler* neg;
    TSR_ASSERT_OK(tsr_lr_scheduler_exponential_lr(q, -0.5, -1, &neg));
    TSR_ASSERT_OK(tsr_optimizer_set_group_option(q, 0, "lr", 0.1));
    TSR_ASSERT_FAILS(tsr_lr_scheduler_step(neg), TSR_ERR_INVALID_ARGUMENT, "Invalid learning rate: -0.05");
    TSR_ASSERT_OK(tsr_optimizer_get_group_option(q, 0, "lr", &lr));
    cr_expect_eq(lr, 0.1);
    TSR_ASSERT_OK(tsr_optimizer_get_group_option(q, 1, "lr", &lr));
    cr_expect_eq(lr, 0.0);
    cr_expect_eq(tsr_lr_scheduler_last_epoch(neg), 0);
    tsr_lr_scheduler_release(neg);
    tsr_lr_scheduler_release(lin);
    tsr_optimizer_release(q);
    tsr_tensor_release(qs[0]);
    tsr_tensor_release(qs[1]);
  }

  const double max_lr[3] = {0.1, 0.2, 0.3};
  tsr_one_cycle_options o;
  tsr_one_cycle_options_init(&o);
  o.max_lr = max_lr;
  o.num_max_lr = 1;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_NONE);
  o.total_steps = -1;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_TOTAL);
  o.total_steps = 0;
  o.epochs = 0;
  o.steps_per_epoch = 3;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_EPOCHS);
  o.epochs = 2;
  o.steps_per_epoch = -3;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_SPE);
  o.epochs = o.steps_per_epoch = 0;
  o.total_steps = 10;
  o.pct_start = 1.5;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_PCT);
  o.pct_start = 0.3;
  o.num_max_lr = 3;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_MAX_LR);
  o.num_max_lr = 1;
  const double mm[3] = {0.9, 0.9, 0.9};
  o.max_momentum = mm;
  o.num_max_momentum = 3;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_ONECYCLE_MAX_MOMENTUM);
  o.num_max_momentum = 1;
  memset(&o.anneal_strategy, 0x7f, sizeof o.anneal_strategy);
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT, "anneal_strategy");
  o.anneal_strategy = TSR_ANNEAL_COS;
  o.max_lr = NULL;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT, "max_lr is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, NULL, &s), TSR_ERR_INVALID_ARGUMENT, "options is NULL");
  o.max_lr = max_lr;
  o.struct_size = 3;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  cr_expect_eq(s, SENTINEL_S);
  expect_groups_untouched(opt);

  /* Past OneCycleLR's total steps: an error, nothing changed. */
  o.struct_size = sizeof o;
  o.max_momentum = NULL;
  o.num_max_momentum = 0;
  o.total_steps = 3;
  TSR_ASSERT_OK(tsr_lr_scheduler_one_cycle_lr(opt, &o, &s));
  for (int i = 0; i < 3; ++i) TSR_ASSERT_OK(tsr_lr_scheduler_step(s));
  double lr_before, m_before, lr, m;
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "lr", &lr_before));
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "momentum", &m_before));
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step(s), TSR_ERR_INVALID_ARGUMENT, TG_TRAIN_ERR_ONECYCLE_TOO_FAR);
  cr_expect_eq(tsr_lr_scheduler_last_epoch(s), 3);
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "lr", &lr));
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "momentum", &m));
  cr_expect_eq(lr, lr_before);
  cr_expect_eq(m, m_before);

  /* SequentialLR's checks. */
  tsr_tensor* ps2[2];
  tsr_optimizer* other = make_opt(0, ps2);
  tsr_lr_scheduler *a, *b, *seq = SENTINEL_S;
  TSR_ASSERT_OK(tsr_lr_scheduler_step_lr(opt, 2, 0.1, -1, &a));
  TSR_ASSERT_OK(tsr_lr_scheduler_step_lr(other, 2, 0.1, -1, &b));
  tsr_lr_scheduler* kids[2] = {a, b};
  const int64_t ms[2] = {3, 4};
  TSR_ASSERT_FAILS(tsr_lr_scheduler_sequential_lr(opt, kids, 2, ms, 1, -1, &seq), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_SEQUENTIAL_OPTIMIZER);
  kids[1] = a;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_sequential_lr(opt, kids, 2, ms, 2, -1, &seq), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_SEQUENTIAL_MILESTONES);
  kids[1] = NULL;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_sequential_lr(opt, kids, 2, ms, 1, -1, &seq), TSR_ERR_INVALID_ARGUMENT,
                   "schedulers[1] is NULL");
  kids[1] = a;
  TSR_ASSERT_OK(tsr_lr_scheduler_sequential_lr(opt, kids, 2, ms, 1, -1, &seq));
  tsr_lr_scheduler* nested[2] = {a, seq};
  tsr_lr_scheduler* s2 = SENTINEL_S;
  TSR_ASSERT_FAILS(tsr_lr_scheduler_sequential_lr(opt, nested, 2, ms, 1, -1, &s2), TSR_ERR_INVALID_ARGUMENT,
                   "SequentialLR");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step_epoch(seq, 0), TSR_ERR_INVALID_ARGUMENT, "takes no epoch");
  cr_expect_eq(s2, SENTINEL_S);

  /* get_last_lr's buffer contract and NULLs. */
  size_t n = 0;
  TSR_ASSERT_OK(tsr_lr_scheduler_get_last_lr(seq, NULL, 0, &n));
  cr_expect_eq(n, 2);
  TSR_ASSERT_FAILS(tsr_lr_scheduler_get_last_lr(seq, NULL, 2, &n), TSR_ERR_INVALID_ARGUMENT, "lrs is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_get_last_lr(seq, NULL, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "count is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_step(NULL), TSR_ERR_INVALID_ARGUMENT, "scheduler is NULL");
  cr_expect_eq(tsr_lr_scheduler_last_epoch(NULL), INT64_MIN);
  tsr_lr_scheduler_retain(NULL);
  tsr_lr_scheduler_release(NULL);

  tsr_lr_scheduler_release(seq);
  tsr_lr_scheduler_release(a);
  tsr_lr_scheduler_release(b);
  tsr_lr_scheduler_release(s);
  tsr_optimizer_release(other);
  tsr_optimizer_release(opt);
  for (int i = 0; i < 2; ++i) {
    tsr_tensor_release(ps[i]);
    tsr_tensor_release(ps2[i]);
  }
}

/* The scheduler keeps its optimizer alive; the sequence its children. */
Test(lr_scheduler, references) {
  tsr_tensor* ps[2];
  tsr_optimizer* opt = make_opt(1, ps);
  tsr_lr_scheduler *a, *seq;
  TSR_ASSERT_OK(tsr_lr_scheduler_exponential_lr(opt, 0.5, -1, &a));
  const int64_t none = 0;
  TSR_ASSERT_OK(tsr_lr_scheduler_sequential_lr(opt, &a, 1, &none, 0, -1, &seq));
  tsr_lr_scheduler_release(a);
  tsr_optimizer_release(opt);
  for (int i = 0; i < 3; ++i) TSR_ASSERT_OK(tsr_lr_scheduler_step(seq));
  double lrs[2];
  size_t n;
  TSR_ASSERT_OK(tsr_lr_scheduler_get_last_lr(seq, lrs, 2, &n));
  cr_expect_eq(lrs[0], 0.1 * 0.5 * 0.5 * 0.5);
  tsr_lr_scheduler_release(seq);
  tsr_tensor_release(ps[0]);
  tsr_tensor_release(ps[1]);
}

/* get_state / set_state (scheduler.state_dict / load_state_dict): a
 * scheduler made afresh over an optimizer that loaded the saved state_dict
 * continues the golden schedule bit for bit. */
Test(lr_scheduler, state_round_trip_resumes_the_golden_schedule) {
  for (size_t c = 0; c < TG_SCHED_NUM_CASES; ++c) {
    const tg_sched_case* k = &tg_sched_cases[c];
    if (k->kind >= 7) continue; /* SequentialLR: its children's states (Python's test covers it) */
    tsr_tensor *ps[2], *qs[2];
    tsr_optimizer* opt = make_opt(k->adam, ps);
    tsr_lr_scheduler* s = build(k, opt);
    for (int i = 0; i < 12; ++i) TSR_ASSERT_OK(tsr_lr_scheduler_step(s));
    int64_t epoch = -1, count = -1;
    double base[2], last[2];
    size_t nb = 0, nl = 0;
    TSR_ASSERT_OK(tsr_lr_scheduler_get_state(s, &epoch, &count, base, 2, &nb));
    TSR_ASSERT_OK(tsr_lr_scheduler_get_last_lr(s, last, 2, &nl));
    cr_expect(epoch == 12 && count == 13 && nb == 2 && nl == 2, "%s: epoch %lld count %lld", k->name,
              (long long)epoch, (long long)count);
    tsr_tensor_map* sd;
    TSR_ASSERT_OK(tsr_optimizer_state_dict(opt, &sd));
    const int64_t n = tsr_tensor_map_count(sd);
    const char* names[64];
    tsr_tensor* ts[64];
    for (int64_t i = 0; i < n; ++i) {
      names[i] = tsr_tensor_map_name(sd, i);
      TSR_ASSERT_OK(tsr_tensor_map_get(sd, i, &ts[i]));
    }
    /* torch's order: optimizer, scheduler, then both load_state_dicts. */
    tsr_optimizer* opt2 = make_opt(k->adam, qs);
    tsr_lr_scheduler* s2 = build(k, opt2);
    TSR_ASSERT_OK(tsr_optimizer_load_state_dict(opt2, n, names, ts));
    TSR_ASSERT_OK(tsr_lr_scheduler_set_state(s2, epoch, count, base, nb, last, nl));
    for (int step = 13; step <= TG_SCHED_STEPS; ++step) {
      TSR_ASSERT_OK(tsr_lr_scheduler_step(s2));
      expect_lrs(s2, opt2, k->lrs[step], k->name, step);
    }
    for (int64_t i = 0; i < n; ++i) tsr_tensor_release(ts[i]);
    tsr_tensor_map_release(sd);
    tsr_lr_scheduler_release(s2);
    tsr_lr_scheduler_release(s);
    tsr_optimizer_release(opt2);
    tsr_optimizer_release(opt);
    for (int i = 0; i < 2; ++i) {
      tsr_tensor_release(ps[i]);
      tsr_tensor_release(qs[i]);
    }
  }
}

Test(lr_scheduler, state_errors_change_nothing) {
  tsr_tensor* ps[2];
  tsr_optimizer* opt = make_opt(0, ps);
  tsr_lr_scheduler *s, *seq;
  TSR_ASSERT_OK(tsr_lr_scheduler_step_lr(opt, 2, 0.5, -1, &s));
  const int64_t none = 0;
  TSR_ASSERT_OK(tsr_lr_scheduler_sequential_lr(opt, &s, 1, &none, 0, -1, &seq));
  const double two[2] = {1, 2}, one[1] = {1};
  int64_t e = 42, c = 42;
  size_t n = 42;
  double b[2];
  TSR_ASSERT_FAILS(tsr_lr_scheduler_set_state(s, 5, 6, one, 1, two, 2), TSR_ERR_INVALID_ARGUMENT,
                   "1 base_lrs for a scheduler of 2 groups");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_set_state(s, 5, 6, two, 2, one, 1), TSR_ERR_INVALID_ARGUMENT,
                   "1 last_lr values for a scheduler of 2 groups");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_set_state(s, 5, -1, two, 2, two, 2), TSR_ERR_INVALID_ARGUMENT,
                   "step_count must be >= 0");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_set_state(s, 5, 6, NULL, 2, two, 2), TSR_ERR_INVALID_ARGUMENT,
                   "base_lrs is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_set_state(NULL, 5, 6, two, 2, two, 2), TSR_ERR_INVALID_ARGUMENT,
                   "scheduler is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_get_state(s, &e, &c, NULL, 2, &n), TSR_ERR_INVALID_ARGUMENT,
                   "base_lrs is NULL");
  TSR_ASSERT_FAILS(tsr_lr_scheduler_get_state(s, NULL, &c, b, 2, &n), TSR_ERR_INVALID_ARGUMENT,
                   "last_epoch is NULL");
  cr_expect(e == 42 && c == 42 && n == 42, "outputs untouched");
  TSR_ASSERT_OK(tsr_lr_scheduler_get_state(s, &e, &c, b, 2, &n));
  cr_expect(e == 0 && c == 1 && n == 2 && b[0] == 0.1 && b[1] == 0.01);
  /* A SequentialLR: no step count or base_lrs of its own. */
  TSR_ASSERT_OK(tsr_lr_scheduler_get_state(seq, &e, &c, NULL, 0, &n));
  cr_expect(c == 0 && n == 0);
  TSR_ASSERT_OK(tsr_lr_scheduler_set_state(seq, 7, 0, NULL, 0, two, 2));
  cr_expect_eq(tsr_lr_scheduler_last_epoch(seq), 7);
  tsr_lr_scheduler_release(seq);
  tsr_lr_scheduler_release(s);
  tsr_optimizer_release(opt);
  tsr_tensor_release(ps[0]);
  tsr_tensor_release(ps[1]);
}
