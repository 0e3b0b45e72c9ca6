// C API: caching-allocator statistics, cache control and memory limit
// (allocator.h), settings, history, snapshots. The allocator itself is
// alloc/caching_allocator.cpp.
#include <tessera/allocator.h>

#include <cstdlib>
#include <cstring>
#include <limits>

#include "alloc/caching_allocator.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/struct_size.h"
#include "core/error.h"
#include "core/factory.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

tsr_memory_stat_t to_c(const alloc::Stat& s) { return {s.current, s.peak, s.allocated, s.freed}; }

// Validates the device with the factories' rules and messages (enum_arg:
// a C caller may pass any int as the enum).
alloc::CachingAllocator& allocator_arg(const tsr_device_type& device_type,
                                       int32_t device_index) {
  return alloc::caching_allocator(checked_device(enum_arg(device_type), device_index));
}

alloc::MemoryStats stats_of(const tsr_device_type& device_type, int32_t device_index) {
  return allocator_arg(device_type, device_index).stats().all;
}

template <typename Pick>
tsr_status query(const tsr_device_type& device_type, int32_t device_index, int64_t* out,
                 Pick&& pick) {
  return guarded([&] {
    const alloc::MemoryStats s = stats_of(device_type, device_index);
    require(out, "out");
    *out = pick(s);
  });
}

// PyTorch's memory_stats()["max_split_size"]: -1 when unlimited. While
// TSR_ALLOC_CONF is invalid no setting is in force (allocations fail), and
// the statistics must still be readable: -1 then.
int64_t max_split_size_arg() {
  size_t m = std::numeric_limits<size_t>::max();
  try {
    m = alloc::allocator_config()->max_split_size;
  } catch (const Error&) {
  }
  return m == std::numeric_limits<size_t>::max() ? -1 : int64_t(m);
}

// A string the caller frees with tsr_free_string (which is std::free).
char* c_string(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  TSR_CHECK(p, TSR_ERR_OUT_OF_MEMORY, "out of memory for a string of ", s.size(), " bytes");
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

}  // namespace

TSR_EXTERN tsr_status tsr_memory_stats(tsr_device_type device_type, int32_t device_index,
                                       tsr_memory_stats_t* out) {
  return guarded([&] {
    const alloc::MemoryStats s = stats_of(device_type, device_index);
    require(out, "out");
    tsr_memory_stats_t c;
    c.allocation = to_c(s.allocation);
    c.segment = to_c(s.segment);
    c.active = to_c(s.active);
    c.inactive_split = to_c(s.inactive_split);
    c.allocated_bytes = to_c(s.allocated_bytes);
    c.reserved_bytes = to_c(s.reserved_bytes);
    c.active_bytes = to_c(s.active_bytes);
    c.inactive_split_bytes = to_c(s.inactive_split_bytes);
    c.requested_bytes = to_c(s.requested_bytes);
    c.num_alloc_retries = s.num_alloc_retries;
    c.num_ooms = s.num_ooms;
    c.num_device_alloc = s.num_device_alloc;
    c.num_device_free = s.num_device_free;
    c.oversize_allocations = to_c(s.oversize_allocations);
    c.oversize_segments = to_c(s.oversize_segments);
    c.num_sync_all_streams = s.num_sync_all_streams;
    c.max_split_size = max_split_size_arg();
    // Only the caller's struct_size bytes: an older, smaller struct gets the
    // fields it has, a newer, larger one this version's; the struct_size
    // written back says how many bytes were filled (capi/struct_size.h).
    write_struct(out, c, TSR_FIRST_VERSION_SIZE(tsr_memory_stats_t, allocation),
                 "tsr_memory_stats: out", "tsr_memory_stats_t");
  });
}

