/* DistributedDataParallel (distributed.h, tsr_ddp_*): W forked ranks over
 * 127.0.0.1 (dist_harness.h), each training an MLP on its slice of a global
 * batch, checked against one process computing on the whole batch: the
 * gradients after every backward and the parameters after SGD steps. Also
 * the bucket rebuild, no_sync, unused parameters (error and
 * find_unused_parameters), the compression hooks, gradient_as_bucket_view,
 * parameters that differ across ranks, a backward that fails halfway, and
 * every argument check. */
#include <math.h>
#include <pthread.h>

#include "dist_harness.h"
#include "helpers.h"

/* The model: y = W2 relu(W1 x + b1) + b2 (+ E when used), loss = mean
 * squared error over the local batch. W2 is 2 MiB, so after the rebuild
 * the first gradients to arrive (b2, W2) fill torch's 1 MiB first bucket
 * and the rest spread over small buckets. */
enum { D = 8, H = 512, O = 1024, G = 6, NP = 5 };
static const int64_t kSizes[NP][2] = {{H, D}, {H, 0}, {O, H}, {O, 0}, {O, 0}};
static const int kDims[NP] = {2, 1, 2, 1, 1};
static const char* const kNames[NP] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "extra.bias"};
enum { W1, B1, W2, B2, E };

static int64_t numel_of(int p) { return kSizes[p][0] * (kDims[p] == 2 ? kSizes[p][1] : 1); }

/* Parameter p's starting values; `shift` makes ranks differ before DDP
 * broadcasts rank 0's. */
static tsr_tensor* make_param(int p, double shift) {
  const int64_t n = numel_of(p);
  float* v = malloc(sizeof(float) * (size_t)n);
  const double scale = p == W1 ? 0.3 : p == W2 ? 0.05 : 0.1;
  for (int64_t i = 0; i < n; ++i) v[i] = (float)(scale * sin(0.37 * (double)i + 1.7 * p) + shift);
  tsr_tensor* t;
  DCHECK_OK(tsr_from_data(v, sizeof(float) * (size_t)n, kDims[p], kSizes[p], TSR_FLOAT32, &t));
  DCHECK_OK(tsr_set_requires_grad(t, true));
  free(v);
  return t;
}

static void make_params(tsr_tensor** ps, double shift) {
  for (int p = 0; p < NP; ++p) ps[p] = make_param(p, shift);
}

static void release_all(tsr_tensor** ts, int n) {
  for (int i = 0; i < n; ++i) tsr_tensor_release(ts[i]);
}

/* Global batch `which` (0 or 1): inputs [G, D], targets [G, O]. */
static void make_batch(int which, tsr_tensor** x, tsr_tensor** t) {
  float xs[G * D];
  float* ts = malloc(sizeof(float) * G * O);
  for (int i = 0; i < G * D; ++i) xs[i] = (float)cos(0.9 * i + which);
  for (int i = 0; i < G * O; ++i) ts[i] = (float)(0.5 * sin(0.11 * i - which));
  const int64_t xsz[2] = {G, D}, tsz[2] = {G, O};
  DCHECK_OK(tsr_from_data(xs, sizeof xs, 2, xsz, TSR_FLOAT32, x));
  DCHECK_OK(tsr_from_data(ts, sizeof(float) * G * O, 2, tsz, TSR_FLOAT32, t));
  free(ts);
}

/* Rows [rank·G/world, (rank+1)·G/world) of the batch. */
static void local_batch(int which, int rank, int world, tsr_tensor** x, tsr_tensor** t) {
  tsr_tensor *gx, *gt;
  make_batch(which, &gx, &gt);
  const int64_t rows = G / world;
  DCHECK_OK(tsr_narrow(gx, 0, rank * rows, rows, x));
  DCHECK_OK(tsr_narrow(gt, 0, rank * rows, rows, t));
  tsr_tensor_release(gx);
  tsr_tensor_release(gt);
}

static tsr_tensor* loss_of(tsr_tensor** ps, const tsr_tensor* x, const tsr_tensor* t, int use_extra) {
  tsr_tensor *a, *h, *y, *loss;
  DCHECK_OK(tsr_linear(x, ps[W1], ps[B1], &a));
  DCHECK_OK(tsr_relu(a, &h));
  DCHECK_OK(tsr_linear(h, ps[W2], ps[B2], &y));
  if (use_extra) {
    tsr_tensor* ye;
    DCHECK_OK(tsr_add(y, ps[E], &ye));
    tsr_tensor_release(y);
    y = ye;
  }
  DCHECK_OK(tsr_mse_loss(y, t, TSR_REDUCTION_MEAN, &loss));
  tsr_tensor_release(a);
  tsr_tensor_release(h);
  tsr_tensor_release(y);
  return loss;
}

/* forward + backward of batch `which` on params (x, t given). */
static tsr_status step_on(tsr_tensor** ps, const tsr_tensor* x, const tsr_tensor* t, int use_extra) {
  tsr_tensor* loss = loss_of(ps, x, t, use_extra);
  tsr_status st = tsr_backward(loss, NULL, false);
  tsr_tensor_release(loss);
  return st;
}

static tsr_status local_step(tsr_tensor** ps, int which, int rank, int world, int use_extra) {
  tsr_tensor *x, *t;
  local_batch(which, rank, world, &x, &t);
  tsr_status st = step_on(ps, x, t, use_extra);
  tsr_tensor_release(x);
  tsr_tensor_release(t);
  return st;
}

static void global_step(tsr_tensor** ps, int which, int use_extra) {
  tsr_tensor *x, *t;
  make_batch(which, &x, &t);
  DCHECK_OK(step_on(ps, x, t, use_extra));
  tsr_tensor_release(x);
  tsr_tensor_release(t);
}

/* t's values as float64 (malloc'd, n elements). */
static double* values(const tsr_tensor* t, int64_t* n) {
  tsr_tensor* d;
  DCHECK_OK(tsr_to_dtype(t, TSR_FLOAT64, &d));
  *n = tsr_tensor_numel(d);
  double* v = malloc(sizeof(double) * (size_t)(*n + 1));
  size_t need;
  DCHECK_OK(tsr_copy_to_buffer(d, v, sizeof(double) * (size_t)*n, &need));
  tsr_tensor_release(d);
  return v;
}

