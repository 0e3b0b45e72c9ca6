/* DistributedDataParallel over CUDA parameters (issue 32): the buckets on
 * the device, reduced by NCCL, without a GPU (the emulated CUDA plugin,
 * NCCL's double; ranks are forked children over 127.0.0.1). Each rank
 * trains y = W2 relu(W1 x + b1) + b2 on its rows of a global batch (loss:
 * the mean squared error of its rows); after every backward its gradients
 * must equal one CPU process's on the whole batch, for two iterations (the
 * second after the buckets are rebuilt in arrival order, rank 0's order
 * broadcast on the device); parameters that start different on each rank
 * become rank 0's. Also an unused parameter under
 * find_unused_parameters (its .grad stays undefined on every rank), the
 * parameter check running on the device in a TSR_DIST_NCCL group, and the
 * refusals: CUDA parameters in a Gloo-only group, parameters on two
 * devices. */
#include <math.h>

#include "dist_harness.h"
#include "helpers.h"
#include "nccl_ranks.h"

enum { D = 5, H = 7, O = 3, G = 6, NP = 5 };
enum { W1, B1, W2, B2, E };
static const int64_t kSizes[NP][2] = {{H, D}, {H, 0}, {O, H}, {O, 0}, {O, 0}};
static const int kDims[NP] = {2, 1, 2, 1, 1};

static void release_all(tsr_tensor** ts, int n) {
  for (int i = 0; i < n; ++i) tsr_tensor_release(ts[i]);
}

static int64_t numel_of(int p) { return kSizes[p][0] * (kDims[p] == 2 ? kSizes[p][1] : 1); }

/* Parameter p's values (+ shift) on the CPU, requiring grad. */
static tsr_tensor* cpu_param(int p, double shift) {
  double v[H * D];
  for (int64_t i = 0; i < numel_of(p); ++i) v[i] = 0.3 * sin(0.37 * (double)i + 1.7 * p) + shift;
  tsr_tensor *d, *t;
  DCHECK_OK(tsr_from_data(v, sizeof(double) * (size_t)numel_of(p), kDims[p], kSizes[p], TSR_FLOAT64, &d));
  DCHECK_OK(tsr_to_dtype(d, TSR_FLOAT32, &t));
  tsr_tensor_release(d);
  DCHECK_OK(tsr_set_requires_grad(t, true));
  return t;
}

/* The same on CUDA device 0: a leaf of its own there. */
static tsr_tensor* cuda_param(int p, double shift) {
  tsr_tensor *c = cpu_param(p, shift), *t;
  DCHECK_OK(tsr_to_device(c, TSR_CUDA0, 0, &t));
  tsr_tensor_release(c);
  tsr_tensor* leaf;
  DCHECK_OK(tsr_detach(t, &leaf));
  tsr_tensor_release(t);
  DCHECK_OK(tsr_set_requires_grad(leaf, true));
  return leaf;
}

/* Rows [first, first + rows) of global batch `which`: x [rows, D], t [rows, O]. */
static void batch(int which, int64_t first, int64_t rows, tsr_device_type device, tsr_tensor** x, tsr_tensor** t) {
  double xs[G * D], ts[G * O];
  for (int i = 0; i < G * D; ++i) xs[i] = cos(0.9 * i + which);
  for (int i = 0; i < G * O; ++i) ts[i] = 0.5 * sin(0.11 * i - which);
  const int64_t xsz[2] = {rows, D}, tsz[2] = {rows, O};
  tsr_tensor *xd, *td, *xf, *tf;
  DCHECK_OK(tsr_from_data(xs + first * D, sizeof(double) * (size_t)(rows * D), 2, xsz, TSR_FLOAT64, &xd));
  DCHECK_OK(tsr_from_data(ts + first * O, sizeof(double) * (size_t)(rows * O), 2, tsz, TSR_FLOAT64, &td));
  DCHECK_OK(tsr_to_dtype(xd, TSR_FLOAT32, &xf));
  DCHECK_OK(tsr_to_dtype(td, TSR_FLOAT32, &tf));
  DCHECK_OK(tsr_to_device(xf, device, 0, 0, x));
  DCHECK_OK(tsr_to_device(tf, device, 0, 0, t));
  tsr_tensor_release(xd);
  tsr_tensor_release(td);
  tsr_tensor_release(xf);
  tsr_tensor_release(tf);
}

