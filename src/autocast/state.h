// Autocast's per-thread state: which device types autocast and to which
// lower precision (torch's AutocastCPU / AutocastCUDA dispatch keys and
// autocast dtypes), the stack of open regions, the cache switch.
#pragma once

#include <tessera/types.h>

namespace tsr::autocast {

// Opens a region. Device type and dtype come as the ints a C caller passed
// (any value: capi's enum_arg), checked first: TSR_ERR_INVALID_ARGUMENT,
// and nothing changes.
void begin(int device_type, int dtype, bool enabled);
// Closes the innermost region; the outermost one clears the cast cache.
void end();

// One thread-local load: whether any device type autocasts now, so that
// every op pays a single branch when no region is open.
bool any_enabled();
// Queries; any int is accepted (false / float32 for device types without
// autocast).
bool enabled(int device_type);
tsr_dtype lower_precision(int device_type);

bool set_cache_enabled(bool enabled);
bool cache_enabled();

}  // namespace tsr::autocast
