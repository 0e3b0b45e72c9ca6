/* Failures of process groups are loud and bounded (issue 30): a rank killed
 * mid-collective, a rank that hangs (SIGSTOP), collectives that differ across
 * ranks under TSR_DISTRIBUTED_DEBUG=DETAIL, a rank that never joins, an
 * unreachable store, a busy port, and a wait that times out. Ranks are
 * forked children (dist_harness.h), each run under a hard deadline. */
#include <fcntl.h>

#include "dist_harness.h"
#include "helpers.h"

static void expect_survivors_ok(int world, const int* st, int victim) {
  for (int r = 0; r < world; ++r) {
    if (r == victim) continue;
    cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d): see its stderr above", r, st[r]);
  }
}

/* ---- a rank SIGKILLed mid-all_reduce ---------------------------------------- */

static int killed_mid_all_reduce(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 60000, &pg));
  const int64_t n = 8 << 20; /* 32 MiB: still running when the victim dies */
  tsr_tensor* t;
  DCHECK_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL)); /* sequence 1 */
  if (rank == world - 1) {
    tsr_work* w;
    DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, &w));
    usleep(20000);
    raise(SIGKILL);
  }
  const double start = dist_now();
  const tsr_status st = tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL); /* sequence 2 */
  const double waited = dist_now() - start;
  DCHECK(st == TSR_ERR_DISTRIBUTED, "status %s", tsr_status_name(st));
  DCHECK(waited < 5.0, "failed after %.2f s, not within 5 s", waited);
  const char* m = tsr_last_error_message();
  char want[64];
  snprintf(want, sizeof want, "missing ranks [%d]", world - 1);
  DCHECK(strstr(m, want), "message lacks '%s': %s", want, m);
  DCHECK(strstr(m, "all_reduce (sequence 2)"), "message lacks the op and sequence: %s", m);
  snprintf(want, sizeof want, "on rank %d of world size %d", rank, world);
  DCHECK(strstr(m, want), "message lacks '%s': %s", want, m);
  /* the failed group refuses further work, at once */
  const double refused_at = dist_now();
  DCHECK(tsr_barrier(pg, NULL) == TSR_ERR_DISTRIBUTED, "barrier after a failure");
  DCHECK(strstr(tsr_last_error_message(), "failed earlier"), "%s", tsr_last_error_message());
  DCHECK(dist_now() - refused_at < 0.5, "refusal took %.2f s", dist_now() - refused_at);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_faults, sigkill_mid_all_reduce_fails_peers_within_5s) {
  int st[3];
  cr_assert_eq(dist_run_ranks(3, killed_mid_all_reduce, NULL, 60, st), 0, "a rank hung");
  expect_survivors_ok(3, st, 2);
  cr_assert(WIFSIGNALED(st[2]) && WTERMSIG(st[2]) == SIGKILL);
}

/* ---- SIGPIPE: a write to a dead peer fails, it does not kill ---------------- */

/* Gloo writes with writev(2), which raises SIGPIPE on a connection the
 * peer reset: the group init ignores SIGPIPE where its disposition is still
 * the default. Runs in Criterion's per-test process, so the disposition it
 * leaves does not reach other tests. */
static int pipe_signals;
static void count_pipe_signal(int signo) {
  (void)signo;
  ++pipe_signals;
}