/* mean((W2 relu(W1 x + b1) + b2 - t)^2), with E added to the output when used. */
static tsr_tensor* loss_of(tsr_tensor** ps, const tsr_tensor* x, const tsr_tensor* t, int use_extra) {
  tsr_tensor *a, *h, *y, *d, *sq, *loss;
  DCHECK_OK(tsr_linear(x, ps[W1], ps[B1], &a));
  DCHECK_OK(tsr_relu(a, &h));
  DCHECK_OK(tsr_linear(h, ps[W2], ps[B2], &y));
  if (use_extra) {
    tsr_tensor* ye;
    DCHECK_OK(tsr_add(y, ps[E], &ye));
    tsr_tensor_release(y);
    y = ye;
  }
  DCHECK_OK(tsr_sub(y, t, &d));
  DCHECK_OK(tsr_mul(d, d, &sq));
  DCHECK_OK(tsr_mean(sq, 0, NULL, false, &loss));
  tsr_tensor_release(a);
  tsr_tensor_release(h);
  tsr_tensor_release(y);
  tsr_tensor_release(d);
  tsr_tensor_release(sq);
  return loss;
}

static void backward_of(tsr_tensor** ps, const tsr_tensor* x, const tsr_tensor* t, int use_extra) {
  tsr_tensor* loss = loss_of(ps, x, t, use_extra);
  DCHECK_OK(tsr_backward(loss, NULL, false));
  tsr_tensor_release(loss);
}

/* |a - b| within float32's rounding of these sums, for every element. */
static void expect_same_grad(const tsr_tensor* p_cuda, const tsr_tensor* p_cpu, const char* what) {
  tsr_tensor *ga, *gb;
  DCHECK_OK(tsr_grad(p_cuda, &ga));
  DCHECK_OK(tsr_grad(p_cpu, &gb));
  DCHECK(ga && gb, "%s: a gradient is missing", what);
  DCHECK(tsr_tensor_device_type(ga) == TSR_DEVICE_CUDA, "%s: the gradient left the device", what);
  const int64_t n = tsr_tensor_numel(gb);
  double a[H * D], b[H * D];
  read_back(ga, a, n);
  read_back(gb, b, n);
  for (int64_t i = 0; i < n; ++i)
    DCHECK(fabs(a[i] - b[i]) <= 1e-5 * (1 + fabs(b[i])), "%s[%lld]: ddp %.9g, one process %.9g", what,
           (long long)i, a[i], b[i]);
  tsr_tensor_release(ga);
  tsr_tensor_release(gb);
}

static void clear_grads(tsr_tensor** ps, int n) {
  for (int i = 0; i < n; ++i) DCHECK_OK(tsr_set_grad(ps[i], NULL));
}

typedef struct ddp_case {
  int find_unused; /* E registered, never used */
  tsr_dist_backend backend;
} ddp_case;

