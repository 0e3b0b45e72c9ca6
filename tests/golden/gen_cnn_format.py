"""Goldens for the memory format of conv2d's, the poolings' and batch norm's
outputs when the inputs' layouts are ambiguous (tests/test_cnn_format.c).

Every combination of an ambiguous input layout and an ambiguous weight
layout: tensors that are both contiguous and channels_last (C = 1, H = W = 1,
1x1 kernels, one output channel), made the ways a user makes them (plain,
.contiguous(channels_last), empty(..., channels_last), a strided slice),
across groups, the dtypes (float32, float64, bfloat16), strides and dilations that pick torch's oneDNN
or native backend, and 1 and 2 threads (torch's backend choice depends on
the thread count). PyTorch 1.13 runs each and the header keeps the inputs'
sizes and strides and torch's output strides; values are covered by
test_cnn.c.

Run from the repository root: /usr/bin/python3 tests/golden/gen_cnn_format.py
"""
import itertools
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import c_array, c_table, header_preamble, write  # noqa: E402

CL = torch.channels_last
F = torch.nn.functional
# bfloat16: torch 1.13 sends every bfloat16 convolution to oneDNN on an
# AVX-512 (BW, VL, DQ) CPU, grouped ones included (float32 only some).
DTYPES = {torch.float32: "TSR_FLOAT32", torch.float64: "TSR_FLOAT64", torch.bfloat16: "TSR_BFLOAT16"}


def layouts(shape, dtype):
    """The ways a user makes a tensor of these sizes: name -> tensor."""
    plain = torch.zeros(shape, dtype=dtype)
    wide = list(shape)
    wide[3] *= 2
    return {
        "contiguous": plain,
        "contiguous(channels_last)": plain.contiguous(memory_format=CL),
        "empty(channels_last)": torch.empty(shape, dtype=dtype, memory_format=CL).zero_(),
        "to(channels_last)": plain.to(memory_format=CL),
        "sliced W": torch.zeros(wide, dtype=dtype)[:, :, :, ::2],
        "sliced W of channels_last": torch.zeros(wide, dtype=dtype).contiguous(memory_format=CL)[:, :, :, ::2],
    }


def conv_cases():
    rows = []
    # (x sizes, w sizes, stride, padding, dilation, groups)
    geometries = [
        ((2, 1, 4, 4), (3, 1, 1, 1), 1, 0, 1, 1),    # C = 1, 1x1 kernel
        ((1, 1, 4, 4), (1, 1, 3, 3), 1, 0, 1, 1),    # C = 1, one output channel
        ((2, 3, 1, 1), (4, 3, 1, 1), 1, 0, 1, 1),    # H = W = 1
        ((1, 3, 1, 1), (1, 3, 1, 1), 1, 0, 1, 1),    # everything ambiguous
        ((2, 2, 3, 3), (2, 1, 1, 1), 1, 0, 1, 2),    # depthwise 1x1
        ((2, 2, 3, 3), (4, 1, 2, 2), 1, 1, 1, 2),    # depthwise, padded
        ((17, 2, 3, 1), (2, 1, 2, 1), 1, 0, 1, 2),   # batch >= 16, groups
        ((2, 6, 1, 3), (3, 2, 1, 3), 1, 0, 1, 3),    # groups, 1x1 output
        ((1, 6, 3, 3), (3, 2, 2, 3), 2, 0, 1, 3),    # strided, groups
        ((2, 4, 5, 5), (4, 2, 3, 3), 1, 1, 2, 2),    # dilated, groups
        ((16, 1, 2, 2), (1, 1, 1, 1), 1, 0, 1, 1),   # batch 16, all 1x1
        ((2, 4, 1, 1), (2, 2, 1, 1), 1, 0, 1, 2),    # H = W = 1, groups: float32 on 1 thread native, bfloat16 oneDNN
    ]
    for (xs, ws, stride, pad, dil, groups), dtype, threads in itertools.product(
            geometries, DTYPES, (1, 2)):
        torch.set_num_threads(threads)
        xl, wl = layouts(xs, dtype), layouts(ws, dtype)
        for (xn, x), (wn, w) in itertools.product(xl.items(), wl.items()):
            if wn.startswith("sliced"):
                continue  # weights are made, not sliced, in practice
            y = F.conv2d(x, w, None, stride, pad, dil, groups)
            rows.append("  {" + ", ".join([
                DTYPES[dtype], str(threads), c_array(x.shape), c_array(x.stride()),
                c_array(w.shape), c_array(w.stride()), str(stride), str(pad), str(dil), str(groups),
                c_array(y.shape), c_array(y.stride())]) + "},")
    return rows


def other_cases():
    """op 0 max_pool2d(k), 1 avg_pool2d(k), 2 adaptive_avg_pool2d(k x k),
    3 batch_norm (training, no running stats, no affine)."""
    rows = []
    shapes = [(2, 1, 4, 4), (1, 1, 2, 1), (2, 3, 1, 1), (1, 3, 2, 2), (2, 1, 1, 2), (1, 2, 4, 4)]
    for shape, dtype in itertools.product(shapes, DTYPES):
        for name, x in layouts(shape, dtype).items():
            k = 2 if min(shape[2], shape[3]) >= 2 else 1
            results = [F.max_pool2d(x, k), F.avg_pool2d(x, k), F.adaptive_avg_pool2d(x, (k, k)),
                       F.batch_norm(x, None, None, training=True)]
            for op, y in enumerate(results):
                rows.append("  {" + ", ".join([
                    str(op), DTYPES[dtype], str(k), c_array(x.shape), c_array(x.stride()),
                    c_array(y.shape), c_array(y.stride())]) + "},")
    return rows


def main():
    out = header_preamble(__file__, "Output strides of conv2d, pooling and batch norm for ambiguous layouts.")
    out += """#ifndef TSR_TESTS_CNN_FORMAT_GOLDEN_H
#define TSR_TESTS_CNN_FORMAT_GOLDEN_H
#include <stdint.h>
#include <tessera/tessera.h>

typedef struct {
  tsr_dtype dtype;
  int64_t threads;
  int64_t x_sizes[4], x_strides[4], w_sizes[4], w_strides[4];
  int64_t stride, padding, dilation, groups;
  int64_t y_sizes[4], y_strides[4];
} tg_conv_format_case;

typedef struct {
  int op; /* 0 max_pool2d, 1 avg_pool2d, 2 adaptive_avg_pool2d, 3 batch_norm */
  tsr_dtype dtype;
  int64_t k;
  int64_t x_sizes[4], x_strides[4];
  int64_t y_sizes[4], y_strides[4];
} tg_cnn_format_case;

"""
    # Layouts made in different ways often end with the same strides: each
    # distinct case once, in the order first met.
    unique = lambda rows: list(dict.fromkeys(rows))  # noqa: E731
    out += c_table("tg_conv_format_case", "tg_conv_format", "TG_CONV_FORMAT_N", unique(conv_cases())) + "\n\n"
    out += c_table("tg_cnn_format_case", "tg_cnn_format", "TG_CNN_FORMAT_N", unique(other_cases())) + "\n"
    out += "\n#endif\n"
    write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cnn_format_golden.h"), out)


if __name__ == "__main__":
    main()
