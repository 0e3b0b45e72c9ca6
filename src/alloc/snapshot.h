// A snapshot of one device's caching allocator (torch.cuda.memory._snapshot):
// its segments with every block's state, the trace, the settings and the
// statistics; and its two renderings, JSON (PyTorch's field names) and the
// text table of torch.cuda.memory_summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/allocator_config.h"
#include "alloc/memory_stats.h"
#include "alloc/trace.h"
#include "core/device.h"

namespace tsr::alloc {

struct BlockSnapshot {
  enum State {
    ACTIVE_ALLOCATED,     // "active_allocated": handed out
    ACTIVE_PENDING_FREE,  // "active_pending_free": freed, awaiting streams' events
    INACTIVE,             // "inactive": free, cached
  };
  uintptr_t address;
  size_t size;            // bytes
  size_t requested_size;  // bytes asked for (0 when inactive)
  State state;
};

struct SegmentSnapshot {
  uintptr_t address;
  size_t total_size;      // bytes (mapped bytes for an expandable segment)
  int64_t stream;
  bool small_pool;        // "segment_type": "small" or "large"
  bool is_expandable;
  size_t allocated_size;  // bytes of ACTIVE_ALLOCATED blocks
  size_t active_size;     // bytes of ACTIVE_* blocks
  size_t requested_size;  // bytes requested by the active blocks
  std::vector<BlockSnapshot> blocks;  // address order, tiling the segment
};

struct Snapshot {
  Device device;
  std::vector<SegmentSnapshot> segments;  // address order
  std::vector<TraceEntry> trace;          // oldest first; empty unless recording
  size_t trace_capacity;                  // max_entries; 0: not recording
  AllocatorConfig settings;
  DeviceStats stats;
  size_t memory_limit;                    // bytes, 0: none
};

// {"device": {"type": "cpu", "index": 0}, "segments": [...],
//  "device_traces": [[...]], "allocator_settings": {...}, "stats": {...}}.
// Field names as PyTorch's _snapshot() where it has them; documented in
// docs/MEMORY.md.
std::string snapshot_json(const Snapshot& s);

// torch.cuda.memory_summary(): a device's statistics as a table, rows per
// quantity and pool, columns current / peak / allocated / freed. Needs only
// the statistics, not a snapshot (which walks every block and is traced).
std::string memory_summary(Device device, const DeviceStats& st);

}  // namespace tsr::alloc