/* max |got - want| <= rtol · max |want|: relative to the tensor's scale. */
static void check_close(const tsr_tensor* got, const tsr_tensor* want, double rtol, const char* what, int p) {
  DCHECK(got != NULL && want != NULL, "%s of %s: missing (got %p, want %p)", what, kNames[p], (void*)got,
         (void*)want);
  int64_t n, m;
  double* a = values(got, &n);
  double* b = values(want, &m);
  DCHECK(n == m, "%s of %s: %lld vs %lld elements", what, kNames[p], (long long)n, (long long)m);
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < n; ++i) {
    diff = fmax(diff, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  DCHECK(diff <= rtol * scale && scale > 0, "%s of %s: max difference %g, scale %g (rtol %g)", what, kNames[p],
         diff, scale, rtol);
  free(a);
  free(b);
}

static tsr_tensor* grad_of(tsr_tensor* p) {
  tsr_tensor* g;
  DCHECK_OK(tsr_grad(p, &g));
  return g;
}

static void check_grads(tsr_tensor** got, tsr_tensor** want, int n, double rtol, const char* what) {
  for (int p = 0; p < n; ++p) {
    tsr_tensor *a = grad_of(got[p]), *b = grad_of(want[p]);
    check_close(a, b, rtol, what, p);
    tsr_tensor_release(a);
    tsr_tensor_release(b);
  }
}

static void check_values(tsr_tensor** got, tsr_tensor** want, int n, double rtol, const char* what) {
  for (int p = 0; p < n; ++p) check_close(got[p], want[p], rtol, what, p);
}

static tsr_optimizer* sgd(tsr_tensor** ps, int n) {
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.1;
  o.momentum = 0.9;
  tsr_optimizer* opt;
  DCHECK_OK(tsr_optimizer_sgd(ps, (size_t)n, &o, &opt));
  return opt;
}

static tsr_ddp* make_ddp(tsr_process_group* pg, tsr_tensor** ps, int n, const tsr_ddp_options* o) {
  tsr_ddp* ddp;
  DCHECK_OK(tsr_ddp_create(pg, n, ps, o, &ddp));
  DCHECK_OK(tsr_ddp_set_param_names(ddp, n, kNames));
  return ddp;
}

/* The buckets, flattened: sizes[b] parameters each, indices in order. */
static int64_t buckets_of(tsr_ddp* ddp, int64_t* sizes, int64_t* indices) {
  int64_t nb;
  DCHECK_OK(tsr_ddp_bucket_indices(ddp, 0, NULL, NULL, &nb));
  DCHECK(nb >= 1 && nb <= NP, "%lld buckets", (long long)nb);
  DCHECK_OK(tsr_ddp_bucket_indices(ddp, nb, sizes, indices, &nb));
  return nb;
}

/* Records the order gradients arrive in (a post-accumulate-grad hook on
 * each parameter, as DDP's). */
typedef struct {
  int64_t order[NP];
  int n;
} arrivals;
typedef struct {
  arrivals* log;
  int64_t index;
} arrival_hook;
static tsr_status record_arrival(void* ctx, tsr_tensor* param) {
  (void)param;
  arrival_hook* h = ctx;
  if (h->log->n < NP) h->log->order[h->log->n++] = h->index;
  return TSR_OK;
}

/* torch's compute_bucket_assignment_by_size for one dtype, tensors in
 * `order` (labelled): 1 MiB, then cap; returns the bucket count. */
static int64_t expected_buckets(tsr_tensor** ps, const int64_t* order, int n, int64_t cap, int64_t* sizes,
                                int64_t* indices) {
  int64_t nb = 0, bytes = 0, in_bucket = 0, limit = 1 << 20;
  if (cap == 0) cap = 25 << 20;
  for (int k = 0; k < n; ++k) {
    indices[k] = order[k];
    bytes += tsr_tensor_numel(ps[order[k]]) * 4;
    ++in_bucket;
    if (bytes >= limit) {
      sizes[nb++] = in_bucket;
      bytes = in_bucket = 0;
      limit = cap;
    }
  }
  if (in_bucket) sizes[nb++] = in_bucket;
  return nb;
}

/* ---- DDP equals one process on the whole batch ------------------------ */

typedef struct {
  int order[4];               /* registration order of W1, b1, W2, b2 */
  int64_t cap;                /* bucket_cap_bytes */
  int bucket_view;            /* gradient_as_bucket_view */
  int iterations;
  int on_thread;              /* the training loop runs on a second thread */
} equality_case;

typedef struct {
  const equality_case* c;
  int rank, world;
  tsr_process_group* pg;
} equality_run;

static void* equality_loop(void* arg) {
  equality_run* run = arg;
  const equality_case* c = run->c;
  const int rank = run->rank, world = run->world;
  tsr_tensor *mine[4], *ref[4], *all_mine[NP], *all_ref[NP];
  make_params(all_mine, 0.01 * rank); /* differs per rank until DDP broadcasts rank 0's */
  make_params(all_ref, 0.0);
  for (int k = 0; k < 4; ++k) {
    mine[k] = all_mine[c->order[k]];
    ref[k] = all_ref[c->order[k]];
  }
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.bucket_cap_bytes = c->cap;
  o.gradient_as_bucket_view = c->bucket_view;
  tsr_ddp* ddp;
  DCHECK_OK(tsr_ddp_create(run->pg, 4, mine, &o, &ddp));
  check_values(mine, ref, 4, 0, "parameters after the broadcast"); /* exactly rank 0's */

  /* torch 1.13: one bucket at first (no find_unused_parameters), the
   * parameters in registration order. */
  int64_t sizes[NP], indices[NP];
  DCHECK(buckets_of(ddp, sizes, indices) == 1 && sizes[0] == 4, "one bucket before the first backward");
  for (int k = 0; k < 4; ++k) DCHECK(indices[k] == k, "initial bucket order at %d: %lld", k, (long long)indices[k]);

  arrivals log = {{0}, 0};
  arrival_hook hooks[4];
  for (int k = 0; k < 4; ++k) {
    int64_t id;
    hooks[k].log = &log;
    hooks[k].index = k;
    DCHECK_OK(tsr_register_post_accumulate_grad_hook(mine[k], record_arrival, &hooks[k], NULL, &id));
  }
  tsr_optimizer *opt = sgd(mine, 4), *ref_opt = sgd(ref, 4);
  void* grad_ptr[4] = {0};
  for (int it = 0; it < c->iterations; ++it) {
    DCHECK_OK(tsr_optimizer_zero_grad(opt, !c->bucket_view));
    DCHECK_OK(tsr_optimizer_zero_grad(ref_opt, true));
    DCHECK_OK(local_step(all_mine, it % 2, rank, world, 0));
    global_step(all_ref, it % 2, 0);
    check_grads(mine, ref, 4, 1e-6, "averaged gradient");
    if (it == 0) {
      /* Rebuilt in the order the gradients arrived. */
      int64_t want_sizes[NP], want_indices[NP];
      DCHECK(log.n == 4, "%d arrivals", log.n);
      const int64_t nb = expected_buckets(mine, log.order, 4, c->cap, want_sizes, want_indices);
      DCHECK(buckets_of(ddp, sizes, indices) == nb, "rebuilt bucket count");
      for (int64_t b = 0; b < nb; ++b) DCHECK(sizes[b] == want_sizes[b], "bucket %lld size", (long long)b);
      for (int k = 0; k < 4; ++k) DCHECK(indices[k] == want_indices[k], "rebuilt order at %d", k);
    }
    if (c->bucket_view && it >= 1) {
      /* .grad is a view into the bucket: the same memory every iteration
       * (zero_grad(set_to_none=false) keeps it), other parameters' grads
       * adjacent in one storage. */
      for (int k = 0; k < 4; ++k) {
        tsr_tensor* g = grad_of(mine[k]);
        if (it >= 2) DCHECK(tsr_tensor_data_ptr(g) == grad_ptr[k], "grad %d moved", k);
        grad_ptr[k] = tsr_tensor_data_ptr(g);
        tsr_tensor_release(g);
      }
    }
    DCHECK_OK(tsr_optimizer_step(opt));
    DCHECK_OK(tsr_optimizer_step(ref_opt));
    check_values(mine, ref, 4, 1e-6, "parameters after SGD");
  }
  tsr_optimizer_release(opt);
  tsr_optimizer_release(ref_opt);
  tsr_ddp_release(ddp);
  release_all(all_mine, NP);
  release_all(all_ref, NP);
  return NULL;
}

static int equality(int port, int rank, int world, void* arg) {
  equality_run run = {arg, rank, world, NULL};
  DCHECK_OK(dist_init(port, rank, world, 60000, &run.pg));
  if (run.c->on_thread) {
    pthread_t th;
    DCHECK(pthread_create(&th, NULL, equality_loop, &run) == 0, "pthread_create");
    pthread_join(th, NULL);
  } else {
    equality_loop(&run);
  }
  tsr_process_group_release(run.pg);
  return 0;
}

static void run_world(int world, dist_body body, void* arg) {
  int st[4];
  cr_assert_eq(dist_run_ranks(world, body, arg, 120, st), 0, "a rank hung");
  for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d)", r, st[r]);
}

