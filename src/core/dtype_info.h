// The facts about a dtype that need no library call: validity, name, size
// and category. Inline and TSR_HOST_DEVICE, so libtessera.so, the CUDA plugin
// (which may use only header-only tessera code) and its device functors
// all read the same table. core/dtype.h includes it.
#pragma once

#include <tessera/types.h>

#include "core/host_device.h"

namespace tsr {

TSR_HOST_DEVICE inline bool is_valid_dtype(int d) {
  switch (d) {
    case TSR_BOOL: case TSR_UINT8: case TSR_INT8: case TSR_INT16: case TSR_INT32:
    case TSR_INT64: case TSR_FLOAT16: case TSR_BFLOAT16: case TSR_FLOAT32: case TSR_FLOAT64:
    case TSR_UINT16: case TSR_UINT32: case TSR_UINT64: case TSR_FLOAT8_E4M3FN:
    case TSR_FLOAT8_E5M2:
      return true;
  }
  return false;
}

// "float32"; nullptr for a value outside the enum.
TSR_HOST_DEVICE inline const char* dtype_name(tsr_dtype d) {
  switch (d) {
    case TSR_BOOL: return "bool";
    case TSR_UINT8: return "uint8";
    case TSR_INT8: return "int8";
    case TSR_INT16: return "int16";
    case TSR_INT32: return "int32";
    case TSR_INT64: return "int64";
    case TSR_FLOAT16: return "float16";
    case TSR_BFLOAT16: return "bfloat16";
    case TSR_FLOAT32: return "float32";
    case TSR_FLOAT64: return "float64";
    case TSR_UINT16: return "uint16";
    case TSR_UINT32: return "uint32";
    case TSR_UINT64: return "uint64";
    case TSR_FLOAT8_E4M3FN: return "float8_e4m3fn";
    case TSR_FLOAT8_E5M2: return "float8_e5m2";
  }
  return nullptr;
}

// Bytes per element; 0 for a value outside the enum (core/dtype.h's
// element_size refuses those).
TSR_HOST_DEVICE inline int element_bytes(tsr_dtype d) {
  switch (d) {
    case TSR_BOOL: case TSR_UINT8: case TSR_INT8: case TSR_FLOAT8_E4M3FN: case TSR_FLOAT8_E5M2:
      return 1;
    case TSR_INT16: case TSR_FLOAT16: case TSR_BFLOAT16: case TSR_UINT16: return 2;
    case TSR_INT32: case TSR_FLOAT32: case TSR_UINT32: return 4;
    case TSR_INT64: case TSR_FLOAT64: case TSR_UINT64: return 8;
  }
  return 0;
}

// The storage-only dtypes (uint16/32/64, float8_e4m3fn, float8_e5m2): they
// can be created, viewed, copied, converted, printed, saved and loaded, but
// no math op takes them (as in PyTorch, which has barely any kernels for
// them). dispatch_all refuses them with TSR_ERR_UNSUPPORTED.
TSR_HOST_DEVICE inline bool is_storage_only(tsr_dtype d) {
  return d == TSR_UINT16 || d == TSR_UINT32 || d == TSR_UINT64 || d == TSR_FLOAT8_E4M3FN ||
         d == TSR_FLOAT8_E5M2;
}

// float8_e4m3fn, float8_e5m2 (not counted by is_floating: no math takes them).
TSR_HOST_DEVICE inline bool is_float8(tsr_dtype d) {
  return d == TSR_FLOAT8_E4M3FN || d == TSR_FLOAT8_E5M2;
}

// float16, bfloat16, float32, float64: the floating types math ops take.
TSR_HOST_DEVICE inline bool is_floating(tsr_dtype d) {
  return d == TSR_FLOAT16 || d == TSR_BFLOAT16 || d == TSR_FLOAT32 || d == TSR_FLOAT64;
}

}  // namespace tsr
