/* Process groups and collectives (distributed.h) on Gloo over 127.0.0.1:
 * every collective × dtype × size (empty, one, odd, just over 25 MiB) ×
 * world size 1-4, strided tensors, asynchronous work, the three init
 * methods, and every argument check. Ranks are forked children
 * (dist_harness.h); expected values are computed from every rank's known
 * inputs in float64 and converted once, as the reductions round once. */
#include <math.h>
#include <sys/stat.h>

#include "dist_harness.h"
#include "dist_values.h"
#include "helpers.h"

static const tsr_dtype kDtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT32, TSR_INT64};
static const tsr_reduce_op kOps[] = {TSR_REDUCE_SUM, TSR_REDUCE_AVG, TSR_REDUCE_PRODUCT, TSR_REDUCE_MIN,
                                     TSR_REDUCE_MAX};

static double value(tsr_reduce_op op, int r, int64_t i) { return dist_value(op, r, i, 0); }
static double reduce(tsr_reduce_op op, int world, int64_t i, int integer) {
  return dist_reduced(op, world, i, integer, 0);
}

/* A tensor of dtype from n doubles (float64, converted once). */
static tsr_tensor* tensor_of(const double* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *d, *t;
  DCHECK_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &d));
  DCHECK_OK(tsr_to_dtype(d, dtype, &t));
  tsr_tensor_release(d);
  return t;
}

/* An n-element tensor with element stride 2 (column 0 of [n, 2]) holding v. */
static tsr_tensor* strided_of(const tsr_tensor* v) {
  const int64_t n = tsr_tensor_numel(v), sizes[2] = {n, 2};
  tsr_tensor *base, *col;
  DCHECK_OK(tsr_zeros(2, sizes, tsr_tensor_dtype(v), TSR_CPU, &base));
  DCHECK_OK(tsr_select(base, 1, 0, &col));
  tsr_tensor_release(base);
  DCHECK_OK(tsr_copy_(col, v));
  return col;
}

static int is_integer(tsr_dtype d) { return d == TSR_INT32 || d == TSR_INT64; }

