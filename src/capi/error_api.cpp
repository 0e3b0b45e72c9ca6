// Thread-local error state, status names, versions.
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include <tessera/error.h>
#include <tessera/version.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/dtype.h"
#include "core/error.h"

namespace tsr::capi {
namespace {
thread_local tsr_status t_code = TSR_OK;
thread_local std::string t_message;
}  // namespace

void set_last_error(tsr_status status, const char* message) noexcept {
  t_code = status;
  try {
    t_message = message;
  } catch (...) {
    t_message.clear();  // keeps the code; the message could not be stored
  }
}

tsr_status status_from_current_exception() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    set_last_error(e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_last_error(TSR_ERR_OUT_OF_MEMORY, "out of memory (std::bad_alloc)");
    return TSR_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(TSR_ERR_INTERNAL, (std::string("internal error: ") + e.what()).c_str());
    return TSR_ERR_INTERNAL;
  } catch (...) {
    set_last_error(TSR_ERR_INTERNAL, "internal error: unknown exception");
    return TSR_ERR_INTERNAL;
  }
}

}  // namespace tsr::capi

TSR_EXTERN tsr_status tsr_last_error_code(void) { return tsr::capi::t_code; }
TSR_EXTERN const char* tsr_last_error_message(void) { return tsr::capi::t_message.c_str(); }
TSR_EXTERN void tsr_clear_last_error(void) {
  tsr::capi::t_code = TSR_OK;
  tsr::capi::t_message.clear();
}

TSR_EXTERN const char* tsr_status_name(tsr_status status) {
  switch (tsr::capi::enum_arg(status)) {  // any int may arrive from C
    case TSR_OK: return "TSR_OK";
    case TSR_ERR_INVALID_ARGUMENT: return "TSR_ERR_INVALID_ARGUMENT";
    case TSR_ERR_SHAPE_MISMATCH: return "TSR_ERR_SHAPE_MISMATCH";
    case TSR_ERR_DTYPE_MISMATCH: return "TSR_ERR_DTYPE_MISMATCH";
    case TSR_ERR_DEVICE_MISMATCH: return "TSR_ERR_DEVICE_MISMATCH";
    case TSR_ERR_OUT_OF_MEMORY: return "TSR_ERR_OUT_OF_MEMORY";
    case TSR_ERR_NOT_VIEWABLE: return "TSR_ERR_NOT_VIEWABLE";
    case TSR_ERR_AUTOGRAD: return "TSR_ERR_AUTOGRAD";
    case TSR_ERR_IO: return "TSR_ERR_IO";
    case TSR_ERR_CORRUPT_FILE: return "TSR_ERR_CORRUPT_FILE";
    case TSR_ERR_UNSUPPORTED: return "TSR_ERR_UNSUPPORTED";
    case TSR_ERR_INTERNAL: return "TSR_ERR_INTERNAL";
    case TSR_ERR_INDEX_OUT_OF_RANGE: return "TSR_ERR_INDEX_OUT_OF_RANGE";
    case TSR_ERR_CANCELLED: return "TSR_ERR_CANCELLED";
    case TSR_ERR_DISTRIBUTED: return "TSR_ERR_DISTRIBUTED";
  }
  return "TSR_UNKNOWN_STATUS";
}

TSR_EXTERN const char* tsr_dtype_name(tsr_dtype dtype) {
  int d = tsr::capi::enum_arg(dtype);  // any int may arrive from C
  return tsr::is_valid_dtype(d) ? tsr::dtype_name(tsr_dtype(d)) : nullptr;
}
TSR_EXTERN void tsr_free_string(char* s) { std::free(s); }

#define TSR_STR2(x) #x
#define TSR_STR(x) TSR_STR2(x)
TSR_EXTERN int32_t tsr_version_number(void) { return TSR_VERSION_NUMBER; }
TSR_EXTERN const char* tsr_version_string(void) {
  return TSR_STR(TSR_VERSION_MAJOR) "." TSR_STR(TSR_VERSION_MINOR) "." TSR_STR(TSR_VERSION_PATCH);
}

TSR_EXTERN tsr_status tsr_set_last_error(tsr_status status, const char* message) {
  const int code = tsr::capi::enum_arg(status);  // any int may arrive from C
  if (code < TSR_ERR_INVALID_ARGUMENT || code > TSR_ERR_DISTRIBUTED) {
    tsr::capi::set_last_error(TSR_ERR_INVALID_ARGUMENT,
                              "tsr_set_last_error: status must be a failure status (TSR_ERR_...)");
    return TSR_ERR_INVALID_ARGUMENT;
  }
  tsr::capi::set_last_error(status, message ? message : "");
  return TSR_OK;
}
