// The kernels' thread count (tsr_set_num_threads): OpenBLAS's, which
// parallel_for (parallel_for.h) reads for its own threads too.
#pragma once

#include <cstdint>

namespace tsr::kernels {

void set_num_threads(int64_t n);  // TSR_ERR_INVALID_ARGUMENT for n < 1
int64_t num_threads();

}  // namespace tsr::kernels
