/* Parameter groups and state_dict (optim.h) against PyTorch 1.13
 * (tests/golden/gen_training.py -> golden/training_golden.h): per-group
 * options read and set, add_param_group's checks; the state after three steps
 * with two groups of different options (SGD nesterov / momentum, Adam amsgrad
 * / betas) as torch's state_dict; training continued after a state_dict round
 * trip, in memory and through tsr_save / tsr_load, gives bit-identical
 * parameters to uninterrupted training; load_state_dict's errors change
 * nothing. */
#include <stdio.h>
#include <unistd.h>

#include "golden/training_golden.h"
#include "training_helpers.h"

/* As tg_state_cases: groups [p0, p1] and [p2] with the second's options. */
static tsr_optimizer* make_opt(int adam, tsr_tensor* ps[3]) {
  tsr_optimizer* opt;
  if (adam) {
    tsr_adam_options o;
    tsr_adam_options_init(&o);
    o.lr = 0.01;
    TSR_ASSERT_OK(tsr_optimizer_adam(ps, 2, &o, &opt));
    const char* keys[] = {"lr", "beta1", "beta2", "amsgrad"};
    const double vals[] = {0.02, 0.8, 0.99, 1};
    TSR_ASSERT_OK(tsr_optimizer_add_param_group(opt, ps + 2, 1, keys, vals, 4));
  } else {
    tsr_sgd_options o;
    tsr_sgd_options_init(&o);
    o.lr = 0.1;
    o.momentum = 0.9;
    TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 2, &o, &opt));
    const char* keys[] = {"lr", "nesterov"};
    const double vals[] = {0.01, 1};
    TSR_ASSERT_OK(tsr_optimizer_add_param_group(opt, ps + 2, 1, keys, vals, 2));
  }
  return opt;
}

/* Step k (0-based) of the golden run: grads = GRADS * (k + 1). */
static void train_step(tsr_optimizer* opt, tsr_tensor* ps[3], int k) {
  for (int i = 0; i < 3; ++i) tr_set_grad(ps[i], i, tg_clip_grads, k + 1, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_optimizer_step(opt));
}

static tsr_tensor* state_of(tsr_tensor_map* m, const char* name) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, name, &t));
  return t;
}

static void expect_close(const double* got, const double* want, int64_t n, const char* what) {
  for (int64_t i = 0; i < n; ++i)
    cr_expect(fabs(got[i] - want[i]) <= 1e-6 + 1e-6 * fabs(want[i]), "%s, element %lld: %.9g, torch %.9g", what,
              (long long)i, got[i], want[i]);
}

/* The state tensors "state.<i>.<key>" of the three parameters, concatenated. */
static void gather_state(tsr_tensor_map* m, const char* key, double out[21]) {
  for (int i = 0; i < 3; ++i) {
    char name[64];
    snprintf(name, sizeof name, "state.%d.%s", i, key);
    tsr_tensor* t = state_of(m, name);
    tr_values(t, out + kTrOffsets[i]);
    tsr_tensor_release(t);
  }
}

static double scalar_of(tsr_tensor_map* m, const char* name) {
  tsr_tensor* t = state_of(m, name);
  double v;
  tr_values(t, &v);
  tsr_tensor_release(t);
  return v;
}

