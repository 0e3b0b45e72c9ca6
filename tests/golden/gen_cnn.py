"""Goldens for the convolutional layers (tests/test_cnn.c): conv2d,
max_pool2d (values and indices), avg_pool2d, adaptive_avg_pool2d and
batch_norm. PyTorch 1.13 runs each program (opsprog.py) forward and
backward with a random gradient; the header keeps the inputs, the result
(dtype, sizes, strides, values), the grad_fn names and every input's .grad.
Every layer runs in both memory formats (contiguous and channels_last
inputs, and channels_last weights for conv2d), so the output strides of
PyTorch's memory-format rule are checked too. A second table holds one
training step of batch_norm's running-stat update.

Run from the repository root: /usr/bin/python3 tests/golden/gen_cnn.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, c_doubles, double_bits, step, write  # noqa: E402
from gen_ops import I, channels_last, f32, f64  # noqa: E402

R = {"requires_grad": True}
CONV_TOL = (1e-4, 1e-5)  # oneDNN sums in another order than torch's mkldnn/slow paths


def grad(name, inputs, steps, **kw):
    return Case(name, inputs, steps, backward=True, **kw)


def cl_weight(dtype, O, I_, KH, KW, **kw):
    return channels_last(dtype, O, I_, KH, KW, **kw)


def conv(bias_reg, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    return step("CONV2D", 0, 1, [bias_reg, *stride, *padding, *dilation, groups])


def conv_cases():
    cs = []
    for fmt, X, W in (("contiguous", lambda d, *s, **k: I(d, list(s), **k),
                       lambda d, *s, **k: I(d, list(s), **k)),
                      ("channels_last", channels_last, cl_weight)):
        cs += [
            grad(f"conv2d 3x3 pad 1 bias, {fmt}", [X(f32, 2, 3, 6, 6, **R), W(f32, 4, 3, 3, 3, **R),
                                                   I(f32, [4], **R)],
                 [conv(2, padding=(1, 1))], tol=CONV_TOL),
            grad(f"conv2d stride 2, padding (1, 0), dilation (1, 2), no bias, {fmt}",
                 [X(f32, 2, 3, 7, 8, **R), W(f32, 5, 3, 3, 2, **R)],
                 [conv(-1, (2, 2), (1, 0), (1, 2))], tol=CONV_TOL),
            grad(f"conv2d groups 2, stride (1, 2), {fmt}",
                 [X(f32, 2, 4, 5, 6, **R), W(f32, 6, 2, 3, 3, **R), I(f32, [6], **R)],
                 [conv(2, (1, 2), (1, 1), groups=2)], tol=CONV_TOL),
            grad(f"conv2d depthwise (groups 4), {fmt}",
                 [X(f32, 1, 4, 5, 5, **R), W(f32, 4, 1, 3, 3, **R), I(f32, [4], **R)],
                 [conv(2, padding=(1, 1), groups=4)], tol=CONV_TOL),
            grad(f"conv2d 1x1, {fmt}", [X(f32, 3, 8, 4, 4, **R), W(f32, 6, 8, 1, 1, **R), I(f32, [6], **R)],
                 [conv(2)], tol=CONV_TOL),
            grad(f"conv2d float64, {fmt}", [X(f64, 2, 3, 5, 5, **R), W(f64, 2, 3, 3, 3, **R), I(f64, [2], **R)],
                 [conv(2, (2, 1), (1, 1), (2, 1))]),
        ]
    cs += [
        grad("conv2d channels_last input, contiguous weight: channels_last out",
             [channels_last(f32, 2, 3, 5, 5, **R), I(f32, [4, 3, 3, 3], **R)], [conv(-1, padding=(1, 1))],
             tol=CONV_TOL),
        grad("conv2d contiguous input, channels_last weight: channels_last out",
             [I(f32, [2, 3, 5, 5], **R), cl_weight(f32, 4, 3, 3, 3, **R)], [conv(-1, padding=(1, 1))],
             tol=CONV_TOL),
        # x = base[2, 3, 6, 10][..., ::2]: not dense, read through a copy.
        grad("conv2d strided (non-dense) input",
             [I(f32, [2, 3, 6, 5], [180, 60, 10, 2], **R), I(f32, [4, 3, 2, 2], **R), I(f32, [4], **R)],
             [conv(2)], tol=CONV_TOL),
        grad("conv2d unbatched [C, H, W] input (SqueezeBackward1)",
             [I(f32, [3, 6, 5], **R), I(f32, [4, 3, 3, 3], **R), I(f32, [4], **R)], [conv(2, padding=(1, 1))],
             tol=CONV_TOL),
        grad("conv2d empty batch", [I(f32, [0, 3, 5, 5], **R), I(f32, [2, 3, 3, 3], **R), I(f32, [2], **R)],
             [conv(2)], tol=CONV_TOL),
    ]
    return cs


def mp(kernel, stride=None, padding=(0, 0), dilation=(1, 1), ceil=False, indices=False):
    return step("MAX_POOL2D_INDICES" if indices else "MAX_POOL2D", 0, -1,
                [*kernel, int(stride is not None), *(stride or (0, 0)), *padding, *dilation, int(ceil)])


def ap(kernel, stride=None, padding=(0, 0), ceil=False, count_include_pad=True):
    return step("AVG_POOL2D", 0, -1,
                [*kernel, int(stride is not None), *(stride or (0, 0)), *padding, int(ceil),
                 int(count_include_pad)])


def pool_cases():
    cs = []
    for fmt, X in (("contiguous", lambda d, *s, **k: I(d, list(s), **k)), ("channels_last", channels_last)):
        cs += [
            grad(f"max_pool2d 3x3 stride 2 pad 1, {fmt}", [X(f32, 2, 3, 7, 7, **R)], [mp((3, 3), (2, 2), (1, 1))]),
            grad(f"max_pool2d 2x2 (stride = kernel), {fmt}", [X(f32, 2, 3, 6, 5, **R)], [mp((2, 2))]),
            grad(f"max_pool2d ceil_mode, {fmt}", [X(f32, 1, 2, 6, 6, **R)], [mp((3, 3), (2, 2), ceil=True)]),
            grad(f"max_pool2d dilation 2, kernel (2, 3), {fmt}", [X(f32, 2, 2, 7, 8, **R)],
                 [mp((2, 3), (1, 2), (1, 1), (2, 2))]),
            Case(f"max_pool2d indices, ceil_mode, padding, {fmt}", [X(f32, 2, 3, 7, 6)],
                 [mp((3, 2), (2, 2), (1, 1), ceil=True, indices=True)]),
            grad(f"max_pool2d float64, {fmt}", [X(f64, 1, 2, 5, 5, **R)], [mp((3, 3), (2, 1), (1, 0))]),
            grad(f"avg_pool2d 3x3 stride 2 pad 1 count_include_pad, {fmt}", [X(f32, 2, 3, 7, 7, **R)],
                 [ap((3, 3), (2, 2), (1, 1))]),
            grad(f"avg_pool2d pad 1 without count_include_pad, {fmt}", [X(f32, 2, 3, 7, 7, **R)],
                 [ap((3, 3), (2, 2), (1, 1), count_include_pad=False)]),
            grad(f"avg_pool2d ceil_mode, kernel (2, 3), {fmt}", [X(f32, 1, 2, 7, 8, **R)],
                 [ap((2, 3), (2, 2), (1, 1), ceil=True)]),
            grad(f"avg_pool2d ceil_mode without count_include_pad, {fmt}", [X(f32, 1, 2, 7, 8, **R)],
                 [ap((3, 3), (2, 2), (1, 0), ceil=True, count_include_pad=False)]),
            grad(f"avg_pool2d float64, stride = kernel, {fmt}", [X(f64, 2, 2, 6, 4, **R)], [ap((2, 2))]),
            grad(f"adaptive_avg_pool2d 7x7 -> 3x2, {fmt}", [X(f32, 2, 3, 7, 7, **R)],
                 [step("ADAPTIVE_AVG_POOL2D", 0, -1, [3, 2])]),
            grad(f"adaptive_avg_pool2d -> 1x1, {fmt}", [X(f32, 2, 5, 4, 3, **R)],
                 [step("ADAPTIVE_AVG_POOL2D", 0, -1, [1, 1])]),
            grad(f"adaptive_avg_pool2d 3x4 -> 5x5 (overlapping windows), float64, {fmt}",
                 [X(f64, 1, 2, 3, 4, **R)], [step("ADAPTIVE_AVG_POOL2D", 0, -1, [5, 5])]),
        ]
    cs += [
        grad("max_pool2d unbatched [C, H, W]", [I(f32, [3, 7, 6], **R)], [mp((3, 3), (2, 2), (1, 1))]),
        Case("max_pool2d unbatched indices", [I(f32, [2, 5, 5])], [mp((2, 2), indices=True)]),
        grad("avg_pool2d unbatched, transposed input", [I(f32, [3, 6, 7], [1, 3, 18], **R)],
             [ap((3, 2), (2, 1), (1, 1), ceil=True, count_include_pad=False)]),
        grad("adaptive_avg_pool2d unbatched", [I(f32, [3, 7, 5], **R)],
             [step("ADAPTIVE_AVG_POOL2D", 0, -1, [3, 2])]),
        grad("adaptive_avg_pool2d unbatched -> 1x1 (MeanBackward1)", [I(f32, [3, 4, 5], **R)],
             [step("ADAPTIVE_AVG_POOL2D", 0, -1, [1, 1])]),
    ]
    return cs


def bn(rm, rv, w, b, training, momentum=0.1, eps=1e-5):
    return step("BATCH_NORM", 0, -1, [rm, rv, w, b, int(training), double_bits(momentum)], scalar=eps)


def bn_cases():
    pos = {"kind": "pos"}
    cs = []
    for fmt, X in (("contiguous", lambda d, *s, **k: I(d, list(s), **k)), ("channels_last", channels_last)):
        cs += [
            grad(f"batch_norm training, weight, bias, running stats, {fmt}",
                 [X(f32, 3, 4, 5, 5, **R), I(f32, [4]), I(f32, [4], **pos), I(f32, [4], **R), I(f32, [4], **R)],
                 [bn(1, 2, 3, 4, True)], tol=(1e-4, 1e-5)),
            grad(f"batch_norm training, no stats, no affine, {fmt}", [X(f32, 2, 3, 4, 3, **R)],
                 [bn(-1, -1, -1, -1, True, eps=1e-3)], tol=(1e-4, 1e-5)),
            grad(f"batch_norm eval, {fmt}",
                 [X(f32, 2, 4, 3, 3, **R), I(f32, [4]), I(f32, [4], **pos), I(f32, [4], **R), I(f32, [4], **R)],
                 [bn(1, 2, 3, 4, False)], tol=(1e-4, 1e-5)),
            grad(f"batch_norm training float64, {fmt}",
                 [X(f64, 2, 3, 3, 2, **R), I(f64, [3]), I(f64, [3], **pos), I(f64, [3], **R), I(f64, [3], **R)],
                 [bn(1, 2, 3, 4, True)]),
        ]
    cs += [
        grad("batch_norm 2-D input [N, C]", [I(f32, [6, 3], **R), I(f32, [3], **R), I(f32, [3], **R)],
             [bn(-1, -1, 1, 2, True)], tol=(1e-4, 1e-5)),
        grad("batch_norm 3-D input [N, C, L], eval", [I(f32, [2, 3, 4], **R), I(f32, [3]), I(f32, [3], **pos)],
             [bn(1, 2, -1, -1, False)], tol=(1e-4, 1e-5)),
        grad("batch_norm non-dense input", [I(f32, [2, 3, 4, 2], [48, 16, 4, 2], **R), I(f32, [3], **R)],
             [bn(-1, -1, 1, -1, True)], tol=(1e-4, 1e-5)),
    ]
    return cs


def running_stats_table():
    """One training step: x [4, 3, 2, 2] (C order values), running stats
    before and after, momentum 0.3, for tests of the in-place update."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(4, 3, 2, 2, generator=g, dtype=torch.float64).float()
    rm = torch.randn(3, generator=g, dtype=torch.float64).float()
    rv = (torch.rand(3, generator=g, dtype=torch.float64) + 0.5).float()
    rm1, rv1 = rm.clone(), rv.clone()
    torch.nn.functional.batch_norm(x, rm1, rv1, None, None, True, 0.3, 1e-5)
    rows = [("tg_bn_step_x", x), ("tg_bn_step_rm", rm), ("tg_bn_step_rv", rv), ("tg_bn_step_rm_after", rm1),
            ("tg_bn_step_rv_after", rv1)]
    return "".join(f"static const double {n}[] = {c_doubles(t.double().flatten().tolist())};\n"
                   for n, t in rows) + "\n"


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    fname = "cnn_golden.h"
    guard = "TSR_TESTS_GOLDEN_CNN_GOLDEN_H"
    opsprog.GEN.manual_seed(111)
    out = [f"/* GENERATED FILE - do not edit.\n"
           f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch {torch.__version__}\n"
           f" * (/usr/bin/python3). conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d, batch_norm.\n"
           f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
           f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
           '#include "ops_program.h"\n\n']
    for table, make in (("tg_conv", conv_cases), ("tg_pool", pool_cases), ("tg_bn", bn_cases)):
        inits = []
        for n, c in enumerate(make()):
            d, init = opsprog.emit_case(c.run(), f"{table}_{n}")
            out.append(f"/* {c.name}{': ' + c.note if c.note else ''} */\n{d}\n")
            inits.append(init)
        out.append(f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n")
        out.append(f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n")
    out.append(running_stats_table())
    out.append(f"#endif /* {guard} */\n")
    write(os.path.join(root, fname), "".join(out))


if __name__ == "__main__":
    main()