static void check_all_reduce(tsr_process_group* pg, tsr_dtype dt, tsr_reduce_op op, int64_t n, int strided) {
  const int rank = tsr_process_group_rank(pg), world = tsr_process_group_size(pg);
  double* in = malloc(sizeof(double) * (size_t)(n + 1));
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) {
    in[i] = value(op, rank, i);
    want[i] = reduce(op, world, i, is_integer(dt));
  }
  tsr_tensor* t = tensor_of(in, n, dt);
  if (strided) {
    tsr_tensor* s = strided_of(t);
    tsr_tensor_release(t);
    t = s;
  }
  tsr_tensor* expected = tensor_of(want, n, dt);
  DCHECK(tsr_all_reduce(pg, t, op, NULL) == TSR_OK, "all_reduce %s op %d n %lld", tsr_dtype_name(dt), (int)op,
         (long long)n);
  DCHECK(dist_same_bytes(t, expected), "all_reduce %s op %d n %lld strided %d: wrong result", tsr_dtype_name(dt),
         (int)op, (long long)n, strided);
  tsr_tensor_release(t);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static void check_broadcast(tsr_process_group* pg, tsr_dtype dt, int64_t n, int root, int strided) {
  const int rank = tsr_process_group_rank(pg);
  double* in = malloc(sizeof(double) * (size_t)(n + 1));
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) {
    in[i] = value(TSR_REDUCE_SUM, rank, i);
    want[i] = value(TSR_REDUCE_SUM, root, i);
  }
  tsr_tensor* t = tensor_of(in, n, dt);
  if (strided) {
    tsr_tensor* s = strided_of(t);
    tsr_tensor_release(t);
    t = s;
  }
  tsr_tensor* expected = tensor_of(want, n, dt);
  DCHECK_OK(tsr_broadcast(pg, t, root, NULL));
  DCHECK(dist_same_bytes(t, expected), "broadcast %s n %lld root %d: wrong result", tsr_dtype_name(dt), (long long)n, root);
  tsr_tensor_release(t);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static void check_all_gather(tsr_process_group* pg, tsr_dtype dt, int64_t n, int strided) {
  const int rank = tsr_process_group_rank(pg), world = tsr_process_group_size(pg);
  double* in = malloc(sizeof(double) * (size_t)(n + 1));
  double* want = malloc(sizeof(double) * (size_t)(n * world + 1));
  for (int64_t i = 0; i < n; ++i) in[i] = value(TSR_REDUCE_SUM, rank, i);
  for (int r = 0; r < world; ++r)
    for (int64_t i = 0; i < n; ++i) want[r * n + i] = value(TSR_REDUCE_SUM, r, i);
  tsr_tensor* input = tensor_of(in, n, dt);
  tsr_tensor* expected = tensor_of(want, n * world, dt);
  tsr_tensor* output;
  const int64_t out_sizes[2] = {world, n};
  DCHECK_OK(tsr_zeros(2, out_sizes, dt, TSR_CPU, &output));
  if (strided) {
    tsr_tensor* s = strided_of(input);
    tsr_tensor_release(input);
    input = s;
  }
  DCHECK_OK(tsr_all_gather_into_tensor(pg, output, input, NULL));
  DCHECK(dist_same_bytes(output, expected), "all_gather %s n %lld: wrong result", tsr_dtype_name(dt), (long long)n);
  tsr_tensor_release(input);
  tsr_tensor_release(output);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

static void check_reduce_scatter(tsr_process_group* pg, tsr_dtype dt, tsr_reduce_op op, int64_t n) {
  const int rank = tsr_process_group_rank(pg), world = tsr_process_group_size(pg);
  double* in = malloc(sizeof(double) * (size_t)(n * world + 1));
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n * world; ++i) in[i] = value(op, rank, i);
  for (int64_t i = 0; i < n; ++i) want[i] = reduce(op, world, rank * n + i, is_integer(dt));
  tsr_tensor* input = tensor_of(in, n * world, dt);
  tsr_tensor* expected = tensor_of(want, n, dt);
  tsr_tensor *base, *output;
  const int64_t sizes[2] = {n, 3};
  DCHECK_OK(tsr_zeros(2, sizes, dt, TSR_CPU, &base));
  DCHECK_OK(tsr_select(base, 1, 2, &output)); /* a strided output */
  DCHECK_OK(tsr_reduce_scatter_tensor(pg, output, input, op, NULL));
  DCHECK(dist_same_bytes(output, expected), "reduce_scatter %s op %d n %lld: wrong result", tsr_dtype_name(dt), (int)op,
         (long long)n);
  tsr_tensor_release(base);
  tsr_tensor_release(input);
  tsr_tensor_release(output);
  tsr_tensor_release(expected);
  free(in);
  free(want);
}

/* Every collective on every dtype and size; the 25 MiB + 1 element sizes
 * only for SUM (the reductions' code paths do not depend on the size). */
