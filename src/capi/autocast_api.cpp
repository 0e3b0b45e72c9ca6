// C API: autocast regions (autocast.h).
#include <tessera/autocast.h>

#include "autocast/cast_cache.h"
#include "autocast/state.h"
#include "capi/barrier.h"
#include "capi/handles.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_autocast_begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled) {
  return guarded([&] { autocast::begin(enum_arg(device_type), enum_arg(dtype), enabled); });
}
TSR_EXTERN tsr_status tsr_autocast_end(void) {
  return guarded([&] { autocast::end(); });
}
TSR_EXTERN bool tsr_is_autocast_enabled(tsr_device_type device_type) {
  return autocast::enabled(enum_arg(device_type));
}
TSR_EXTERN tsr_dtype tsr_get_autocast_dtype(tsr_device_type device_type) {
  return autocast::lower_precision(enum_arg(device_type));
}
TSR_EXTERN bool tsr_set_autocast_cache_enabled(bool enabled) {
  return autocast::set_cache_enabled(enabled);
}
TSR_EXTERN bool tsr_is_autocast_cache_enabled(void) { return autocast::cache_enabled(); }
TSR_EXTERN void tsr_clear_autocast_cache(void) { autocast::clear_cache(); }
