/* bindings/autocast_scopes.i — torch.autocast regions (include/tessera/autocast.h)
 * for the Java, C# and Go bindings, whose hand-written layers make them
 * scopes: Java's try-with-resources (org.tessera.Autocast), C#'s using
 * (Tessera.Autocast), Go's defer (tessera.Autocast(...).End). Python's
 * context manager has its own interface. Included at the end of tessera.i,
 * so the error bracket raises a failed begin/end. */

#if !defined(SWIGPYTHON)
%{
static void bind_autocast_scope_begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled) {
  tsr_autocast_begin(device_type, dtype, enabled);
}
static void bind_autocast_scope_end(void) { tsr_autocast_end(); }
static bool bind_autocast_scope_is_enabled(tsr_device_type device_type) {
  return tsr_is_autocast_enabled(device_type);
}
static tsr_dtype bind_autocast_scope_dtype(tsr_device_type device_type) { return tsr_get_autocast_dtype(device_type); }
%}

%rename(autocast_scope_begin) bind_autocast_scope_begin;
void bind_autocast_scope_begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled);
%rename(autocast_scope_end) bind_autocast_scope_end;
void bind_autocast_scope_end(void);
%rename(autocast_scope_is_enabled) bind_autocast_scope_is_enabled;
bool bind_autocast_scope_is_enabled(tsr_device_type device_type);
%rename(autocast_scope_dtype) bind_autocast_scope_dtype;
tsr_dtype bind_autocast_scope_dtype(tsr_device_type device_type);
#endif
