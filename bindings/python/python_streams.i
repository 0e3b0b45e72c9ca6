/* bindings/python/python_streams.i — streams and events (stream.h) for
 * tessera.cuda.Stream / Event. Included by bindings/device.i for Python
 * only. The handles travel as opaque pointers: the Python classes in
 * tessera/_streams.py own one reference each and release it in close() /
 * when collected. */

%{
#include <tessera/stream.h>
%}

%inline %{
/* torch.cuda.Stream(device): a new stream from the device's pool. */
static tsr_stream* _stream_create(tsr_device_type device_type, int32_t device_index) {
  TSR_RETURN_OUT(tsr_stream*, NULL, tsr_stream_create(device_type, device_index, &out));
}
/* torch.cuda.current_stream(device). */
static tsr_stream* _stream_current(tsr_device_type device_type, int32_t device_index) {
  TSR_RETURN_OUT(tsr_stream*, NULL, tsr_stream_current(device_type, device_index, &out));
}
/* torch.cuda.default_stream(device). */
static tsr_stream* _stream_default(tsr_device_type device_type, int32_t device_index) {
  TSR_RETURN_OUT(tsr_stream*, NULL, tsr_stream_default(device_type, device_index, &out));
}
static void _stream_set_current(tsr_stream* s) { tsr_stream_set_current(s); }
static void _stream_synchronize(tsr_stream* s) { tsr_stream_synchronize(s); }
static bool _stream_query(tsr_stream* s) { TSR_RETURN_OUT(bool, false, tsr_stream_query(s, &out)); }
/* The stream's id on its device (0: the default stream). */
static int64_t _stream_id(tsr_stream* s) {
  tsr_device_type type;
  int32_t index;
  TSR_RETURN_OUT(int64_t, -1, tsr_stream_info(s, &type, &index, &out));
}
static void _stream_wait_event(tsr_stream* s, tsr_event* e) { tsr_stream_wait_event(s, e); }
static void _stream_release(tsr_stream* s) { tsr_stream_release(s); }

/* torch.cuda.Event(enable_timing). */
static tsr_event* _event_create(bool enable_timing) {
  TSR_RETURN_OUT(tsr_event*, NULL, tsr_event_create(enable_timing, &out));
}
static void _event_record(tsr_event* e, tsr_stream* s) { tsr_event_record(e, s); }
static bool _event_query(tsr_event* e) { TSR_RETURN_OUT(bool, false, tsr_event_query(e, &out)); }
static void _event_synchronize(tsr_event* e) { tsr_event_synchronize(e); }
/* Milliseconds from start to end (both recorded, with enable_timing). */
static double _event_elapsed_time(tsr_event* start, tsr_event* end) {
  TSR_RETURN_OUT(double, 0.0, tsr_event_elapsed_time(start, end, &out));
}
static void _event_release(tsr_event* e) { tsr_event_release(e); }
%}
