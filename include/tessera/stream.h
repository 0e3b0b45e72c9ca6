/**
 * @file tessera/stream.h
 * @brief Streams and events, device-generic (torch.cuda.Stream,
 * torch.cuda.Event, Tensor.record_stream).
 *
 * A stream is an ordered queue of work on one device: work on one stream
 * runs in order, work on different streams may overlap. Each device has a
 * default stream (id 0), and each thread a current stream per device (the
 * default until tsr_stream_set_current()), on which tessera's ops queue
 * their work and for which the caching allocator hands out memory.
 *
 * On the CPU every op has finished when its call returns, so CPU streams are
 * always idle and CPU events complete when recorded: these calls are cheap
 * and still behave as specified (tsr_record_stream() on the CPU delays no
 * reuse, because the event it implies has already completed). On a device
 * with asynchronous streams (CUDA), memory freed while another stream may
 * still use it is reused only after that stream's work queued before the
 * free has finished.
 *
 * Handles are reference-counted like tensors (retain/release; release of
 * NULL is a no-op). A stream handle names a stream; as with PyTorch's stream
 * pool, the stream itself stays valid for the life of the process, so a
 * released handle never invalidates a current stream or a recorded use.
 * Common statuses, not repeated: TSR_ERR_INVALID_ARGUMENT for NULL handles
 * or outs, or a device type outside the enum; TSR_ERR_UNSUPPORTED for a
 * device this build has no backend for (CUDA without the plugin) or an
 * index it does not have. Out parameters are written only on TSR_OK.
 */
#ifndef TESSERA_STREAM_H
#define TESSERA_STREAM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque, reference-counted handle naming a stream. */
typedef struct tsr_stream tsr_stream;
/** @brief Opaque, reference-counted event handle. */
typedef struct tsr_event tsr_event;

/**
 * @brief torch.cuda.Stream(device): a new stream on (device_type,
 * device_index), from the device's pool of streams.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          a new handle, release with tsr_stream_release()
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_create(tsr_device_type device_type, int32_t device_index,
                                     tsr_stream** out);
/**
 * @brief torch.cuda.default_stream(device): the device's default stream
 * (id 0).
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          a new handle, release with tsr_stream_release()
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_default(tsr_device_type device_type, int32_t device_index,
                                      tsr_stream** out);
/**
 * @brief torch.cuda.current_stream(device): the calling thread's current
 * stream on the device.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          a new handle naming it (it stays what it was if
 *                          the current stream changes later), release with
 *                          tsr_stream_release()
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_current(tsr_device_type device_type, int32_t device_index,
                                      tsr_stream** out);
/**
 * @brief torch.cuda.set_stream(s): s becomes the calling thread's current
 * stream on s's device; other threads and devices are unaffected.
 * @param[in] s the stream
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_set_current(const tsr_stream* s);

/**
 * @brief Stream.synchronize(): waits until all work queued on s has
 * finished.
 * @param[in] s the stream
 * @return TSR_OK; the common statuses; an error of the device as its backend
 * reports it.
 */
TSR_API tsr_status tsr_stream_synchronize(const tsr_stream* s);
/**
 * @brief Stream.query().
 * @param[in]  s    the stream
 * @param[out] done true when all work queued on s has finished
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_query(const tsr_stream* s, bool* done);
/**
 * @brief The stream's device and its id on that device (0: the default
 * stream; ids are per device).
 *
 * Any of the three outs may be NULL (not written).
 * @param[in]  s            the stream
 * @param[out] device_type  the device type
 * @param[out] device_index the device index
 * @param[out] id           the stream's id on its device
 * @return TSR_OK; a NULL s: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_stream_info(const tsr_stream* s, tsr_device_type* device_type,
                                   int32_t* device_index, int64_t* id);
/**
 * @brief Adds one reference to the handle (not to the stream, which lives
 * for the process). NULL is ignored. Thread-safe.
 * @param[in] s the handle, or NULL
 */
TSR_API void tsr_stream_retain(tsr_stream* s);
/**
 * @brief Drops one reference to the handle (not to the stream, which lives
 * for the process); the last release frees the handle. NULL is ignored.
 * Thread-safe.
 * @param[in] s the handle, or NULL
 */
TSR_API void tsr_stream_release(tsr_stream* s);

/**
 * @brief torch.cuda.synchronize(device): waits for all work on every stream
 * of the device.
 * @param[in] device_type  the device type
 * @param[in] device_index the device index
 * @return TSR_OK; the common statuses; an error of the device as its backend
 * reports it.
 */
TSR_API tsr_status tsr_device_synchronize(tsr_device_type device_type, int32_t device_index);

