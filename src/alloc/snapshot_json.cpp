// Snapshot -> JSON with the field names of torch.cuda.memory._snapshot()
// (segments, blocks, device_traces) and of torch.cuda.memory_stats() (the
// flat "allocated_bytes.all.current" keys), so tools written for PyTorch's
// snapshots and stats read tessera's with few changes.
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "alloc/snapshot.h"
#include "core/error.h"

namespace tsr::alloc {
namespace {

// Insertion order kept: "device" first and the stats grouped as PyTorch
// prints them read better than alphabetical order.
using json = nlohmann::ordered_json;

// Addresses and sizes as unsigned 64-bit integers (JSON has no pointers).
uint64_t u64(uintptr_t v) { return static_cast<uint64_t>(v); }


const char* block_state_name(BlockSnapshot::State s) {
  switch (s) {
    case BlockSnapshot::ACTIVE_ALLOCATED: return "active_allocated";
    case BlockSnapshot::ACTIVE_PENDING_FREE: return "active_pending_free";
    case BlockSnapshot::INACTIVE: return "inactive";
  }
  return "unknown";
}

// PyTorch reports "no limit" (SIZE_MAX) as -1: it converts to int64.
int64_t max_split_size_value(size_t max_split_size) {
  return max_split_size == std::numeric_limits<size_t>::max()
             ? -1
             : static_cast<int64_t>(max_split_size);
}

json segment_json(const SegmentSnapshot& seg, int32_t device_index) {
  json blocks = json::array();
  for (const BlockSnapshot& b : seg.blocks)
    blocks.push_back({{"address", u64(b.address)},
                      {"size", uint64_t(b.size)},
                      {"requested_size", uint64_t(b.requested_size)},
                      {"state", block_state_name(b.state)}});
  return {{"device", device_index},
          {"address", u64(seg.address)},
          {"total_size", uint64_t(seg.total_size)},
          {"stream", seg.stream},
          {"segment_type", seg.small_pool ? "small" : "large"},
          {"allocated_size", uint64_t(seg.allocated_size)},
          {"active_size", uint64_t(seg.active_size)},
          {"requested_size", uint64_t(seg.requested_size)},
          {"is_expandable", seg.is_expandable},
          {"blocks", std::move(blocks)}};
}

json trace_entry_json(const TraceEntry& e) {
  return {{"action", action_name(e.action)},
          {"addr", u64(e.addr)},
          {"size", uint64_t(e.size)},
          {"stream", e.stream},
          {"time_us", e.time_us},
          {"user_metadata", e.label}};
}

json settings_json(const AllocatorConfig& c) {
  json divisions = json::array();
  for (size_t d : c.roundup_power2_divisions) divisions.push_back(uint64_t(d));
  return {{"max_split_size", max_split_size_value(c.max_split_size)},
          {"roundup_power2_divisions", std::move(divisions)},
          {"garbage_collection_threshold", c.garbage_collection_threshold},
          {"expandable_segments", c.expandable_segments},
          {"text", c.text}};
}

void add_stat(json& out, const std::string& prefix, const Stat& s) {
  out[prefix + ".current"] = s.current;
  out[prefix + ".peak"] = s.peak;
  out[prefix + ".allocated"] = s.allocated;
  out[prefix + ".freed"] = s.freed;
}

// torch.cuda.memory_stats(): per pool for the stats PyTorch keeps per pool,
// the oversize stats and the events once (they live in `all` only).
json stats_json(const DeviceStats& st, size_t max_split_size) {
  struct Named {
    const char* name;
    Stat MemoryStats::*stat;
  };
  static constexpr Named kPooled[] = {
      {"allocation", &MemoryStats::allocation},
      {"segment", &MemoryStats::segment},
      {"active", &MemoryStats::active},
      {"inactive_split", &MemoryStats::inactive_split},
      {"allocated_bytes", &MemoryStats::allocated_bytes},
      {"reserved_bytes", &MemoryStats::reserved_bytes},
      {"active_bytes", &MemoryStats::active_bytes},
      {"inactive_split_bytes", &MemoryStats::inactive_split_bytes},
      {"requested_bytes", &MemoryStats::requested_bytes},
  };
  json out = json::object();
  for (const Named& n : kPooled) {
    add_stat(out, str(n.name, ".all"), st.all.*n.stat);
    add_stat(out, str(n.name, ".small_pool"), st.small_pool.*n.stat);
    add_stat(out, str(n.name, ".large_pool"), st.large_pool.*n.stat);
  }
  add_stat(out, "oversize_allocations", st.all.oversize_allocations);
  add_stat(out, "oversize_segments", st.all.oversize_segments);
  out["num_alloc_retries"] = st.all.num_alloc_retries;
  out["num_ooms"] = st.all.num_ooms;
  out["num_device_alloc"] = st.all.num_device_alloc;
  out["num_device_free"] = st.all.num_device_free;
  out["num_sync_all_streams"] = st.all.num_sync_all_streams;
  out["max_split_size"] = max_split_size_value(max_split_size);
  return out;
}

}  // namespace

std::string snapshot_json(const Snapshot& s) {
  json segments = json::array();
  for (const SegmentSnapshot& seg : s.segments) segments.push_back(segment_json(seg, s.device.index));
  json trace = json::array();
  for (const TraceEntry& e : s.trace) trace.push_back(trace_entry_json(e));

  json out = {
      {"device",
       {{"type", device_type_name(s.device.type)},
        {"index", s.device.index},
        {"name", device_name(s.device)}}},
      {"segments", std::move(segments)},
      // One list per device in PyTorch; a snapshot covers one device.
      {"device_traces", json::array({std::move(trace)})},
      {"allocator_settings", settings_json(s.settings)},
      {"trace_max_entries", uint64_t(s.trace_capacity)},
      {"memory_limit", uint64_t(s.memory_limit)},
      {"stats", stats_json(s.stats, s.settings.max_split_size)},
  };
  // Labels and the settings text come from users and may not be UTF-8;
  // invalid bytes become U+FFFD instead of making dump() throw.
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tsr::alloc