TSR_EXTERN tsr_status tsr_memory_allocated(tsr_device_type device_type, int32_t device_index,
                                           int64_t* out) {
  return query(device_type, device_index, out,
               [](const alloc::MemoryStats& s) { return s.allocated_bytes.current; });
}
TSR_EXTERN tsr_status tsr_max_memory_allocated(tsr_device_type device_type,
                                               int32_t device_index, int64_t* out) {
  return query(device_type, device_index, out,
               [](const alloc::MemoryStats& s) { return s.allocated_bytes.peak; });
}
TSR_EXTERN tsr_status tsr_memory_reserved(tsr_device_type device_type, int32_t device_index,
                                          int64_t* out) {
  return query(device_type, device_index, out,
               [](const alloc::MemoryStats& s) { return s.reserved_bytes.current; });
}
TSR_EXTERN tsr_status tsr_max_memory_reserved(tsr_device_type device_type,
                                              int32_t device_index, int64_t* out) {
  return query(device_type, device_index, out,
               [](const alloc::MemoryStats& s) { return s.reserved_bytes.peak; });
}

TSR_EXTERN tsr_status tsr_reset_peak_memory_stats(tsr_device_type device_type,
                                                  int32_t device_index) {
  return guarded([&] {
    allocator_arg(device_type, device_index).reset_peak();
  });
}
TSR_EXTERN tsr_status tsr_reset_accumulated_memory_stats(tsr_device_type device_type,
                                                         int32_t device_index) {
  return guarded([&] {
    allocator_arg(device_type, device_index).reset_accumulated();
  });
}

TSR_EXTERN tsr_status tsr_empty_cache(tsr_device_type device_type, int32_t device_index) {
  return guarded([&] {
    allocator_arg(device_type, device_index).empty_cache();
  });
}

TSR_EXTERN tsr_status tsr_set_memory_limit(tsr_device_type device_type, int32_t device_index,
                                           int64_t bytes) {
  return guarded([&] {
    alloc::CachingAllocator& a = allocator_arg(device_type, device_index);
    TSR_CHECK(bytes >= 0, TSR_ERR_INVALID_ARGUMENT, "memory limit must be >= 0 bytes, got ",
              bytes);
    a.set_memory_limit(size_t(bytes));
  });
}
TSR_EXTERN tsr_status tsr_memory_limit(tsr_device_type device_type, int32_t device_index,
                                       int64_t* out) {
  return guarded([&] {
    alloc::CachingAllocator& a = allocator_arg(device_type, device_index);
    require(out, "out");
    *out = int64_t(a.memory_limit());
  });
}

// ---- settings ------------------------------------------------------------------

TSR_EXTERN tsr_status tsr_set_allocator_settings(const char* text) {
  return guarded([&] { alloc::set_allocator_config(require(text, "text")); });
}

TSR_EXTERN tsr_status tsr_allocator_settings(char** out) {
  return guarded([&] {
    require(out, "out");
    const std::string text = alloc::allocator_config()->text;
    *out = c_string(text);
  });
}

// ---- history, snapshots, summary -------------------------------------------------

TSR_EXTERN tsr_status tsr_memory_record_history(tsr_device_type device_type, int32_t device_index,
                                                bool enabled, int64_t max_entries) {
  return guarded([&] {
    alloc::CachingAllocator& a = allocator_arg(device_type, device_index);
    TSR_CHECK(!enabled || max_entries >= 1, TSR_ERR_INVALID_ARGUMENT,
              "record_memory_history: max_entries must be >= 1, got ", max_entries);
    a.record_history(enabled, size_t(max_entries));  // max_entries unused when disabled
  });
}

TSR_EXTERN tsr_status tsr_memory_set_trace_label(const char* label) {
  return guarded([&] { alloc::set_trace_label(label ? label : ""); });
}

TSR_EXTERN tsr_status tsr_memory_snapshot(tsr_device_type device_type, int32_t device_index,
                                          char** json) {
  return guarded([&] {
    alloc::CachingAllocator& a = allocator_arg(device_type, device_index);
    require(json, "json");
    const std::string text = alloc::snapshot_json(a.snapshot());
    *json = c_string(text);
  });
}

TSR_EXTERN tsr_status tsr_memory_summary(tsr_device_type device_type, int32_t device_index,
                                         char** text) {
  return guarded([&] {
    alloc::CachingAllocator& a = allocator_arg(device_type, device_index);
    require(text, "text");
    const std::string table = alloc::memory_summary(a.device(), a.stats());
    *text = c_string(table);
  });
}
