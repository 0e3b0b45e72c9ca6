#include "io/st_dtype.h"

#include "core/error.h"

namespace tsr::io {

namespace {
struct Row {
  tsr_dtype dtype;
  const char* name;
  int rank;  // position in safetensors' Dtype enum
};
// Ranks: BOOL 0, U8 1, I8 2, F8_E5M2 3, F8_E4M3 4, I16 5, U16 6, F16 7,
// BF16 8, I32 9, U32 10, F32 11, F64 12, I64 13, U64 14.
constexpr Row kRows[] = {
    {TSR_BOOL, "BOOL", 0},   {TSR_UINT8, "U8", 1},    {TSR_INT8, "I8", 2},
    {TSR_INT16, "I16", 5},   {TSR_FLOAT16, "F16", 7}, {TSR_BFLOAT16, "BF16", 8},
    {TSR_INT32, "I32", 9},   {TSR_FLOAT32, "F32", 11}, {TSR_FLOAT64, "F64", 12},
    {TSR_INT64, "I64", 13},  {TSR_FLOAT8_E5M2, "F8_E5M2", 3},
    {TSR_FLOAT8_E4M3FN, "F8_E4M3", 4}, {TSR_UINT16, "U16", 6},
    {TSR_UINT32, "U32", 10}, {TSR_UINT64, "U64", 14},
};
// Defined by safetensors (current and past releases), absent in tessera.
constexpr const char* kUnsupported[] = {"F8_E8M0", "F6_E2M3", "F6_E3M2", "F4", "C64"};

const Row& row_of(tsr_dtype dtype) {
  for (const Row& r : kRows)
    if (r.dtype == dtype) return r;
  fail(TSR_ERR_INTERNAL, "no safetensors name for dtype ", int(dtype));
}
}  // namespace

const char* st_dtype_name(tsr_dtype dtype) { return row_of(dtype).name; }
int st_dtype_rank(tsr_dtype dtype) { return row_of(dtype).rank; }

DtypeLookup st_dtype_from_name(std::string_view name, tsr_dtype* out) {
  for (const Row& r : kRows) {
    if (name == r.name) {
      *out = r.dtype;
      return DtypeLookup::kFound;
    }
  }
  for (const char* u : kUnsupported)
    if (name == u) return DtypeLookup::kUnsupported;
  return DtypeLookup::kUnknown;
}

}  // namespace tsr::io
