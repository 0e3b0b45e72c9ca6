// Byte counts in messages: "18.00 MiB (18874368 bytes)", readable for
// people and exact for tools and tests; below 1 KiB just "512 bytes".
// Units as PyTorch's format_size.
#pragma once

#include <cstddef>
#include <string>

namespace tsr::alloc {

std::string describe_bytes(size_t n);

}  // namespace tsr::alloc
