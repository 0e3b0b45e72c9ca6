// UTF-8 validation for names and metadata written into a safetensors header.
// The header is JSON and JSON text must be UTF-8 (RFC 8259 §8.1); nlohmann
// and serde_json both reject ill-formed sequences, so the writer refuses
// them up front with a precise message instead of writing an unreadable file.
#pragma once

#include <cstddef>
#include <string_view>

namespace tsr::io {

// Byte offset of the first ill-formed sequence in s (overlong forms,
// surrogates, code points above U+10FFFF and truncated sequences count as
// ill-formed, per Unicode §3.9 Table 3-7), or npos if s is valid UTF-8.
size_t first_invalid_utf8(std::string_view s);

}  // namespace tsr::io
