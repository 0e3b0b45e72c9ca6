/* The MPI backend (TSR_DIST_MPI) under mpirun: one process per rank, each
 * running this program with a mode (tests/mpi/CMakeLists.txt):
 *   collectives  every op x {f32, f64, f16, bf16, i32, i64} x sizes {0, 1,
 *                odd, 4 MiB + 1 element}, broadcast, all_gather_into_tensor,
 *                reduce_scatter_tensor, barrier, strided tensors, bool and
 *                small integers, NaN under MIN/MAX, asynchronous work on the
 *                worker thread, two groups in flight at once, and a DDP step;
 *   timeout      the last rank sleeps past the group's timeout: the others
 *                fail at the timeout +-20% with TSR_ERR_DISTRIBUTED naming the
 *                op (mpirun then ends the job: the check is the printed line);
 *   mismatch     options.rank / world_size other than MPI's are refused;
 *   detail       TSR_DISTRIBUTED_DEBUG=DETAIL: mismatched all_reduces fail on
 *                every rank with both fingerprints (gathered over MPI);
 *   exit         rank 0 exits with an all_reduce in flight (as on Ctrl-C):
 *                it leaves at once, without an MPI_Finalize that would wait
 *                for the sleeping rank 1, and mpirun ends the job.
 * Expected values are computed from every rank's known inputs in float64 and
 * converted once (small integers: exact in every dtype). The program uses
 * only tessera's C API; it never calls MPI itself. A failed check prints
 * "FAILED" and exits 1 (mpirun then ends the job with a non-zero status). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tessera/tessera.h>
#include "dist_values.h"

#define TSR_CPU TSR_DEVICE_CPU, 0 /* as tests/helpers.h */

static int g_rank = -1;
static long g_checks = 0;

#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    ++g_checks;                                                                             \
    if (!(cond)) {                                                                          \
      fprintf(stderr, "rank %d: FAILED %s:%d: %s: ", g_rank, __FILE__, __LINE__, #cond);    \
      fprintf(stderr, __VA_ARGS__);                                                         \
      fprintf(stderr, " [last error: %s]\n", tsr_last_error_message());                     \
      fflush(stderr);                                                                       \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)
#define CHECK_OK(call) CHECK((call) == TSR_OK, "%s", #call)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static tsr_status mpi_group(int rank, int world, int64_t timeout_ms, tsr_process_group** pg) {
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.backend = TSR_DIST_MPI;
  o.rank = rank;
  o.world_size = world;
  o.timeout_ms = timeout_ms;
  return tsr_process_group_init(&o, pg);
}

static const tsr_dtype kDtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT32, TSR_INT64};
static const tsr_reduce_op kOps[] = {TSR_REDUCE_SUM, TSR_REDUCE_AVG, TSR_REDUCE_PRODUCT, TSR_REDUCE_MIN,
                                     TSR_REDUCE_MAX};

/* g_offset 3 makes the values non-negative (uint8). */
static int g_offset = 0;
static double value(tsr_reduce_op op, int r, int64_t i) { return dist_value(op, r, i, g_offset); }
static double reduce(tsr_reduce_op op, int world, int64_t i, int integer) {
  return dist_reduced(op, world, i, integer, g_offset);
}

static int is_integer(tsr_dtype d) { return d != TSR_FLOAT32 && d != TSR_FLOAT64 && d != TSR_FLOAT16 && d != TSR_BFLOAT16; }

static tsr_tensor* tensor_of(const double* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *d, *t;
  CHECK_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &d));
  CHECK_OK(tsr_to_dtype(d, dtype, &t));
  tsr_tensor_release(d);
  return t;
}

