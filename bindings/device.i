/* bindings/device.i — devices, CUDA availability, memory history and
 * snapshots, and the profiler's user ranges, over include/tessera/device.h,
 * cuda.h, allocator.h and profiler.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, the
 * newfree typemap for char*). Streams and events are Python-only for now
 * (python/python_streams.i): each language wraps them in its own idiom. */

%{
#include <tessera/cuda.h>
#include <tessera/device.h>

/* torch.Tensor.to(device, non_blocking): a copy on (device_type, index), or
 * TSR_ERR_UNSUPPORTED when that device has no backend (no CUDA plugin, no
 * GPU). */
static TsrTensor* bind_to_device(TsrTensor* t, tsr_device_type device_type, int32_t device_index,
                                 bool non_blocking) {
  TSR_RETURN_TENSOR(tsr_to_device(t, device_type, device_index, non_blocking ? 1 : 0, &out));
}
/* torch.cuda.is_available(): a CUDA plugin loaded and at least one device. */
static bool bind_cuda_is_available(void) { return tsr_cuda_is_available() != 0; }
/* torch.cuda.device_count(): 0 without a plugin or a GPU. */
static int32_t bind_cuda_device_count(void) { return tsr_cuda_device_count(); }
/* torch.cuda.synchronize(device). */
static void bind_cuda_synchronize(int32_t device_index) { tsr_cuda_synchronize(device_index); }
/* torch.cuda.memory._record_memory_history(enabled, max_entries). */
static void bind_memory_record_history(tsr_device_type device_type, int32_t device_index,
                                       bool enabled, int64_t max_entries) {
  tsr_memory_record_history(device_type, device_index, enabled, max_entries);
}
/* torch.cuda.memory._snapshot() as JSON text. */
static char* bind_memory_snapshot(tsr_device_type device_type, int32_t device_index) {
  TSR_RETURN_OUT(char*, NULL, tsr_memory_snapshot(device_type, device_index, &out));
}
/* torch.cuda.memory_summary(). */
static char* bind_memory_summary(tsr_device_type device_type, int32_t device_index) {
  TSR_RETURN_OUT(char*, NULL, tsr_memory_summary(device_type, device_index, &out));
}
/* torch.profiler.record_function(name): enter and exit. */
static void bind_record_function_begin(const char* name) { tsr_profiler_record_function_begin(name); }
static void bind_record_function_end(void) { tsr_profiler_record_function_end(); }
%}

%newobject bind_to_device;
%rename(to_device) bind_to_device;
TsrTensor* bind_to_device(TsrTensor* t, tsr_device_type device_type, int32_t device_index,
                          bool non_blocking);
%rename(cuda_is_available) bind_cuda_is_available;
bool bind_cuda_is_available(void);
%rename(cuda_device_count) bind_cuda_device_count;
int32_t bind_cuda_device_count(void);
%rename(cuda_synchronize) bind_cuda_synchronize;
void bind_cuda_synchronize(int32_t device_index);
/* torch.backends.cudnn.benchmark / deterministic / allow_tf32: each setter
 * returns the previous value. */
%rename(cudnn_set_benchmark) tsr_cudnn_set_benchmark;
bool tsr_cudnn_set_benchmark(bool on);
%rename(cudnn_benchmark) tsr_cudnn_benchmark;
bool tsr_cudnn_benchmark(void);
%rename(cudnn_set_deterministic) tsr_cudnn_set_deterministic;
bool tsr_cudnn_set_deterministic(bool on);
%rename(cudnn_deterministic) tsr_cudnn_deterministic;
bool tsr_cudnn_deterministic(void);
%rename(cudnn_set_allow_tf32) tsr_cudnn_set_allow_tf32;
bool tsr_cudnn_set_allow_tf32(bool on);
%rename(cudnn_allow_tf32) tsr_cudnn_allow_tf32;
bool tsr_cudnn_allow_tf32(void);
%rename(memory_record_history) bind_memory_record_history;
void bind_memory_record_history(tsr_device_type device_type, int32_t device_index, bool enabled,
                                int64_t max_entries);
%newobject bind_memory_snapshot;
%rename(memory_snapshot) bind_memory_snapshot;
char* bind_memory_snapshot(tsr_device_type device_type, int32_t device_index);
%newobject bind_memory_summary;
%rename(memory_summary) bind_memory_summary;
char* bind_memory_summary(tsr_device_type device_type, int32_t device_index);
%rename(record_function_begin) bind_record_function_begin;
void bind_record_function_begin(const char* name);
%rename(record_function_end) bind_record_function_end;
void bind_record_function_end(void);

#if defined(SWIGPYTHON)
%include "python/python_streams.i"
%include "python/python_buffers.i"
#endif
