// C API: thread count (parallel.h).
#include <tessera/parallel.h>

#include "capi/barrier.h"
#include "cpu/kernels/threads.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_set_num_threads(int64_t n) {
  return guarded([&] { kernels::set_num_threads(n); });
}

TSR_EXTERN int64_t tsr_get_num_threads(void) { return kernels::num_threads(); }
