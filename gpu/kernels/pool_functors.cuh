// Max pooling's functors (DeviceKernels::max_pool2d and its backward):
// src/cpu/kernels/pooling_ref.cpp's comparisons and sums, one output
// element (forward) or one input element (backward) per thread, run in a
// CUDA kernel and in the CPU grid emulator alike. C: the compute type
// (float, or double for float64).
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"

namespace tsr::gpu {

// Element (n, c, h, w) of an operand at strides s, in elements.
TSR_HOST_DEVICE inline int64_t pool_offset(const int64_t* s, int64_t n, int64_t c, int64_t h, int64_t w) {
  return n * s[0] + c * s[1] + h * s[2] + w * s[3];
}

// floor(a / b) for b > 0 and any a.
TSR_HOST_DEVICE inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

template <typename C>
struct MaxPool2dFn {
  MaxPool2dArgs a;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t ow = i % a.out_width;
    int64_t rest = i / a.out_width;
    const int64_t oh = rest % a.out_height;
    rest /= a.out_height;
    const int64_t c = rest % a.channels, n = rest / a.channels;
    const int64_t dh = a.dilation[0], dw = a.dilation[1];
    int64_t h0 = oh * a.stride[0] - a.padding[0], w0 = ow * a.stride[1] - a.padding[1];
    const int64_t h1 = h0 + (a.kernel[0] - 1) * dh + 1 < a.height ? h0 + (a.kernel[0] - 1) * dh + 1 : a.height;
    const int64_t w1 = w0 + (a.kernel[1] - 1) * dw + 1 < a.width ? w0 + (a.kernel[1] - 1) * dw + 1 : a.width;
    while (h0 < 0) h0 += dh;
    while (w0 < 0) w0 += dw;
    C best = -C(INFINITY);
    int64_t at = h0 * a.width + w0;
    for (int64_t h = h0; h < h1; h += dh)
      for (int64_t w = w0; w < w1; w += dw) {
        const C v = load_as<C>(a.input, pool_offset(a.input_strides, n, c, h, w), a.dtype, a.dtype);
        if (v > best || v != v) {
          best = v;
          at = h * a.width + w;
        }
      }
    store_as<C>(a.output, pool_offset(a.output_strides, n, c, oh, ow), a.dtype, best);
    a.indices[pool_offset(a.indices_strides, n, c, oh, ow)] = at;
  }
};

// Input element (n, c, h, w) gathers the gradients of the outputs whose
// windows can hold it and whose index names it, in (oh, ow) order: the
// CPU's scatter of max_backward, whose additions to one element come in
// that order, without atomics.
template <typename C>
struct MaxPool2dBackwardFn {
  MaxPool2dArgs a;

  // The outputs along one dim whose window can hold input position p:
  // o * stride - padding + j * dilation == p for some j in [0, kernel).
  TSR_HOST_DEVICE static void window_range(int64_t p, int64_t kernel, int64_t stride, int64_t padding,
                                           int64_t dilation, int64_t outs, int64_t* lo, int64_t* hi) {
    const int64_t first = floor_div(p + padding - (kernel - 1) * dilation + stride - 1, stride);
    const int64_t last = floor_div(p + padding, stride);
    *lo = first < 0 ? 0 : first;
    *hi = last + 1 < outs ? last + 1 : outs;
  }

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t w = i % a.width;
    int64_t rest = i / a.width;
    const int64_t h = rest % a.height;
    rest /= a.height;
    const int64_t c = rest % a.channels, n = rest / a.channels;
    int64_t oh0, oh1, ow0, ow1;
    window_range(h, a.kernel[0], a.stride[0], a.padding[0], a.dilation[0], a.out_height, &oh0, &oh1);
    window_range(w, a.kernel[1], a.stride[1], a.padding[1], a.dilation[1], a.out_width, &ow0, &ow1);
    const int64_t flat = h * a.width + w;
    C sum = C(0);
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow)
        if (a.indices[pool_offset(a.indices_strides, n, c, oh, ow)] == flat)
          sum += load_as<C>(a.output, pool_offset(a.output_strides, n, c, oh, ow), a.dtype, a.dtype);
    store_as<C>(a.input, pool_offset(a.input_strides, n, c, h, w), a.dtype, sum);
  }
};

}  // namespace tsr::gpu
