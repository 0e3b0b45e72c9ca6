// Outputs of CPU kernels live on the CPU: said once here, so each kernel's
// allocation reads as what it is.
#pragma once

#include "core/factory.h"

namespace tsr::kernels {

inline Tensor empty_cpu(const Shape& sizes, tsr_dtype dtype,
                        tsr_memory_format fmt = TSR_CONTIGUOUS_FORMAT) {
  return empty(sizes, dtype, fmt, kCpu);
}

}  // namespace tsr::kernels
