// The safetensors header: its parsed form, the parser (untrusted input),
// the layout validation and the writer's serialisation.
//
// Rules are the reference implementation's (huggingface/safetensors,
// safetensors/src/tensor.rs: read_metadata and Metadata::validate), made
// stricter where a lenient reading could hide a crafted file: duplicate
// keys are errors here (serde keeps the last one), and so are names or
// metadata holding NUL. Unknown fields of a tensor entry are ignored, as
// serde does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/types.h>

#include "core/shape.h"

namespace tsr::io {

// The reference's cap on the header length (MAX_HEADER_SIZE).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// The data buffer starts at a multiple of this (the reference pads the
// header with spaces to it).
constexpr uint64_t kHeaderAlign = 8;
// __metadata__ key that marks a compressed file, and its one known value.
constexpr const char* kCompressionKey = "tessera.compression";
constexpr const char* kCompressionZstd = "zstd";
// Format 0.2's chunked byte-plane codec (io/chunked_codec.h); files written
// with it also carry kFormatKey = kFormatPlanes. Files without the key are
// format 0.1 (plain or "zstd").
constexpr const char* kCompressionZstdPlanes = "zstd-planes";
constexpr const char* kFormatKey = "tessera.format";
constexpr const char* kFormatPlanes = "0.2";

struct TensorEntry {
  std::string name;
  tsr_dtype dtype;
  Shape shape;
  int64_t numel;   // product of shape, checked
  int64_t nbytes;  // numel * element size, checked
  uint64_t begin;  // data_offsets, bytes from the start of the data buffer
  uint64_t end;
};

struct Header {
  std::vector<TensorEntry> tensors;
  std::map<std::string, std::string> metadata;
};

// Parses header JSON. Throws TSR_ERR_CORRUPT_FILE for invalid JSON, a root
// that is not an object, duplicate keys, NUL in names or metadata, missing
// fields (unknown ones are skipped, whatever their value), values
// of the wrong type, an unknown dtype, shape entries outside [0, 2^63) or
// element/byte counts overflowing int64; TSR_ERR_UNSUPPORTED for a
// safetensors dtype tessera lacks or more than kMaxDims dims.
Header parse_header(std::string_view json);

// Sorts h.tensors into file order (by data_offsets, then name) and checks
// that they tile [0, buffer_bytes) exactly: every end >= begin, no gap, no
// overlap, nothing past buffer_bytes and nothing after the last tensor.
// Unless `compressed`, also end - begin == nbytes. TSR_ERR_CORRUPT_FILE
// naming the tensor and the numbers otherwise.
void validate_layout(Header& h, uint64_t buffer_bytes, bool compressed);

// The header text for h.tensors in their current order and h.metadata,
// compact JSON as serde_json writes it ("__metadata__" first if non-empty,
// then each tensor's dtype, shape, data_offsets), padded with spaces to a
// multiple of kHeaderAlign. Names and metadata must be valid UTF-8.
std::string serialize_header(const Header& h);

}  // namespace tsr::io
