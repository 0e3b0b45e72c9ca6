/* bench/distributed: tessera's contender. One rank of the all_reduce
 * benchmark: tsr_all_reduce (synchronous, SUM) of a contiguous float32
 * tensor, timed as allreduce_cases.h describes. Started by tessera-run
 * (env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), or with
 * TSR_BENCH_BACKEND=mpi by mpirun on an MPI group (run_mpi), reported as
 * "tessera-mpi".
 * Usage: allreduce_tessera WARMUP BYTES:ITERS [BYTES:ITERS ...] */
#include <tessera/tessera.h>

#include "allreduce_cases.h"

#define CHECK_TSR(call)                                                                      \
  do {                                                                                       \
    if ((call) != TSR_OK) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static tsr_tensor* float32_full(int64_t n, double value) {
  tsr_tensor* t = NULL;
  CHECK_TSR(tsr_full(1, &n, value, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &t));
  return t;
}

static const char* g_impl = "tessera";

static void run_case(tsr_process_group* pg, int world, int warmup, const ar_case* c) {
  const int64_t n = (int64_t)(c->bytes / 4);
  tsr_tensor* t = float32_full(n, 1.0);
  float* p = tsr_tensor_data_ptr(t);
  CHECK_TSR(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  ar_check_sum(g_impl, p, (size_t)n, world);
  memset(p, 0, c->bytes);
  for (int i = 0; i < warmup; ++i) CHECK_TSR(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  CHECK_TSR(tsr_barrier(pg, NULL));

  tsr_tensor* times = NULL;
  int64_t iters = c->iters;
  CHECK_TSR(tsr_full(1, &iters, 0.0, TSR_FLOAT64, TSR_DEVICE_CPU, 0, &times));
  double* us = tsr_tensor_data_ptr(times);
  for (int i = 0; i < c->iters; ++i) {
    const double start = ar_now_us();
    CHECK_TSR(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
    us[i] = ar_now_us() - start;
  }
  CHECK_TSR(tsr_all_reduce(pg, times, TSR_REDUCE_MAX, NULL));
  if (tsr_process_group_rank(pg) == 0) ar_report(g_impl, world, c, ar_median(us, c->iters));
  tsr_tensor_release(times);
  tsr_tensor_release(t);
}

int main(int argc, char** argv) {
  int warmup = 0;
  ar_case cases[AR_MAX_CASES];
  const int ncases = ar_parse(argc, argv, 1, &warmup, cases);
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  const char* backend = getenv("TSR_BENCH_BACKEND");
  const int mpi = backend && strcmp(backend, "mpi") == 0;
  o.backend = mpi ? TSR_DIST_MPI : TSR_DIST_GLOO;
  if (mpi) g_impl = "tessera-mpi";
  o.timeout_ms = 5 * 60 * 1000;
  tsr_process_group* pg = NULL;
  CHECK_TSR(tsr_process_group_init(&o, &pg));
  const int world = tsr_process_group_size(pg);
  for (int i = 0; i < ncases; ++i) run_case(pg, world, warmup, &cases[i]);
  tsr_process_group_release(pg);
  return 0;
}
