// The SIMD targets of the memory-bound CPU kernels (reductions), included
// before any Highway header by each such kernel file. AVX-512 is left out, as ATen leaves
// it out by default (its CPU capability is AVX2 on AVX-512 machines unless
// ATEN_CPU_CAPABILITY asks): these kernels are bound by memory, 512-bit
// vectors do not read it faster, and on the Zen 4 these benchmarks ran on
// (double-pumped AVX-512) the row sums were 10-30% slower with them.
// Compute-bound kernels (softmax's exp) keep AVX-512.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_AVX3 | HWY_AVX3_DL)
#endif
