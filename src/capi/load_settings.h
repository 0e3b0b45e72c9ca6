// What tsr_load and tsr_open_file share at the ABI: tsr_load_options read
// up to the caller's struct_size and turned into io::LoadSettings, and the
// position check of their list accessors.
#pragma once

#include <tessera/io.h>

#include "capi/handles.h"
#include "capi/struct_size.h"
#include "io/load.h"

namespace tsr::capi {

// opts NULL: the defaults. TSR_ERR_INVALID_ARGUMENT for a struct_size that
// does not cover max_bytes or a negative max_bytes.
inline io::LoadSettings load_settings(const tsr_load_options* opts) {
  io::LoadSettings settings;
  if (!opts) return settings;
  const tsr_load_options o =
      read_struct(opts, tsr_load_options TSR_LOAD_OPTIONS_INIT,
                  TSR_FIRST_VERSION_SIZE(tsr_load_options, max_bytes), "load options",
                  "tsr_load_options");
  TSR_CHECK(o.max_bytes >= 0, TSR_ERR_INVALID_ARGUMENT, "max_bytes is ", o.max_bytes,
            " (0 means the default limit, TSR_LOAD_MAX_BYTES_UNLIMITED none)");
  settings.max_bytes = o.max_bytes;
  settings.verify_checksums = o.skip_checksums == 0;
  settings.progress.fn = o.progress;
  settings.progress.user_data = o.progress_user_data;
  return settings;
}

// i as a position in a list of `count` entries; TSR_ERR_INDEX_OUT_OF_RANGE
// naming `what` otherwise.
inline size_t checked_index(int64_t i, size_t count, const char* what) {
  TSR_CHECK(i >= 0 && uint64_t(i) < count, TSR_ERR_INDEX_OUT_OF_RANGE, what, " index ", i,
            " is out of range for ", count, " entries");
  return size_t(i);
}

}  // namespace tsr::capi
