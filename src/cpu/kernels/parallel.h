// Intra-op parallelism for the CPU kernels, ATen's at::parallel_for: a range
// of independent indices split into contiguous pieces, one per thread, with
// the thread count of tsr_set_num_threads (kernels::num_threads()).
//
// Determinism is the caller's part: a kernel whose result must not depend on
// the thread count gives every index the same work whatever piece it lands
// in (outputs computed whole by one thread; float partial sums over chunks
// fixed by the problem size, combined in a fixed order afterwards).
#pragma once

#include <cstdint>
#include <functional>

namespace tsr::kernels {

// at::internal::GRAIN_SIZE: below this many elements of work a kernel runs
// on the calling thread, because waking other threads costs more.
constexpr int64_t GRAIN_SIZE = 32768;

// Calls f(b, e) on disjoint pieces covering [begin, end), each of at least
// `grain` indices (the last may be shorter), on at most num_threads()
// threads, the calling one included. Runs f(begin, end) inline when one
// piece suffices or when already inside a parallel region (no nesting, as
// ATen). f must not throw: kernels allocate and check before they split.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& f);

}  // namespace tsr::kernels
