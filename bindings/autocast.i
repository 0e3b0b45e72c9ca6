/* bindings/autocast.i — autocast regions (include/tessera/autocast.h) for
 * every language. Included at the end of tessera.i (its error bracket turns a
 * failed begin/end into the language's exception). Each language wraps the
 * pair in its own scope idiom: Python's torch.autocast context manager,
 * try-with-resources, using, defer. */

%{
#include <tessera/autocast.h>

static void bind_autocast_begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled) {
  tsr_autocast_begin(device_type, dtype, enabled);
}
static void bind_autocast_end(void) { tsr_autocast_end(); }
static bool bind_is_autocast_enabled(tsr_device_type device_type) {
  return tsr_is_autocast_enabled(device_type);
}
static tsr_dtype bind_get_autocast_dtype(tsr_device_type device_type) {
  return tsr_get_autocast_dtype(device_type);
}
static bool bind_set_autocast_cache_enabled(bool enabled) {
  return tsr_set_autocast_cache_enabled(enabled);
}
static bool bind_is_autocast_cache_enabled(void) { return tsr_is_autocast_cache_enabled(); }
static void bind_clear_autocast_cache(void) { tsr_clear_autocast_cache(); }
%}

%rename(autocast_begin) bind_autocast_begin;
void bind_autocast_begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled);
%rename(autocast_end) bind_autocast_end;
void bind_autocast_end(void);
%rename(is_autocast_enabled) bind_is_autocast_enabled;
bool bind_is_autocast_enabled(tsr_device_type device_type);
%rename(get_autocast_dtype) bind_get_autocast_dtype;
tsr_dtype bind_get_autocast_dtype(tsr_device_type device_type);
%rename(set_autocast_cache_enabled) bind_set_autocast_cache_enabled;
bool bind_set_autocast_cache_enabled(bool enabled);
%rename(is_autocast_cache_enabled) bind_is_autocast_cache_enabled;
bool bind_is_autocast_cache_enabled(void);
%rename(clear_autocast_cache) bind_clear_autocast_cache;
void bind_clear_autocast_cache(void);
