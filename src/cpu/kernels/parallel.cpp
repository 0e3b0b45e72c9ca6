// parallel_for over OpenMP, PyTorch's default intra-op backend: libgomp
// keeps its threads between regions, so a split costs a wake-up, not a
// thread start. Only this file is built with -fopenmp.
#include "cpu/kernels/parallel.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>

#include "cpu/kernels/threads.h"

namespace tsr::kernels {

namespace {

// libgomp is not fork-safe: a child forked after a parallel region hangs
// in its next one (its pool's threads are not in the child). A forked
// child therefore runs every parallel_for on its own thread, as ATen's
// OpenMP backend leaves forked workers (DataLoader) to do.
std::atomic<bool> forked_child{false};
const bool fork_handler = [] {
  pthread_atfork(nullptr, nullptr, [] { forked_child.store(true, std::memory_order_relaxed); });
  return true;
}();

}  // namespace

void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int64_t pieces = std::min<int64_t>(num_threads(), (n + std::max<int64_t>(grain, 1) - 1) /
                                                              std::max<int64_t>(grain, 1));
  if (pieces <= 1 || forked_child.load(std::memory_order_relaxed) || omp_in_parallel()) {
    f(begin, end);
    return;
  }
#pragma omp parallel num_threads(int(pieces))
  {
    // The team may be smaller than asked for (OMP_THREAD_LIMIT): split by
    // the size it has.
    const int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
    const int64_t chunk = (n + team - 1) / team;
    const int64_t b = begin + me * chunk, e = std::min(end, b + chunk);
    if (b < e) f(b, e);
  }
}

}  // namespace tsr::kernels
