// Structs that cross the ABI (options in, statistics out) begin with
// size_t struct_size and grow only by appending fields (c-api.md). A caller
// compiled against an older header passes its smaller struct: the library
// reads or writes only the struct_size bytes the caller has, and defaults
// the fields past them. A caller compiled against a newer header passes a
// larger struct: the library uses the fields it knows.
//
// The smallest struct_size accepted is the end of the first field after
// struct_size (TSR_FIRST_VERSION_SIZE): a struct_size that does not even
// cover it (0, sizeof(size_t), garbage) is a caller's mistake, not an older
// version, and TSR_ERR_INVALID_ARGUMENT.
//
// A field appended later must start at or past the previous version's
// sizeof: an old caller's trailing padding would be read as that field.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/error.h"

// Bytes up to the end of `field`, the first field after struct_size: the
// smallest struct_size accepted for S.
#define TSR_FIRST_VERSION_SIZE(S, field) (offsetof(S, field) + sizeof(((S*)nullptr)->field))

namespace tsr::capi {

// TSR_ERR_INVALID_ARGUMENT unless struct_size >= min_size. The message names
// `what` (say "save options") and the struct's type.
inline void check_struct_size(size_t struct_size, size_t min_size, size_t current_size,
                              const char* what, const char* type) {
  TSR_CHECK(struct_size >= min_size, TSR_ERR_INVALID_ARGUMENT, what, "->struct_size is ",
            struct_size, ", expected at least ", min_size, " (set it to sizeof(", type, "), ",
            current_size, " in this library)");
}

// The caller's options: `defaults` with the caller's first
// min(struct_size, sizeof(S)) bytes copied over them; struct_size of the
// result is sizeof(S). Throws, having read nothing past struct_size, when
// struct_size < min_size.
template <typename S>
S read_struct(const S* in, const S& defaults, size_t min_size, const char* what,
              const char* type) {
  check_struct_size(in->struct_size, min_size, sizeof(S), what, type);
  S out = defaults;
  std::memcpy(static_cast<void*>(&out), in, std::min(in->struct_size, sizeof(S)));
  out.struct_size = sizeof(S);
  return out;
}

// Writes `value` into the caller's struct: its first min(out->struct_size,
// sizeof(S)) bytes, struct_size set to that count, so that a caller built
// against a newer header can tell which fields this library filled. Bytes
// past them stay as they were. Throws, having written nothing, when
// struct_size < min_size.
template <typename S>
void write_struct(S* out, S value, size_t min_size, const char* what, const char* type) {
  check_struct_size(out->struct_size, min_size, sizeof(S), what, type);
  const size_t n = std::min(out->struct_size, sizeof(S));
  value.struct_size = n;
  std::memcpy(static_cast<void*>(out), &value, n);
}

}  // namespace tsr::capi