/* An n-element tensor with element stride 2 (column 0 of [n, 2]) holding v. */
static tsr_tensor* strided_of(tsr_tensor* v) {
  const int64_t n = tsr_tensor_numel(v), sizes[2] = {n, 2};
  tsr_tensor *base, *col;
  CHECK_OK(tsr_zeros(2, sizes, tsr_tensor_dtype(v), TSR_CPU, &base));
  CHECK_OK(tsr_select(base, 1, 0, &col));
  tsr_tensor_release(base);
  CHECK_OK(tsr_copy_(col, v));
  tsr_tensor_release(v);
  return col;
}

static int same_bytes(const tsr_tensor* a, const tsr_tensor* b) {
  const size_t n = (size_t)tsr_tensor_nbytes(a);
  if (n != (size_t)tsr_tensor_nbytes(b)) return 0;
  char* x = malloc(n + 1);
  char* y = malloc(n + 1);
  size_t need;
  tsr_copy_to_buffer(a, x, n, &need);
  tsr_copy_to_buffer(b, y, n, &need);
  const int same = memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return same;
}

/* in[i] = value(op, rank, i) for n elements; want[i] from f(i). */
static double* values(tsr_reduce_op op, int rank, int64_t n) {
  double* v = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) v[i] = value(op, rank, i);
  return v;
}

