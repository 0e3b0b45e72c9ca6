// Mapping between tessera dtypes and safetensors dtype names.
// Names and their order are those of the reference implementation's Dtype
// enum (huggingface/safetensors, safetensors/src/tensor.rs), whose writer
// orders tensors by that enum, largest alignment first.
#pragma once

#include <string_view>

#include <tessera/types.h>

namespace tsr::io {

// "F32" for TSR_FLOAT32, ...; every tessera dtype has one.
const char* st_dtype_name(tsr_dtype dtype);
// Position of the dtype in the reference's Dtype enum (BOOL = 0 ... U64 = 14).
// The reference writer sorts tensors by this, descending, then by name, so
// every tensor starts aligned to its element size.
int st_dtype_rank(tsr_dtype dtype);

enum class DtypeLookup { kFound, kUnsupported, kUnknown };
// Resolves a header's dtype string. kUnsupported: a dtype safetensors
// defines that tessera lacks (U16, U32, U64, the 8/6/4-bit floats, ...);
// kUnknown: not a safetensors dtype at all.
DtypeLookup st_dtype_from_name(std::string_view name, tsr_dtype* out);

}  // namespace tsr::io
