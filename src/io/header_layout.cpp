// Layout validation (the reference's Metadata::validate plus its
// "buffer_end + 8 + n == buffer_len" check) and header serialisation.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/dtype.h"
#include "core/error.h"
#include "io/header.h"
#include "io/quote.h"
#include "io/st_dtype.h"

namespace tsr::io {

void validate_layout(Header& h, uint64_t buffer_bytes, bool compressed) {
  auto& ts = h.tensors;
  // File order. Only empty tensors can share (begin, end); the name makes
  // the order total, so it never depends on how the header listed them.
  std::sort(ts.begin(), ts.end(), [](const TensorEntry& a, const TensorEntry& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.name < b.name;
  });
  uint64_t expected = 0;  // where the next tensor must begin
  const std::string* prev = nullptr;
  for (const TensorEntry& e : ts) {
    if (e.end < e.begin)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " has data_offsets [", e.begin, ", ",
           e.end, "]: end before begin");
    if (e.begin > expected)
      fail(TSR_ERR_CORRUPT_FILE, "gap of ", e.begin - expected, " bytes before tensor ",
           json_quoted(e.name), " (data_offsets [", e.begin, ", ", e.end, "]; ",
           prev ? str("previous tensor ", json_quoted(*prev), " ends at ") : std::string("buffer starts at "),
           expected, ")");
    if (e.begin < expected)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " (data_offsets [", e.begin, ", ", e.end,
           "]) overlaps tensor ", json_quoted(*prev), ", which ends at ", expected);
    if (e.end > buffer_bytes)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " data_offsets [", e.begin, ", ", e.end,
           "] run past the end of the ", buffer_bytes, "-byte data buffer");
    if (!compressed && e.end - e.begin != uint64_t(e.nbytes))
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), ": ", st_dtype_name(e.dtype), " shape ",
           e.shape, " needs ", e.nbytes, " bytes but data_offsets [", e.begin, ", ", e.end,
           "] hold ", e.end - e.begin);
    expected = e.end;
    prev = &e.name;
  }
  if (expected != buffer_bytes)
    fail(TSR_ERR_CORRUPT_FILE, "the data buffer is ", buffer_bytes, " bytes but the tensors end at ",
         expected, " (", buffer_bytes - expected, " trailing bytes)");
}

std::string serialize_header(const Header& h) {
  std::string out = "{";
  bool first = true;
  if (!h.metadata.empty()) {
    out += "\"__metadata__\":{";
    bool first_kv = true;
    for (const auto& [k, v] : h.metadata) {
      if (!first_kv) out += ',';
      out += json_quoted(k) + ':' + json_quoted(v);
      first_kv = false;
    }
    out += '}';
    first = false;
  }
  for (const TensorEntry& e : h.tensors) {
    if (!first) out += ',';
    first = false;
    out += json_quoted(e.name);
    out += ":{\"dtype\":\"";
    out += st_dtype_name(e.dtype);
    out += "\",\"shape\":[";
    for (size_t i = 0; i < e.shape.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(e.shape[i]);
    }
    out += "],\"data_offsets\":[" + std::to_string(e.begin) + ',' + std::to_string(e.end) + "]}";
  }
  out += '}';
  out.append((kHeaderAlign - out.size() % kHeaderAlign) % kHeaderAlign, ' ');
  return out;
}

}  // namespace tsr::io