static void check_all_reduce(tsr_process_group* pg, tsr_dtype dt, tsr_reduce_op op, int64_t n, int strided) {
  const int world = tsr_process_group_size(pg);
  double* in = values(op, g_rank, n);
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) want[i] = reduce(op, world, i, is_integer(dt));
  tsr_tensor* t = tensor_of(in, n, dt);
  if (strided) t = strided_of(t);
  tsr_tensor* expected = tensor_of(want, n, dt);
  CHECK(tsr_all_reduce(pg, t, op, NULL) == TSR_OK, "all_reduce %s op %d n %lld", tsr_dtype_name(dt), (int)op,
        (long long)n);
  CHECK(same_bytes(t, expected), "all_reduce %s op %d n %lld strided %d: wrong result", tsr_dtype_name(dt), (int)op,
        (long long)n, strided);
  tsr_tensor_release(t);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static void check_broadcast(tsr_process_group* pg, tsr_dtype dt, int64_t n, int root, int strided) {
  double* in = values(TSR_REDUCE_SUM, g_rank, n);
  double* want = values(TSR_REDUCE_SUM, root, n);
  tsr_tensor* t = tensor_of(in, n, dt);
  if (strided) t = strided_of(t);
  tsr_tensor* expected = tensor_of(want, n, dt);
  CHECK_OK(tsr_broadcast(pg, t, root, NULL));
  CHECK(same_bytes(t, expected), "broadcast %s n %lld root %d: wrong result", tsr_dtype_name(dt), (long long)n, root);
  tsr_tensor_release(t);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static void check_all_gather(tsr_process_group* pg, tsr_dtype dt, int64_t n, int strided) {
  const int world = tsr_process_group_size(pg);
  double* in = values(TSR_REDUCE_SUM, g_rank, n);
  double* want = malloc(sizeof(double) * (size_t)(n * world + 1));
  for (int r = 0; r < world; ++r)
    for (int64_t i = 0; i < n; ++i) want[r * n + i] = value(TSR_REDUCE_SUM, r, i);
  tsr_tensor* input = tensor_of(in, n, dt);
  if (strided) input = strided_of(input);
  tsr_tensor* expected = tensor_of(want, n * world, dt);
  tsr_tensor* output;
  const int64_t out_sizes[2] = {world, n};
  CHECK_OK(tsr_zeros(2, out_sizes, dt, TSR_CPU, &output));
  CHECK_OK(tsr_all_gather_into_tensor(pg, output, input, NULL));
  CHECK(same_bytes(output, expected), "all_gather %s n %lld: wrong result", tsr_dtype_name(dt), (long long)n);
  tsr_tensor_release(input);
  tsr_tensor_release(output);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static void check_reduce_scatter(tsr_process_group* pg, tsr_dtype dt, tsr_reduce_op op, int64_t n) {
  const int world = tsr_process_group_size(pg);
  double* in = values(op, g_rank, n * world);
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) want[i] = reduce(op, world, g_rank * n + i, is_integer(dt));
  tsr_tensor* input = tensor_of(in, n * world, dt);
  tsr_tensor* expected = tensor_of(want, n, dt);
  tsr_tensor *base, *output;
  const int64_t sizes[2] = {n, 3};
  CHECK_OK(tsr_zeros(2, sizes, dt, TSR_CPU, &base));
  CHECK_OK(tsr_select(base, 1, 2, &output)); /* a strided output */
  CHECK_OK(tsr_reduce_scatter_tensor(pg, output, input, op, NULL));
  CHECK(same_bytes(output, expected), "reduce_scatter %s op %d n %lld: wrong result", tsr_dtype_name(dt), (int)op,
        (long long)n);
  tsr_tensor_release(base);
  tsr_tensor_release(input);
  tsr_tensor_release(output);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static int64_t element_size(tsr_dtype dt) {
  tsr_tensor* probe;
  const int64_t one = 1;
  CHECK_OK(tsr_zeros(1, &one, dt, TSR_CPU, &probe));
  const int64_t size = tsr_tensor_element_size(probe);
  tsr_tensor_release(probe);
  return size;
}

/* bool (or / and), int8, uint8, int16: MPI's own types and ops. */
static void check_small_types(tsr_process_group* pg) {
  const tsr_dtype small[] = {TSR_INT8, TSR_UINT8, TSR_INT16};
  g_offset = 3;
  for (size_t d = 0; d < 3; ++d)
    for (size_t o = 0; o < 5; ++o) check_all_reduce(pg, small[d], kOps[o], 33, 0);
  g_offset = 0;
  const int world = tsr_process_group_size(pg);
  /* bool: rank r sets element r only. */
  double in[8] = {0}, any[8] = {0}, all[8] = {0};
  in[g_rank] = 1;
  for (int i = 0; i < world; ++i) any[i] = 1;
  if (world == 1) all[0] = 1;
  const tsr_reduce_op ops[] = {TSR_REDUCE_SUM, TSR_REDUCE_MAX, TSR_REDUCE_PRODUCT, TSR_REDUCE_MIN};
  for (int k = 0; k < 4; ++k) {
    tsr_tensor* t = tensor_of(in, 8, TSR_BOOL);
    tsr_tensor* expected = tensor_of(k < 2 ? any : all, 8, TSR_BOOL);
    CHECK_OK(tsr_all_reduce(pg, t, ops[k], NULL));
    CHECK(same_bytes(t, expected), "bool op %d", (int)ops[k]);
    tsr_tensor_release(t);
    tsr_tensor_release(expected);
  }
}

/* MIN and MAX propagate NaN as torch's (user-defined MPI ops). */
static void check_nan(tsr_process_group* pg) {
  const tsr_dtype dts[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16};
  const tsr_reduce_op ops[] = {TSR_REDUCE_MIN, TSR_REDUCE_MAX, TSR_REDUCE_SUM};
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 3; ++k) {
      double in[3] = {1, 2, 3};
      if (g_rank == 0) in[1] = NAN;
      tsr_tensor* t = tensor_of(in, 3, dts[d]);
      CHECK_OK(tsr_all_reduce(pg, t, ops[k], NULL));
      tsr_tensor* f;
      CHECK_OK(tsr_to_dtype(t, TSR_FLOAT64, &f));
      double out[3];
      size_t need;
      CHECK_OK(tsr_copy_to_buffer(f, out, sizeof out, &need));
      CHECK(isnan(out[1]) && !isnan(out[0]) && !isnan(out[2]), "%s op %d: NaN not propagated (%g %g %g)",
            tsr_dtype_name(dts[d]), (int)ops[k], out[0], out[1], out[2]);
      tsr_tensor_release(f);
      tsr_tensor_release(t);
    }
}

/* Queued work runs on the group's worker thread while the caller's thread
 * issues more; two groups' operations are in flight at once (each group
 * has its own communicator; the module serializes MPI calls). */
static void check_async(tsr_process_group* pg, tsr_process_group* other) {
  const int world = tsr_process_group_size(pg);
  enum { K = 8 };
  tsr_tensor* ts[K];
  tsr_work* ws[K];
  const int64_t n = 4099;
  for (int k = 0; k < K; ++k) {
    CHECK_OK(tsr_full(1, &n, (double)(g_rank + k), TSR_FLOAT32, TSR_CPU, &ts[k]));
    CHECK_OK(tsr_all_reduce(k % 2 ? other : pg, ts[k], TSR_REDUCE_SUM, &ws[k]));
  }
  for (int k = K - 1; k >= 0; --k) {
    CHECK_OK(tsr_work_wait(ws[k], -1));
    tsr_work_release(ws[k]);
    double first;
    tsr_tensor* e;
    CHECK_OK(tsr_select(ts[k], 0, n - 1, &e));
    CHECK_OK(tsr_item_double(e, &first));
    tsr_tensor_release(e);
    const double want = (double)world * (world - 1) / 2 + (double)world * k;
    CHECK(first == want, "async all_reduce %d: %g, expected %g", k, first, want);
    tsr_tensor_release(ts[k]);
  }
}

/* One DDP step: loss = sum(w * x_r) gives grad x_r on rank r; DDP's
 * all-reduce leaves the average over ranks in every rank's w.grad. */
static void check_ddp(tsr_process_group* pg) {
  const int world = tsr_process_group_size(pg);
  const int64_t n = 5;
  double w0[5], x[5], want[5];
  for (int i = 0; i < n; ++i) {
    w0[i] = g_rank == 0 ? 0.5 * i : 100; /* creation broadcasts rank 0's */
    x[i] = g_rank + i;
    want[i] = (double)(world - 1) / 2 + i;
  }
  tsr_tensor* w = tensor_of(w0, n, TSR_FLOAT32);
  CHECK_OK(tsr_set_requires_grad(w, true));
  tsr_ddp* ddp;
  tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
  CHECK_OK(tsr_ddp_create(pg, 1, &w, &o, &ddp));
  tsr_tensor *xt = tensor_of(x, n, TSR_FLOAT32), *wx, *loss, *g;
  CHECK_OK(tsr_mul(w, xt, &wx));
  CHECK_OK(tsr_sum(wx, 0, NULL, false, &loss));
  CHECK_OK(tsr_backward(loss, NULL, false));
  CHECK_OK(tsr_grad(w, &g));
  tsr_tensor* expected = tensor_of(want, n, TSR_FLOAT32);
  CHECK(same_bytes(g, expected), "DDP gradient is not the average over ranks");
  for (int i = 0; i < n; ++i) w0[i] = 0.5 * i;
  tsr_tensor* w_expected = tensor_of(w0, n, TSR_FLOAT32);
  CHECK(same_bytes(w, w_expected), "DDP creation did not broadcast rank 0's parameters");
  tsr_tensor_release(w_expected);
  tsr_tensor_release(expected);
  tsr_tensor_release(g);
  tsr_tensor_release(loss);
  tsr_tensor_release(wx);
  tsr_tensor_release(xt);
  tsr_ddp_release(ddp);
  tsr_tensor_release(w);
}

static int collectives(void) {
  tsr_process_group *pg, *other;
  CHECK_OK(mpi_group(-1, -1, 60000, &pg));
  g_rank = tsr_process_group_rank(pg);
  const int world = tsr_process_group_size(pg);
  const char* env_rank = getenv("OMPI_COMM_WORLD_RANK");
  const char* env_size = getenv("OMPI_COMM_WORLD_SIZE");
  CHECK(env_rank && atoi(env_rank) == g_rank && env_size && atoi(env_size) == world, "rank %d / size %d vs mpirun's",
        g_rank, world);
  CHECK(strcmp(tsr_process_group_backend(pg), "mpi") == 0, "backend %s", tsr_process_group_backend(pg));
  /* Rank and world size given and equal to MPI's: accepted. */
  CHECK_OK(mpi_group(g_rank, world, 60000, &other));
  for (size_t d = 0; d < sizeof kDtypes / sizeof *kDtypes; ++d) {
    const tsr_dtype dt = kDtypes[d];
    const int64_t sizes[] = {0, 1, 1001};
    for (size_t s = 0; s < 3; ++s) {
      for (size_t o = 0; o < sizeof kOps / sizeof *kOps; ++o) {
        check_all_reduce(pg, dt, kOps[o], sizes[s], 0);
        check_reduce_scatter(pg, dt, kOps[o], sizes[s]);
      }
      check_all_reduce(pg, dt, TSR_REDUCE_SUM, sizes[s], 1);
      for (int root = 0; root < world; ++root) check_broadcast(pg, dt, sizes[s], root, s == 2);
      check_all_gather(pg, dt, sizes[s], s == 2);
      CHECK_OK(tsr_barrier(pg, NULL));
    }
    /* A few MB: MPI's algorithms for large messages. */
    const int64_t big = (4 << 20) / element_size(dt) + 1;
    for (size_t o = 0; o < sizeof kOps / sizeof *kOps; ++o) check_all_reduce(pg, dt, kOps[o], big, 0);
    check_all_reduce(pg, dt, TSR_REDUCE_MAX, big, 1);
    check_broadcast(pg, dt, big, world - 1, 0);
    check_all_gather(pg, dt, big / world + 1, 0);
    check_reduce_scatter(pg, dt, TSR_REDUCE_AVG, big / world + 1);
  }
  check_small_types(pg);
  check_nan(pg);
  check_async(pg, other);
  check_ddp(pg);
  tsr_process_group_release(other);
  tsr_process_group_release(pg);
  printf("rank %d of %d: %ld checks passed\n", g_rank, world, g_checks);
  return 0;
}

/* The last rank joins the all_reduce only after the others' timeout. */
static int timeout_mode(void) {
  const int64_t timeout_ms = 1500;
  tsr_process_group* pg;
  CHECK_OK(mpi_group(-1, -1, timeout_ms, &pg));
  g_rank = tsr_process_group_rank(pg);
  const int world = tsr_process_group_size(pg);
  CHECK_OK(tsr_barrier(pg, NULL));
  const int64_t n = 16;
  tsr_tensor* t;
  CHECK_OK(tsr_full(1, &n, 1.0, TSR_FLOAT32, TSR_CPU, &t));
  if (g_rank == world - 1) {
    sleep(30); /* mpirun ends this process when a waiting rank exits */
    return 0;
  }
  const double start = now_s();
  const tsr_status st = tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL);
  const double waited = now_s() - start;
  const char* message = tsr_last_error_message();
  CHECK(st == TSR_ERR_DISTRIBUTED, "status %d", (int)st);
  CHECK(waited > 0.8 * timeout_ms / 1000.0 && waited < 1.2 * timeout_ms / 1000.0, "failed after %.3f s", waited);
  CHECK(strstr(message, "all_reduce (sequence 2) failed on rank") && strstr(message, "MPI_Iallreduce") &&
            strstr(message, "the missing ranks are unknown under MPI") && strstr(message, "1500 ms"),
        "message: %s", message);
  /* The failed group refuses further work at once. */
  CHECK(tsr_barrier(pg, NULL) == TSR_ERR_DISTRIBUTED && strstr(tsr_last_error_message(), "failed earlier"),
        "barrier after the failure");
  printf("rank %d: timeout ok after %.3f s: %s\n", g_rank, waited, message);
  fflush(stdout);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

static int mismatch(void) {
  tsr_process_group* pg = NULL;
  CHECK_OK(mpi_group(-1, -1, 60000, &pg));
  g_rank = tsr_process_group_rank(pg);
  const int world = tsr_process_group_size(pg);
  tsr_process_group* bad = (tsr_process_group*)0x1;
  CHECK(mpi_group((g_rank + 1) % (world + 1), -1, 60000, &bad) == TSR_ERR_INVALID_ARGUMENT &&
            strstr(tsr_last_error_message(), "but MPI gives this process rank"),
        "a rank other than MPI's");
  CHECK(mpi_group(-1, world + 1, 60000, &bad) == TSR_ERR_INVALID_ARGUMENT &&
            strstr(tsr_last_error_message(), "but MPI_COMM_WORLD has"),
        "a world size other than MPI's");
  CHECK(bad == (tsr_process_group*)0x1, "out changed by a failed init");
  /* The group made first still works. */
  CHECK_OK(tsr_barrier(pg, NULL));
  tsr_process_group_release(pg);
  printf("rank %d: mismatch ok\n", g_rank);
  return 0;
}

static int detail(void) {
  setenv("TSR_DISTRIBUTED_DEBUG", "DETAIL", 1);
  tsr_process_group* pg;
  CHECK_OK(mpi_group(-1, -1, 60000, &pg));
  g_rank = tsr_process_group_rank(pg);
  tsr_tensor* t;
  const int64_t n = 4;
  CHECK_OK(tsr_full(1, &n, 1.0, TSR_FLOAT32, TSR_CPU, &t));
  CHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL)); /* matching: runs */
  tsr_tensor_release(t);
  const int64_t m = g_rank == 0 ? 5 : 4;
  CHECK_OK(tsr_full(1, &m, 1.0, TSR_FLOAT32, TSR_CPU, &t));
  CHECK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL) == TSR_ERR_DISTRIBUTED, "mismatched all_reduce ran");
  const char* message = tsr_last_error_message();
  CHECK(strstr(message, "collective mismatch (TSR_DISTRIBUTED_DEBUG=DETAIL)") &&
            strstr(message, "sequence 2: all_reduce(dtype=float32, sizes=[5], op=SUM)") &&
            strstr(message, "sequence 2: all_reduce(dtype=float32, sizes=[4], op=SUM)"),
        "message: %s", message);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  printf("rank %d: detail ok\n", g_rank);
  return 0;
}

