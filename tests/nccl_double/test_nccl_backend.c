/* The NCCL backend (src/distributed/nccl_backend.cpp) on CUDA tensors
 * without a GPU: the emulated CUDA plugin ($TSR_CUDA_PLUGIN) loads the NCCL
 * double ($TSR_NCCL_LIBRARY, tests/nccl_double), whose ranks are the forked
 * children of dist_harness.h meeting in shared memory. Covered: every
 * reduction × float32/float16/bfloat16/int64 × sizes 0, 1, 7 at world sizes
 * 1, 2 and 3; broadcast, all_gather_into_tensor, reduce_scatter_tensor,
 * barrier; a strided CUDA tensor; a TSR_DIST_DEFAULT group running Gloo on
 * CPU tensors and NCCL on CUDA tensors; NCCL missing; a CPU tensor refused
 * by a TSR_DIST_NCCL group, and the other refusals; DETAIL fingerprints
 * exchanged through NCCL; an asynchronous collective ordered after the
 * caller's stream; the watchdog failing the group on an injected
 * ncclRemoteError and at the timeout on an injected hang. Expected values
 * are computed from every rank's known inputs. scripts/gpu-check runs the
 * world-1 tests and cpu_tensor_in_an_nccl_group on a real GPU and NCCL. */
#include <math.h>

#include "dist_harness.h"
#include "dist_values.h"
#include "helpers.h"
#include "nccl_ranks.h"
#include "tsr_cuda_double.h"

static const tsr_dtype kDtypes[] = {TSR_FLOAT32, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT64};
static const tsr_reduce_op kOps[] = {TSR_REDUCE_SUM, TSR_REDUCE_AVG, TSR_REDUCE_PRODUCT, TSR_REDUCE_MIN,
                                     TSR_REDUCE_MAX};
static const int64_t kSizes[] = {0, 1, 7};

static double value(tsr_reduce_op op, int r, int64_t i) { return dist_value(op, r, i, 0); }
static double reduce(tsr_reduce_op op, int world, int64_t i, int integer) {
  return dist_reduced(op, world, i, integer, 0);
}

static int close_to(double got, double want, tsr_dtype d) {
  const double tol = (d == TSR_FLOAT16 || d == TSR_BFLOAT16) ? 1e-2 : 1e-6;
  return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

/* ---- every reduction × dtype × size ------------------------------------------ */

static int all_reduce_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_NCCL, 20000, &pg));
  double in[7], got[7];
  for (size_t d = 0; d < sizeof kDtypes / sizeof *kDtypes; ++d)
    for (size_t o = 0; o < sizeof kOps / sizeof *kOps; ++o)
      for (size_t s = 0; s < sizeof kSizes / sizeof *kSizes; ++s) {
        const int64_t n = kSizes[s];
        for (int64_t i = 0; i < n; ++i) in[i] = value(kOps[o], rank, i);
        tsr_tensor* t = cuda_of(in, n, kDtypes[d]);
        DCHECK(tsr_all_reduce(pg, t, kOps[o], NULL) == TSR_OK, "dtype %d op %d n %lld", (int)kDtypes[d],
               (int)kOps[o], (long long)n);
        DCHECK(tsr_tensor_device_type(t) == TSR_DEVICE_CUDA, "the result moved off the device");
        read_back(t, got, n);
        for (int64_t i = 0; i < n; ++i) {
          const double want = reduce(kOps[o], world, i, kDtypes[d] == TSR_INT64);
          DCHECK(close_to(got[i], want, kDtypes[d]), "dtype %d op %d n %lld [%lld]: got %g, want %g",
                 (int)kDtypes[d], (int)kOps[o], (long long)n, (long long)i, got[i], want);
        }
        tsr_tensor_release(t);
      }
  tsr_process_group_release(pg);
  return 0;
}

static void run_world(int world, dist_body body, void* arg, double deadline_s) {
  int st[4] = {0};
  cr_assert_eq(dist_run_ranks(world, body, arg, deadline_s, st), 0, "world %d: ranks hung past %g s", world,
               deadline_s);
  for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "world %d: rank %d failed (status %d)", world, r, st[r]);
}

Test(nccl_backend, all_reduce_every_op_dtype_size_world_1) { run_world(1, all_reduce_body, NULL, 60); }
Test(nccl_backend, all_reduce_every_op_dtype_size_world_2) { run_world(2, all_reduce_body, NULL, 60); }
Test(nccl_backend, all_reduce_every_op_dtype_size_world_3) { run_world(3, all_reduce_body, NULL, 90); }

/* ---- broadcast, all_gather_into_tensor, reduce_scatter_tensor, barrier ---------- */