static void expect_epipe_on_a_closed_socket(void) {
  int fds[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  close(fds[1]);
  errno = 0;
  cr_assert_eq(write(fds[0], "x", 1), -1, "a write to a closed peer succeeded");
  cr_assert_eq(errno, EPIPE, "%s", strerror(errno));
  close(fds[0]);
}

Test(distributed_faults, group_init_ignores_sigpipe_unless_the_application_handles_it) {
  signal(SIGPIPE, SIG_DFL);
  tsr_process_group* pg;
  cr_assert_eq(dist_init(dist_free_port(), 0, 1, 10000, &pg), TSR_OK, "%s", tsr_last_error_message());
  struct sigaction now;
  cr_assert_eq(sigaction(SIGPIPE, NULL, &now), 0);
  cr_assert_eq(now.sa_handler, SIG_IGN, "SIGPIPE still kills the process");
  expect_epipe_on_a_closed_socket(); /* and this process is still alive */
  tsr_process_group_release(pg);

  /* an application's own handler is kept, and still called */
  signal(SIGPIPE, count_pipe_signal);
  cr_assert_eq(dist_init(dist_free_port(), 0, 1, 10000, &pg), TSR_OK, "%s", tsr_last_error_message());
  cr_assert_eq(sigaction(SIGPIPE, NULL, &now), 0);
  cr_assert_eq(now.sa_handler, count_pipe_signal, "the application's SIGPIPE handler was replaced");
  expect_epipe_on_a_closed_socket();
  cr_assert_eq(pipe_signals, 1);
  tsr_process_group_release(pg);
}

/* ---- a rank that hangs: the others fail at the timeout ---------------------- */

#define HANG_TIMEOUT_MS 3000

static int hung_peer(int port, int rank, int world, void* arg) {
  const char* log = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, HANG_TIMEOUT_MS, &pg));
  const int64_t n = 1000;
  tsr_tensor* t;
  DCHECK_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  if (rank == 1) raise(SIGSTOP); /* hangs here until killed */
  /* rank 0's stderr (the flight recorder) goes to a file the test reads */
  DCHECK(freopen(log, "w", stderr) != NULL, "stderr to %s", log);
  const double start = dist_now();
  const tsr_status st = tsr_all_reduce(pg, t, TSR_REDUCE_MAX, NULL);
  const double waited = dist_now() - start;
  fflush(stderr);
  DCHECK(st == TSR_ERR_DISTRIBUTED, "status %s", tsr_status_name(st));
  DCHECK(waited > 0.8 * HANG_TIMEOUT_MS / 1000.0 && waited < 1.2 * HANG_TIMEOUT_MS / 1000.0,
         "failed after %.2f s, not at the timeout (%d ms) +-20%%", waited, HANG_TIMEOUT_MS);
  const char* m = tsr_last_error_message();
  DCHECK(strstr(m, "missing ranks [1]"), "%s", m);
  DCHECK(strstr(m, "timeout is 3000 ms"), "%s", m);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_faults, sigstop_peer_fails_at_the_timeout_with_flight_recorder) {
  char log[256];
  snprintf(log, sizeof log, "%s/dist_hang_%d.log", TSR_TEST_TMP_DIR, (int)getpid());
  int st[2];
  cr_assert_eq(dist_run_ranks(2, hung_peer, log, 60, st), 0, "a rank hung");
  expect_survivors_ok(2, st, 1);
  FILE* f = fopen(log, "r");
  cr_assert_not_null(f);
  char text[8192] = {0};
  fread(text, 1, sizeof text - 1, f);
  fclose(f);
  remove(log);
  cr_assert(strstr(text, "flight recorder"), "no flight recorder on stderr: %s", text);
  cr_assert(strstr(text, "#1 completed"), "recorder lacks the completed collective: %s", text);
  cr_assert(strstr(text, "#2 failed") && strstr(text, "all_reduce(dtype=float32, sizes=[1000], op=MAX)"),
            "recorder lacks the failed collective: %s", text);
}

/* ---- mismatched collectives under DETAIL ------------------------------------ */

static int mismatched(int port, int rank, int world, void* arg) {
  (void)arg;
  setenv("TSR_DISTRIBUTED_DEBUG", "DETAIL", 1);
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int64_t n = rank == 0 ? 4 : 5;
  tsr_tensor* t;
  DCHECK_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  DCHECK_OK(tsr_barrier(pg, NULL)); /* matching: fine */
  /* sizes differ */
  DCHECK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL) == TSR_ERR_DISTRIBUTED, "size mismatch not caught");
  const char* m = tsr_last_error_message();
  DCHECK(strstr(m, "collective mismatch") && strstr(m, "all_reduce(dtype=float32, sizes=[4], op=SUM)") &&
             strstr(m, "all_reduce(dtype=float32, sizes=[5], op=SUM)"),
         "both fingerprints expected: %s", m);
  DCHECK(strstr(m, "sequence 2"), "%s", m);
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

static int different_ops(int port, int rank, int world, void* arg) {
  (void)arg;
  setenv("TSR_DISTRIBUTED_DEBUG", "DETAIL", 1);
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int64_t n = 4;
  tsr_tensor* t;
  DCHECK_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  const tsr_status st = rank == 0 ? tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL) : tsr_broadcast(pg, t, 0, NULL);
  DCHECK(st == TSR_ERR_DISTRIBUTED, "op mismatch not caught");
  const char* m = tsr_last_error_message();
  DCHECK(strstr(m, "all_reduce(dtype=float32, sizes=[4], op=SUM)") && strstr(m, "broadcast(dtype=float32, sizes=[4], root=0)"),
         "both fingerprints expected: %s", m);
  DCHECK(tsr_barrier(pg, NULL) == TSR_ERR_DISTRIBUTED, "group still usable after a mismatch");
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_faults, detail_mismatch_shows_both_fingerprints) {
  int st[2];
  cr_assert_eq(dist_run_ranks(2, mismatched, NULL, 60, st), 0, "a rank hung");
  expect_survivors_ok(2, st, -1);
  cr_assert_eq(dist_run_ranks(2, different_ops, NULL, 60, st), 0, "a rank hung");
  expect_survivors_ok(2, st, -1);
}