static int exit_in_flight(void) {
  tsr_process_group* pg;
  CHECK_OK(mpi_group(-1, -1, 60000, &pg));
  g_rank = tsr_process_group_rank(pg);
  CHECK_OK(tsr_barrier(pg, NULL));
  if (g_rank != 0) {
    sleep(30); /* mpirun ends this process when rank 0 has exited */
    return 0;
  }
  const int64_t n = 16;
  tsr_tensor* t;
  tsr_work* w;
  CHECK_OK(tsr_full(1, &n, 1.0, TSR_FLOAT32, TSR_CPU, &t));
  CHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, &w));
  CHECK(tsr_work_wait(w, 200) == TSR_ERR_DISTRIBUTED, "the all_reduce completed without rank 1");
  printf("rank 0: exiting with an all_reduce in flight\n");
  fflush(stdout);
  return 0; /* the group, its work and its worker thread are left as they are */
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "collectives") == 0) return collectives();
  if (strcmp(mode, "timeout") == 0) return timeout_mode();
  if (strcmp(mode, "mismatch") == 0) return mismatch();
  if (strcmp(mode, "detail") == 0) return detail();
  if (strcmp(mode, "exit") == 0) return exit_in_flight();
  fprintf(stderr, "usage: %s collectives|timeout|mismatch|detail|exit (under mpirun)\n", argv[0]);
  return 2;
}