static int sweep(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  DCHECK(tsr_process_group_rank(pg) == rank && tsr_process_group_size(pg) == world, "rank/size");
  DCHECK(strcmp(tsr_process_group_backend(pg), "gloo") == 0, "backend");
  for (size_t d = 0; d < sizeof kDtypes / sizeof *kDtypes; ++d) {
    const tsr_dtype dt = kDtypes[d];
    int64_t element_size;
    {
      tsr_tensor* probe;
      const int64_t one = 1;
      DCHECK_OK(tsr_zeros(1, &one, dt, TSR_CPU, &probe));
      element_size = tsr_tensor_element_size(probe);
      tsr_tensor_release(probe);
    }
    const int64_t big = (25 << 20) / element_size + 1;
    const int64_t sizes[] = {0, 1, 1001};
    for (size_t s = 0; s < 3; ++s) {
      for (size_t o = 0; o < sizeof kOps / sizeof *kOps; ++o) {
        check_all_reduce(pg, dt, kOps[o], sizes[s], 0);
        check_reduce_scatter(pg, dt, kOps[o], sizes[s]);
      }
      check_all_reduce(pg, dt, TSR_REDUCE_SUM, sizes[s], 1);
      check_broadcast(pg, dt, sizes[s], world - 1, s == 2);
      check_all_gather(pg, dt, sizes[s], s == 2);
      DCHECK_OK(tsr_barrier(pg, NULL));
    }
    if (!getenv("TSR_TEST_SMALL_ONLY")) {
      check_all_reduce(pg, dt, TSR_REDUCE_SUM, big, 0);
      check_broadcast(pg, dt, big, 0, 0);
      check_all_gather(pg, dt, big / world + 1, 0);
      check_reduce_scatter(pg, dt, TSR_REDUCE_SUM, big / world + 1);
    }
  }
  tsr_process_group_release(pg);
  return 0;
}

static void run_sweep(int world) {
  int st[4];
  cr_assert_eq(dist_run_ranks(world, sweep, NULL, 240, st), 0, "a rank hung");
  for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d)", r, st[r]);
}

Test(distributed_collectives, world_1) { run_sweep(1); }
Test(distributed_collectives, world_2) { run_sweep(2); }
Test(distributed_collectives, world_3) { run_sweep(3); }
Test(distributed_collectives, world_4) { run_sweep(4); }

/* bool and the 8/16-bit integers: or/and for bool, plain math otherwise. */
static int small_types(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 30000, &pg));
  const tsr_dtype dts[] = {TSR_UINT8, TSR_INT8, TSR_INT16};
  for (size_t d = 0; d < 3; ++d) {
    check_all_reduce(pg, dts[d], TSR_REDUCE_MAX, 37, 0);
    check_all_reduce(pg, dts[d], TSR_REDUCE_PRODUCT, 37, 0);
  }
  /* bool: rank r sets element r only */
  const int64_t n = 4;
  bool bits[4] = {0};
  bits[rank] = 1;
  tsr_tensor *b, *b2;
  DCHECK_OK(tsr_from_data(bits, sizeof bits, 1, &n, TSR_BOOL, &b));
  DCHECK_OK(tsr_from_data(bits, sizeof bits, 1, &n, TSR_BOOL, &b2));
  DCHECK_OK(tsr_all_reduce(pg, b, TSR_REDUCE_SUM, NULL));
  DCHECK_OK(tsr_all_reduce(pg, b2, TSR_REDUCE_MIN, NULL));
  bool got[4], got2[4];
  size_t need;
  tsr_copy_to_buffer(b, got, sizeof got, &need);
  tsr_copy_to_buffer(b2, got2, sizeof got2, &need);
  for (int i = 0; i < 4; ++i) {
    DCHECK(got[i] == (i < world), "bool or at %d", i);
    DCHECK(got2[i] == (world == 1 && i == 0), "bool and at %d", i);
  }
  tsr_tensor_release(b);
  tsr_tensor_release(b2);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_collectives, bool_and_small_integers) {
  int st[2];
  cr_assert_eq(dist_run_ranks(2, small_types, NULL, 60, st), 0);
  cr_assert(dist_exited_ok(st[0]) && dist_exited_ok(st[1]));
}

/* Asynchronous work: queued in order, waited in any order; the same tensor
 * reduced twice sees both reductions in order. */
