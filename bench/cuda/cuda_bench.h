// tsr_cuda_bench: tessera on a CUDA device vs the CUDA runtime doing the
// same work directly (bench/README.md, "CUDA benchmarks"). Shared helpers.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "bench_util.h"

namespace cuda_bench {

// Aborts the benchmark on a failed tessera or CUDA call: figures after a
// failure would mean nothing.
inline void check(tsr_status st, const char* what) {
  if (st != TSR_OK) {
    std::fprintf(stderr, "%s failed: %s: %s\n", what, tsr_status_name(st), tsr_last_error_message());
    std::exit(1);
  }
}
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
#define TSR(call) ::cuda_bench::check((call), #call)
#define CUDA(call) ::cuda_bench::check_cuda((call), #call)

using bench::median;  // bench/bench_util.h

// Milliseconds of GPU time between two events around `body` on tessera's
// current CUDA stream (tsr_event: CUDA events in the plugin).
template <typename Body>
double tessera_gpu_ms(Body&& body) {
  tsr_stream* s = nullptr;
  tsr_event *a = nullptr, *b = nullptr;
  TSR(tsr_stream_current(TSR_DEVICE_CUDA, 0, &s));
  TSR(tsr_event_create(true, &a));
  TSR(tsr_event_create(true, &b));
  TSR(tsr_event_record(a, s));
  body();
  TSR(tsr_event_record(b, s));
  TSR(tsr_event_synchronize(b));
  double ms = 0;
  TSR(tsr_event_elapsed_time(a, b, &ms));
  tsr_event_release(b);
  tsr_event_release(a);
  tsr_stream_release(s);
  return ms;
}

// The same with cudaEvents on a stream of the caller's.
template <typename Body>
double cuda_gpu_ms(cudaStream_t stream, Body&& body) {
  cudaEvent_t a, b;
  CUDA(cudaEventCreate(&a));
  CUDA(cudaEventCreate(&b));
  CUDA(cudaEventRecord(a, stream));
  body();
  CUDA(cudaEventRecord(b, stream));
  CUDA(cudaEventSynchronize(b));
  float ms = 0;
  CUDA(cudaEventElapsedTime(&ms, a, b));
  CUDA(cudaEventDestroy(b));
  CUDA(cudaEventDestroy(a));
  return ms;
}

// One row of a table: name, median, and the ratio tessera / this row.
inline void row(const char* name, double value, const char* unit, double tessera_value,
                double bytes_moved = 0) {
  std::printf("  %-44s %10.3f %-3s", name, value, unit);
  if (bytes_moved > 0) std::printf("  %7.1f GB/s", bytes_moved / (value * 1e-3) / 1e9);
  std::printf("   ratio %.2f\n", tessera_value / value);
}

void alloc_bench(int rounds);
void copy_bench(int rounds);
void train_step_bench(int rounds);
void ops_bench(int rounds);

}  // namespace cuda_bench