/* ---- rendezvous failures ---------------------------------------------------- */

static int world_of_three_with_two(int port, int rank, int world, void* arg) {
  (void)world;
  (void)arg;
  tsr_process_group* pg = NULL;
  const double start = dist_now();
  DCHECK(dist_init(port, rank, 3, 1500, &pg) == TSR_ERR_DISTRIBUTED, "init without rank 2");
  DCHECK(dist_now() - start < 5, "took %.1f s", dist_now() - start);
  const char* m = tsr_last_error_message();
  /* Rank 0 names the absent rank. Rank 1 does too unless rank 0, whose
   * timeout may end first, has already closed the store it hosts. */
  DCHECK(strstr(m, "ranks [2] of world size 3 did not join") ||
             (rank == 1 && strstr(m, "rank 0 hosts the store: it failed, or gave up")),
         "%s", m);
  DCHECK(pg == NULL, "out written");
  return 0;
}

Test(distributed_faults, missing_rank_at_rendezvous_is_named) {
  int st[2];
  cr_assert_eq(dist_run_ranks(2, world_of_three_with_two, NULL, 30, st), 0, "a rank hung");
  expect_survivors_ok(2, st, -1);
}

Test(distributed_faults, unreachable_store_names_the_address) {
  const int port = dist_free_port();
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  char want[64];
  snprintf(want, sizeof want, "127.0.0.1:%d", port);
  const double start = dist_now();
  TSR_ASSERT_FAILS(dist_init(port, 1, 2, 1000, &pg), TSR_ERR_DISTRIBUTED, want);
  cr_assert(strstr(tsr_last_error_message(), "could not reach the store"), "%s", tsr_last_error_message());
  cr_assert_lt(dist_now() - start, 3.0);
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL);
}

Test(distributed_faults, busy_port_is_refused) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  cr_assert_eq(bind(fd, (struct sockaddr*)&a, sizeof a), 0);
  cr_assert_eq(listen(fd, 1), 0);
  getsockname(fd, (struct sockaddr*)&a, &len);
  const int port = ntohs(a.sin_port);
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  char want[64];
  snprintf(want, sizeof want, "cannot listen on 127.0.0.1:%d", port);
  TSR_ASSERT_FAILS(dist_init(port, 0, 2, 1000, &pg), TSR_ERR_DISTRIBUTED, want);
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL);
  close(fd);
}

/* ---- a wait that times out: the collective goes on -------------------------- */

static int wait_times_out(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int64_t n = 16;
  tsr_tensor* t;
  DCHECK_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  if (rank == 1) {
    DCHECK_OK(tsr_barrier(pg, NULL));
    usleep(1500000); /* late: rank 0's first wait gives up before */
    DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
    DCHECK_OK(tsr_barrier(pg, NULL));
  } else {
    DCHECK_OK(tsr_barrier(pg, NULL));
    tsr_work* w;
    DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, &w));
    const double start = dist_now();
    DCHECK(tsr_work_wait(w, 300) == TSR_ERR_DISTRIBUTED, "wait past its timeout");
    DCHECK(dist_now() - start < 1.2, "wait took %.2f s", dist_now() - start);
    DCHECK(strstr(tsr_last_error_message(), "not complete after waiting 300 ms"), "%s", tsr_last_error_message());
    DCHECK(!tsr_work_is_completed(w), "completed without rank 1");
    DCHECK_OK(tsr_work_wait(w, -1)); /* rank 1 comes: the collective completes */
    double v;
    const int64_t i = 0;
    DCHECK_OK(tsr_get_double(t, 1, &i, &v));
    DCHECK(v == 2, "sum %g", v);
    DCHECK_OK(tsr_barrier(pg, NULL));
    tsr_work_release(w);
  }
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_faults, work_wait_timeout_leaves_the_collective_running) {
  int st[2];
  cr_assert_eq(dist_run_ranks(2, wait_times_out, NULL, 60, st), 0, "a rank hung");
  expect_survivors_ok(2, st, -1);
}