static int async_work(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 30000, &pg));
  const int64_t n = 1000;
  tsr_tensor* t;
  DCHECK_OK(tsr_full(1, &n, rank + 1, TSR_FLOAT32, TSR_CPU, &t));
  tsr_work *w1, *w2, *w3;
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, &w1));  /* 1+2 = 3 */
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_PRODUCT, &w2)); /* 3*3 = 9 */
  DCHECK_OK(tsr_barrier(pg, &w3));
  DCHECK_OK(tsr_work_wait(w3, -1));
  DCHECK(tsr_work_is_completed(w1) && tsr_work_is_completed(w2), "earlier work done first");
  DCHECK_OK(tsr_work_wait(w2, 1000));
  DCHECK_OK(tsr_work_wait(w1, -1));
  DCHECK_OK(tsr_work_wait(w1, -1)); /* again */
  const int64_t last = n - 1;
  double v;
  DCHECK_OK(tsr_get_double(t, 1, &last, &v));
  DCHECK(v == 9, "got %g", v);
  /* a work handle keeps its group alive past the group's release */
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_MAX, &w1 /* reused variable */));
  tsr_process_group_release(pg);
  DCHECK_OK(tsr_work_wait(w1, -1));
  tsr_work_release(w1);
  tsr_work_release(w2);
  tsr_work_release(w3);
  tsr_tensor_release(t);
  return 0;
}

Test(distributed_collectives, async_work_in_order) {
  int st[2];
  cr_assert_eq(dist_run_ranks(2, async_work, NULL, 60, st), 0);
  cr_assert(dist_exited_ok(st[0]) && dist_exited_ok(st[1]));
}

/* env:// with torch's variables, and file:// whose keys the last rank removes. */
static int env_init(int port, int rank, int world, void* arg) {
  (void)arg;
  char buf[32];
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  snprintf(buf, sizeof buf, "%d", port);
  setenv("MASTER_PORT", buf, 1);
  snprintf(buf, sizeof buf, "%d", rank);
  setenv("RANK", buf, 1);
  snprintf(buf, sizeof buf, "%d", world);
  setenv("WORLD_SIZE", buf, 1);
  tsr_process_group* pg;
  DCHECK_OK(tsr_process_group_init(NULL, &pg));
  DCHECK(tsr_process_group_rank(pg) == rank && tsr_process_group_size(pg) == world, "rank/size");
  DCHECK_OK(tsr_barrier(pg, NULL));
  tsr_process_group_release(pg);
  return 0;
}

static int mpi_env_init(int port, int rank, int world, void* arg) {
  (void)arg;
  char buf[32];
  unsetenv("RANK");
  unsetenv("WORLD_SIZE");
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  snprintf(buf, sizeof buf, "%d", port);
  setenv("MASTER_PORT", buf, 1);
  snprintf(buf, sizeof buf, "%d", rank);
  setenv("OMPI_COMM_WORLD_RANK", buf, 1);
  snprintf(buf, sizeof buf, "%d", world);
  setenv("OMPI_COMM_WORLD_SIZE", buf, 1);
  tsr_process_group* pg;
  DCHECK_OK(tsr_process_group_init(NULL, &pg));
  DCHECK(tsr_process_group_rank(pg) == rank, "rank from OMPI_COMM_WORLD_RANK");
  DCHECK_OK(tsr_barrier(pg, NULL));
  tsr_process_group_release(pg);
  return 0;
}

