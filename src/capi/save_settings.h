// tsr_save_options read up to the caller's struct_size and checked, as
// io::SaveSettings (shared by tsr_save and tsr_saver_open).
#pragma once

#include <tessera/io.h>

#include "io/save.h"

namespace tsr::capi {

// opts NULL: the defaults. TSR_ERR_INVALID_ARGUMENT as documented at
// tsr_save (struct_size, compression, n_metadata, NULL or duplicate keys,
// negative max_shard_size).
io::SaveSettings save_settings(const tsr_save_options* opts);

}  // namespace tsr::capi
