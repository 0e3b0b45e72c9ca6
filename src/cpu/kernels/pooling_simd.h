// Vectorized max pooling of one output pixel of a channels_last tensor:
// the window's input pixels are rows of C channels, compared lane by lane
// across the channels, as ATen's cpu_max_pool_channels_last
// (aten/src/ATen/native/cpu/MaxPoolKernel.cpp). Dispatched at run time
// (pooling_simd.cpp).
#pragma once

#include <cstdint>

#include "core/half.h"

namespace tsr::kernels::simd {

// For each channel c < C, over the window's pixels i < count in order
// (pixel i at x + offsets[i], flat index h * W + w in flat[i]): the first
// maximum, a NaN replacing any earlier value (ATen's `val > maxval ||
// std::isnan(val)`); y[c] gets the value and indices[c] its flat index.
// count >= 1. float's flat indices are int32 (the caller checks H * W < 2^31).
// bfloat16 is compared as the floats it widens to (in registers) with
// float's int32 indices; y gets the chosen bfloat16 values (a NaN quieted,
// as the float path's rounding does).
void max_pool_pixel(const float* x, const int64_t* offsets, const int32_t* flat, int64_t count, int64_t C,
                    float* y, int64_t* indices);
void max_pool_pixel(const double* x, const int64_t* offsets, const int64_t* flat, int64_t count, int64_t C,
                    double* y, int64_t* indices);
void max_pool_pixel(const BFloat16* x, const int64_t* offsets, const int32_t* flat, int64_t count, int64_t C,
                    BFloat16* y, int64_t* indices);

}  // namespace tsr::kernels::simd
