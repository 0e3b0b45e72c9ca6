// torch.cuda.memory_summary() (torch/cuda/memory.py, PyTorch 2.x) for a
// snapshot: same rows, same number formatting (_format_size, _format_count),
// same separators. Names say "Device" where torch says "GPU"/"CUDA", and the
// metric column is 24 wide instead of 21 so "Device reserved segments" and
// "Oversize device segments" fit: every line is 78 characters, not 75.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "alloc/snapshot.h"
#include "core/device.h"

namespace tsr::alloc {
namespace {

constexpr int kNameWidth = 24;              // torch: 21
constexpr int kWidth = 75 + kNameWidth - 21;  // every line, between the outer '|'

// Python's // on integers (floor, also for negatives).
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// torch's _format_size: the unit is chosen from pref (the row's "all"
// value), so a pool's sub-rows use the same unit as their total.
std::string format_size(int64_t sz, int64_t pref) {
  static const char* kPrefixes[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const char* prefix = kPrefixes[0];
  double pref_sz = static_cast<double>(pref);
  for (size_t i = 1; i < std::size(kPrefixes); ++i) {
    if (pref_sz < 768 * 1024) break;
    prefix = kPrefixes[i];
    sz = floor_div(sz, 1024);
    pref_sz /= 1024;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%6lld %s", static_cast<long long>(sz), prefix);
  return buf;
}

// torch's _format_count.
std::string format_count(int64_t cnt, int64_t pref) {
  static const char* kPrefixes[] = {" ", "K", "M"};
  const char* prefix = kPrefixes[0];
  double pref_cnt = static_cast<double>(pref);
  for (size_t i = 1; i < std::size(kPrefixes); ++i) {
    if (pref_cnt < 750 * 1000) break;
    prefix = kPrefixes[i];
    cnt = floor_div(cnt, 1000);
    pref_cnt /= 1000;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%7lld %s ", static_cast<long long>(cnt), prefix);
  return buf;
}

using Formatter = std::string (*)(int64_t, int64_t);

// Python's "{:<N}": pad on the right, never truncate.
std::string left(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// Python's "{:>N}": pad on the left, never truncate.
std::string right(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// " {name:<24} | {cur} | {peak} | {alloc} | {freed} ", units from `pref`.
std::string row(const std::string& name, const Stat& s, const Stat& pref, Formatter f) {
  return " " + left(name, kNameWidth) + " | " + f(s.current, pref.current) + " | " +
         f(s.peak, pref.peak) + " | " + f(s.allocated, pref.allocated) + " | " +
         f(s.freed, pref.freed) + " ";
}

}  // namespace

std::string memory_summary(Device device, const DeviceStats& st) {
  std::vector<std::string> lines;
  const std::string rule(kWidth, '-');
  const std::string double_rule(kWidth, '=');

  lines.push_back(double_rule);
  // torch: " {_:16} PyTorch CUDA memory summary, device ID {device:<17d} ".
  const std::string title = "tessera memory summary, device ";
  lines.push_back(" " + std::string(16, ' ') + " " + title +
                  left(device_name(device), kWidth - 19 - title.size()) + " ");
  lines.push_back(rule);
  // torch: "  {_:9} CUDA OOMs: {:<12d} | {_:6} cudaMalloc retries: {:<8d}  ",
  // padded here so the '|' sits over the column separator it does in torch.
  const std::string ooms = "OOMs: " + left(std::to_string(st.all.num_ooms), 12);
  const std::string retries =
      "Device alloc retries: " + left(std::to_string(st.all.num_alloc_retries), 8);
  const size_t left_width = kNameWidth + 14;  // torch: 35
  lines.push_back(right(ooms, left_width) + " | " + right(retries, kWidth - left_width - 5) +
                  "  ");
  lines.push_back(double_rule);
  // torch: "        Metric         | Cur Usage  | ...", "Metric" centred.
  const int metric_pad = kNameWidth + 2 - 6;
  lines.push_back(std::string(metric_pad / 2, ' ') + "Metric" +
                  std::string(metric_pad - metric_pad / 2, ' ') +
                  "| Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");

  struct Metric {
    Stat MemoryStats::*stat;
    const char* name;
    Formatter format;
  };
  static const Metric kPooled[] = {
      {&MemoryStats::allocated_bytes, "Allocated memory", format_size},
      {&MemoryStats::active_bytes, "Active memory", format_size},
      {&MemoryStats::requested_bytes, "Requested memory", format_size},
      {&MemoryStats::reserved_bytes, "Device reserved memory", format_size},
      {&MemoryStats::inactive_split_bytes, "Non-releasable memory", format_size},
      {&MemoryStats::allocation, "Allocations", format_count},
      {&MemoryStats::active, "Active allocs", format_count},
      {&MemoryStats::segment, "Device reserved segments", format_count},
      {&MemoryStats::inactive_split, "Non-releasable allocs", format_count},
  };
  for (const Metric& m : kPooled) {
    const Stat& all = st.all.*m.stat;
    lines.push_back(rule);
    lines.push_back(row(m.name, all, all, m.format));
    lines.push_back(row("      from large pool", st.large_pool.*m.stat, all, m.format));
    lines.push_back(row("      from small pool", st.small_pool.*m.stat, all, m.format));
  }
  // Oversize: no pools, each value its own unit (torch passes (v, v)).
  static const Metric kOversize[] = {
      {&MemoryStats::oversize_allocations, "Oversize allocations", format_count},
      {&MemoryStats::oversize_segments, "Oversize device segments", format_count},
  };
  for (const Metric& m : kOversize) {
    const Stat& v = st.all.*m.stat;
    lines.push_back(rule);
    lines.push_back(row(m.name, v, v, m.format));
  }
  lines.push_back(double_rule);

  std::string out;
  for (const std::string& l : lines) out += "|" + l + "|\n";
  return out;
}

}  // namespace tsr::alloc