static int others_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_NCCL, 20000, &pg));
  double in[24], got[24];
  for (size_t d = 0; d < sizeof kDtypes / sizeof *kDtypes; ++d) {
    const tsr_dtype dt = kDtypes[d];
    /* broadcast from the last rank, 5 elements */
    for (int i = 0; i < 5; ++i) in[i] = rank * 10 + i;
    tsr_tensor* b = cuda_of(in, 5, dt);
    DCHECK_OK(tsr_broadcast(pg, b, world - 1, NULL));
    read_back(b, got, 5);
    for (int i = 0; i < 5; ++i) DCHECK(got[i] == (world - 1) * 10 + i, "broadcast [%d] = %g", i, got[i]);
    tsr_tensor_release(b);
    /* all_gather_into_tensor: 3 elements per rank */
    for (int i = 0; i < 3; ++i) in[i] = rank * 3 + i;
    tsr_tensor* x = cuda_of(in, 3, dt);
    tsr_tensor* all;
    const int64_t n_all = 3 * world;
    DCHECK_OK(tsr_zeros(1, &n_all, dt, TSR_CUDA0, &all));
    DCHECK_OK(tsr_all_gather_into_tensor(pg, all, x, NULL));
    read_back(all, got, n_all);
    for (int64_t i = 0; i < n_all; ++i) DCHECK(got[i] == (double)i, "all_gather [%lld] = %g", (long long)i, got[i]);
    tsr_tensor_release(x);
    tsr_tensor_release(all);
    /* reduce_scatter_tensor (SUM): 2 elements per rank */
    for (int i = 0; i < 2 * world; ++i) in[i] = i + rank;
    tsr_tensor* whole = cuda_of(in, 2 * world, dt);
    tsr_tensor* mine;
    const int64_t two = 2;
    DCHECK_OK(tsr_zeros(1, &two, dt, TSR_CUDA0, &mine));
    DCHECK_OK(tsr_reduce_scatter_tensor(pg, mine, whole, TSR_REDUCE_SUM, NULL));
    read_back(mine, got, 2);
    for (int i = 0; i < 2; ++i) {
      const int idx = rank * 2 + i;
      const double want = (double)idx * world + world * (world - 1) / 2.0;
      DCHECK(got[i] == want, "reduce_scatter [%d] = %g, want %g", i, got[i], want);
    }
    tsr_tensor_release(whole);
    tsr_tensor_release(mine);
  }
  DCHECK_OK(tsr_barrier(pg, NULL));
  /* asynchronous: a work handle */
  double one = rank + 1;
  tsr_tensor* t = cuda_of(&one, 1, TSR_FLOAT32);
  tsr_work* w = NULL;
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, &w));
  DCHECK_OK(tsr_work_wait(w, -1));
  tsr_work_release(w);
  read_back(t, got, 1);
  DCHECK(got[0] == world * (world + 1) / 2.0, "async all_reduce = %g", got[0]);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(nccl_backend, broadcast_gather_scatter_barrier_world_1) { run_world(1, others_body, NULL, 60); }
Test(nccl_backend, broadcast_gather_scatter_barrier_world_2) { run_world(2, others_body, NULL, 60); }
Test(nccl_backend, broadcast_gather_scatter_barrier_world_3) { run_world(3, others_body, NULL, 90); }

/* ---- a strided CUDA tensor: column 0 of [5, 2] ---------------------------------- */

static int strided_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_NCCL, 20000, &pg));
  double in[10], got[10];
  for (int i = 0; i < 10; ++i) in[i] = rank * 100 + i;
  tsr_tensor* base = cuda_of(in, 10, TSR_FLOAT32);
  const int64_t sizes[2] = {5, 2};
  tsr_tensor *m, *col;
  DCHECK_OK(tsr_reshape(base, 2, sizes, &m));
  DCHECK_OK(tsr_select(m, 1, 0, &col));
  bool contiguous = true;
  DCHECK_OK(tsr_is_contiguous(col, TSR_CONTIGUOUS_FORMAT, &contiguous));
  DCHECK(!contiguous, "column 0 should be strided");
  DCHECK_OK(tsr_all_reduce(pg, col, TSR_REDUCE_SUM, NULL));
  read_back(base, got, 10);
  for (int i = 0; i < 10; ++i) {
    /* column 0 (even i) summed over ranks; column 1 untouched */
    const double want = i % 2 == 0 ? world * i + 100.0 * world * (world - 1) / 2 : rank * 100 + i;
    DCHECK(got[i] == want, "[%d] = %g, want %g", i, got[i], want);
  }
  tsr_tensor_release(col);
  tsr_tensor_release(m);
  tsr_tensor_release(base);
  tsr_process_group_release(pg);
  return 0;
}