Test(ddp, equals_one_process_world_2) {
  equality_case c = {{W1, B1, W2, B2}, 1024, 0, 4, 0};
  run_world(2, equality, &c);
}

Test(ddp, equals_one_process_world_3) {
  equality_case c = {{W1, B1, W2, B2}, 1024, 0, 3, 0};
  run_world(3, equality, &c);
}

Test(ddp, world_1) {
  equality_case c = {{W1, B1, W2, B2}, 0, 0, 2, 0};
  run_world(1, equality, &c);
}

/* Registered in an order unlike the order of use: the rebuild follows the
 * order gradients arrive. */
Test(ddp, rebuild_follows_arrival_order) {
  equality_case c = {{B1, W2, W1, B2}, 4096, 0, 3, 0};
  run_world(2, equality, &c);
}

Test(ddp, gradient_as_bucket_view) {
  equality_case c = {{W1, B1, W2, B2}, 1024, 1, 4, 0};
  run_world(2, equality, &c);
  equality_case c3 = {{B2, W1, W2, B1}, 0, 1, 3, 0};
  run_world(3, equality, &c3);
}

/* Hooks run on whichever thread calls backward. */
Test(ddp, backward_on_another_thread) {
  equality_case c = {{W1, B1, W2, B2}, 1024, 0, 2, 1};
  run_world(2, equality, &c);
}

/* ---- no_sync ------------------------------------------------------------ */

