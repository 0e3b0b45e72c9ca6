/* Test controls of the CUDA runtime's test double (libtessera_cudart_double.so),
 * which implements the cudart entry points the plugin's host code calls on
 * the simulated device (tests/simdev). The device is made on first use:
 * TSR_DOUBLE_DEVICES devices (default 2) of TSR_DOUBLE_CAPACITY bytes each
 * (default 256 MiB); TSR_DOUBLE_NO_DRIVER_VM=1 makes
 * cudaGetDriverEntryPointByVersion find no virtual memory entry points. */
#ifndef TSR_CUDA_DOUBLE_H
#define TSR_CUDA_DOUBLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the simulated device was asked to do (a subset of SimCounters) plus
 * what only the double sees. */
typedef struct tsr_double_counters {
  int64_t segments_allocated, segments_released, segment_refusals;
  int64_t pages_mapped, pages_unmapped, reservations, reservations_released;
  int64_t events_created, events_destroyed, events_recorded;
  int64_t streams_created, streams_destroyed, copies;
  int64_t live_vm_handles;  /* cuMemCreate'd handles not yet freed */
  int64_t live_host_allocs; /* cudaHostAlloc'd blocks not yet freed */
} tsr_double_counters;

/* cudaGetDeviceCount returns `error` (0: succeed again). */
void tsr_double_fail_device_count(int error);
/* cudaGetDeviceCount reports `count` devices; -1: the simulated ones. */
void tsr_double_report_device_count(int count);
void tsr_double_set_capacity(int device, size_t bytes);
size_t tsr_double_used_bytes(int device);
/* Pinned host bytes cudaHostAlloc grants in all; SIZE_MAX: unlimited. */
void tsr_double_set_host_capacity(size_t bytes);
/* Holds / releases the simulated stream behind a CUDA stream: the default
 * stream of device (stream_id 0) or the created one with that simulated id. */
void tsr_double_hold(int device, int64_t stream_id);
void tsr_double_release(int device, int64_t stream_id);
/* The simulated id and device of the most recently created CUDA stream. */
int64_t tsr_double_last_stream_id(int* device);
tsr_double_counters tsr_double_get_counters(void);
/* A kernel launch of the emulated plugin (tests/cuda_double/
 * emulated_plugin_kernels.cpp): queues fn(ctx) on the simulated stream
 * behind the cudaStream_t `stream`, to run after the work queued there
 * before it with the simulated device's memory open, then destroy(ctx).
 * destroy(ctx) runs exactly once, also when the launch fails. Returns a
 * cudaError_t (0: queued). */
int tsr_double_launch(void* stream, void (*fn)(void*), void* ctx, void (*destroy)(void*));
/* 1 when [ptr, ptr + bytes) is allocated memory of the simulated device
 * (cudaMalloc'd segments or mapped pages), else 0. */
int tsr_double_is_device_memory(int device, const void* ptr, size_t bytes);
/* Violations the simulated device recorded (bad pointers, ...); 0: none. */
size_t tsr_double_violations(void);

#ifdef __cplusplus
}
#endif

#endif