Test(nccl_backend, strided_tensor_world_2) { run_world(2, strided_body, NULL, 60); }

/* ---- stream order: after the caller's current stream, also from the worker ------- */

/* The caller fills its tensor on a stream of its own that the double holds,
 * then queues an asynchronous all_reduce (run by the group's worker
 * thread): the collective must wait for the fill, so it sees rank + 1. */
static int caller_stream_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_NCCL, 20000, &pg));
  double v = 0, got = -1;
  tsr_tensor* t = cuda_of(&v, 1, TSR_FLOAT32);
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL)); /* the communicator and its stream exist */
  tsr_stream *mine, *previous;
  DCHECK_OK(tsr_stream_current(TSR_CUDA0, &previous));
  DCHECK_OK(tsr_stream_create(TSR_CUDA0, &mine));
  int device = -1;
  const int64_t sim_id = tsr_double_last_stream_id(&device);
  DCHECK_OK(tsr_stream_set_current(mine));
  tsr_double_hold(device, sim_id);
  DCHECK_OK(tsr_fill_(t, rank + 1)); /* queued on `mine`, held */
  tsr_work* w = NULL;
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, &w));
  usleep(100000);
  tsr_double_release(device, sim_id);
  DCHECK_OK(tsr_work_wait(w, -1));
  tsr_work_release(w);
  read_back(t, &got, 1);
  DCHECK(got == world * (world + 1) / 2.0, "all_reduce after the held fill = %g", got);
  DCHECK_OK(tsr_stream_set_current(previous));
  tsr_stream_release(mine);
  tsr_stream_release(previous);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(nccl_backend, async_collective_waits_for_the_callers_stream_world_2) {
  run_world(2, caller_stream_body, NULL, 60);
}

/* ---- DETAIL fingerprints through NCCL (a group without Gloo) ------------------------ */

static int detail_body(int port, int rank, int world, void* arg) {
  (void)arg;
  setenv("TSR_DISTRIBUTED_DEBUG", "DETAIL", 1);
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_NCCL, 20000, &pg));
  double v[3] = {1, 2, 3};
  tsr_tensor* same = cuda_of(v, 2, TSR_FLOAT32);
  DCHECK_OK(tsr_all_reduce(pg, same, TSR_REDUCE_SUM, NULL)); /* matching fingerprints pass */
  tsr_tensor* odd = cuda_of(v, rank == 0 ? 2 : 3, TSR_FLOAT32);
  DCHECK(tsr_all_reduce(pg, odd, TSR_REDUCE_SUM, NULL) == TSR_ERR_DISTRIBUTED, "a mismatch ran");
  const char* msg = tsr_last_error_message();
  DCHECK(strstr(msg, "collective mismatch (TSR_DISTRIBUTED_DEBUG=DETAIL)") != NULL, "%s", msg);
  DCHECK(strstr(msg, "sizes=[2]") != NULL && strstr(msg, "sizes=[3]") != NULL, "%s", msg);
  tsr_tensor_release(same);
  tsr_tensor_release(odd);
  tsr_process_group_release(pg);
  return 0;
}

Test(nccl_backend, detail_fingerprints_through_nccl_world_2) { run_world(2, detail_body, NULL, 60); }

/* ---- TSR_DIST_DEFAULT: Gloo for CPU tensors, NCCL for CUDA tensors -------------- */

static int default_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_DEFAULT, 20000, &pg));
  double v = rank + 1, got = 0;
  tsr_tensor *cpu, *cuda = cuda_of(&v, 1, TSR_FLOAT32);
  const int64_t one = 1;
  DCHECK_OK(tsr_from_data(&v, sizeof v, 1, &one, TSR_FLOAT64, &cpu));
  DCHECK_OK(tsr_all_reduce(pg, cpu, TSR_REDUCE_SUM, NULL));
  DCHECK_OK(tsr_all_reduce(pg, cuda, TSR_REDUCE_MAX, NULL));
  DCHECK_OK(tsr_barrier(pg, NULL));
  read_back(cpu, &got, 1);
  DCHECK(got == world * (world + 1) / 2.0, "CPU (Gloo) sum = %g", got);
  read_back(cuda, &got, 1);
  DCHECK(got == world, "CUDA (NCCL) max = %g", got);
  tsr_tensor_release(cpu);
  tsr_tensor_release(cuda);
  tsr_process_group_release(pg);
  return 0;
}

Test(nccl_backend, default_group_cpu_and_cuda_world_2) { run_world(2, default_body, NULL, 60); }

