// TSR_HOST_DEVICE marks a function that both the host compiler and nvcc
// compile for the CPU and the GPU: index math, Philox, the kernels' element
// formulas. Outside nvcc it expands to nothing, so the same header is plain
// C++ for libtessera.so, the CPU grid emulator and the tests.
#pragma once

#if defined(__CUDACC__)
#define TSR_HOST_DEVICE __host__ __device__
#else
#define TSR_HOST_DEVICE
#endif