Test(optim_groups, state_dict_matches_torch) {
  for (int c = 0; c < 2; ++c) {
    const tg_state_case* k = &tg_state_cases[c];
    tsr_tensor* ps[3];
    tr_params(TSR_FLOAT32, ps);
    tsr_optimizer* opt = make_opt(k->adam, ps);
    for (int s = 0; s < TG_STATE_STEPS; ++s) train_step(opt, ps, s);
    double got[21];
    tr_gather(ps, false, got);
    expect_close(got, k->params, 21, k->name);

    tsr_tensor_map* sd;
    TSR_ASSERT_OK(tsr_optimizer_state_dict(opt, &sd));
    gather_state(sd, k->adam ? "exp_avg" : "momentum_buffer", got);
    expect_close(got, k->state_a, 21, k->name);
    if (k->adam) {
      gather_state(sd, "exp_avg_sq", got);
      expect_close(got, k->state_b, 21, k->name);
      tsr_tensor* t = state_of(sd, "state.2.max_exp_avg_sq");
      tr_values(t, got);
      tsr_tensor_release(t);
      expect_close(got, k->state_c, 4, k->name);
      cr_expect_eq(tsr_tensor_map_find(sd, "state.0.max_exp_avg_sq"), -1, "group 0 has no amsgrad");
      for (int i = 0; i < 3; ++i) {
        char name[32];
        snprintf(name, sizeof name, "state.%d.step", i);
        tsr_tensor* st = state_of(sd, name);
        cr_expect_eq(tsr_tensor_dtype(st), TSR_FLOAT32);
        cr_expect_eq(tsr_tensor_ndim(st), 0);
        tsr_tensor_release(st);
        cr_expect_eq(scalar_of(sd, name), k->step);
      }
      cr_expect_eq(scalar_of(sd, "param_groups.1.beta1"), 0.8);
      cr_expect_eq(scalar_of(sd, "param_groups.1.amsgrad"), 1);
      cr_expect_eq(scalar_of(sd, "param_groups.0.eps"), 1e-8);
    } else {
      cr_expect_eq(scalar_of(sd, "param_groups.1.nesterov"), 1);
      cr_expect_eq(scalar_of(sd, "param_groups.0.momentum"), 0.9);
    }
    cr_expect_eq(scalar_of(sd, "param_groups.1.lr"), k->adam ? 0.02 : 0.01);
    /* "params": the groups' parameter numbers. */
    tsr_tensor* ids = state_of(sd, "param_groups.0.params");
    int64_t idv[2] = {-1, -1};
    cr_expect_eq(tsr_tensor_dtype(ids), TSR_INT64);
    TSR_ASSERT_OK(tsr_copy_to_buffer(ids, idv, sizeof idv, NULL));
    cr_expect(idv[0] == 0 && idv[1] == 1);
    tsr_tensor_release(ids);
    cr_expect_eq(scalar_of(sd, "param_groups.1.params"), 2);
    /* Names in byte order. */
    for (int64_t i = 1; i < tsr_tensor_map_count(sd); ++i)
      cr_expect_lt(strcmp(tsr_tensor_map_name(sd, i - 1), tsr_tensor_map_name(sd, i)), 0);
    tsr_tensor_map_release(sd);
    tsr_optimizer_release(opt);
    tr_release3(ps);
  }
}

/* The map's entries as arrays (what tsr_save and load_state_dict take). */
typedef struct entries {
  int64_t n;
  const char* names[64];
  tsr_tensor* tensors[64];
} entries;

static void entries_of(tsr_tensor_map* m, entries* e) {
  e->n = tsr_tensor_map_count(m);
  cr_assert_leq(e->n, 64);
  for (int64_t i = 0; i < e->n; ++i) {
    e->names[i] = tsr_tensor_map_name(m, i);
    TSR_ASSERT_OK(tsr_tensor_map_get(m, i, &e->tensors[i]));
  }
}

static void entries_release(entries* e) {
  for (int64_t i = 0; i < e->n; ++i) tsr_tensor_release(e->tensors[i]);
}

static void expect_bit_identical(tsr_tensor* a[3], tsr_tensor* b[3], const char* what) {
  double x[21], y[21];
  tr_gather(a, false, x);
  tr_gather(b, false, y);
  cr_expect(memcmp(x, y, sizeof x) == 0, "%s: parameters differ after resuming", what);
}

/* Train 6 steps; or 3, a state_dict (through a file when via_file), a fresh
 * optimizer over copies of the parameters that loads it, 3 more steps. */
