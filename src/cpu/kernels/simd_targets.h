// The SIMD targets Highway compiles the CPU kernels for, included before any
// Highway header by each kernel file.
//
// Memory-bound kernels (reductions, elementwise, pooling, batch norm) leave
// AVX-512 out, as ATen leaves it out by default (its CPU capability is AVX2
// on AVX-512 machines unless ATEN_CPU_CAPABILITY asks): they are bound by
// memory, 512-bit vectors do not read it faster, and on the Zen 4 these
// benchmarks ran on (double-pumped AVX-512) the row sums were 10-30% slower
// with them. Compute-bound kernels (softmax's exp, conversions) define
// TSR_SIMD_KEEP_AVX512 before including this header.
//
// The sanitizer build (TSR_SANITIZE, which defines TSR_SIMD_FEWER_TARGETS)
// also leaves out SSSE3 and SSE4: each target is another copy of every
// kernel to compile, and under the sanitizers the kernels' logic (tails,
// strides, dispatch) is what is checked; those two targets are exercised by
// the normal build on machines without AVX2. Dispatch on this project's x86
// machines picks the same target in both builds.
#pragma once

#ifdef TSR_SIMD_FEWER_TARGETS
#define TSR_SIMD_UNCHECKED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#else
#define TSR_SIMD_UNCHECKED_TARGETS 0
#endif

#ifndef HWY_DISABLED_TARGETS
#ifdef TSR_SIMD_KEEP_AVX512
#define HWY_DISABLED_TARGETS (TSR_SIMD_UNCHECKED_TARGETS)
#else
#define HWY_DISABLED_TARGETS (HWY_AVX3 | HWY_AVX3_DL | TSR_SIMD_UNCHECKED_TARGETS)
#endif
#endif
