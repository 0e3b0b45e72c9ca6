#include "profiler/chrome_trace.h"

#include <algorithm>
#include <set>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/device.h"
#include "io/posix_file.h"

namespace tsr::profiler {

namespace {

// Device tracks' pids: above Linux's pid_max (2^22).
constexpr int64_t kDevicePidBase = int64_t(1) << 32;

const char* format_name(int f) {
  switch (f) {
    case TSR_CONTIGUOUS_FORMAT: return "contiguous_format";
    case TSR_CHANNELS_LAST: return "channels_last";
    case TSR_CHANNELS_LAST_3D: return "channels_last_3d";
    case TSR_PRESERVE_FORMAT: return "preserve_format";
    default: return "";  // an undefined input
  }
}

}  // namespace

std::string chrome_trace_json(const Result& r) {
  std::vector<const Event*> order;
  order.reserve(r.events.size());
  for (const Event& e : r.events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const Event* a, const Event* b) { return a->start_ns < b->start_ns; });
  const int64_t pid = int64_t(::getpid());
  nlohmann::json events = nlohmann::json::array();
  for (const Event* e : order) {
    nlohmann::json args = {{"Device", device_name(e->device)}, {"Backward", e->backward}};
    if (r.options.record_shapes) {
      nlohmann::json dims = nlohmann::json::array(), strides = nlohmann::json::array(),
                     formats = nlohmann::json::array();
      for (size_t i = 0; i < e->sizes.size(); ++i) {
        dims.push_back(std::vector<int64_t>(e->sizes[i].begin(), e->sizes[i].end()));
        strides.push_back(std::vector<int64_t>(e->strides[i].begin(), e->strides[i].end()));
        formats.push_back(format_name(e->formats[i]));
      }
      args["Input Dims"] = std::move(dims);
      args["Input Strides"] = std::move(strides);
      args["Memory Formats"] = std::move(formats);
    }
    if (r.options.profile_memory) {
      args["Bytes Allocated"] = e->mem_bytes;
      args["Self Bytes Allocated"] = e->mem_bytes - e->child_mem;
    }
    events.push_back({{"ph", "X"},
                      {"cat", e->user ? "user_annotation" : e->backward ? "backward" : "cpu_op"},
                      {"name", e->name},
                      {"pid", pid},
                      {"tid", e->tid},
                      {"ts", double(e->start_ns) / 1e3},
                      {"dur", double(e->dur_ns) / 1e3},
                      {"args", std::move(args)}});
  }
  // CUDA activity: each op's device time on its own track, one process per
  // device and one thread per stream, as kineto lays out GPU rows (named by
  // "M" metadata events; the pid is past any real one).
  std::set<std::pair<int64_t, int64_t>> tracks;
  for (const Event* e : order) {
    if (e->device_ns < 0) continue;
    const int64_t device_pid = kDevicePidBase + e->device.index;
    tracks.insert({device_pid, e->stream_id});
    events.push_back({{"ph", "X"},
                      {"cat", "kernel"},
                      {"name", e->name},
                      {"pid", device_pid},
                      {"tid", e->stream_id},
                      {"ts", double(e->device_start_ns) / 1e3},
                      {"dur", double(e->device_ns) / 1e3},
                      {"args", {{"Device", device_name(e->device)}, {"stream", e->stream_id}}}});
  }
  for (const auto& [device_pid, stream] : tracks) {
    const std::string device = "CUDA " + std::to_string(device_pid - kDevicePidBase);
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", device_pid}, {"args", {{"name", device}}}});
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", device_pid},
                      {"tid", stream},
                      {"args", {{"name", "stream " + std::to_string(stream)}}}});
  }
  nlohmann::json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  return doc.dump();
}

void export_chrome_trace(const Result& r, const std::string& path) {
  const std::string text = chrome_trace_json(r);
  io::AtomicWriter w(path);
  w.write(text.data(), text.size());
  w.commit();
}

}  // namespace tsr::profiler