Test(optim_groups, resumed_training_is_bit_identical) {
  for (int adam = 0; adam < 2; ++adam)
    for (int via_file = 0; via_file < 2; ++via_file) {
      tsr_tensor *ref[3], *ps[3], *resumed[3];
      tr_params(TSR_FLOAT32, ref);
      tr_params(TSR_FLOAT32, ps);
      tsr_optimizer* o_ref = make_opt(adam, ref);
      tsr_optimizer* o1 = make_opt(adam, ps);
      for (int s = 0; s < 3; ++s) train_step(o_ref, ref, s);
      for (int s = 0; s < 3; ++s) train_step(o1, ps, s);
      /* An lr changed by hand before saving travels with the groups. */
      TSR_ASSERT_OK(tsr_optimizer_set_group_option(o1, 1, "lr", 0.015));
      TSR_ASSERT_OK(tsr_optimizer_set_group_option(o_ref, 1, "lr", 0.015));
      for (int s = 3; s < 6; ++s) train_step(o_ref, ref, s);

      tsr_tensor_map* sd;
      TSR_ASSERT_OK(tsr_optimizer_state_dict(o1, &sd));
      entries e;
      entries_of(sd, &e);
      tsr_tensor_map* loaded = NULL;
      entries le;
      if (via_file) {
        char path[512];
        snprintf(path, sizeof path, "%s/optim_groups_%d_%d.safetensors", TSR_TEST_TMP_DIR, adam, (int)getpid());
        /* The model's tensors and the optimizer's in one file. */
        const char* names[70];
        tsr_tensor* ts[70];
        const char* pnames[3] = {"model.p0", "model.p1", "model.p2"};
        for (int i = 0; i < 3; ++i) {
          names[i] = pnames[i];
          ts[i] = ps[i];
        }
        for (int64_t i = 0; i < e.n; ++i) {
          names[3 + i] = e.names[i];
          ts[3 + i] = e.tensors[i];
        }
        TSR_ASSERT_OK(tsr_save(path, e.n + 3, names, ts, NULL));
        TSR_ASSERT_OK(tsr_load(path, NULL, &loaded));
        unlink(path);
        entries_of(loaded, &le);
      }
      const entries* src = via_file ? &le : &e;
      /* Fresh parameters with the trained values, a fresh optimizer. */
      tr_params(TSR_FLOAT32, resumed);
      for (int i = 0; i < 3; ++i) {
        tsr_tensor* v = resumed[i];
        if (via_file) {
          tsr_tensor* t;
          char name[16];
          snprintf(name, sizeof name, "model.p%d", i);
          TSR_ASSERT_OK(tsr_tensor_map_get_by_name(loaded, name, &t));
          tsr_set_grad_enabled(false);
          TSR_ASSERT_OK(tsr_copy_(v, t));
          tsr_set_grad_enabled(true);
          tsr_tensor_release(t);
        } else {
          tsr_set_grad_enabled(false);
          TSR_ASSERT_OK(tsr_copy_(v, ps[i]));
          tsr_set_grad_enabled(true);
        }
      }
      tsr_optimizer* o2 = make_opt(adam, resumed);
      TSR_ASSERT_OK(tsr_optimizer_load_state_dict(o2, src->n, src->names, src->tensors));
      double lr;
      TSR_ASSERT_OK(tsr_optimizer_get_group_option(o2, 1, "lr", &lr));
      cr_expect_eq(lr, 0.015);
      /* The loaded state is a copy: training o1 on does not touch o2's. */
      train_step(o1, ps, 3);
      for (int s = 3; s < 6; ++s) train_step(o2, resumed, s);
      expect_bit_identical(ref, resumed, via_file ? "through a file" : "in memory");

      if (via_file) {
        entries_release(&le);
        tsr_tensor_map_release(loaded);
      }
      entries_release(&e);
      tsr_tensor_map_release(sd);
      tsr_optimizer_release(o_ref);
      tsr_optimizer_release(o1);
      tsr_optimizer_release(o2);
      tr_release3(ref);
      tr_release3(ps);
      tr_release3(resumed);
    }
}

