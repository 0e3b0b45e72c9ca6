// The facts about a dtype that need no library call: validity, name and
// category. Inline and TSR_HOST_DEVICE, so libtessera.so, the CUDA plugin
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
  }
  return nullptr;
}

// float16, bfloat16, float32, float64.
TSR_HOST_DEVICE inline bool is_floating(tsr_dtype d) {
  return d == TSR_FLOAT16 || d == TSR_BFLOAT16 || d == TSR_FLOAT32 || d == TSR_FLOAT64;
}

}  // namespace tsr
