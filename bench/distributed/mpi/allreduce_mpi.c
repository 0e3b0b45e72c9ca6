/* bench/distributed/run_mpi: the MPI floor. One rank of the all_reduce
 * benchmark calling MPI_Allreduce (MPI_IN_PLACE, MPI_FLOAT, MPI_SUM) on
 * MPI_COMM_WORLD directly, timed as allreduce_cases.h describes, so that
 * tessera's MPI backend is compared with the library it calls. With
 * MPI_NONBLOCKING=1 it calls MPI_Iallreduce + MPI_Wait instead (reported as
 * "mpi-nb"): the non-blocking collective tessera's backend starts (to obey
 * the timeout), without tessera. Started by mpirun.
 * Usage: allreduce_mpi WARMUP BYTES:ITERS [BYTES:ITERS ...] */
#include <mpi.h>

#include "../allreduce_cases.h"

static int g_nonblocking = 0;

static void all_reduce(float* p, int n) {
  if (!g_nonblocking) {
    MPI_Allreduce(MPI_IN_PLACE, p, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return;
  }
  MPI_Request r;
  MPI_Iallreduce(MPI_IN_PLACE, p, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* nb = getenv("MPI_NONBLOCKING");
  g_nonblocking = nb && strcmp(nb, "1") == 0;
  const char* impl = g_nonblocking ? "mpi-nb" : "mpi";
  int rank = 0, world = 1, warmup = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  ar_case cases[AR_MAX_CASES];
  const int ncases = ar_parse(argc, argv, 1, &warmup, cases);
  for (int k = 0; k < ncases; ++k) {
    const ar_case* c = &cases[k];
    const int n = (int)(c->bytes / 4);
    float* p = malloc(c->bytes);
    for (int i = 0; i < n; ++i) p[i] = 1;
    all_reduce(p, n);
    ar_check_sum(impl, p, (size_t)n, world);
    memset(p, 0, c->bytes);
    for (int i = 0; i < warmup; ++i) all_reduce(p, n);
    MPI_Barrier(MPI_COMM_WORLD);
    double* us = malloc(sizeof(double) * (size_t)c->iters);
    for (int i = 0; i < c->iters; ++i) {
      const double start = ar_now_us();
      all_reduce(p, n);
      us[i] = ar_now_us() - start;
    }
    MPI_Allreduce(MPI_IN_PLACE, us, c->iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) ar_report(impl, world, c, ar_median(us, c->iters));
    free(us);
    free(p);
  }
  MPI_Finalize();
  return 0;
}