static int no_sync(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor *mine[NP], *ref[NP], *local[NP];
  make_params(mine, 0.0);
  make_params(ref, 0.0);
  make_params(local, 0.0);
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.bucket_cap_bytes = 4096;
  tsr_ddp* ddp = make_ddp(pg, mine, 4, &o);
  for (int round = 0; round < 2; ++round) { /* round 1 runs on the rebuilt buckets */
    DCHECK_OK(tsr_ddp_set_require_sync(ddp, false));
    DCHECK_OK(local_step(mine, 0, rank, world, 0));
    /* no communication: each rank holds its own local gradient */
    DCHECK_OK(local_step(local, 0, rank, world, 0));
    check_grads(mine, local, 4, 0, "no_sync gradient");
    DCHECK_OK(tsr_ddp_set_require_sync(ddp, true));
    DCHECK_OK(local_step(mine, 1, rank, world, 0));
    /* averaged sum of both micro-batches = the sum of the two global-batch
     * gradients */
    global_step(ref, 0, 0);
    global_step(ref, 1, 0);
    check_grads(mine, ref, 4, 1e-6, "gradient accumulated under no_sync");
    for (int p = 0; p < 4; ++p) {
      DCHECK_OK(tsr_set_grad(mine[p], NULL));
      DCHECK_OK(tsr_set_grad(ref[p], NULL));
      DCHECK_OK(tsr_set_grad(local[p], NULL));
    }
  }
  /* Released: the hooks are gone, gradients stay local. */
  tsr_ddp_release(ddp);
  DCHECK_OK(local_step(mine, 1, rank, world, 0));
  DCHECK_OK(local_step(local, 1, rank, world, 0));
  check_grads(mine, local, 4, 0, "gradient after release");
  release_all(mine, NP);
  release_all(ref, NP);
  release_all(local, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, no_sync_accumulates_then_syncs) { run_world(2, no_sync, NULL); }
Test(ddp, no_sync_world_3) { run_world(3, no_sync, NULL); }

/* ---- unused parameters -------------------------------------------------- */

/* extra.bias is used by the ranks in `users` (a bit mask). */
static int uses_extra(int rank, int users) { return (users >> rank) & 1; }

/* Reference: (1/W) Σ_r loss_r on rank r's rows, each rank using extra.bias
 * or not, on one process (what DDP's average computes). */
static void reference_step(tsr_tensor** ref, int which, int world, int users) {
  tsr_tensor* total = NULL;
  for (int r = 0; r < world; ++r) {
    tsr_tensor *x, *t;
    local_batch(which, r, world, &x, &t);
    tsr_tensor* l = loss_of(ref, x, t, uses_extra(r, users));
    tsr_tensor_release(x);
    tsr_tensor_release(t);
    if (total) {
      tsr_tensor* s;
      DCHECK_OK(tsr_add(total, l, &s));
      tsr_tensor_release(total);
      tsr_tensor_release(l);
      total = s;
    } else {
      total = l;
    }
  }
  tsr_tensor* mean;
  DCHECK_OK(tsr_mul_scalar(total, 1.0 / world, &mean));
  DCHECK_OK(tsr_backward(mean, NULL, false));
  tsr_tensor_release(total);
  tsr_tensor_release(mean);
}

static void clear_grads(tsr_tensor** ps, int n) {
  for (int p = 0; p < n; ++p) DCHECK_OK(tsr_set_grad(ps[p], NULL));
}

#define DFAILS(call, status, needle)                                                                  \
  do {                                                                                                \
    tsr_status st_ = (call);                                                                          \
    DCHECK(st_ == (status), "%s: expected %s, got %s", #call, tsr_status_name(status), tsr_status_name(st_)); \
    DCHECK(strstr(tsr_last_error_message(), (needle)) != NULL, "message lacks \"%s\": %s", (needle),      \
           tsr_last_error_message());                                                                 \
  } while (0)

typedef struct {
  int users; /* ranks using extra.bias */
} unused_case;

/* Without find_unused_parameters: every rank's backward fails at its end,
 * naming the parameter; the ranks stay in step, so an iteration using
 * every parameter then works. */
static int unused_error(int port, int rank, int world, void* arg) {
  const unused_case* c = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor *mine[NP], *ref[NP];
  make_params(mine, 0.0);
  make_params(ref, 0.0);
  tsr_ddp* ddp = make_ddp(pg, mine, NP, NULL);
  for (int round = 0; round < 2; ++round) {
    const tsr_status st = local_step(mine, 0, rank, world, uses_extra(rank, c->users));
    DCHECK(st == TSR_ERR_AUTOGRAD, "round %d: expected TSR_ERR_AUTOGRAD, got %s", round, tsr_status_name(st));
    const char* msg = tsr_last_error_message();
    DCHECK(strstr(msg, "This error indicates that your module has parameters that were not used in producing "
                       "loss.") != NULL, "message: %s", msg);
    DCHECK(strstr(msg, "find_unused_parameters") != NULL, "message: %s", msg);
    char want[160];
    if (!uses_extra(rank, c->users)) {
      snprintf(want, sizeof want, "Parameters which did not receive grad for rank %d: extra.bias", rank);
      DCHECK(strstr(msg, want) != NULL, "message lacks \"%s\": %s", want, msg);
      snprintf(want, sizeof want, "Parameter indices which did not receive grad for rank %d: 4", rank);
      DCHECK(strstr(msg, want) != NULL, "message lacks \"%s\": %s", want, msg);
    } else {
      DCHECK(strstr(msg, "also had parameters which did not receive grad") != NULL, "message: %s", msg);
    }
    clear_grads(mine, NP);
  }
  /* every parameter used on every rank: works, equals the reference */
  DCHECK_OK(local_step(mine, 1, rank, world, 1));
  reference_step(ref, 1, world, (1 << world) - 1);
  check_grads(mine, ref, NP, 1e-6, "gradient after the unused-parameter error");
  tsr_ddp_release(ddp);
  release_all(mine, NP);
  release_all(ref, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, unused_parameter_error_names_it) {
  unused_case none = {0};
  run_world(2, unused_error, &none);
  unused_case rank0_only = {1};
  run_world(3, unused_error, &rank0_only);
}

/* find_unused_parameters: an unused parameter's gradient is zero on that
 * rank, so the average includes zeros; one no rank used keeps .grad NULL. */
static int unused_found(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor *mine[NP], *ref[NP];
  make_params(mine, 0.0);
  make_params(ref, 0.0);
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.find_unused_parameters = true;
  tsr_ddp* ddp = make_ddp(pg, mine, NP, &o);
  /* torch 1.13's buckets with find_unused_parameters: over the parameters
   * in order, 1 MiB then the cap, reduced last first; never rebuilt. */
  int64_t sizes[NP], indices[NP];
  const int64_t nb = buckets_of(ddp, sizes, indices);
  DCHECK(nb == 2 && sizes[0] == 2 && sizes[1] == 3, "buckets: %lld", (long long)nb);
  const int64_t want[NP] = {3, 4, 0, 1, 2};
  for (int k = 0; k < NP; ++k) DCHECK(indices[k] == want[k], "bucket order at %d", k);
  const int users[3] = {1, 0, 1 << (world - 1)}; /* rank 0 only; nobody; the last rank only */
  for (int it = 0; it < 3; ++it) {
    DCHECK_OK(local_step(mine, it % 2, rank, world, uses_extra(rank, users[it])));
    reference_step(ref, it % 2, world, users[it]);
    if (users[it] == 0) {
      check_grads(mine, ref, 4, 1e-6, "gradient with an unused parameter");
      tsr_tensor* g = grad_of(mine[E]);
      DCHECK(g == NULL, "a parameter no rank used keeps .grad NULL");
    } else {
      check_grads(mine, ref, NP, 1e-6, "gradient with a parameter unused on some ranks");
    }
    clear_grads(mine, NP);
    clear_grads(ref, NP);
  }
  tsr_ddp_release(ddp);
  release_all(mine, NP);
  release_all(ref, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, find_unused_parameters) {
  run_world(2, unused_found, NULL);
  run_world(3, unused_found, NULL);
}

/* ---- compression hooks -------------------------------------------------- */

typedef struct {
  tsr_ddp_comm_hook hook;
  int bucket_view;
  int registered; /* tsr_ddp_register_comm_hook after creation, not the options */
} hook_case;

/* Every element of t is a value of dtype (the reduction went through it). */
static int representable_in(const tsr_tensor* t, tsr_dtype dtype) {
  tsr_tensor *low, *back;
  DCHECK_OK(tsr_to_dtype(t, dtype, &low));
  DCHECK_OK(tsr_to_dtype(low, TSR_FLOAT32, &back));
  bool same;
  DCHECK_OK(tsr_allclose(t, back, 0.0, 0.0, false, &same));
  tsr_tensor_release(low);
  tsr_tensor_release(back);
  return same;
}

/* torch's fp16_compress_hook / bf16_compress_hook for two ranks, in
 * tessera's ops: each rank's gradient cast, divided by 2 in that dtype, the
 * two summed (one rounding, as Gloo's 16-bit sum) and cast back. */
static tsr_tensor* compressed_average_of_two(tsr_tensor* g0, tsr_tensor* g1, tsr_dtype low) {
  tsr_tensor *two, *h[2], *sum, *out;
  DCHECK_OK(tsr_full(0, NULL, 2.0, low, TSR_CPU, &two));
  tsr_tensor* gs[2] = {g0, g1};
  for (int r = 0; r < 2; ++r) {
    tsr_tensor* c;
    DCHECK_OK(tsr_to_dtype(gs[r], low, &c));
    DCHECK_OK(tsr_div(c, two, &h[r]));
    tsr_tensor_release(c);
  }
  DCHECK_OK(tsr_add(h[0], h[1], &sum));
  DCHECK_OK(tsr_to_dtype(sum, TSR_FLOAT32, &out));
  tsr_tensor_release(two);
  tsr_tensor_release(h[0]);
  tsr_tensor_release(h[1]);
  tsr_tensor_release(sum);
  return out;
}

static int compress(int port, int rank, int world, void* arg) {
  const hook_case* c = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor *mine[NP], *ref[NP];
  make_params(mine, 0.0);
  make_params(ref, 0.0);
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.comm_hook = c->registered ? TSR_DDP_ALLREDUCE : c->hook;
  o.bucket_cap_bytes = 4096;
  o.gradient_as_bucket_view = c->bucket_view;
  tsr_ddp* ddp = make_ddp(pg, mine, 4, &o);
  if (c->registered) DCHECK_OK(tsr_ddp_register_comm_hook(ddp, c->hook));
  DFAILS(tsr_ddp_register_comm_hook(ddp, TSR_DDP_ALLREDUCE), TSR_ERR_INVALID_ARGUMENT,
         "register_comm_hook or register_builtin_comm_hook can only be called once.");
  const tsr_dtype low = c->hook == TSR_DDP_FP16_COMPRESS ? TSR_FLOAT16 : TSR_BFLOAT16;
  for (int it = 0; it < 2; ++it) {
    DCHECK_OK(local_step(mine, it, rank, world, 0));
    global_step(ref, it, 0);
    check_grads(mine, ref, 4, 1e-2, "compressed gradient");
    if (world == 2) { /* exactly torch's hook arithmetic */
      tsr_tensor *r0[NP], *r1[NP];
      make_params(r0, 0.0);
      make_params(r1, 0.0);
      DCHECK_OK(local_step(r0, it, 0, 2, 0));
      DCHECK_OK(local_step(r1, it, 1, 2, 0));
      for (int p = 0; p < 4; ++p) {
        tsr_tensor *g0 = grad_of(r0[p]), *g1 = grad_of(r1[p]), *g = grad_of(mine[p]);
        tsr_tensor* want = compressed_average_of_two(g0, g1, c->hook == TSR_DDP_FP16_COMPRESS ? TSR_FLOAT16 : TSR_BFLOAT16);
        check_close(g, want, 0, "compressed gradient (exact)", p);
        tsr_tensor_release(g0);
        tsr_tensor_release(g1);
        tsr_tensor_release(g);
        tsr_tensor_release(want);
      }
      release_all(r0, NP);
      release_all(r1, NP);
    }
    for (int p = 0; p < 4; ++p) {
      tsr_tensor* g = grad_of(mine[p]);
      DCHECK(representable_in(g, low), "%s's gradient is not made of %s values", kNames[p], tsr_dtype_name(low));
      tsr_tensor_release(g);
    }
    clear_grads(mine, 4);
    clear_grads(ref, 4);
  }
  tsr_ddp_release(ddp);
  release_all(mine, NP);
  release_all(ref, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, fp16_compress_hook) {
  hook_case c = {TSR_DDP_FP16_COMPRESS, 0, 0};
  run_world(2, compress, &c);
  hook_case v = {TSR_DDP_FP16_COMPRESS, 1, 1};
  run_world(3, compress, &v);
}

Test(ddp, bf16_compress_hook) {
  hook_case c = {TSR_DDP_BF16_COMPRESS, 0, 1};
  run_world(3, compress, &c);
  hook_case v = {TSR_DDP_BF16_COMPRESS, 1, 0};
  run_world(2, compress, &v);
}

/* ---- parameters that differ across ranks: every rank fails, none hangs -- */

typedef enum { COUNT, SIZES, STRIDES, DTYPE } mismatch_kind;

static int mismatch(int port, int rank, int world, void* arg) {
  const mismatch_kind kind = *(const mismatch_kind*)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor* ps[NP];
  make_params(ps, 0.0);
  int n = 4;
  const int odd = rank == 1;
  if (odd && kind == COUNT) n = 3;
  if (odd && kind == SIZES) {
    tsr_tensor_release(ps[B1]);
    const int64_t sz = H + 1;
    DCHECK_OK(tsr_zeros(1, &sz, TSR_FLOAT32, TSR_CPU, &ps[B1]));
    DCHECK_OK(tsr_set_requires_grad(ps[B1], true));
  }
  if (odd && kind == STRIDES) { /* W1 as the transpose of a [D, H] tensor */
    tsr_tensor *base, *tr;
    const int64_t sz[2] = {D, H};
    DCHECK_OK(tsr_zeros(2, sz, TSR_FLOAT32, TSR_CPU, &base));
    DCHECK_OK(tsr_t(base, &tr));
    DCHECK_OK(tsr_set_requires_grad(tr, true));
    tsr_tensor_release(base);
    tsr_tensor_release(ps[W1]);
    ps[W1] = tr;
  }
  if (odd && kind == DTYPE) {
    tsr_tensor* d;
    DCHECK_OK(tsr_to_dtype(ps[B2], TSR_FLOAT64, &d));
    tsr_tensor_release(ps[B2]);
    DCHECK_OK(tsr_detach(d, &ps[B2]));
    tsr_tensor_release(d);
    DCHECK_OK(tsr_set_requires_grad(ps[B2], true));
  }
  tsr_ddp* ddp = (tsr_ddp*)(uintptr_t)0x5e5e;
  const tsr_status st = tsr_ddp_create(pg, n, ps, NULL, &ddp);
  DCHECK(st == TSR_ERR_INVALID_ARGUMENT, "expected TSR_ERR_INVALID_ARGUMENT, got %s", tsr_status_name(st));
  DCHECK(ddp == (tsr_ddp*)(uintptr_t)0x5e5e, "out written on failure");
  const char* msg = tsr_last_error_message();
  char want[200];
  if (kind == COUNT) {
    if (odd) snprintf(want, sizeof want, "DDP expects same model across all ranks, but Rank 1 has 3 params, while rank 0 has inconsistent 4 params.");
    else snprintf(want, sizeof want, "DDP expects same model across all ranks, but Rank %d has 4 params, while rank 1 has inconsistent 3 params.", rank);
  } else if (!odd) {
    snprintf(want, sizeof want, "the parameters of rank(s) 1 do not match process 0's");
  } else if (kind == SIZES) {
    snprintf(want, sizeof want, "[1]: params[1] in this process with sizes [513] appears not to match sizes of the same param in process 0.");
  } else if (kind == STRIDES) {
    snprintf(want, sizeof want, "[1]: params[0] in this process with strides [1, 512] appears not to match strides of the same param in process 0.");
  } else {
    snprintf(want, sizeof want, "[1]: params[3] in this process with dtype float64 appears not to match dtype");
  }
  DCHECK(strstr(msg, want) != NULL, "message lacks \"%s\": %s", want, msg);
  /* the group is still usable: nothing was left half done */
  DCHECK_OK(tsr_barrier(pg, NULL));
  release_all(ps, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, mismatched_parameters_fail_every_rank) {
  const mismatch_kind kinds[] = {COUNT, SIZES, STRIDES, DTYPE};
  for (int k = 0; k < 4; ++k) {
    run_world(2, mismatch, (void*)&kinds[k]);
    run_world(3, mismatch, (void*)&kinds[k]);
  }
}

/* ---- a backward that fails after buckets were sent ---------------------- */

static tsr_status failing_hook(void* ctx, tsr_tensor* param) {
  int* armed = ctx;
  (void)param;
  if (!*armed) return TSR_OK;
  return tsr_narrow(param, 5, 0, 1, NULL); /* any failing call: its message reaches backward */
}

static int broken(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor* ps[NP];
  make_params(ps, 0.0);
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.bucket_cap_bytes = 1024;
  tsr_ddp* ddp = make_ddp(pg, ps, 4, &o);
  int armed = 0;
  int64_t id;
  /* fires after DDP's hook of fc1.bias, which is in a bucket of its own
   * after the rebuild: fc2's bucket is sent, fc1.weight's is not */
  DCHECK_OK(tsr_register_post_accumulate_grad_hook(ps[B1], failing_hook, &armed, NULL, &id));
  DCHECK_OK(local_step(ps, 0, rank, world, 0));
  int64_t sizes[NP], indices[NP];
  DCHECK(buckets_of(ddp, sizes, indices) == 3 && indices[2] == B1 && indices[3] == W1, "rebuilt buckets");
  armed = 1;
  DCHECK(local_step(ps, 0, rank, world, 0) != TSR_OK, "the hook fails the backward");
  armed = 0;
  DFAILS(local_step(ps, 0, rank, world, 0), TSR_ERR_DISTRIBUTED,
         "an earlier backward pass failed after its gradient reduction had started (2 of 3 buckets sent)");
  /* no_sync backward passes still work (no communication) */
  DCHECK_OK(tsr_ddp_set_require_sync(ddp, false));
  DCHECK_OK(local_step(ps, 0, rank, world, 0));
  tsr_ddp_release(ddp);
  release_all(ps, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, failed_backward_breaks_the_reducer) { run_world(2, broken, NULL); }

/* ---- parameters of several dtypes and layouts --------------------------- */

/* Rank r's loss is (r + 1) · Σ_k sum(p_k²), so every averaged gradient is
 * 2 p_k · (world + 1) / 2. p0 is float32 and transposed (dense, not
 * C-contiguous: its bucket view takes its strides), p1 float64, p2
 * bfloat16 (values k/8, exact). */
static int mixed_dtypes(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  const tsr_dtype dts[3] = {TSR_FLOAT32, TSR_FLOAT64, TSR_BFLOAT16};
  const int64_t n[3] = {1000, 300, 50};
  tsr_tensor* ps[3];
  for (int k = 0; k < 3; ++k) {
    double* v = malloc(sizeof(double) * (size_t)n[k]);
    for (int64_t i = 0; i < n[k]; ++i) v[i] = (double)((i * 7 + k) % 13 - 6) / 8.0;
    tsr_tensor *d, *t;
    DCHECK_OK(tsr_from_data(v, sizeof(double) * (size_t)n[k], 1, &n[k], TSR_FLOAT64, &d));
    DCHECK_OK(tsr_to_dtype(d, dts[k], &t));
    tsr_tensor_release(d);
    free(v);
    if (k == 0) { /* [50, 20] viewed as the transpose of [20, 50] */
      const int64_t sz[2] = {20, 50};
      tsr_tensor *r, *tr, *leaf;
      DCHECK_OK(tsr_reshape(t, 2, sz, &r));
      DCHECK_OK(tsr_t(r, &tr));
      DCHECK_OK(tsr_detach(tr, &leaf));
      tsr_tensor_release(r);
      tsr_tensor_release(tr);
      tsr_tensor_release(t);
      t = leaf;
    }
    DCHECK_OK(tsr_set_requires_grad(t, true));
    ps[k] = t;
  }
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.gradient_as_bucket_view = arg != NULL;
  tsr_ddp* ddp;
  DCHECK_OK(tsr_ddp_create(pg, 3, ps, &o, &ddp));
  int64_t sizes[NP], indices[NP];
  DCHECK(buckets_of(ddp, sizes, indices) == 3, "one bucket per dtype");
  for (int it = 0; it < 2; ++it) {
    tsr_tensor* total = NULL;
    for (int k = 0; k < 3; ++k) {
      tsr_tensor *sq, *s, *s64;
      DCHECK_OK(tsr_mul(ps[k], ps[k], &sq));
      DCHECK_OK(tsr_sum(sq, 0, NULL, false, &s));
      DCHECK_OK(tsr_to_dtype(s, TSR_FLOAT64, &s64));
      tsr_tensor_release(sq);
      tsr_tensor_release(s);
      if (total) {
        tsr_tensor* t2;
        DCHECK_OK(tsr_add(total, s64, &t2));
        tsr_tensor_release(total);
        tsr_tensor_release(s64);
        total = t2;
      } else {
        total = s64;
      }
    }
    tsr_tensor* loss;
    DCHECK_OK(tsr_mul_scalar(total, rank + 1.0, &loss));
    DCHECK_OK(tsr_backward(loss, NULL, false));
    tsr_tensor_release(total);
    tsr_tensor_release(loss);
    for (int k = 0; k < 3; ++k) {
      tsr_tensor *g = grad_of(ps[k]), *want;
      DCHECK(tsr_tensor_dtype(g) == dts[k], "grad dtype");
      DCHECK_OK(tsr_mul_scalar(ps[k], (double)(world + 1), &want));
      check_close(g, want, k == 2 ? 1e-2 : k == 0 ? 1e-6 : 1e-12, "mixed-dtype gradient", k);
      if (k == 0) { /* the gradient keeps the parameter's layout */
        DCHECK(tsr_tensor_strides(g)[0] == 1 && tsr_tensor_strides(g)[1] == 50, "grad strides");
      }
      tsr_tensor_release(g);
      tsr_tensor_release(want);
    }
    for (int k = 0; k < 3; ++k) DCHECK_OK(tsr_set_grad(ps[k], NULL));
  }
  tsr_ddp_release(ddp);
  release_all(ps, 3);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, several_dtypes_and_layouts) {
  run_world(2, mixed_dtypes, NULL);
  int view = 1;
  run_world(3, mixed_dtypes, &view);
}

/* ---- misuse inside a backward pass -------------------------------------- */

typedef struct {
  tsr_tensor** ps;
  tsr_ddp* ddp;
  int armed;
  tsr_status nested, other_thread;
  char nested_msg[600], other_msg[600];
} misuse_state;

static tsr_status backward_of_sum(tsr_tensor* p) {
  tsr_tensor* s;
  const bool was = tsr_set_grad_enabled(true); /* hooks run with grad mode off */
  tsr_status st = tsr_sum(p, 0, NULL, false, &s);
  tsr_set_grad_enabled(was);
  if (st != TSR_OK) return st;
  st = tsr_backward(s, NULL, false);
  tsr_tensor_release(s);
  return st;
}

static void* other_thread_backward(void* arg) {
  misuse_state* m = arg;
  m->other_thread = backward_of_sum(m->ps[W1]);
  snprintf(m->other_msg, sizeof m->other_msg, "%s", tsr_last_error_message());
  return NULL;
}

/* Runs after DDP's hook of fc2.bias: a backward started inside it reaches
 * fc2.bias again; one on another thread reaches fc1.weight meanwhile. */
static tsr_status misuse_hook(void* ctx, tsr_tensor* param) {
  (void)param;
  misuse_state* m = ctx;
  if (!m->armed) return TSR_OK;
  m->armed = 0;
  if (tsr_ddp_register_comm_hook(m->ddp, TSR_DDP_FP16_COMPRESS) != TSR_ERR_AUTOGRAD ||
      !strstr(tsr_last_error_message(), "cannot be registered while a backward pass reduces"))
    return TSR_ERR_INTERNAL;
  m->nested = backward_of_sum(m->ps[B2]);
  snprintf(m->nested_msg, sizeof m->nested_msg, "%s", tsr_last_error_message());
  pthread_t th;
  if (pthread_create(&th, NULL, other_thread_backward, m) != 0) return TSR_ERR_INTERNAL;
  pthread_join(th, NULL);
  return TSR_OK;
}

static int misuse(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor *ps[NP], *ref[NP];
  make_params(ps, 0.0);
  make_params(ref, 0.0);
  tsr_ddp* ddp = make_ddp(pg, ps, 4, NULL);
  misuse_state m = {ps, ddp, 1, TSR_OK, TSR_OK, "", ""};
  int64_t id;
  DCHECK_OK(tsr_register_post_accumulate_grad_hook(ps[B2], misuse_hook, &m, NULL, &id));
  DCHECK_OK(local_step(ps, 0, rank, world, 0)); /* the outer backward itself completes */
  DCHECK(m.nested == TSR_ERR_AUTOGRAD, "nested backward: %s", tsr_status_name(m.nested));
  DCHECK(strstr(m.nested_msg, "Expected to mark a variable ready only once. Parameter at index 3 with name "
                              "fc2.bias has been marked as ready twice.") != NULL, "message: %s", m.nested_msg);
  DCHECK(m.other_thread == TSR_ERR_AUTOGRAD, "other thread: %s", tsr_status_name(m.other_thread));
  DCHECK(strstr(m.other_msg, "a backward pass through these parameters is already running on another thread") !=
             NULL, "message: %s", m.other_msg);
  /* the next iteration is a normal one */
  clear_grads(ps, 4);
  DCHECK_OK(local_step(ps, 1, rank, world, 0));
  global_step(ref, 1, 0);
  check_grads(ps, ref, 4, 1e-6, "gradient after the misuse");
  tsr_ddp_release(ddp);
  release_all(ps, NP);
  release_all(ref, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, marked_twice_and_concurrent_backward_fail) { run_world(2, misuse, NULL); }

/* ---- argument checks (one rank) ----------------------------------------- */

static int bad_arguments(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  tsr_tensor* ps[NP];
  make_params(ps, 0.0);
  tsr_ddp* const untouched = (tsr_ddp*)(uintptr_t)0x5e5e;
  tsr_ddp* ddp = untouched;
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  DFAILS(tsr_ddp_create(NULL, 4, ps, &o, &ddp), TSR_ERR_INVALID_ARGUMENT, "pg is NULL");
  DFAILS(tsr_ddp_create(pg, 4, ps, &o, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  DFAILS(tsr_ddp_create(pg, 0, ps, &o, &ddp), TSR_ERR_INVALID_ARGUMENT,
         "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.");
  DFAILS(tsr_ddp_create(pg, 4, NULL, &o, &ddp), TSR_ERR_INVALID_ARGUMENT, "params is NULL");
  tsr_tensor* with_null[2] = {ps[0], NULL};
  DFAILS(tsr_ddp_create(pg, 2, with_null, &o, &ddp), TSR_ERR_INVALID_ARGUMENT, "params[1] is NULL");
  tsr_ddp_options bad = o;
  bad.struct_size = 4;
  DFAILS(tsr_ddp_create(pg, 4, ps, &bad, &ddp), TSR_ERR_INVALID_ARGUMENT, "options->struct_size is 4");
  bad = o;
  bad.bucket_cap_bytes = -1;
  DFAILS(tsr_ddp_create(pg, 4, ps, &bad, &ddp), TSR_ERR_INVALID_ARGUMENT, "bucket_cap_bytes must be >= 0");
  bad = o;
  bad.comm_hook = (tsr_ddp_comm_hook)7;
  DFAILS(tsr_ddp_create(pg, 4, ps, &bad, &ddp), TSR_ERR_INVALID_ARGUMENT, "unknown communication hook 7");
  tsr_tensor* dup[2] = {ps[0], ps[0]};
  DFAILS(tsr_ddp_create(pg, 2, dup, &o, &ddp), TSR_ERR_INVALID_ARGUMENT, "params[0] and params[1] are the same tensor");
  tsr_tensor *frozen, *nonleaf;
  const int64_t three = 3;
  DCHECK_OK(tsr_zeros(1, &three, TSR_FLOAT32, TSR_CPU, &frozen));
  DCHECK_OK(tsr_mul_scalar(ps[B2], 2.0, &nonleaf));
  tsr_tensor* with_frozen[2] = {ps[0], frozen};
  DFAILS(tsr_ddp_create(pg, 2, with_frozen, &o, &ddp), TSR_ERR_INVALID_ARGUMENT,
         "params[1] is not a leaf that requires grad");
  tsr_tensor* with_nonleaf[1] = {nonleaf};
  DFAILS(tsr_ddp_create(pg, 1, with_nonleaf, &o, &ddp), TSR_ERR_INVALID_ARGUMENT,
         "params[0] is not a leaf that requires grad");
  DCHECK(ddp == untouched, "out written on failure");
  /* an older, smaller options struct: the fields past it take defaults */
  tsr_ddp_options old = o;
  old.struct_size = offsetof(tsr_ddp_options, find_unused_parameters);
  DCHECK_OK(tsr_ddp_create(pg, 4, ps, &old, &ddp));
  tsr_ddp_retain(ddp);
  tsr_ddp_release(ddp);

  DFAILS(tsr_ddp_set_require_sync(NULL, true), TSR_ERR_INVALID_ARGUMENT, "ddp is NULL");
  DFAILS(tsr_ddp_register_comm_hook(NULL, TSR_DDP_FP16_COMPRESS), TSR_ERR_INVALID_ARGUMENT, "ddp is NULL");
  DFAILS(tsr_ddp_register_comm_hook(ddp, (tsr_ddp_comm_hook)9), TSR_ERR_INVALID_ARGUMENT,
         "unknown communication hook 9");
  DFAILS(tsr_ddp_set_param_names(NULL, 4, kNames), TSR_ERR_INVALID_ARGUMENT, "ddp is NULL");
  DFAILS(tsr_ddp_set_param_names(ddp, 4, NULL), TSR_ERR_INVALID_ARGUMENT, "names is NULL");
  DFAILS(tsr_ddp_set_param_names(ddp, 3, kNames), TSR_ERR_INVALID_ARGUMENT, "n is 3 but the module has 4 parameters");
  const char* const with_null_name[4] = {"a", "b", NULL, "d"};
  DFAILS(tsr_ddp_set_param_names(ddp, 4, with_null_name), TSR_ERR_INVALID_ARGUMENT, "names[2] is NULL");
  DCHECK(tsr_ddp_num_params(ddp) == 4, "num_params");
  DCHECK(tsr_ddp_num_params(NULL) == -1 && tsr_last_error_code() == TSR_ERR_INVALID_ARGUMENT, "num_params(NULL)");
  int64_t nb = -7, sizes[NP], indices[NP];
  DFAILS(tsr_ddp_bucket_indices(NULL, 0, NULL, NULL, &nb), TSR_ERR_INVALID_ARGUMENT, "ddp is NULL");
  DFAILS(tsr_ddp_bucket_indices(ddp, 0, NULL, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "n_buckets is NULL");
  DFAILS(tsr_ddp_bucket_indices(ddp, -1, NULL, NULL, &nb), TSR_ERR_INVALID_ARGUMENT, "capacity must be >= 0");
  DFAILS(tsr_ddp_bucket_indices(ddp, 2, NULL, indices, &nb), TSR_ERR_INVALID_ARGUMENT, "must not be NULL");
  DCHECK(nb == -7, "n_buckets written on failure");
  /* too small a capacity: only the count */
  sizes[0] = -5;
  DCHECK_OK(tsr_ddp_bucket_indices(ddp, 0, sizes, indices, &nb));
  DCHECK(nb == 1 && sizes[0] == -5, "count only");
  tsr_ddp_retain(NULL);
  tsr_ddp_release(NULL);
  tsr_ddp_release(ddp);
  tsr_tensor_release(frozen);
  tsr_tensor_release(nonleaf);
  release_all(ps, NP);
  tsr_process_group_release(pg);
  return 0;
}

Test(ddp, bad_arguments) { run_world(1, bad_arguments, NULL); }
