/* tsr_monitored_barrier (torch.distributed.monitored_barrier): on time,
 * late ranks named by rank 0 (the first, or all with wait_all_ranks), the
 * others told rank 0's verdict, the group still usable afterwards, a rank
 * 0 that never comes, and the argument checks. Ranks are forked children
 * (dist_harness.h) with hard deadlines. */
#include "dist_harness.h"
#include "helpers.h"

static int contains(const char* haystack, const char* needle) { return strstr(haystack, needle) != NULL; }

/* The message of the last failure, checked to contain want. */
#define DCHECK_FAILS_WITH(call, want)                                                              \
  do {                                                                                             \
    DCHECK((call) == TSR_ERR_DISTRIBUTED, "%s should fail", #call);                                \
    DCHECK(contains(tsr_last_error_message(), want), "message %s lacks %s", tsr_last_error_message(), \
           want);                                                                                  \
  } while (0)

static int all_on_time(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  for (int i = 0; i < 3; ++i) DCHECK_OK(tsr_monitored_barrier(pg, 5000, i == 1));
  DCHECK_OK(tsr_monitored_barrier(pg, 0, false)); /* the group's timeout */
  tsr_process_group_release(pg);
  return 0;
}

Test(monitored_barrier, every_rank_on_time) {
  for (int world = 1; world <= 3; ++world) {
    int st[3];
    cr_assert_eq(dist_run_ranks(world, all_on_time, NULL, 60, st), 0, "a rank hung (world %d)", world);
    for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "world %d: rank %d failed", world, r);
  }
}

/* arg: wait_all_ranks. Rank 2 (and with wait_all_ranks rank 1 too) comes
 * 1.2 s late to a barrier of 400 ms; then every rank does an all_reduce
 * and a second monitored barrier on time. */
static int late_ranks(int port, int rank, int world, void* arg) {
  const int wait_all = *(const int*)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int late = rank == 2 || (wait_all && rank == 1);
  const char* verdict = wait_all ? "[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 400 ms"
                                 : "[Rank 0]: Rank 2 failed to pass monitoredBarrier in 400 ms";
  if (late) usleep(1200000);
  const double start = dist_now();
  if (rank == 0) {
    DCHECK_FAILS_WITH(tsr_monitored_barrier(pg, 400, wait_all), verdict);
    const double waited = dist_now() - start;
    DCHECK(waited >= 0.38 && waited < 2.0, "rank 0 gave up after %.3f s, not at 400 ms", waited);
  } else {
    char want[256];
    snprintf(want, sizeof want, "Rank %d successfully reached monitoredBarrier, but rank 0 reported: %s", rank,
             verdict);
    DCHECK_FAILS_WITH(tsr_monitored_barrier(pg, 400, wait_all), want);
  }
  /* The group goes on. */
  tsr_tensor* t;
  const int64_t n = 4;
  DCHECK_OK(tsr_full(1, &n, 1 + rank, TSR_FLOAT32, TSR_CPU, &t));
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  float got[4];
  size_t need;
  DCHECK_OK(tsr_copy_to_buffer(t, got, sizeof got, &need));
  DCHECK(got[3] == 6.0f, "all_reduce after the failed barrier gave %g", got[3]);
  tsr_tensor_release(t);
  DCHECK_OK(tsr_monitored_barrier(pg, 5000, wait_all));
  tsr_process_group_release(pg);
  return 0;
}

static void run_late(int wait_all) {
  int st[3];
  cr_assert_eq(dist_run_ranks(3, late_ranks, &wait_all, 60, st), 0, "a rank hung");
  for (int r = 0; r < 3; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d)", r, st[r]);
}

Test(monitored_barrier, rank_0_names_the_first_late_rank) { run_late(0); }
Test(monitored_barrier, rank_0_names_every_late_rank_with_wait_all_ranks) { run_late(1); }

/* Rank 0 never calls it: rank 1 fails at the group's timeout (800 ms)
 * saying so, while rank 0 keeps the store up. */
static int rank_0_absent(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 800, &pg));
  if (rank == 0) {
    usleep(1600000);
  } else {
    const double start = dist_now();
    DCHECK_FAILS_WITH(tsr_monitored_barrier(pg, 100, false),
                      "Rank 1 successfully reached monitoredBarrier, but rank 0 gave no verdict within the group's "
                      "timeout (800 ms)");
    const double waited = dist_now() - start;
    DCHECK(waited >= 0.75 && waited < 3.0, "rank 1 gave up after %.3f s", waited);
  }
  tsr_process_group_release(pg);
  return 0;
}

Test(monitored_barrier, rank_0_absent_fails_the_others_at_the_group_timeout) {
  int st[2];
  cr_assert_eq(dist_run_ranks(2, rank_0_absent, NULL, 60, st), 0, "a rank hung");
  for (int r = 0; r < 2; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d)", r, st[r]);
}

Test(monitored_barrier, null_group) {
  TSR_ASSERT_FAILS(tsr_monitored_barrier(NULL, 100, false), TSR_ERR_INVALID_ARGUMENT, "pg");
}
