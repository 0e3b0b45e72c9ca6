#include "snapshot_input.h"

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memviz {
namespace {

using nlohmann::json;

// "segments[2].blocks[0]" style paths, for messages.
std::string at(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string at(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// A short rendering of the offending value: enough to recognise it.
std::string shown(const json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " items";
  if (v.is_object()) return "an object";
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

[[noreturn]] void fail(const std::string& path, std::string_view expected, const json& got) {
  throw NotASnapshot(path + ": expected " + std::string(expected) + ", got " + shown(got));
}

const json* find(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// Optional fields: absent is fine, a wrong type is not.
void optional_uint(const json& obj, std::string_view key, const std::string& path) {
  if (const json* v = find(obj, key); v && !v->is_number_unsigned())
    fail(at(path, key), "a non-negative integer", *v);
}
void optional_int(const json& obj, std::string_view key, const std::string& path) {
  if (const json* v = find(obj, key); v && !v->is_number_integer())
    fail(at(path, key), "an integer", *v);
}
void optional_number(const json& obj, std::string_view key, const std::string& path) {
  if (const json* v = find(obj, key); v && !v->is_number()) fail(at(path, key), "a number", *v);
}
void optional_bool(const json& obj, std::string_view key, const std::string& path) {
  if (const json* v = find(obj, key); v && !v->is_boolean()) fail(at(path, key), "true or false", *v);
}
void optional_string(const json& obj, std::string_view key, const std::string& path) {
  if (const json* v = find(obj, key); v && !v->is_string()) fail(at(path, key), "a string", *v);
}
void optional_object(const json& obj, std::string_view key, const std::string& path) {
  if (const json* v = find(obj, key); v && !v->is_object()) fail(at(path, key), "an object", *v);
}

uint64_t required_uint(const json& obj, std::string_view key, const std::string& path) {
  const json* v = find(obj, key);
  if (!v) throw NotASnapshot(at(path, key) + ": missing");
  if (!v->is_number_unsigned()) fail(at(path, key), "a non-negative integer", *v);
  return v->get<uint64_t>();
}

std::string hex(uint64_t a) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

// Replaces an integer address with its hex string.
void address_to_hex(json& obj, std::string_view key, const std::string& path, bool required) {
  if (!required && !obj.contains(key)) return;
  obj[std::string(key)] = hex(required_uint(obj, key, path));
}

void check_block(json& b, const std::string& path, uint64_t& next_address) {
  if (!b.is_object()) fail(path, "a block object", b);
  uint64_t size = required_uint(b, "size", path);
  const json* state = find(b, "state");
  if (!state) throw NotASnapshot(at(path, "state") + ": missing");
  if (!state->is_string() ||
      (*state != "active_allocated" && *state != "active_pending_free" && *state != "inactive"))
    fail(at(path, "state"), "\"active_allocated\", \"active_pending_free\" or \"inactive\"", *state);
  optional_uint(b, "requested_size", path);
  if (b.contains("address")) next_address = required_uint(b, "address", path);
  b["address"] = hex(next_address);
  next_address += size;
}

void check_segment(json& s, const std::string& path) {
  if (!s.is_object()) fail(path, "a segment object", s);
  uint64_t address = required_uint(s, "address", path);
  required_uint(s, "total_size", path);
  for (const char* key : {"allocated_size", "active_size", "requested_size"}) optional_uint(s, key, path);
  optional_int(s, "device", path);
  optional_int(s, "stream", path);
  optional_string(s, "segment_type", path);
  optional_bool(s, "is_expandable", path);
  address_to_hex(s, "address", path, true);
  if (!s.contains("blocks")) return;
  json& blocks = s["blocks"];
  if (!blocks.is_array()) fail(at(path, "blocks"), "an array", blocks);
  uint64_t next = address;
  for (size_t i = 0; i < blocks.size(); ++i) check_block(blocks[i], at(at(path, "blocks"), i), next);
}

// Actions whose addr is a block's or a segment's address (oom's addr is the
// device's free bytes; snapshot's is 0).
bool addresses_memory(std::string_view action) {
  for (std::string_view a : {"alloc", "free_requested", "free_completed", "segment_alloc",
                             "segment_free", "segment_map", "segment_unmap"})
    if (action == a) return true;
  return false;
}

void check_entry(json& e, const std::string& path) {
  if (!e.is_object()) fail(path, "a trace entry object", e);
  const json* action = find(e, "action");
  if (!action) throw NotASnapshot(at(path, "action") + ": missing");
  if (!action->is_string()) fail(at(path, "action"), "a string", *action);
  if (addresses_memory(action->get<std::string>())) {
    required_uint(e, "size", path);
    address_to_hex(e, "addr", path, true);
  } else {
    optional_uint(e, "addr", path);
    optional_uint(e, "size", path);
  }
  optional_int(e, "stream", path);
  optional_int(e, "time_us", path);
  optional_string(e, "user_metadata", path);
}

void check_traces(json& traces) {
  if (!traces.is_array()) fail("device_traces", "an array of traces", traces);
  for (size_t d = 0; d < traces.size(); ++d) {
    std::string path = at("device_traces", d);
    if (!traces[d].is_array()) fail(path, "an array of trace entries", traces[d]);
    for (size_t i = 0; i < traces[d].size(); ++i) check_entry(traces[d][i], at(path, i));
  }
}

void check_settings(const json& s) {
  const std::string path = "allocator_settings";
  if (!s.is_object()) fail(path, "an object", s);
  optional_int(s, "max_split_size", path);
  optional_number(s, "garbage_collection_threshold", path);
  optional_bool(s, "expandable_segments", path);
  optional_string(s, "text", path);
  if (const json* d = find(s, "roundup_power2_divisions")) {
    if (!d->is_array()) fail(at(path, "roundup_power2_divisions"), "an array", *d);
    for (size_t i = 0; i < d->size(); ++i)
      if (!(*d)[i].is_number_unsigned())
        fail(at(at(path, "roundup_power2_divisions"), i), "a non-negative integer", (*d)[i]);
  }
}

void check_stats(const json& s) {
  if (!s.is_object()) fail("stats", "an object", s);
  for (const auto& [key, value] : s.items())
    if (!value.is_number()) fail(at("stats", key), "a number", value);
}

// A snapshot nests 5 levels deep; unknown fields may nest more, but not
// without bound: dump(), which writes the page, recurses.
constexpr int kMaxDepth = 100;

void check_depth(const json& root) {
  std::vector<std::pair<const json*, int>> todo{{&root, 1}};
  while (!todo.empty()) {
    auto [value, depth] = todo.back();
    todo.pop_back();
    if (depth > kMaxDepth)
      throw NotASnapshot("not a memory snapshot: nested more than " + std::to_string(kMaxDepth) +
                         " levels deep");
    if (value->is_structured())
      for (const json& child : *value) todo.emplace_back(&child, depth + 1);
  }
}

}  // namespace

void check_snapshot(json& snapshot) {
  check_depth(snapshot);
  if (!snapshot.is_object())
    throw NotASnapshot("not a memory snapshot: the top level is " +
                       std::string(snapshot.type_name()) + ", not an object");
  if (!snapshot.contains("segments"))
    throw NotASnapshot(
        "not a memory snapshot: it has no \"segments\" (expected the JSON written by "
        "tsr_memory_snapshot)");
  json& segments = snapshot["segments"];
  if (!segments.is_array()) fail("segments", "an array", segments);
  for (size_t i = 0; i < segments.size(); ++i) check_segment(segments[i], at("segments", i));

  if (snapshot.contains("device_traces")) check_traces(snapshot["device_traces"]);
  if (const json* s = find(snapshot, "allocator_settings")) check_settings(*s);
  if (const json* s = find(snapshot, "stats")) check_stats(*s);
  optional_object(snapshot, "device", "");
  if (const json* d = find(snapshot, "device")) {
    optional_string(*d, "type", "device");
    optional_int(*d, "index", "device");
    optional_string(*d, "name", "device");
  }
  optional_int(snapshot, "trace_max_entries", "");
  optional_int(snapshot, "memory_limit", "");
}

}  // namespace memviz
