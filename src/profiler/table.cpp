// The layout is torch/autograd/profiler_util.py's _build_table (1.13):
// right-aligned columns, the name column as wide as the longest name + 4
// (at most 55, longer names cut to 52 characters and "..."), 12 for the
// numbers, 2 spaces between, a dashed rule above and below the header and
// at the end, then "Self CPU time total: ...". Times are microseconds
// printed by _format_time, memory by _format_memory.
//
// CUDA activity: the Self CUDA, Self CUDA %, CUDA total and CUDA time avg
// columns when an event has device time, and "Self CUDA time total: ...".
// Kineto lists each kernel as its own row and sums those; tessera times
// each op's launches with device events (recorder.h), so the op rows carry
// the device time and the total sums their self device time.
#include "profiler/table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/error.h"

namespace tsr::profiler {

namespace {

struct Row {
  std::string name, shapes;
  int64_t count = 0;
  double self_us = 0, total_us = 0;
  double self_cuda_us = 0, cuda_us = 0;
  int64_t cpu_mem = 0, self_cpu_mem = 0, dev_mem = 0, self_dev_mem = 0;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string format_time(double us) {
  if (us >= 1e6) return fmt("%.3fs", us / 1e6);
  if (us >= 1e3) return fmt("%.3fms", us / 1e3);
  return fmt("%.3fus", us);
}

std::string format_memory(int64_t b) {
  const double kb = 1024, mb = kb * 1024, gb = mb * 1024;
  const double a = std::abs(double(b));
  if (a >= gb) return fmt("%.2f Gb", double(b) / gb);
  if (a >= mb) return fmt("%.2f Mb", double(b) / mb);
  if (a >= kb) return fmt("%.2f Kb", double(b) / kb);
  return std::to_string(b) + " b";
}

std::string format_share(double us, double total) {
  if (total == 0) return "NaN";
  return fmt("%.2f%%", us * 100.0 / total);
}

// Python's str() of the list of input shapes: "[[64, 32], [16, 32], []]".
std::string shapes_string(const Event& e) {
  std::string s = "[";
  for (size_t i = 0; i < e.sizes.size(); ++i) {
    if (i) s += ", ";
    s += "[";
    for (size_t d = 0; d < e.sizes[i].size(); ++d) {
      if (d) s += ", ";
      s += std::to_string(e.sizes[i][d]);
    }
    s += "]";
  }
  return s + "]";
}

double sort_value(const Row& r, std::string_view key) {
  if (key == "self_cpu_time_total") return r.self_us;
  if (key == "cpu_time_total") return r.total_us;
  if (key == "cpu_time") return r.total_us / double(r.count);
  if (key == "self_cuda_time_total") return r.self_cuda_us;
  if (key == "cuda_time_total") return r.cuda_us;
  if (key == "cuda_time") return r.cuda_us / double(r.count);
  if (key == "count") return double(r.count);
  if (key == "cpu_memory_usage") return double(r.cpu_mem);
  if (key == "self_cpu_memory_usage") return double(r.self_cpu_mem);
  if (key == "cuda_memory_usage") return double(r.dev_mem);
  if (key == "self_cuda_memory_usage") return double(r.self_dev_mem);
  fail(TSR_ERR_INVALID_ARGUMENT, "sort_by \"", key, "\" is not one of self_cpu_time_total, cpu_time_total, ",
       "cpu_time, self_cuda_time_total, cuda_time_total, cuda_time, count, cpu_memory_usage, ",
       "self_cpu_memory_usage, cuda_memory_usage, self_cuda_memory_usage");
}

}  // namespace

std::string table(const Result& r, std::string_view sort_by, int64_t row_limit, bool group_by_input_shape) {
  if (sort_by.empty()) sort_by = "self_cpu_time_total";
  sort_value(Row{"", "", 1}, sort_by);  // an unknown key fails before any work
  // key_averages: one row per name (and shapes), in order of first appearance
  // (events are kept in completion order; sort by start for appearance).
  std::vector<const Event*> order;
  order.reserve(r.events.size());
  for (const Event& e : r.events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const Event* a, const Event* b) { return a->start_ns < b->start_ns; });
  const bool by_shapes = r.options.record_shapes && group_by_input_shape;
  std::vector<Row> rows;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const Event* e : order) {
    std::string shapes = by_shapes ? shapes_string(*e) : std::string();
    auto [it, fresh] = index.try_emplace({e->name, shapes}, rows.size());
    if (fresh) rows.push_back(Row{e->name, shapes});
    Row& row = rows[it->second];
    row.count += 1;
    row.total_us += double(e->dur_ns) / 1e3;
    row.self_us += double(e->dur_ns - e->child_ns) / 1e3;
    if (e->device_ns >= 0) {
      row.cuda_us += double(e->device_ns) / 1e3;
      // Gaps between the children's launches count as the parent's own.
      row.self_cuda_us += double(std::max<int64_t>(0, e->device_ns - e->child_device_ns)) / 1e3;
    }
    const bool cpu = e->device.type == TSR_DEVICE_CPU;
    (cpu ? row.cpu_mem : row.dev_mem) += e->mem_bytes;
    (cpu ? row.self_cpu_mem : row.self_dev_mem) += e->mem_bytes - e->child_mem;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& a, const Row& b) { return sort_value(a, sort_by) > sort_value(b, sort_by); });
  if (rows.empty()) return "";

  const bool memory = r.options.profile_memory;
  bool dev_mem = false, cuda_time = false;
  for (const Row& row : rows) {
    dev_mem |= row.self_dev_mem > 0;
    cuda_time |= row.self_cuda_us > 0;
  }
  bool has_shapes = false;
  for (const Row& row : rows) has_shapes |= by_shapes && row.shapes != "[]";

  size_t name_w = 0, shapes_w = 0;
  for (const Row& row : rows) {
    name_w = std::max(name_w, row.name.size() + 4);
    shapes_w = std::max(shapes_w, row.shapes.size() + 4);
  }
  name_w = std::min<size_t>(name_w, 55);
  shapes_w = std::min<size_t>(shapes_w, 80);

  std::vector<std::string> headers = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
  if (cuda_time) headers.insert(headers.end(), {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"});
  if (memory) {
    headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
    if (dev_mem) headers.insert(headers.end(), {"CUDA Mem", "Self CUDA Mem"});
  }
  headers.push_back("# of Calls");
  std::vector<size_t> widths(headers.size(), 12);
  widths[0] = name_w;
  if (has_shapes) {
    headers.push_back("Input Shapes");
    widths.push_back(shapes_w);
  }

  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].size() < widths[i]) out << std::string(widths[i] - cells[i].size(), ' ');
      out << cells[i] << "  ";
    }
    out << '\n';
  };
  std::string rule;
  for (size_t w : widths) rule += std::string(w, '-') + "  ";
  rule += '\n';

  double sum_self = 0, sum_self_cuda = 0;
  for (const Row& row : rows) {
    sum_self += row.self_us;
    sum_self_cuda += row.self_cuda_us;
  }

  out << rule;
  line(headers);
  out << rule;
  int64_t shown = 0;
  for (const Row& row : rows) {
    if (shown == row_limit) break;
    ++shown;
    std::string name = row.name;
    if (name.size() >= 52) name = name.substr(0, 52) + "...";
    std::vector<std::string> cells = {name,
                                      format_share(row.self_us, sum_self),
                                      format_time(row.self_us),
                                      format_share(row.total_us, sum_self),
                                      format_time(row.total_us),
                                      format_time(row.total_us / double(row.count))};
    if (cuda_time) {
      cells.push_back(format_time(row.self_cuda_us));
      cells.push_back(format_share(row.self_cuda_us, sum_self_cuda));
      cells.push_back(format_time(row.cuda_us));
      cells.push_back(format_time(row.cuda_us / double(row.count)));
    }
    if (memory) {
      cells.push_back(format_memory(row.cpu_mem));
      cells.push_back(format_memory(row.self_cpu_mem));
      if (dev_mem) {
        cells.push_back(format_memory(row.dev_mem));
        cells.push_back(format_memory(row.self_dev_mem));
      }
    }
    cells.push_back(std::to_string(row.count));
    if (has_shapes) cells.push_back(row.shapes.substr(0, shapes_w));
    line(cells);
  }
  out << rule;
  out << "Self CPU time total: " << format_time(sum_self) << '\n';
  if (cuda_time) out << "Self CUDA time total: " << format_time(sum_self_cuda) << '\n';
  return out.str();
}

}  // namespace tsr::profiler