/**
 * @brief torch.cuda.Event(enable_timing): an event not yet recorded; it
 * takes the device of the first stream it is recorded on.
 * @param[in]  enable_timing allow tsr_event_elapsed_time()
 * @param[out] out           a new handle, release with tsr_event_release()
 * @return TSR_OK; NULL out: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_event_create(bool enable_timing, tsr_event** out);
/**
 * @brief Event.record(stream): marks the point of s's queue reached when all
 * work queued on s so far has finished.
 *
 * An event may be recorded again (the newest record counts) but only on
 * streams of one device.
 * @param[in,out] e the event
 * @param[in]     s the stream
 * @return TSR_OK; another device than earlier records:
 * TSR_ERR_DEVICE_MISMATCH, as torch ("Event device ... does not match
 * recording stream's device ..."); the common statuses.
 */
TSR_API tsr_status tsr_event_record(tsr_event* e, const tsr_stream* s);
/**
 * @brief Event.query().
 * @param[in]  e    the event
 * @param[out] done true when the work before the recorded point has
 *                  finished; true for an event never recorded (as CUDA)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_event_query(const tsr_event* e, bool* done);
/**
 * @brief Event.synchronize(): waits for the recorded point; returns at once
 * for an event never recorded.
 * @param[in] e the event
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_event_synchronize(const tsr_event* e);
/**
 * @brief Event.elapsed_time(end): milliseconds from start's recorded point
 * to end's.
 * @param[in]  start the first event
 * @param[in]  end   the second event
 * @param[out] ms    the milliseconds
 * @return TSR_OK; both must have been created with enable_timing, be
 * recorded, on one device, and have completed: otherwise
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_event_elapsed_time(const tsr_event* start, const tsr_event* end,
                                          double* ms);
/**
 * @brief Stream.wait_event(e) (cudaStreamWaitEvent).
 *
 * Work queued on s after this call waits until the work before e's newest
 * record at the time of this call has finished; the host does not wait. An
 * event never recorded imposes no wait (as CUDA). e may come from another
 * device of the same kind (waited for on the device); an event of another
 * kind of device (a CPU event for a CUDA stream) is waited for on the host,
 * which orders the work the same way. Thread-safe.
 * @param[in] s the stream that waits
 * @param[in] e the event
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_wait_event(const tsr_stream* s, const tsr_event* e);
/**
 * @brief Stream.wait_stream(other).
 *
 * Work queued on s after this call waits until the work queued on other so
 * far has finished (an event recorded on other and waited for by s); the
 * host does not wait when both are streams of one kind of device, else it
 * waits for other. s == other: nothing to do.
 * @param[in] s     the stream that waits
 * @param[in] other the stream waited for
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_wait_stream(const tsr_stream* s, const tsr_stream* other);
/**
 * @brief Stream.cuda_stream: the handle other libraries know s by.
 *
 * On CUDA the cudaStream_t as an integer, 0 for the legacy default stream
 * (tessera's default stream, id 0), so their kernels can be queued on a
 * tessera stream, and DLPack producers told which stream will read (see
 * tsr_to_dlpack_for_stream() in dlpack.h). 0 on the CPU (no native
 * streams). Valid as long as the stream, i.e. for the process.
 * @param[in]  s   the stream
 * @param[out] out the native handle
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_stream_native_handle(const tsr_stream* s, uintptr_t* out);

/**
 * @brief Adds one reference. NULL is ignored. Thread-safe.
 * @param[in] e the event, or NULL
 */
TSR_API void tsr_event_retain(tsr_event* e);
/**
 * @brief Drops one reference; the last release destroys the event (its
 * backend event too). NULL is ignored. Thread-safe.
 * @param[in] e the event, or NULL
 */
TSR_API void tsr_event_release(tsr_event* e);

/**
 * @brief Tensor.record_stream(s): t's memory is also used by work queued on
 * s (a stream other than the one it was allocated on).
 *
 * When its storage is freed, the caching allocator records an event on s
 * and reuses the memory only once that event has completed (polled at later
 * allocations, waited for by tsr_empty_cache()). Recording the allocation's
 * own stream does nothing.
 * @param[in] t the tensor
 * @param[in] s the stream, on t's device
 * @return TSR_OK; s not on t's device: TSR_ERR_DEVICE_MISMATCH; a tensor
 * whose storage tessera did not allocate (tsr_from_blob(), a DLPack import):
 * TSR_ERR_INVALID_ARGUMENT; the common statuses.
 */
TSR_API tsr_status tsr_record_stream(const tsr_tensor* t, const tsr_stream* s);

#ifdef __cplusplus
}
#endif
#endif
