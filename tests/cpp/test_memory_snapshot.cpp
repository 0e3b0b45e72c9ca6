// A snapshot built by hand, rendered as JSON (parsed back with nlohmann) and
// as torch.cuda.memory_summary()'s table.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloc/snapshot.h"

namespace tsr::alloc {
namespace {

using json = nlohmann::json;

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;
constexpr int64_t kTiB = 1024 * kGiB;

// Above INT64_MAX: addresses must come out unsigned.
constexpr uintptr_t kHighAddress = 0xffff800000000000u;
constexpr uintptr_t kSmallAddress = 0x7f3a00000000u;

Stat stat(int64_t current, int64_t peak, int64_t allocated, int64_t freed) {
  Stat s;
  s.current = current;
  s.peak = peak;
  s.allocated = allocated;
  s.freed = freed;
  return s;
}

// Two segments: a small-pool one with an allocated, a pending-free and an
// inactive block; an expandable large-pool one with 3 MiB allocated.
// Statistics chosen to reach every unit of _format_size / _format_count.
Snapshot make_snapshot() {
  Snapshot s;
  s.device = kCpu;

  SegmentSnapshot small;
  small.address = kSmallAddress;
  small.total_size = 2 * kMiB;
  small.stream = 0;
  small.small_pool = true;
  small.is_expandable = false;
  small.allocated_size = 512;
  small.active_size = 2048;
  small.requested_size = 1100;
  small.blocks = {{kSmallAddress, 512, 100, BlockSnapshot::ACTIVE_ALLOCATED},
                  {kSmallAddress + 512, 1536, 1000, BlockSnapshot::ACTIVE_PENDING_FREE},
                  {kSmallAddress + 2048, 2 * kMiB - 2048, 0, BlockSnapshot::INACTIVE}};

  SegmentSnapshot large;
  large.address = kHighAddress;
  large.total_size = 20 * kMiB;
  large.stream = 7;
  large.small_pool = false;
  large.is_expandable = true;
  large.allocated_size = 3 * kMiB;
  large.active_size = 3 * kMiB;
  large.requested_size = 3 * kMiB - 100;
  large.blocks = {{kHighAddress, 3 * kMiB, 3 * kMiB - 100, BlockSnapshot::ACTIVE_ALLOCATED},
                  {kHighAddress + 3 * kMiB, 17 * kMiB, 0, BlockSnapshot::INACTIVE}};
  s.segments = {small, large};

  s.trace = {
      {TraceEntry::SEGMENT_ALLOC, kHighAddress, size_t(20 * kMiB), 7, 1700000000000001, ""},
      {TraceEntry::ALLOC, kHighAddress, size_t(3 * kMiB), 7, 1700000000000002, "matmul"},
      {TraceEntry::FREE_REQUESTED, kSmallAddress + 512, 1536, 0, 1700000000000003, "add"},
      {TraceEntry::SNAPSHOT, 0, 0, 0, 1700000000000004, ""},
  };
  s.trace_capacity = 100;
  s.settings = parse_allocator_config(
      "max_split_size_mb:64,roundup_power2_divisions:[256:1,512:2,>:4],"
      "garbage_collection_threshold:0.5");
  s.memory_limit = size_t(kGiB);

  DeviceStats& st = s.stats;
  // Bytes.
  st.all.allocated_bytes = stat(3 * kMiB + 512, 5 * kGiB, 2 * kTiB + 7, 2 * kTiB - 3 * kMiB);
  st.large_pool.allocated_bytes = stat(3 * kMiB, 5 * kGiB, 2 * kTiB, 2 * kTiB - 3 * kMiB);
  st.small_pool.allocated_bytes = stat(512, 4096, 7, 0);
  st.all.active_bytes = stat(3 * kMiB + 2048, 768 * kKiB, 768 * kKiB - 1, 0);
  st.large_pool.active_bytes = stat(3 * kMiB, 768 * kKiB, 768 * kKiB - 1, 0);
  st.small_pool.active_bytes = stat(2048, 0, 0, 0);
  st.all.requested_bytes = stat(3 * kMiB - 100 + 1100, 100, 1, 0);
  st.large_pool.requested_bytes = stat(3 * kMiB - 100, 0, 0, 0);
  st.small_pool.requested_bytes = stat(1100, 100, 1, 0);
  st.all.reserved_bytes = stat(22 * kMiB, 22 * kMiB, 3 * 1024 * kTiB, 3 * 1024 * kTiB - 22 * kMiB);
  st.large_pool.reserved_bytes = stat(20 * kMiB, 20 * kMiB, 20 * kMiB, 0);
  st.small_pool.reserved_bytes = stat(2 * kMiB, 2 * kMiB, 2 * kMiB, 0);
  st.all.inactive_split_bytes = stat(17 * kMiB + 2 * kMiB - 2048, 0, 0, 0);
  st.large_pool.inactive_split_bytes = stat(17 * kMiB, 0, 0, 0);
  st.small_pool.inactive_split_bytes = stat(2 * kMiB - 2048, 0, 0, 0);
  // Counts.
  st.all.allocation = stat(2, 1234567, 800000000, 799999998);
  st.large_pool.allocation = stat(1, 1234000, 799999999, 799999998);
  st.small_pool.allocation = stat(1, 567, 1, 0);
  st.all.active = stat(3, 749999, 750000, 749997);
  st.large_pool.active = stat(1, 1, 1, 0);
  st.small_pool.active = stat(2, 749998, 749999, 749997);
  st.all.segment = stat(2, 2, 2, 0);
  st.large_pool.segment = stat(1, 1, 1, 0);
  st.small_pool.segment = stat(1, 1, 1, 0);
  st.all.inactive_split = stat(2, 3, 4, 2);
  st.large_pool.inactive_split = stat(1, 1, 1, 0);
  st.small_pool.inactive_split = stat(1, 2, 3, 2);
  st.all.oversize_allocations = stat(1, 2, 3, 2);
  st.all.oversize_segments = stat(0, 1, 1000000, 999999);
  // Events.
  st.all.num_alloc_retries = 3;
  st.all.num_ooms = 1;
  st.all.num_device_alloc = 5;
  st.all.num_device_free = 3;
  st.all.num_sync_all_streams = 2;
  return s;
}

std::string summary_of(const Snapshot& s) { return memory_summary(s.device, s.stats); }

TEST(SnapshotJson, Device) {
  json j = json::parse(snapshot_json(make_snapshot()));
  EXPECT_EQ(j["device"], json({{"type", "cpu"}, {"index", 0}, {"name", "cpu"}}));

  Snapshot s = make_snapshot();
  s.device = {TSR_DEVICE_CUDA, 1};
  j = json::parse(snapshot_json(s));
  EXPECT_EQ(j["device"], json({{"type", "cuda"}, {"index", 1}, {"name", "cuda:1"}}));
  EXPECT_EQ(j["segments"][0]["device"], 1);
  s.device = {TSR_DEVICE_CUDA_HOST, 0};
  EXPECT_EQ(json::parse(snapshot_json(s))["device"]["type"], "cuda_host");
  // A type without a name. 0, not a DLPack number such as 7: tsr_device_type
  // has no fixed underlying type, so C++ only allows values 0-3 in it.
  s.device = {static_cast<tsr_device_type>(0), 2};
  j = json::parse(snapshot_json(s));
  EXPECT_EQ(j["device"]["type"], "device_type_0");
  EXPECT_EQ(j["device"]["name"], "device_type_0:2");
}

TEST(SnapshotJson, Segments) {
  Snapshot s = make_snapshot();
  json j = json::parse(snapshot_json(s));
  ASSERT_EQ(j["segments"].size(), 2u);

  const json& small = j["segments"][0];
  EXPECT_EQ(small["device"], 0);
  EXPECT_EQ(small["address"].get<uint64_t>(), uint64_t(kSmallAddress));
  EXPECT_EQ(small["total_size"], 2 * kMiB);
  EXPECT_EQ(small["stream"], 0);
  EXPECT_EQ(small["segment_type"], "small");
  EXPECT_EQ(small["allocated_size"], 512);
  EXPECT_EQ(small["active_size"], 2048);
  EXPECT_EQ(small["requested_size"], 1100);
  EXPECT_EQ(small["is_expandable"], false);
  ASSERT_EQ(small["blocks"].size(), 3u);
  EXPECT_EQ(small["blocks"][0], json({{"address", kSmallAddress},
                                      {"size", 512},
                                      {"requested_size", 100},
                                      {"state", "active_allocated"}}));
  EXPECT_EQ(small["blocks"][1]["state"], "active_pending_free");
  EXPECT_EQ(small["blocks"][1]["requested_size"], 1000);
  EXPECT_EQ(small["blocks"][2]["state"], "inactive");
  EXPECT_EQ(small["blocks"][2]["requested_size"], 0);

  const json& large = j["segments"][1];
  EXPECT_TRUE(large["address"].is_number_unsigned());
  EXPECT_EQ(large["address"].get<uint64_t>(), uint64_t(kHighAddress));
  EXPECT_EQ(large["blocks"][1]["address"].get<uint64_t>(), uint64_t(kHighAddress + 3 * kMiB));
  EXPECT_EQ(large["segment_type"], "large");
  EXPECT_EQ(large["stream"], 7);
  EXPECT_EQ(large["is_expandable"], true);
  EXPECT_EQ(large["requested_size"], 3 * kMiB - 100);

  // The blocks tile each segment: sizes sum to total_size, addresses follow.
  for (const json& seg : j["segments"]) {
    uint64_t sum = 0;
    uint64_t next = seg["address"].get<uint64_t>();
    for (const json& b : seg["blocks"]) {
      EXPECT_EQ(b["address"].get<uint64_t>(), next);
      next += b["size"].get<uint64_t>();
      sum += b["size"].get<uint64_t>();
    }
    EXPECT_EQ(sum, seg["total_size"].get<uint64_t>());
  }
}

TEST(SnapshotJson, Trace) {
  json j = json::parse(snapshot_json(make_snapshot()));
  ASSERT_EQ(j["device_traces"].size(), 1u);
  const json& trace = j["device_traces"][0];
  ASSERT_EQ(trace.size(), 4u);
  EXPECT_EQ(trace[1], json({{"action", "alloc"},
                            {"addr", kHighAddress},
                            {"size", 3 * kMiB},
                            {"stream", 7},
                            {"time_us", 1700000000000002},
                            {"user_metadata", "matmul"}}));
  EXPECT_EQ(trace[0]["action"], "segment_alloc");
  EXPECT_EQ(trace[2]["action"], "free_requested");
  EXPECT_EQ(trace[2]["user_metadata"], "add");
  EXPECT_EQ(trace[3]["action"], "snapshot");
  EXPECT_EQ(j["trace_max_entries"], 100);

  // Not recording: one empty list.
  Snapshot s = make_snapshot();
  s.trace.clear();
  s.trace_capacity = 0;
  j = json::parse(snapshot_json(s));
  EXPECT_EQ(j["device_traces"], json::array({json::array()}));
  EXPECT_EQ(j["trace_max_entries"], 0);
}

TEST(SnapshotJson, NonUtf8TextDoesNotThrow) {
  Snapshot s = make_snapshot();
  s.trace[1].label = "bad\xff";
  s.settings.text = "\xc3";
  json j = json::parse(snapshot_json(s));
  EXPECT_EQ(j["device_traces"][0][1]["user_metadata"], "bad\xEF\xBF\xBD");
  EXPECT_EQ(j["allocator_settings"]["text"], "\xEF\xBF\xBD");
}

TEST(SnapshotJson, Settings) {
  json j = json::parse(snapshot_json(make_snapshot()));
  const json& a = j["allocator_settings"];
  EXPECT_EQ(a["max_split_size"], 64 * kMiB);
  EXPECT_EQ(a["roundup_power2_divisions"],
            json({1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 4, 4, 4, 4, 4}));
  EXPECT_EQ(a["garbage_collection_threshold"], 0.5);
  EXPECT_EQ(a["expandable_segments"], false);
  EXPECT_EQ(a["text"],
            "max_split_size_mb:64,roundup_power2_divisions:[256:1,512:2,>:4],"
            "garbage_collection_threshold:0.5");
  EXPECT_EQ(j["memory_limit"], kGiB);
  EXPECT_EQ(j["stats"]["max_split_size"], 64 * kMiB);

  // Defaults: no split limit reads -1, as in PyTorch.
  Snapshot s = make_snapshot();
  s.settings = AllocatorConfig{};
  s.memory_limit = 0;
  j = json::parse(snapshot_json(s));
  EXPECT_EQ(j["allocator_settings"]["max_split_size"], -1);
  EXPECT_EQ(j["stats"]["max_split_size"], -1);
  EXPECT_EQ(j["allocator_settings"]["roundup_power2_divisions"], json(std::vector<int>(16, 0)));
  EXPECT_EQ(j["allocator_settings"]["text"], "");
  EXPECT_EQ(j["memory_limit"], 0);
}

TEST(SnapshotJson, StatsHaveTorchsFlatKeys) {
  Snapshot s = make_snapshot();
  json stats = json::parse(snapshot_json(s))["stats"];
  std::set<std::string> expected;
  for (const char* name : {"allocation", "segment", "active", "inactive_split",
                           "allocated_bytes", "reserved_bytes", "active_bytes",
                           "inactive_split_bytes", "requested_bytes"})
    for (const char* pool : {"all", "small_pool", "large_pool"})
      for (const char* field : {"current", "peak", "allocated", "freed"})
        expected.insert(std::string(name) + "." + pool + "." + field);
  for (const char* name : {"oversize_allocations", "oversize_segments"})
    for (const char* field : {"current", "peak", "allocated", "freed"})
      expected.insert(std::string(name) + "." + field);
  for (const char* name : {"num_alloc_retries", "num_ooms", "num_device_alloc",
                           "num_device_free", "num_sync_all_streams", "max_split_size"})
    expected.insert(name);
  std::set<std::string> got;
  for (auto it = stats.begin(); it != stats.end(); ++it) got.insert(it.key());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got.size(), 9u * 3 * 4 + 2 * 4 + 6);