Test(optim_groups, options_and_add_param_group) {
  tsr_tensor* ps[3];
  tr_params(TSR_FLOAT32, ps);
  tsr_optimizer* opt = make_opt(0, ps);
  cr_expect_eq(tsr_optimizer_param_group_count(opt), 2);
  cr_expect_eq(tsr_optimizer_param_group_size(opt, 0), 2);
  cr_expect_eq(tsr_optimizer_param_group_size(opt, 1), 1);
  cr_expect_eq(tsr_optimizer_num_params(opt), 3);
  /* SGD's options, in byte order. */
  const char* want[] = {"dampening", "lr", "momentum", "nesterov", "weight_decay"};
  cr_assert_eq(tsr_optimizer_group_option_count(opt, 1), 5);
  for (size_t i = 0; i < 5; ++i) cr_expect_str_eq(tsr_optimizer_group_option_key(opt, 1, i), want[i]);
  double v;
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 1, "momentum", &v));
  cr_expect_eq(v, 0.9, "the defaults fill what the group does not give");
  TSR_ASSERT_OK(tsr_optimizer_get_lr(opt, &v));
  cr_expect_eq(v, 0.1);
  /* Any other key is kept, as torch keeps any key of a group's dict. */
  TSR_ASSERT_OK(tsr_optimizer_set_group_option(opt, 0, "initial_lr", 0.5));
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 0, "initial_lr", &v));
  cr_expect_eq(v, 0.5);
  cr_expect_eq(tsr_optimizer_group_option_count(opt, 0), 6);

  /* Errors: nothing changes. */
  const double bad = -1;
  TSR_ASSERT_FAILS(tsr_optimizer_set_group_option(opt, 1, "lr", -0.5), TSR_ERR_INVALID_ARGUMENT,
                   "Invalid learning rate: -0.5");
  TSR_ASSERT_FAILS(tsr_optimizer_set_group_option(opt, 1, "momentum", bad), TSR_ERR_INVALID_ARGUMENT,
                   "Invalid momentum value: -1.0");
  TSR_ASSERT_FAILS(tsr_optimizer_set_group_option(opt, 1, "momentum", 0), TSR_ERR_INVALID_ARGUMENT,
                   "Nesterov momentum requires a momentum and zero dampening");
  TSR_ASSERT_FAILS(tsr_optimizer_set_group_option(opt, 2, "lr", 0.1), TSR_ERR_INVALID_ARGUMENT,
                   "group index 2 is out of range for 2 parameter groups");
  TSR_ASSERT_FAILS(tsr_optimizer_set_group_option(opt, 0, NULL, 0.1), TSR_ERR_INVALID_ARGUMENT, "key is NULL");
  TSR_ASSERT_FAILS(tsr_optimizer_set_group_option(NULL, 0, "lr", 0.1), TSR_ERR_INVALID_ARGUMENT,
                   "optimizer is NULL");
  v = 42;
  TSR_ASSERT_FAILS(tsr_optimizer_get_group_option(opt, 0, "betas", &v), TSR_ERR_INVALID_ARGUMENT,
                   "param_groups[0] has no option \"betas\"");
  TSR_ASSERT_FAILS(tsr_optimizer_get_group_option(opt, 0, "lr", NULL), TSR_ERR_INVALID_ARGUMENT, "value is NULL");
  cr_expect_eq(v, 42);
  cr_expect_null(tsr_optimizer_group_option_key(opt, 0, 6));
  cr_expect_null(tsr_optimizer_group_option_key(opt, 5, 0));
  cr_expect_eq(tsr_optimizer_param_group_size(opt, 2), -1);
  cr_expect_eq(tsr_optimizer_param_group_count(NULL), -1);
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 1, "momentum", &v));
  cr_expect_eq(v, 0.9);

  tsr_tensor* q;
  const int64_t s2[] = {2};
  TSR_ASSERT_OK(tsr_zeros(1, s2, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &q));
  const char* key = "lr";
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, ps + 1, 1, NULL, NULL, 0), TSR_ERR_INVALID_ARGUMENT,
                   "some parameters appear in more than one parameter group");
  tsr_tensor* twice[2] = {q, q};
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, twice, 2, NULL, NULL, 0), TSR_ERR_INVALID_ARGUMENT,
                   "optimizer contains a parameter group with duplicate parameters");
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, &q, 1, &key, &bad, 1), TSR_ERR_INVALID_ARGUMENT,
                   "Invalid learning rate: -1.0");
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, &q, 1, NULL, &bad, 1), TSR_ERR_INVALID_ARGUMENT,
                   "option_keys or option_values is NULL");
  const char* null_key = NULL;
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, &q, 1, &null_key, &bad, 1), TSR_ERR_INVALID_ARGUMENT,
                   "option_keys[0] is NULL");
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, NULL, 1, NULL, NULL, 0), TSR_ERR_INVALID_ARGUMENT,
                   "params is NULL");
  tsr_tensor* i64;
  TSR_ASSERT_OK(tsr_zeros(1, s2, TSR_INT64, TSR_DEVICE_CPU, 0, &i64));
  TSR_ASSERT_FAILS(tsr_optimizer_add_param_group(opt, &i64, 1, NULL, NULL, 0), TSR_ERR_DTYPE_MISMATCH,
                   "only floating point tensors can be optimized");
  cr_expect_eq(tsr_optimizer_param_group_count(opt), 2);
  cr_expect_eq(tsr_optimizer_num_params(opt), 3);
  /* An empty group is allowed (torch allows it too). */
  TSR_ASSERT_OK(tsr_optimizer_add_param_group(opt, NULL, 0, NULL, NULL, 0));
  cr_expect_eq(tsr_optimizer_param_group_count(opt), 3);
  tsr_tensor_release(i64);
  tsr_tensor_release(q);
  tsr_optimizer_release(opt);
  tr_release3(ps);
}

