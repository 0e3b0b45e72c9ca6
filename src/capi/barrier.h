// The exception barrier every C entry point goes through: runs the body,
// turns any C++ exception into a tsr_status and records the thread-local
// message. Nothing unwinds across extern "C".
#pragma once

#include <tessera/types.h>

namespace tsr::capi {

void set_last_error(tsr_status status, const char* message) noexcept;
// Records the active exception (call only inside a catch block).
tsr_status status_from_current_exception() noexcept;

template <typename Fn>
tsr_status guarded(Fn&& body) noexcept {
  try {
    body();
    return TSR_OK;
  } catch (...) {
    return status_from_current_exception();
  }
}

// For queries that return a value: on failure records the error and returns
// `fallback`.
template <typename R, typename Fn>
R guarded_value(R fallback, Fn&& body) noexcept {
  try {
    return body();
  } catch (...) {
    status_from_current_exception();
    return fallback;
  }
}

}  // namespace tsr::capi

// Marks a function as part of the C ABI.
#define TSR_EXTERN extern "C" TSR_API
