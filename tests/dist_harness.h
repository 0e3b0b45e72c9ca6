/* Multi-process tests of process groups (test_distributed*.c): fork one
 * child per rank, each joining a group over 127.0.0.1, and wait for all of
 * them with a hard deadline. Children report failures on stderr and by exit
 * status (they must not use Criterion's assertions). */
#ifndef TSR_TEST_DIST_HARNESS_H
#define TSR_TEST_DIST_HARNESS_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tessera/tessera.h>

/* A child's check: prints and exits 1 (no Criterion in children). */
#define DCHECK(cond, ...)                                                        \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
      fprintf(stderr, __VA_ARGS__);                                              \
      fprintf(stderr, " [last error: %s]\n", tsr_last_error_message());          \
      fflush(stderr);                                                            \
      _exit(1);                                                                  \
    }                                                                            \
  } while (0)
#define DCHECK_OK(call) DCHECK((call) == TSR_OK, "%s", #call)

static inline double dist_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A port nobody listens on now (bound to port 0, then closed). */
static inline int dist_free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr*)&a, &len) != 0)
    return 29500 + (int)(getpid() % 1000);
  close(fd);
  return ntohs(a.sin_port);
}

/* tcp://127.0.0.1:port, rank and world given: a group of `backend` for one child. */
static inline tsr_status dist_init_backend(int port, int rank, int world, tsr_dist_backend backend,
                                           int64_t timeout_ms, tsr_process_group** pg) {
  char method[64];
  snprintf(method, sizeof method, "tcp://127.0.0.1:%d", port);
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.backend = backend;
  o.init_method = method;
  o.rank = rank;
  o.world_size = world;
  o.timeout_ms = timeout_ms;
  return tsr_process_group_init(&o, pg);
}

/* The same over Gloo. */
static inline tsr_status dist_init(int port, int rank, int world, int64_t timeout_ms, tsr_process_group** pg) {
  return dist_init_backend(port, rank, world, TSR_DIST_GLOO, timeout_ms, pg);
}

typedef int (*dist_body)(int port, int rank, int world, void* arg);

/* Runs body in `world` children (rank = index) and waits up to deadline_s.
 * statuses[r] receives each child's wait status (may be NULL). Returns the
 * number of children that had not ended by the deadline: those are
 * SIGKILLed. Children that stop themselves (SIGSTOP) are SIGKILLed once
 * every other child has ended. */
static inline int dist_run_ranks(int world, dist_body body, void* arg, double deadline_s, int* statuses) {
  const int port = dist_free_port();
  pid_t pids[16];
  int done[16] = {0};
  fflush(stdout);
  fflush(stderr);
  for (int r = 0; r < world; ++r) {
    pids[r] = fork();
    if (pids[r] == 0) _exit(body(port, r, world, arg));
  }
  const double end = dist_now() + deadline_s;
  int left = world, late = 0, stopped = 0;
  while (left > 0) {
    for (int r = 0; r < world; ++r) {
      if (done[r]) continue;
      int st = 0;
      if (waitpid(pids[r], &st, WNOHANG | WUNTRACED) == pids[r]) {
        if (WIFSTOPPED(st)) {
          ++stopped; /* a rank that stopped itself (SIGSTOP tests) */
          continue;
        }
        done[r] = 1;
        --left;
        if (statuses) statuses[r] = st;
      }
    }
    if (left == 0) break;
    if (left == stopped) {
      /* only stopped ranks remain: the others have finished with them */
      for (int r = 0; r < world; ++r)
        if (!done[r]) {
          kill(pids[r], SIGKILL);
          int st = 0;
          waitpid(pids[r], &st, 0);
          if (statuses) statuses[r] = st;
        }
      break;
    }
    if (dist_now() > end) {
      for (int r = 0; r < world; ++r)
        if (!done[r]) {
          kill(pids[r], SIGKILL);
          int st = 0;
          waitpid(pids[r], &st, 0);
          if (statuses) statuses[r] = st;
          ++late;
        }
      break;
    }
    usleep(10000);
  }
  return late;
}

/* Whether two tensors hold the same bytes in C order (any strides). */
static inline int dist_same_bytes(const tsr_tensor* a, const tsr_tensor* b) {
  const size_t n = (size_t)tsr_tensor_nbytes(a);
  if (n != (size_t)tsr_tensor_nbytes(b)) return 0;
  char* x = (char*)malloc(n + 1);
  char* y = (char*)malloc(n + 1);
  size_t need;
  tsr_copy_to_buffer(a, x, n, &need);
  tsr_copy_to_buffer(b, y, n, &need);
  const int same = memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return same;
}

/* Whether a child's wait status is a clean exit 0. */
static inline int dist_exited_ok(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

#endif
