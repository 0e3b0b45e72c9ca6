// Splitting a kernel's index range across threads, in the manner of
// at::parallel_for: a range of n items runs on min(ceil(n / grain),
// num_threads()) threads (the caller is one of them), and on the calling
// thread alone when n <= grain, when the count is 1, inside another
// parallel_for, or while another thread's parallel_for holds the pool.
// The threads take guided chunks in turn, each a 2 * threads-th of what is
// left and at least grain items, so a helper thread that wakes late (tens
// of microseconds under a hypervisor) finds the range shared out instead
// of holding the caller up. Chunks are contiguous and disjoint, so a kernel
// whose items are independent gives the same result on any thread count.
#pragma once

#include <cstdint>

namespace tsr::kernels {

// PyTorch's at::internal::GRAIN_SIZE: below this many elements a second
// thread costs more than it saves.
inline constexpr int64_t kGrainSize = 32768;

namespace detail {
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
void parallel_run(int64_t n, int64_t grain, RangeFn fn, void* ctx);
}  // namespace detail

// body(begin, end) over [0, n) in disjoint chunks. The body must not throw
// across threads' boundaries in a way that matters: an exception from any
// chunk is rethrown to the caller after every chunk has finished.
template <typename Body>
void parallel_for(int64_t n, int64_t grain, Body&& body) {
  if (n <= 0) return;
  auto call = [](void* ctx, int64_t b, int64_t e) { (*static_cast<Body*>(ctx))(b, e); };
  detail::parallel_run(n, grain, call, &body);
}

}  // namespace tsr::kernels
