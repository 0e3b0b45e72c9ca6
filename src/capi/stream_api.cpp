// C API: streams, events and record_stream (stream.h), over the device
// backends' stream and event calls and the caching allocator.
#include <tessera/stream.h>

#include <memory>
#include <mutex>

#include "alloc/caching_allocator.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/factory.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_stream {
  explicit tsr_stream(Stream s) : stream(s) {}
  std::atomic<int64_t> refs{1};
  Stream stream;
};

// An event is created in its backend when first recorded, on the device of
// that stream (torch.cuda.Event is lazy the same way).
struct tsr_event {
  explicit tsr_event(bool timing) : enable_timing(timing) {}
  ~tsr_event() {
    if (handle) backend->destroy_event(handle);
  }
  std::atomic<int64_t> refs{1};
  const bool enable_timing;
  std::mutex mutex;  // guards the rest: recording may race with queries
  // Set together by the first record: until then the event has no device.
  DeviceBackend* backend = nullptr;
  Device device{};
  EventHandle handle = nullptr;
};

namespace {

Device device_arg(const tsr_device_type& type, int32_t index) {
  return checked_device(enum_arg(type), index);
}

const Stream& stream_of(const tsr_stream* s) { return require(s, "stream")->stream; }

template <typename Make>
tsr_status emit_stream(tsr_stream** out, Make&& make) {
  return guarded([&] {
    require(out, "out");
    const Stream s = make();
    *out = new tsr_stream(s);
  });
}

}  // namespace

TSR_EXTERN tsr_status tsr_stream_create(tsr_device_type device_type, int32_t device_index,
                                        tsr_stream** out) {
  return emit_stream(out, [&] {
    const Device d = device_arg(device_type, device_index);
    return Stream{d, backend_for(d).create_stream(d.index)};
  });
}

TSR_EXTERN tsr_status tsr_stream_default(tsr_device_type device_type, int32_t device_index,
                                         tsr_stream** out) {
  return emit_stream(out, [&] {
    return Stream{device_arg(device_type, device_index), kDefaultStreamId};
  });
}

TSR_EXTERN tsr_status tsr_stream_current(tsr_device_type device_type, int32_t device_index,
                                         tsr_stream** out) {
  return emit_stream(out, [&] { return current_stream(device_arg(device_type, device_index)); });
}

TSR_EXTERN tsr_status tsr_stream_set_current(const tsr_stream* s) {
  return guarded([&] { set_current_stream(stream_of(s)); });
}

TSR_EXTERN tsr_status tsr_stream_synchronize(const tsr_stream* s) {
  return guarded([&] {
    const Stream& st = stream_of(s);
    backend_for(st.device).synchronize_stream(st);
  });
}

TSR_EXTERN tsr_status tsr_stream_query(const tsr_stream* s, bool* done) {
  return guarded([&] {
    const Stream& st = stream_of(s);
    require(done, "done");
    *done = backend_for(st.device).query_stream(st);
  });
}

TSR_EXTERN tsr_status tsr_stream_info(const tsr_stream* s, tsr_device_type* device_type,
                                      int32_t* device_index, int64_t* id) {
  return guarded([&] {
    const Stream& st = stream_of(s);
    if (device_type) *device_type = st.device.type;
    if (device_index) *device_index = st.device.index;
    if (id) *id = st.id;
  });
}

TSR_EXTERN void tsr_stream_retain(tsr_stream* s) { retain(s); }
TSR_EXTERN void tsr_stream_release(tsr_stream* s) { release(s); }

TSR_EXTERN tsr_status tsr_device_synchronize(tsr_device_type device_type, int32_t device_index) {
  return guarded([&] {
    const Device d = device_arg(device_type, device_index);
    backend_for(d).synchronize_device(d.index);
  });
}

// ---- events ------------------------------------------------------------------

TSR_EXTERN tsr_status tsr_event_create(bool enable_timing, tsr_event** out) {
  return guarded([&] {
    require(out, "out");
    *out = new tsr_event(enable_timing);
  });
}

TSR_EXTERN tsr_status tsr_event_record(tsr_event* e, const tsr_stream* s) {
  return guarded([&] {
    require(e, "event");
    const Stream& st = stream_of(s);
    DeviceBackend& backend = backend_for(st.device);
    std::lock_guard<std::mutex> lock(e->mutex);
    if (e->handle) {
      TSR_CHECK(e->device == st.device, TSR_ERR_DEVICE_MISMATCH, "Event device ",
                device_name(e->device), " does not match recording stream's device ",
                device_name(st.device), ".");
    } else {
      e->handle = backend.create_event(st.device.index, e->enable_timing);
      e->backend = &backend;
      e->device = st.device;
    }
    backend.record_event(e->handle, st);
  });
}

