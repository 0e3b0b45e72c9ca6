// The progress callback of a save or load (tsr_progress_fn in
// include/tessera/io.h): reports bytes done of a total and turns a
// cancelling return into an Error carrying the callback's status.
#pragma once

#include <cstdint>
#include <string>

#include <tessera/io.h>

namespace tsr::io {

struct Progress {
  tsr_progress_fn fn = nullptr;
  void* user_data = nullptr;
  // One part of a larger call (a shard): reports offset + done of whole
  // (when whole != 0) instead of done of total.
  uint64_t offset = 0;
  uint64_t whole = 0;

  explicit operator bool() const { return fn != nullptr; }
  // Calls fn(done, total); a status other than TSR_OK is thrown as
  // Error(status, "<what> cancelled by the progress callback at <done> of
  // <total> bytes (it returned <status name>)"). No-op without fn.
  void report(uint64_t done, uint64_t total, const std::string& what) const;
};

}  // namespace tsr::io