  EXPECT_EQ(stats["allocated_bytes.all.current"], 3 * kMiB + 512);
  EXPECT_EQ(stats["allocated_bytes.all.peak"], 5 * kGiB);
  EXPECT_EQ(stats["allocated_bytes.all.allocated"], 2 * kTiB + 7);
  EXPECT_EQ(stats["allocated_bytes.all.freed"], 2 * kTiB - 3 * kMiB);
  EXPECT_EQ(stats["allocated_bytes.small_pool.current"], 512);
  EXPECT_EQ(stats["allocated_bytes.large_pool.current"], 3 * kMiB);
  EXPECT_EQ(stats["requested_bytes.small_pool.current"], 1100);
  EXPECT_EQ(stats["reserved_bytes.large_pool.current"], 20 * kMiB);
  EXPECT_EQ(stats["inactive_split_bytes.small_pool.current"], 2 * kMiB - 2048);
  EXPECT_EQ(stats["allocation.all.peak"], 1234567);
  EXPECT_EQ(stats["active.small_pool.freed"], 749997);
  EXPECT_EQ(stats["segment.all.current"], 2);
  EXPECT_EQ(stats["inactive_split.small_pool.allocated"], 3);
  EXPECT_EQ(stats["oversize_allocations.current"], 1);
  EXPECT_EQ(stats["oversize_segments.allocated"], 1000000);
  EXPECT_EQ(stats["num_alloc_retries"], 3);
  EXPECT_EQ(stats["num_ooms"], 1);
  EXPECT_EQ(stats["num_device_alloc"], 5);
  EXPECT_EQ(stats["num_device_free"], 3);
  EXPECT_EQ(stats["num_sync_all_streams"], 2);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The row of the table whose metric name is `name`.
std::string row_named(const std::string& summary, const std::string& name) {
  for (const std::string& l : lines_of(summary))
    if (l.rfind("| " + name + " ", 0) == 0) return l;
  ADD_FAILURE() << "no row " << name << " in\n" << summary;
  return "";
}

// Generated by torch 2.x's memory_summary (torch/cuda/memory.py; its
// _format_size and _format_count verbatim) fed make_snapshot()'s stats, with
// tessera's names and 24-wide metric column.
constexpr const char* kExpectedSummary = R"(|==============================================================================|
|                  tessera memory summary, device cpu                          |
|------------------------------------------------------------------------------|
|                    OOMs: 1            |      Device alloc retries: 3         |
|==============================================================================|
|          Metric          | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|------------------------------------------------------------------------------|
| Allocated memory         |   3072 KiB |   5120 MiB |   2048 GiB |   2047 GiB |
|       from large pool    |   3072 KiB |   5120 MiB |   2048 GiB |   2047 GiB |
|       from small pool    |      0 KiB |      0 MiB |      0 GiB |      0 GiB |
|------------------------------------------------------------------------------|
| Active memory            |   3074 KiB |    768 KiB | 786431 B   |      0 B   |
|       from large pool    |   3072 KiB |    768 KiB | 786431 B   |      0 B   |
|       from small pool    |      2 KiB |      0 KiB |      0 B   |      0 B   |
|------------------------------------------------------------------------------|
| Requested memory         |   3072 KiB |    100 B   |      1 B   |      0 B   |
|       from large pool    |   3071 KiB |      0 B   |      0 B   |      0 B   |
|       from small pool    |      1 KiB |    100 B   |      1 B   |      0 B   |
|------------------------------------------------------------------------------|
| Device reserved memory   |  22528 KiB |  22528 KiB |   3072 TiB |   3071 TiB |
|       from large pool    |  20480 KiB |  20480 KiB |      0 TiB |      0 TiB |
|       from small pool    |   2048 KiB |   2048 KiB |      0 TiB |      0 TiB |
|------------------------------------------------------------------------------|
| Non-releasable memory    |  19454 KiB |      0 B   |      0 B   |      0 B   |
|       from large pool    |  17408 KiB |      0 B   |      0 B   |      0 B   |
|       from small pool    |   2046 KiB |      0 B   |      0 B   |      0 B   |
|------------------------------------------------------------------------------|
| Allocations              |       2    |    1234 K  |     800 M  |     799 M  |
|       from large pool    |       1    |    1234 K  |     799 M  |     799 M  |
|       from small pool    |       1    |       0 K  |       0 M  |       0 M  |
|------------------------------------------------------------------------------|
| Active allocs            |       3    |  749999    |     750 K  |  749997    |
|       from large pool    |       1    |       1    |       0 K  |       0    |
|       from small pool    |       2    |  749998    |     749 K  |  749997    |
|------------------------------------------------------------------------------|
| Device reserved segments |       2    |       2    |       2    |       0    |
|       from large pool    |       1    |       1    |       1    |       0    |
|       from small pool    |       1    |       1    |       1    |       0    |
|------------------------------------------------------------------------------|
| Non-releasable allocs    |       2    |       3    |       4    |       2    |
|       from large pool    |       1    |       1    |       1    |       0    |
|       from small pool    |       1    |       2    |       3    |       2    |
|------------------------------------------------------------------------------|
| Oversize allocations     |       1    |       2    |       3    |       2    |
|------------------------------------------------------------------------------|
| Oversize device segments |       0    |       1    |    1000 K  |     999 K  |
|==============================================================================|
)";

TEST(MemorySummary, MatchesTorchsLayout) {
  EXPECT_EQ(summary_of(make_snapshot()), kExpectedSummary);
}

TEST(MemorySummary, EveryLineHasTheSameWidth) {
  for (const std::string& l : lines_of(summary_of(make_snapshot()))) {
    EXPECT_EQ(l.size(), 80u) << l;
    EXPECT_EQ(l.front(), '|');
    EXPECT_EQ(l.back(), '|');
  }
}

// torch's _format_size: units from the row's "all" value, 768 KiB and up
// move to the next unit, floor division.
TEST(MemorySummary, SizeFormatting) {
  std::string summary = summary_of(make_snapshot());
  // 3 MiB + 512 B: KiB (3145728 >= 768 KiB but 3072.5 KiB < 768 KiB), floored.
  EXPECT_NE(row_named(summary, "Allocated memory").find("|   3072 KiB |"), std::string::npos);
  // The small pool's 512 B shown in its total's unit.
  EXPECT_NE(row_named(summary, "      from small pool").find("|      0 KiB |"),
            std::string::npos);
  // 768 KiB - 1 stays in bytes; exactly 768 KiB becomes KiB.
  std::string active = row_named(summary, "Active memory");
  EXPECT_NE(active.find("|    768 KiB | 786431 B   |"), std::string::npos) << active;
}

TEST(MemorySummary, CountFormattingAndHeader) {
  std::string summary = summary_of(make_snapshot());
  // 750000 and up move to K, 750 K and up to M.
  EXPECT_NE(row_named(summary, "Active allocs").find("|  749999    |     750 K  |"),
            std::string::npos);
  EXPECT_NE(row_named(summary, "Allocations").find("|    1234 K  |     800 M  |"),
            std::string::npos);
  EXPECT_NE(summary.find("tessera memory summary, device cpu"), std::string::npos);
  EXPECT_NE(summary.find("OOMs: 1 "), std::string::npos);
  EXPECT_NE(summary.find("Device alloc retries: 3 "), std::string::npos);

  Snapshot s = make_snapshot();
  s.device = {TSR_DEVICE_CUDA, 3};
  EXPECT_NE(summary_of(s).find("tessera memory summary, device cuda:3 "), std::string::npos);
}

// Numbers wider than torch's fields push the line out, as Python's format
// does; nothing is cut.
TEST(MemorySummary, WideNumbersAreNotTruncated) {
  Snapshot s = make_snapshot();
  s.stats.all.num_ooms = 12345678901234;
  s.stats.all.num_alloc_retries = 123456789012;
  s.stats.all.segment.current = 123456789;  // 123456 K: 7 digits fit
  s.stats.all.oversize_segments.current = 749999999999;  // 749999 M
  std::string summary = summary_of(s);
  EXPECT_NE(summary.find("OOMs: 12345678901234 |"), std::string::npos);
  EXPECT_NE(summary.find("Device alloc retries: 123456789012  |"), std::string::npos);
  EXPECT_NE(row_named(summary, "Device reserved segments").find("|  123456 K  |"),
            std::string::npos);
  EXPECT_NE(row_named(summary, "Oversize device segments").find("|  749999 M  |"),
            std::string::npos);
}

TEST(MemorySummary, EmptyStats) {
  Snapshot s{};
  s.device = kCpu;
  std::string summary = summary_of(s);
  EXPECT_NE(row_named(summary, "Allocated memory").find("|      0 B   |      0 B   |"),
            std::string::npos);
  EXPECT_NE(row_named(summary, "Allocations").find("|       0    |       0    |"),
            std::string::npos);
}

}  // namespace
}  // namespace tsr::alloc