Test(optim_groups, load_state_dict_errors_change_nothing) {
  tsr_tensor* ps[3];
  tr_params(TSR_FLOAT32, ps);
  tsr_optimizer* opt = make_opt(1, ps);
  train_step(opt, ps, 0);
  tsr_tensor_map* sd;
  TSR_ASSERT_OK(tsr_optimizer_state_dict(opt, &sd));
  entries e;
  entries_of(sd, &e);

  /* One group only: a different number of groups (torch's message). */
  tsr_tensor *qs[3], *qs2[3];
  tr_params(TSR_FLOAT32, qs);
  tr_params(TSR_FLOAT32, qs2);
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  tsr_optimizer* one;
  TSR_ASSERT_OK(tsr_optimizer_adam(qs, 3, &o, &one));
  TSR_ASSERT_FAILS(tsr_optimizer_load_state_dict(one, e.n, e.names, e.tensors), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_GROUPS_COUNT);
  /* Groups of other sizes: [p0] and [p1, p2]. */
  tsr_optimizer* other;
  TSR_ASSERT_OK(tsr_optimizer_adam(qs2, 1, &o, &other));
  TSR_ASSERT_OK(tsr_optimizer_add_param_group(other, qs2 + 1, 2, NULL, NULL, 0));
  TSR_ASSERT_FAILS(tsr_optimizer_load_state_dict(other, e.n, e.names, e.tensors), TSR_ERR_INVALID_ARGUMENT,
                   TG_TRAIN_ERR_GROUPS_SIZE);
  tsr_tensor* st = SENTINEL;
  TSR_ASSERT_OK(tsr_optimizer_state(other, 0, "exp_avg", &st));
  cr_expect_null(st, "nothing loaded");

  /* Entries edited one at a time. */
  tsr_tensor* saved[64];
  memcpy(saved, e.tensors, sizeof saved);
  const char* saved_names[64];
  memcpy(saved_names, e.names, sizeof saved_names);
  const int64_t s5[] = {5}, s1[] = {1};
  tsr_tensor *wrong_size, *neg_lr, *two, *bad_ids;
  TSR_ASSERT_OK(tsr_zeros(1, s5, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &wrong_size));
  const double m1 = -1, twov[2] = {1, 2};
  neg_lr = tr_tensor(&m1, 0, NULL, TSR_FLOAT64);
  two = tr_tensor(twov, 1, (const int64_t[]){2}, TSR_FLOAT64);
  const int64_t nine = 9;
  TSR_ASSERT_OK(tsr_from_data(&nine, sizeof nine, 1, s1, TSR_INT64, &bad_ids));
  struct {
    const char* name;
    tsr_tensor* value;
    const char* rename;
    const char* needle;
  } edits[] = {
      {"state.0.exp_avg", wrong_size, NULL, "has sizes [5] but its parameter has sizes [3, 4]"},
      {"param_groups.1.lr", neg_lr, NULL, "Invalid learning rate: -1.0"},
      {"param_groups.0.eps", two, NULL, "must hold one number"},
      {"param_groups.0.params", two, NULL, "must be a 1-dim integer tensor"},
      {"param_groups.1.params", bad_ids, NULL, "state.2.exp_avg names no parameter"},
      {"state.0.exp_avg", NULL, "state.0.momentum_buffer", "this optimizer keeps no state \"momentum_buffer\""},
      {"state.0.exp_avg", NULL, "state.x.exp_avg", "is not of the form"},
      {"param_groups.0.eps", NULL, "model.eps", "param_groups.0.eps is missing"},
      {"state.1.exp_avg_sq", NULL, "model.exp_avg_sq", "the state of parameter 1 has no \"exp_avg_sq\""},
  };
  tsr_tensor* before;
  TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, "exp_avg", &before));
  double before_v[12];
  tr_values(before, before_v);
  for (size_t k = 0; k < sizeof edits / sizeof edits[0]; ++k) {
    int64_t idx = tsr_tensor_map_find(sd, edits[k].name);
    cr_assert_geq(idx, 0, "%s", edits[k].name);
    if (edits[k].value) e.tensors[idx] = edits[k].value;
    if (edits[k].rename) e.names[idx] = edits[k].rename;
    TSR_ASSERT_FAILS(tsr_optimizer_load_state_dict(opt, e.n, e.names, e.tensors), TSR_ERR_INVALID_ARGUMENT,
                     edits[k].needle);
    memcpy(e.tensors, saved, sizeof saved);
    memcpy(e.names, saved_names, sizeof saved_names);
  }
  TSR_ASSERT_FAILS(tsr_optimizer_load_state_dict(opt, 1, NULL, e.tensors), TSR_ERR_INVALID_ARGUMENT,
                   "names or tensors is NULL");
  TSR_ASSERT_FAILS(tsr_optimizer_load_state_dict(opt, -1, e.names, e.tensors), TSR_ERR_INVALID_ARGUMENT,
                   "n must be >= 0");
  TSR_ASSERT_FAILS(tsr_optimizer_state_dict(opt, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  /* Unchanged: the same state tensor (not replaced), same values, same lr. */
  tsr_tensor* after;
  TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, "exp_avg", &after));
  cr_expect(tsr_tensor_data_ptr(after) == tsr_tensor_data_ptr(before));
  double lr;
  TSR_ASSERT_OK(tsr_optimizer_get_group_option(opt, 1, "lr", &lr));
  cr_expect_eq(lr, 0.02);
  /* And a good load replaces the state with copies. */
  TSR_ASSERT_OK(tsr_optimizer_load_state_dict(opt, e.n, e.names, e.tensors));
  tsr_tensor* copied;
  TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, "exp_avg", &copied));
  cr_expect(tsr_tensor_data_ptr(copied) != tsr_tensor_data_ptr(before));
  double copied_v[12];
  tr_values(copied, copied_v);
  cr_expect(memcmp(copied_v, before_v, sizeof before_v) == 0);

  tsr_tensor_release(copied);
  tsr_tensor_release(after);
  tsr_tensor_release(before);
  tsr_tensor_release(wrong_size);
  tsr_tensor_release(neg_lr);
  tsr_tensor_release(two);
  tsr_tensor_release(bad_ids);
  entries_release(&e);
  tsr_tensor_map_release(sd);
  tsr_optimizer_release(one);
  tsr_optimizer_release(other);
  tsr_optimizer_release(opt);
  tr_release3(ps);
  tr_release3(qs);
  tr_release3(qs2);
}
