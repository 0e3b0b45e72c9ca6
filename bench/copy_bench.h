// Layout-changing copies (issue item 13, parts 1 and 2): tessera's
// tsr_contiguous against memcpy of the same bytes and libtorch's
// Tensor::contiguous, all over one shared source buffer in one process.
#pragma once

namespace bench {

// Part 1: contiguous() of the transpose of a contiguous 4096x4096 float32
// matrix (64 MiB), and the same copy into a preallocated destination
// (tsr_copy_ / Tensor::copy_), which leaves out allocation and page faults.
// `label` names the torch thread setting in the printed titles.
void bench_transpose_copy(int warmup, int rounds, const char* label);

// Part 2: NCHW-contiguous [32,64,56,56] float32 (24.5 MiB) to channels_last
// (tsr_contiguous(t, TSR_CHANNELS_LAST) / contiguous(ChannelsLast)), and the
// same into a preallocated channels_last destination.
void bench_channels_last_copy(int warmup, int rounds, const char* label);

}  // namespace bench
