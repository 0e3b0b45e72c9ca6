// Minimal aligned allocator; to be replaced by cpu_caching_allocator.cpp.
#include "alloc/cpu_allocator.h"

#include <cstdlib>

#include "core/error.h"

namespace tsr::alloc {

void* cpu_allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  void* p = std::aligned_alloc(kCpuAlignment, rounded);
  TSR_CHECK(p, TSR_ERR_OUT_OF_MEMORY, "CPU out of memory: tried to allocate ", nbytes, " bytes");
  return p;
}

void cpu_free(void* p) noexcept { std::free(p); }

}  // namespace tsr::alloc