TSR_EXTERN tsr_status tsr_event_query(const tsr_event* e, bool* done) {
  return guarded([&] {
    require(e, "event");
    require(done, "done");
    auto* ev = const_cast<tsr_event*>(e);
    std::lock_guard<std::mutex> lock(ev->mutex);
    *done = !ev->handle || ev->backend->query_event(ev->handle);
  });
}

TSR_EXTERN tsr_status tsr_event_synchronize(const tsr_event* e) {
  return guarded([&] {
    require(e, "event");
    auto* ev = const_cast<tsr_event*>(e);
    std::lock_guard<std::mutex> lock(ev->mutex);
    if (ev->handle) ev->backend->synchronize_event(ev->handle);
  });
}

TSR_EXTERN tsr_status tsr_event_elapsed_time(const tsr_event* start, const tsr_event* end,
                                             double* ms) {
  return guarded([&] {
    auto* a = const_cast<tsr_event*>(require(start, "start"));
    auto* b = const_cast<tsr_event*>(require(end, "end"));
    require(ms, "ms");
    TSR_CHECK(a->enable_timing && b->enable_timing, TSR_ERR_INVALID_ARGUMENT,
              "elapsed_time: both events must be created with enable_timing=true");
    std::unique_lock<std::mutex> la(a->mutex, std::defer_lock), lb(b->mutex, std::defer_lock);
    if (a == b) la.lock();
    else std::lock(la, lb);
    TSR_CHECK(a->handle && b->handle, TSR_ERR_INVALID_ARGUMENT,
              "elapsed_time: both events must be recorded before measuring");
    TSR_CHECK(a->device == b->device, TSR_ERR_INVALID_ARGUMENT,
              "elapsed_time: events recorded on different devices, ", device_name(a->device),
              " and ", device_name(b->device));
    TSR_CHECK(a->backend->query_event(a->handle) && a->backend->query_event(b->handle),
              TSR_ERR_INVALID_ARGUMENT,
              "elapsed_time: both events must have completed (synchronize first)");
    *ms = a->backend->elapsed_ms(a->handle, b->handle);
  });
}

TSR_EXTERN tsr_status tsr_stream_wait_event(const tsr_stream* s, const tsr_event* e) {
  return guarded([&] {
    const Stream& st = stream_of(s);
    auto* ev = const_cast<tsr_event*>(require(e, "event"));
    DeviceBackend& backend = backend_for(st.device);
    std::lock_guard<std::mutex> lock(ev->mutex);
    if (!ev->handle) return;  // never recorded: complete
    if (ev->backend == &backend) backend.stream_wait_event(st, ev->handle);
    else ev->backend->synchronize_event(ev->handle);
  });
}

TSR_EXTERN tsr_status tsr_stream_wait_stream(const tsr_stream* s, const tsr_stream* other) {
  return guarded([&] {
    const Stream& st = stream_of(s);
    const Stream& waited = stream_of(other);
    if (st == waited) return;
    DeviceBackend& backend = backend_for(st.device);
    DeviceBackend& other_backend = backend_for(waited.device);
    if (&other_backend != &backend) return other_backend.synchronize_stream(waited);
    EventHandle marker = backend.create_event(waited.device.index, false);
    try {
      backend.record_event(marker, waited);
      backend.stream_wait_event(st, marker);
    } catch (...) {
      backend.destroy_event(marker);
      throw;
    }
    // A backend event may go while a wait on it is queued (cudaEventDestroy).
    backend.destroy_event(marker);
  });
}

TSR_EXTERN tsr_status tsr_stream_native_handle(const tsr_stream* s, uintptr_t* out) {
  return guarded([&] {
    const Stream& st = stream_of(s);
    require(out, "out");
    *out = backend_for(st.device).native_stream_handle(st);
  });
}

TSR_EXTERN void tsr_event_retain(tsr_event* e) { retain(e); }
TSR_EXTERN void tsr_event_release(tsr_event* e) { release(e); }

// ---- record_stream -------------------------------------------------------------

TSR_EXTERN tsr_status tsr_record_stream(const tsr_tensor* t, const tsr_stream* s) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    const Stream& st = stream_of(s);
    const Storage& storage = *x.impl()->storage;
    TSR_CHECK(storage.device() == st.device, TSR_ERR_DEVICE_MISMATCH,
              "record_stream: the tensor is on ", device_name(storage.device()),
              ", the stream on ", device_name(st.device));
    TSR_CHECK(storage.from_allocator(), TSR_ERR_INVALID_ARGUMENT,
              "record_stream: the tensor's memory was not allocated by tessera "
              "(from_blob or DLPack); its owner decides when it is reused");
    alloc::caching_allocator(st.device).record_stream(storage.data(), st);
  });
}