static int file_init(int port, int rank, int world, void* arg) {
  (void)port;
  char method[512];
  snprintf(method, sizeof method, "file://%s", (const char*)arg);
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.init_method = method;
  o.rank = rank;
  o.world_size = world;
  o.timeout_ms = 20000;
  tsr_process_group* pg;
  DCHECK_OK(tsr_process_group_init(&o, &pg));
  const int64_t n = 3;
  tsr_tensor* t;
  DCHECK_OK(tsr_full(1, &n, 2, TSR_INT64, TSR_CPU, &t));
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  int64_t v;
  const int64_t i = 2;
  DCHECK_OK(tsr_get_int64(t, 1, &i, &v));
  DCHECK(v == 2 * world, "sum %lld", (long long)v);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_init, env_torch_and_mpi_variables) {
  int st[3];
  cr_assert_eq(dist_run_ranks(3, env_init, NULL, 60, st), 0);
  for (int r = 0; r < 3; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d", r);
  cr_assert_eq(dist_run_ranks(2, mpi_env_init, NULL, 60, st), 0);
  for (int r = 0; r < 2; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d", r);
}

Test(distributed_init, file_store_cleans_up) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/dist_file_store_%d", TSR_TEST_TMP_DIR, (int)getpid());
  int st[2];
  cr_assert_eq(dist_run_ranks(2, file_init, dir, 60, st), 0);
  cr_assert(dist_exited_ok(st[0]) && dist_exited_ok(st[1]));
  /* the last rank out removed every key: the directory can be reused */
  cr_assert_eq(rmdir(dir), 0, "store directory not empty after the job");
}

/* ---- argument checks (world 1: no peer needed) ---------------------------- */

static tsr_process_group* world_one(void) {
  tsr_process_group* pg = NULL;
  TSR_ASSERT_OK(dist_init(dist_free_port(), 0, 1, 10000, &pg));
  return pg;
}

Test(distributed_errors, init_arguments) {
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  o.backend = (tsr_dist_backend)9;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "unknown backend 9");
  o.backend = TSR_DIST_NCCL;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_UNSUPPORTED, "NCCL");
  /* MPI where its module cannot be loaded (test_distributed_mpi.c has the
   * other ways; tests/mpi runs it under mpirun). */
  setenv("TSR_MPI_MODULE", "/nonexistent/libtessera_mpi.so", 1);
  o.backend = TSR_DIST_MPI;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_UNSUPPORTED, "MPI");
  unsetenv("TSR_MPI_MODULE");
  o.backend = TSR_DIST_GLOO;
  o.timeout_ms = -5;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "timeout_ms");
  o.timeout_ms = 1000;
  o.init_method = "tcp://127.0.0.1:1";
  o.rank = 2;
  o.world_size = 2;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "rank 2 is outside [0, world_size)");
  o.world_size = 0;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "world_size");
  o.world_size = 2;
  o.rank = 0;
  o.init_method = "udp://x";
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "init_method 'udp://x'");
  o.init_method = "tcp://nohostport";
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "needs host:port");
  o.init_method = "tcp://127.0.0.1:99999";
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "not a port");
  o.struct_size = 3;
  TSR_ASSERT_FAILS(tsr_process_group_init(&o, &pg), TSR_ERR_INVALID_ARGUMENT, "tsr_process_group_options");
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL, "out changed by a failed init");
}

Test(distributed_errors, env_variables) {
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  unsetenv("MASTER_ADDR");
  TSR_ASSERT_FAILS(tsr_process_group_init(NULL, &pg), TSR_ERR_INVALID_ARGUMENT,
                   "environment variable MASTER_ADDR expected, but not set");
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", "twelve", 1);
  TSR_ASSERT_FAILS(tsr_process_group_init(NULL, &pg), TSR_ERR_INVALID_ARGUMENT, "MASTER_PORT 'twelve'");
  setenv("MASTER_PORT", "29999", 1);
  unsetenv("RANK");
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMI_RANK");
  setenv("WORLD_SIZE", "2", 1);
  TSR_ASSERT_FAILS(tsr_process_group_init(NULL, &pg), TSR_ERR_INVALID_ARGUMENT, "environment variable RANK");
  setenv("RANK", "1x", 1);
  TSR_ASSERT_FAILS(tsr_process_group_init(NULL, &pg), TSR_ERR_INVALID_ARGUMENT, "RANK '1x' is not an integer");
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL);
}