static int ddp_body(int port, int rank, int world, void* arg) {
  const ddp_case* c = arg;
  const int np = c->find_unused ? NP : 4;
  tsr_process_group* pg;
  DCHECK_OK(nccl_init(port, rank, world, c->backend, 20000, &pg));
  tsr_tensor *ps[NP], *ref[NP];
  for (int p = 0; p < np; ++p) {
    ps[p] = cuda_param(p, 10.0 * rank); /* rank 0's values after tsr_ddp_create */
    ref[p] = cpu_param(p, 0.0);
  }
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  o.bucket_cap_bytes = 64; /* after torch's 1 MiB first bucket */
  o.find_unused_parameters = c->find_unused != 0;
  tsr_ddp* ddp;
  DCHECK_OK(tsr_ddp_create(pg, np, ps, &o, &ddp));
  for (int p = 0; p < np; ++p) {
    double got[H * D], want[H * D];
    read_back(ps[p], got, numel_of(p));
    read_back(ref[p], want, numel_of(p));
    for (int64_t i = 0; i < numel_of(p); ++i) DCHECK(got[i] == want[i], "param %d [%lld] not rank 0's", p, (long long)i);
  }
  const int64_t rows = G / world;
  for (int it = 0; it < 2; ++it) {
    tsr_tensor *x, *t, *gx, *gt;
    batch(it, rank * rows, rows, TSR_DEVICE_CUDA, &x, &t);
    batch(it, 0, G, TSR_DEVICE_CPU, &gx, &gt);
    backward_of(ps, x, t, 0);
    backward_of(ref, gx, gt, 0);
    const char* names[] = {"W1", "b1", "W2", "b2"};
    for (int p = 0; p < 4; ++p) expect_same_grad(ps[p], ref[p], names[p]);
    if (c->find_unused) {
      tsr_tensor* ge;
      DCHECK_OK(tsr_grad(ps[E], &ge));
      DCHECK(ge == NULL, "the unused parameter got a gradient");
    }
    clear_grads(ps, np);
    clear_grads(ref, np);
    tsr_tensor_release(x);
    tsr_tensor_release(t);
    tsr_tensor_release(gx);
    tsr_tensor_release(gt);
  }
  tsr_ddp_release(ddp);
  release_all(ps, np);
  release_all(ref, np);
  tsr_process_group_release(pg);
  return 0;
}

static void run_world(int world, ddp_case* c) {
  int st[3];
  cr_assert_eq(dist_run_ranks(world, ddp_body, c, 90, st), 0, "a rank hung");
  for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d)", r, st[r]);
}

Test(ddp_cuda, equals_one_process_nccl_group_world_2) {
  ddp_case c = {0, TSR_DIST_NCCL};
  run_world(2, &c);
}

/* Gloo for the CPU, NCCL for the CUDA buckets. */
Test(ddp_cuda, equals_one_process_default_group_world_3) {
  ddp_case c = {0, TSR_DIST_DEFAULT};
  run_world(3, &c);
}

Test(ddp_cuda, unused_parameter_world_2) {
  ddp_case c = {1, TSR_DIST_NCCL};
  run_world(2, &c);
}

Test(ddp_cuda_errors, cuda_params_in_a_gloo_group_and_two_devices) {
  tsr_process_group* pg = NULL;
  TSR_ASSERT_OK(nccl_init(dist_free_port(), 0, 1, TSR_DIST_GLOO, 10000, &pg));
  tsr_tensor* ps[2] = {cuda_param(W1, 0), cuda_param(B1, 0)};
  tsr_ddp* ddp = NULL;
  TSR_ASSERT_FAILS(tsr_ddp_create(pg, 2, ps, NULL, &ddp), TSR_ERR_UNSUPPORTED,
                   "DistributedDataParallel: a CUDA tensor in a TSR_DIST_GLOO process group");
  cr_assert_null(ddp);
  tsr_tensor* mixed[2] = {ps[0], cpu_param(B1, 0)};
  TSR_ASSERT_FAILS(tsr_ddp_create(pg, 2, mixed, NULL, &ddp), TSR_ERR_INVALID_ARGUMENT,
                   "params[0] is on cuda:0 and params[1] on cpu; DistributedDataParallel takes parameters on one "
                   "device");
  cr_assert_null(ddp);
  tsr_tensor_release(mixed[1]);
  release_all(ps, 2);
  tsr_process_group_release(pg);
}
