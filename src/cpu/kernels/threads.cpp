#include "cpu/kernels/threads.h"

#include <cblas.h>

#include "core/error.h"

#include <atomic>

namespace tsr::kernels {

namespace {
// tessera's thread count: OpenBLAS's initial one (OPENBLAS_NUM_THREADS or
// OMP_NUM_THREADS if set, else one per core), read once. OpenBLAS itself is
// then kept to one thread: its own pthreads pool, woken for every gemm
// above a small size, took 13 ms instead of 0.09 ms for the 64x3136x10
// gemm of examples/fashion on 2 cores shared with oneDNN's OpenMP threads;
// matmul.cpp splits gemms over parallel_for's pool instead, so one pool of
// tessera's and oneDNN's OpenMP team are all that run. This sets the
// process's OpenBLAS to one thread, for other users of it too.
std::atomic<int64_t>& thread_count() {
  static std::atomic<int64_t> n{[] {
    const int64_t initial = openblas_get_num_threads();
    openblas_set_num_threads(1);
    return initial < 1 ? 1 : initial;
  }()};
  return n;
}
// Taken at load, before any kernel runs (and before threads race to it).
const bool initialised = (thread_count(), true);
}  // namespace

void set_num_threads(int64_t n) {
  TSR_CHECK(n >= 1, TSR_ERR_INVALID_ARGUMENT, "set_num_threads expects a positive integer, got ", n);
  TSR_CHECK(n <= 1024, TSR_ERR_INVALID_ARGUMENT, "set_num_threads: ", n, " threads is more than 1024");
  thread_count().store(n, std::memory_order_relaxed);
}

int64_t num_threads() { return thread_count().load(std::memory_order_relaxed); }

}  // namespace tsr::kernels