Test(distributed_errors, collective_arguments) {
  tsr_process_group* pg = world_one();
  const int64_t n = 4, two = 2, eight = 8;
  tsr_tensor *t, *t2, *t8, *i4, *u16, *one, *expanded;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_zeros(1, &two, TSR_FLOAT32, TSR_CPU, &t2));
  TSR_ASSERT_OK(tsr_zeros(1, &eight, TSR_FLOAT32, TSR_CPU, &t8));
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_INT32, TSR_CPU, &i4));
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_UINT16, TSR_CPU, &u16));
  const int64_t o1 = 1;
  TSR_ASSERT_OK(tsr_zeros(1, &o1, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_expand(one, 1, &n, &expanded));
  tsr_work* w = (tsr_work*)SENTINEL;

  TSR_ASSERT_FAILS(tsr_all_reduce(NULL, t, TSR_REDUCE_SUM, NULL), TSR_ERR_INVALID_ARGUMENT, "pg is NULL");
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, NULL, TSR_REDUCE_SUM, &w), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, t, (tsr_reduce_op)8, &w), TSR_ERR_INVALID_ARGUMENT, "unknown reduce op 8");
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, u16, TSR_REDUCE_SUM, &w), TSR_ERR_UNSUPPORTED, "uint16");
  TSR_ASSERT_FAILS(tsr_all_reduce(pg, expanded, TSR_REDUCE_SUM, &w), TSR_ERR_INVALID_ARGUMENT,
                   "single memory location");
  TSR_ASSERT_FAILS(tsr_broadcast(pg, t, 1, &w), TSR_ERR_INVALID_ARGUMENT, "invalid root rank: 1");
  TSR_ASSERT_FAILS(tsr_broadcast(pg, t, -1, &w), TSR_ERR_INVALID_ARGUMENT, "invalid root rank: -1");
  TSR_ASSERT_FAILS(tsr_all_gather_into_tensor(pg, t8, t, &w), TSR_ERR_SHAPE_MISMATCH,
                   "output tensor size must be equal to world_size times input tensor size");
  TSR_ASSERT_FAILS(tsr_all_gather_into_tensor(pg, i4, t, &w), TSR_ERR_DTYPE_MISMATCH, "same dtype");
  TSR_ASSERT_FAILS(tsr_all_gather_into_tensor(pg, t, t, &w), TSR_ERR_INVALID_ARGUMENT, "overlap");
  TSR_ASSERT_FAILS(tsr_reduce_scatter_tensor(pg, t2, t, TSR_REDUCE_SUM, &w), TSR_ERR_SHAPE_MISMATCH,
                   "input tensor size must be equal to world_size times output tensor size");
  TSR_ASSERT_FAILS(tsr_reduce_scatter_tensor(pg, i4, t, TSR_REDUCE_SUM, &w), TSR_ERR_DTYPE_MISMATCH, "same dtype");
  TSR_ASSERT_FAILS(tsr_barrier(NULL, &w), TSR_ERR_INVALID_ARGUMENT, "pg is NULL");
  TSR_ASSERT_FAILS(tsr_work_wait(NULL, -1), TSR_ERR_INVALID_ARGUMENT, "work is NULL");
  cr_assert_eq(w, (tsr_work*)SENTINEL, "work written by a failed call");
  cr_assert_eq(tsr_process_group_rank(NULL), -1);
  cr_assert_eq(tsr_process_group_size(NULL), -1);
  cr_assert_null(tsr_process_group_backend(NULL));
  cr_assert(!tsr_work_is_completed(NULL));
  tsr_work_release(NULL);
  tsr_process_group_release(NULL);

  /* a failed check changed nothing: the group still works */
  TSR_ASSERT_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  tsr_tensor* ts[] = {t, t2, t8, i4, u16, one, expanded};
  for (size_t i = 0; i < sizeof ts / sizeof *ts; ++i) tsr_tensor_release(ts[i]);
  tsr_process_group_release(pg);
}

Test(distributed_errors, version_bumped_and_leaf_allowed) {
  /* torch lets collectives write a leaf that requires grad (DDP broadcasts
   * parameters); tessera also bumps the version, so a saved copy is caught. */
  tsr_process_group* pg = world_one();
  const int64_t n = 3;
  tsr_tensor* p;
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  const int64_t before = tsr_version(p);
  TSR_ASSERT_OK(tsr_all_reduce(pg, p, TSR_REDUCE_SUM, NULL));
  cr_assert_gt(tsr_version(p), before);
  tsr_tensor_release(p);
  tsr_process_group_release(pg);
}