/* ---- errors ------------------------------------------------------------------------ */

Test(nccl_backend_errors, cpu_tensor_in_an_nccl_group) {
  tsr_process_group* pg = NULL;
  cr_assert(tsr_dist_backend_is_available(TSR_DIST_NCCL));
  TSR_ASSERT_OK(nccl_init(dist_free_port(), 0, 1, TSR_DIST_NCCL, 10000, &pg));
  cr_assert_str_eq(tsr_process_group_backend(pg), "nccl");
  tsr_tensor* t;
  const int64_t n = 3;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL), TSR_ERR_UNSUPPORTED, "TSR_DIST_NCCL");
  /* a refusal leaves the group healthy */
  tsr_tensor* c;
  TSR_ASSERT_OK(tsr_to_device(t, TSR_CUDA0, 0, &c));
  TSR_ASSERT_OK(tsr_all_reduce(pg, c, TSR_REDUCE_SUM, NULL));
  /* int16: a dtype NCCL lacks, refused before anything is queued */
  tsr_tensor* s;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_INT16, TSR_CUDA0, &s));
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, s, TSR_REDUCE_SUM, NULL), TSR_ERR_UNSUPPORTED, "NCCL has no type");
  TSR_ASSERT_OK(tsr_all_reduce(pg, c, TSR_REDUCE_SUM, NULL));
  /* the communicator is on cuda:0: a tensor on cuda:1 is refused (the
   * double has two devices; a GPU machine may have one) */
  if (tsr_cuda_device_count() >= 2) {
    tsr_tensor* other;
    TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_DEVICE_CUDA, 1, &other));
    TSR_ASSERT_FAILS(tsr_all_reduce(pg, other, TSR_REDUCE_SUM, NULL), TSR_ERR_UNSUPPORTED,
                     "communicator is on cuda:0 but the tensors are on cuda:1");
    tsr_tensor_release(other);
  }
  /* bitwise reductions: NCCL has none (torch refuses them too) */
  tsr_tensor* bits;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_INT32, TSR_CUDA0, &bits));
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, bits, TSR_REDUCE_BXOR, NULL), TSR_ERR_UNSUPPORTED,
                   "Cannot use ReduceOp.BXOR with NCCL");
  TSR_ASSERT_OK(tsr_all_reduce(pg, bits, TSR_REDUCE_MAX, NULL));
  tsr_tensor_release(bits);
  /* point to point on CUDA tensors: not yet */
  TSR_ASSERT_FAILS(tsr_send(pg, c, 0, 0, NULL), TSR_ERR_UNSUPPORTED, "send: point to point on CUDA tensors");
  int32_t source = -7;
  TSR_ASSERT_FAILS(tsr_recv(pg, c, 0, 0, &source, NULL), TSR_ERR_UNSUPPORTED, "recv: point to point on CUDA tensors");
  cr_assert_eq(source, -7);
  /* output and input on different devices */
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CUDA0, &g));
  TSR_ASSERT_FAILS(tsr_all_gather_into_tensor(pg, g, t, NULL), TSR_ERR_UNSUPPORTED, "TSR_DIST_NCCL");
  TSR_ASSERT_FAILS(tsr_all_gather_into_tensor(pg, t, g, NULL), TSR_ERR_UNSUPPORTED, "TSR_DIST_NCCL");
  tsr_tensor_release(g);
  tsr_tensor_release(s);
  tsr_tensor_release(c);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
}

Test(nccl_backend_errors, nccl_missing) {
  setenv("TSR_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  cr_assert(!tsr_dist_backend_is_available(TSR_DIST_NCCL));
  tsr_process_group* pg = (tsr_process_group*)0x1;
  TSR_ASSERT_FAILS(nccl_init(dist_free_port(), 0, 1, TSR_DIST_NCCL, 10000, &pg), TSR_ERR_UNSUPPORTED,
                   "NCCL not found: could not load /nonexistent/libnccl.so.2 (from $TSR_NCCL_LIBRARY)");
  cr_assert_eq(pg, (tsr_process_group*)0x1, "out written on failure");
  /* a DEFAULT group still works on CPU tensors and refuses CUDA ones, saying why */
  TSR_ASSERT_OK(nccl_init(dist_free_port(), 0, 1, TSR_DIST_DEFAULT, 10000, &pg));
  cr_assert_str_eq(tsr_process_group_backend(pg), "gloo");
  tsr_tensor *t, *c;
  const int64_t n = 2;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_to_device(t, TSR_CUDA0, 0, &c));
  /* a DEFAULT group takes both devices, but not both in one collective */
  TSR_ASSERT_FAILS(tsr_all_gather_into_tensor(pg, t, c, NULL), TSR_ERR_DEVICE_MISMATCH,
                   "all_gather_into_tensor: output is on cpu but input is on cuda:0");
  TSR_ASSERT_FAILS(tsr_reduce_scatter_tensor(pg, c, t, TSR_REDUCE_SUM, NULL), TSR_ERR_DEVICE_MISMATCH,
                   "reduce_scatter_tensor: output is on cuda:0 but input is on cpu");
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, c, TSR_REDUCE_SUM, NULL), TSR_ERR_UNSUPPORTED, "NCCL not found");
  TSR_ASSERT_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  tsr_tensor_release(c);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
}

