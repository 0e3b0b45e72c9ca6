// The caching allocator's settings: PyTorch's PYTORCH_CUDA_ALLOC_CONF keys
// and syntax (c10/core/AllocatorConfig.cpp), read from TSR_ALLOC_CONF or set
// with tsr_set_allocator_settings. One configuration for every device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace tsr::alloc {

// Sizes from 1 MiB to 64 GiB in power-of-two intervals (PyTorch's
// kRoundUpPowerOfTwoIntervals): interval i holds sizes in [2^(20+i), 2^(21+i)),
// the first also everything smaller, the last everything larger.
constexpr size_t kRoundUpPowerOfTwoIntervals = 16;

struct AllocatorConfig {
  // Blocks of at least this many bytes are never split ("oversize").
  size_t max_split_size = std::numeric_limits<size_t>::max();
  // Per interval: round a request up to the next of this many equal steps
  // between two powers of two; 0 or 1: no power-of-two rounding.
  std::array<size_t, kRoundUpPowerOfTwoIntervals> roundup_power2_divisions{};
  // Fraction (0, 1) of the memory limit above which cached blocks are freed
  // oldest first; 0: off. Only acts while a memory limit is set (PyTorch:
  // while a per-process memory fraction is set).
  double garbage_collection_threshold = 0;
  bool expandable_segments = false;
  // The text these settings were parsed from ("" for the defaults).
  std::string text;

  // PyTorch's roundup_power2_divisions(size).
  size_t divisions_for(size_t size) const;
};

// Parses PyTorch's syntax: "key:value,key:value", keys max_split_size_mb
// (>= 20), roundup_power2_divisions (a power of two, or a table
// "[256:1,512:2,>:4]" keyed by sizes in MiB), garbage_collection_threshold
// (0 < t < 1), expandable_segments (True/False). Keys not given keep their
// defaults. Throws tsr::Error(TSR_ERR_INVALID_ARGUMENT) naming the key and
// the accepted values.
AllocatorConfig parse_allocator_config(std::string_view text);

// The settings in force. The first call reads TSR_ALLOC_CONF; while that
// text is invalid (and nothing was set since) every call throws its error,
// so the first allocation fails naming the bad key.
std::shared_ptr<const AllocatorConfig> allocator_config();
// Replaces the settings in force with parse_allocator_config(text); on a
// parse error throws and changes nothing.
void set_allocator_config(std::string_view text);
// Bumped by every successful set_allocator_config, so allocators can cache
// the settings and re-read them only when this changes.
uint64_t allocator_config_generation() noexcept;

}  // namespace tsr::alloc
