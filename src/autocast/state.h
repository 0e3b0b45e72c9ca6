// Autocast's per-thread state: which device types autocast and to which
// lower precision (torch's AutocastCPU / AutocastCUDA dispatch keys and
// autocast dtypes), the stack of open regions, the cache switch.
#pragma once

#include <tessera/types.h>

namespace tsr::autocast {

// The device types that have autocast: CPU and CUDA.
bool has_autocast(tsr_device_type device_type);

// Opens a region (checks device type and dtype first: throws
// TSR_ERR_INVALID_ARGUMENT and changes nothing).
void begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled);
// Closes the innermost region; the outermost one clears the cast cache.
void end();

// One thread-local load: whether any device type autocasts now, so that
// every op pays a single branch when no region is open.
bool any_enabled();
bool enabled(tsr_device_type device_type);
tsr_dtype lower_precision(tsr_device_type device_type);

bool set_cache_enabled(bool enabled);
bool cache_enabled();

}  // namespace tsr::autocast