Test(nccl_backend_errors, not_nccl) {
  /* a library without NCCL's entry points (the CUDA runtime's double) */
  setenv("TSR_NCCL_LIBRARY", TSR_CUDART_DOUBLE_PATH, 1);
  tsr_process_group* pg = NULL;
  TSR_ASSERT_FAILS(nccl_init(dist_free_port(), 0, 1, TSR_DIST_NCCL, 10000, &pg), TSR_ERR_UNSUPPORTED,
                   "lacks ncclGetVersion");
}

Test(nccl_backend_errors, nccl_too_old) {
  setenv("TSR_NCCL_DOUBLE_VERSION", "21305", 1);
  tsr_process_group* pg = NULL;
  TSR_ASSERT_FAILS(nccl_init(dist_free_port(), 0, 1, TSR_DIST_NCCL, 10000, &pg), TSR_ERR_UNSUPPORTED,
                   "is version 21305; tessera needs NCCL 2.14 or newer");
}

/* ---- the watchdog ---------------------------------------------------------------- */

typedef struct {
  const char* fault; /* TSR_NCCL_DOUBLE_FAULT on rank 1 */
  int64_t timeout_ms;
} fault_case;

static int fault_body(int port, int rank, int world, void* arg) {
  const fault_case* fc = (const fault_case*)arg;
  tsr_process_group* pg = NULL;
  DCHECK_OK(nccl_init(port, rank, world, TSR_DIST_NCCL, fc->timeout_ms, &pg));
  double v = 1;
  tsr_tensor* t = cuda_of(&v, 1, TSR_FLOAT32);
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL)); /* the communicator is up */
  if (rank == 1) setenv("TSR_NCCL_DOUBLE_FAULT", fc->fault, 1);
  const double start = dist_now();
  const tsr_status st = tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL);
  const double took = dist_now() - start;
  const char* msg = tsr_last_error_message();
  DCHECK(st == TSR_ERR_DISTRIBUTED, "status %d", (int)st);
  DCHECK(strstr(msg, "all_reduce (sequence 2) failed on rank") != NULL, "%s", msg);
  DCHECK(strstr(msg, "NCCL: ") != NULL, "%s", msg);
  const double limit = fc->timeout_ms / 1000.0;
  if (strcmp(fc->fault, "hang") == 0) {
    /* The stalled rank's watchdog times it out; its peer is timed out by
     * its own watchdog too, or sees the stalled rank's abort first (both
     * wait the same timeout, so either comes first). */
    if (rank == 1 || strstr(msg, "aborted its communicator") == NULL)
      DCHECK(strstr(msg, "Timed out: ncclAllReduce did not complete within the group's timeout") != NULL, "%s",
             msg);
    DCHECK(strstr(msg, "ncclCommAbort") != NULL, "%s", msg);
    DCHECK(took >= 0.8 * limit && took <= 1.2 * limit, "failed after %.2f s, timeout %.2f s", took, limit);
  } else {
    /* the injected rank names NCCL's error; its peer sees the abort */
    DCHECK(strstr(msg, "ncclRemoteError") != NULL, "%s", msg);
    if (rank == 1) DCHECK(strstr(msg, "injected remote error") != NULL, "%s", msg);
    DCHECK(took < 5, "failed after %.2f s", took);
  }
  /* the failed group refuses further work */
  DCHECK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL) == TSR_ERR_DISTRIBUTED, "a failed group ran a collective");
  DCHECK(strstr(tsr_last_error_message(), "failed earlier") != NULL, "%s", tsr_last_error_message());
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(nccl_watchdog, injected_remote_error_fails_the_group) {
  fault_case fc = {"remote_error", 20000};
  run_world(2, fault_body, &fc, 30);
}

Test(nccl_watchdog, injected_hang_fails_at_the_timeout) {
  fault_case fc = {"hang", 2000};
  run_world(2, fault_body, &fc, 30);
}
