"""Goldens for the convolutional layers in low precision
(tests/test_cnn_lowp.c): conv2d, max_pool2d, avg_pool2d,
adaptive_avg_pool2d and batch_norm on bfloat16 and float16 tensors, forward
and backward, in both memory formats; bfloat16 batch norm and max pooling
on shapes at their vector loops' edges (vector_edge_cases).

bfloat16: PyTorch 1.13 runs each program itself (its bfloat16 conv2d goes
to mkldnn; batch_norm takes bfloat16 parameters or float32 ones, the
mixed-dtype form autocast uses, whose statistics and parameter gradients
stay float32).

float16: PyTorch 1.13 has no CPU float16 kernels for these layers; tessera
follows PyTorch 2.x (float accumulation, one rounding), so the golden is the
float32 program run on the float16 values, its result and gradients rounded
to float16 (HalfCase).

Tolerances: results are compared per element as
|got - want| <= atol + rtol * |want|. bfloat16 has an 8-bit significand
(one ulp is 2^-8 to 2^-7 of the value): rtol 2e-2 allows 2.5 to 5 ulps,
atol 2e-2 the same at magnitude 1, for sums whose terms cancel (oneDNN and
torch add in different orders, and torch's bfloat16 pooling backward and
all-bfloat16 batch norm round intermediate steps to bfloat16 where tessera
rounds once). float16 (11-bit significand, an ulp 2^-11 to 2^-10 of the
value): 3e-3, 3 to 6 ulps.

Run from the repository root: /usr/bin/python3 tests/golden/gen_cnn_lowp.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, OPS, grad_fn_name, header, make_values, write  # noqa: E402
from gen_ops import I, channels_last, bf16, f16, f32  # noqa: E402
from gen_cnn import ap, bn, conv, mp  # noqa: E402

R = {"requires_grad": True}
BF16_TOL = (2e-2, 2e-2)
F16_TOL = (3e-3, 3e-3)


class HalfCase(Case):
    """A float16 program whose golden is the float32 one rounded to float16:
    the inputs (float16 values) run widened to float32, keeping their
    strides; result and gradients are rounded once to their tensors' dtypes (float16;
    float32 parameters of batch_norm stay float32)."""
    low = torch.float16

    def run(self):
        halves = [i.build() for i in self.inputs]
        regs = []
        for h in halves:
            w = h.detach().float()  # preserve_format: strides kept for dense inputs
            if not h.is_contiguous() and not h.is_contiguous(memory_format=torch.channels_last):
                w = torch.empty_strided(h.shape, h.stride(), dtype=torch.float32).copy_(h.detach())
            regs.append(w.requires_grad_(h.requires_grad))
        self.step_meta = []
        for s in self.steps:
            y = OPS[s["op"]](regs, s)
            regs.append(y)
            self.step_meta.append((grad_fn_name(y), y.requires_grad, y.is_leaf))
        out = regs[-1]
        self.out = out.detach().to(self.low)
        self.grad_out = None
        self.grads = [None] * len(self.inputs)
        if self.backward:
            self.grad_out = make_values("randn", out.numel(), self.low).reshape(out.shape)
            out.backward(self.grad_out.float())
            for k, x in enumerate(regs[:len(self.inputs)]):
                if self.inputs[k].requires_grad:
                    self.grads[k] = x.grad.to(halves[k].dtype)  # float32 parameters keep theirs
        return self


class Bf16AsFloatCase(HalfCase):
    """A bfloat16 program whose golden is the float32 one rounded once to
    bfloat16 (HalfCase's rule), where torch 1.13's own bfloat16 kernel
    rounds intermediate sums beyond the tolerances."""
    low = torch.bfloat16


def grad(name, inputs, steps, **kw):
    return Case(name, inputs, steps, backward=True, tol=BF16_TOL, **kw)


def half_grad(name, inputs, steps, **kw):
    return HalfCase(name, inputs, steps, backward=True, tol=F16_TOL, **kw)


def formats():
    return (("contiguous", lambda d, *s, **k: I(d, list(s), **k)), ("channels_last", channels_last))


def conv_cases():
    cs = []
    for fmt, X in formats():
        cs += [
            grad(f"conv2d bfloat16 3x3 pad 1 bias, {fmt}",
                 [X(bf16, 2, 3, 6, 6, **R), X(bf16, 4, 3, 3, 3, **R), I(bf16, [4], **R)],
                 [conv(2, padding=(1, 1))]),
            grad(f"conv2d bfloat16 stride 2, padding (1, 0), dilation (1, 2), no bias, {fmt}",
                 [X(bf16, 2, 3, 7, 8, **R), I(bf16, [5, 3, 3, 2], **R)], [conv(-1, (2, 2), (1, 0), (1, 2))]),
            grad(f"conv2d bfloat16 groups 2, stride (1, 2), {fmt}",
                 [X(bf16, 2, 4, 5, 6, **R), I(bf16, [6, 2, 3, 3], **R), I(bf16, [6], **R)],
                 [conv(2, (1, 2), (1, 1), groups=2)]),
            # The weight in x's format, as gen_cnn.py's: a contiguous [4, 1, 3, 3]
            # weight's strides also read as channels_last, and tessera's
            # gradient accumulation then keeps the weight's own strides (9,
            # 9, 3, 1) where torch keeps the computed gradient's (9, 1, 3, 1).
            grad(f"conv2d bfloat16 depthwise (groups 4), {fmt}",
                 [X(bf16, 1, 4, 5, 5, **R), X(bf16, 4, 1, 3, 3, **R), I(bf16, [4], **R)],
                 [conv(2, padding=(1, 1), groups=4)]),
            grad(f"conv2d bfloat16 1x1, {fmt}",
                 [X(bf16, 3, 16, 4, 4, **R), X(bf16, 8, 16, 1, 1, **R), I(bf16, [8], **R)], [conv(2)]),
            half_grad(f"conv2d float16 3x3 pad 1 bias, {fmt}",
                      [X(f16, 2, 3, 6, 6, **R), X(f16, 4, 3, 3, 3, **R), I(f16, [4], **R)],
                      [conv(2, padding=(1, 1))]),
            half_grad(f"conv2d float16 groups 2, stride 2, dilation 2, {fmt}",
                      [X(f16, 2, 4, 7, 7, **R), I(f16, [6, 2, 3, 3], **R)],
                      [conv(-1, (2, 2), (1, 1), (2, 2), groups=2)]),
        ]
    cs += [
        grad("conv2d bfloat16 channels_last input, contiguous weight: channels_last out",
             [channels_last(bf16, 2, 3, 5, 5, **R), I(bf16, [4, 3, 3, 3], **R)], [conv(-1, padding=(1, 1))]),
        grad("conv2d bfloat16 empty batch", [I(bf16, [0, 3, 5, 5], **R), I(bf16, [2, 3, 3, 3], **R),
                                              I(bf16, [2], **R)], [conv(2)]),
        # x = base[2, 3, 6, 10][..., ::2]: not dense, read through a copy.
        grad("conv2d bfloat16 strided (non-dense) input",
             [I(bf16, [2, 3, 6, 5], [180, 60, 10, 2], **R), I(bf16, [4, 3, 2, 2], **R), I(bf16, [4], **R)],
             [conv(2)]),
    ]
    return cs


def pool_cases():
    cs = []
    for fmt, X in formats():
        for dt, g in ((bf16, grad), (f16, half_grad)):
            name = "bfloat16" if dt == bf16 else "float16"
            cs += [
                g(f"max_pool2d {name} 3x3 stride 2 pad 1, {fmt}", [X(dt, 2, 3, 7, 7, **R)],
                  [mp((3, 3), (2, 2), (1, 1))]),
                g(f"max_pool2d {name} ceil_mode, dilation 2, {fmt}", [X(dt, 1, 2, 7, 8, **R)],
                  [mp((2, 3), (2, 2), (1, 1), (2, 2), ceil=True)]),
                g(f"avg_pool2d {name} 3x3 stride 2 pad 1 count_include_pad, {fmt}", [X(dt, 2, 3, 7, 7, **R)],
                  [ap((3, 3), (2, 2), (1, 1))]),
                g(f"avg_pool2d {name} ceil_mode without count_include_pad, {fmt}", [X(dt, 1, 2, 7, 8, **R)],
                  [ap((3, 3), (2, 2), (1, 0), ceil=True, count_include_pad=False)]),
                g(f"adaptive_avg_pool2d {name} 7x7 -> 3x2, {fmt}", [X(dt, 2, 3, 7, 7, **R)],
                  [opsprog.step("ADAPTIVE_AVG_POOL2D", 0, -1, [3, 2])]),
            ]
    cs.append(Case("max_pool2d bfloat16 indices, channels_last", [channels_last(bf16, 2, 3, 7, 6)],
                   [mp((3, 2), (2, 2), (1, 1), ceil=True, indices=True)], tol=BF16_TOL))
    return cs


def bn_cases():
    pos = {"kind": "pos"}
    cs = []
    for fmt, X in formats():
        for pdt in (bf16, f32):
            pname = "bfloat16" if pdt == bf16 else "float32"
            cs += [
                grad(f"batch_norm bfloat16, {pname} weight, bias, running stats, training, {fmt}",
                     [X(bf16, 3, 4, 5, 5, **R), I(pdt, [4]), I(pdt, [4], **pos), I(pdt, [4], **R),
                      I(pdt, [4], **R)], [bn(1, 2, 3, 4, True)]),
                grad(f"batch_norm bfloat16, {pname} parameters, eval, {fmt}",
                     [X(bf16, 2, 4, 3, 3, **R), I(pdt, [4]), I(pdt, [4], **pos), I(pdt, [4], **R),
                      I(pdt, [4], **R)], [bn(1, 2, 3, 4, False)]),
            ]
        cs += [
            grad(f"batch_norm bfloat16 training, no stats, no affine, {fmt}", [X(bf16, 2, 3, 4, 3, **R)],
                 [bn(-1, -1, -1, -1, True, eps=1e-3)]),
            half_grad(f"batch_norm float16, float32 parameters, training, {fmt}",
                      [X(f16, 3, 4, 5, 5, **R), I(f32, [4]), I(f32, [4], **pos), I(f32, [4], **R),
                       I(f32, [4], **R)], [bn(1, 2, 3, 4, True)]),
            half_grad(f"batch_norm float16, float16 parameters, eval, {fmt}",
                      [X(f16, 2, 4, 3, 3, **R), I(f16, [4]), I(f16, [4], **pos), I(f16, [4], **R),
                       I(f16, [4], **R)], [bn(1, 2, 3, 4, False)]),
        ]
    cs.append(grad("batch_norm bfloat16 2-D input [N, C], float32 weight",
                   [I(bf16, [6, 3], **R), I(f32, [3], **R)], [bn(-1, -1, 1, -1, True)]))
    return cs


def vector_edge_cases():
    """bfloat16 batch norm and max pooling, whose kernels widen bfloat16 in
    registers a vector at a time: 11 channels (one 8-lane vector and 3 lanes
    past it), 5x7 planes (35 elements, not a multiple of a vector), more
    rows than one chunk of the channels_last sums (3 x 10 x 9 = 270 > 256),
    and inputs that are neither contiguous nor channels_last (read through
    a dense copy)."""
    pos = {"kind": "pos"}
    cs = []
    for fmt, X in formats():
        cs += [
            grad(f"batch_norm bfloat16 11 channels 5x7, float32 parameters, training, {fmt}",
                 [X(bf16, 2, 11, 5, 7, **R), I(f32, [11]), I(f32, [11], **pos), I(f32, [11], **R),
                  I(f32, [11], **R)], [bn(1, 2, 3, 4, True)]),
            Bf16AsFloatCase(
                f"batch_norm bfloat16 11 channels 10x9 (270 rows), training, {fmt}",
                [X(bf16, 3, 11, 10, 9, **R), I(f32, [11], **R), I(f32, [11], **R)], [bn(-1, -1, 1, 2, True)],
                backward=True, tol=BF16_TOL,
                note="golden: the float32 program rounded once; torch 1.13's channels_last bfloat16 backward "
                     "sums the bias gradient's 270 terms in bfloat16 (-0.5625 where the sum is -0.614)"),
            grad(f"batch_norm bfloat16 11 channels 5x7, eval, {fmt}",
                 [X(bf16, 2, 11, 5, 7, **R), I(f32, [11]), I(f32, [11], **pos), I(f32, [11], **R),
                  I(f32, [11], **R)], [bn(1, 2, 3, 4, False)]),
            grad(f"max_pool2d bfloat16 11 channels 2x2, {fmt}", [X(bf16, 2, 11, 5, 7, **R)], [mp((2, 2))]),
            grad(f"max_pool2d bfloat16 20 channels 3x3 stride 2 pad 1 (overlapping windows), {fmt}",
                 [X(bf16, 2, 20, 7, 9, **R)], [mp((3, 3), (2, 2), (1, 1))]),
        ]
    # x = base[2, 11, 5, 14][..., ::2]: neither contiguous nor channels_last.
    cs += [
        grad("batch_norm bfloat16 strided (non-dense) input, training",
             [I(bf16, [2, 11, 5, 7], [770, 70, 14, 2], **R), I(f32, [11], **R), I(f32, [11], **R)],
             [bn(-1, -1, 1, 2, True)]),
        grad("max_pool2d bfloat16 strided (non-dense) input", [I(bf16, [2, 11, 5, 7], [770, 70, 14, 2], **R)],
             [mp((2, 2))]),
    ]
    return cs


def running_stats_table():
    """One training step on a bfloat16 x [4, 3, 2, 2] (C order values),
    momentum 0.3: float32 running stats before and after (the mixed form),
    and bfloat16 ones after (x and the stats' starting values are the
    float32 ones rounded to bfloat16)."""
    g = torch.Generator().manual_seed(9)
    x = torch.randn(4, 3, 2, 2, generator=g, dtype=torch.float64).bfloat16()
    rm = torch.randn(3, generator=g, dtype=torch.float64).bfloat16().float()
    rv = (torch.rand(3, generator=g, dtype=torch.float64) + 0.5).bfloat16().float()
    rm1, rv1 = rm.clone(), rv.clone()
    torch.nn.functional.batch_norm(x, rm1, rv1, None, None, True, 0.3, 1e-5)
    rmb, rvb = rm.bfloat16(), rv.bfloat16()
    torch.nn.functional.batch_norm(x, rmb, rvb, None, None, True, 0.3, 1e-5)
    rows = [("tg_lowp_bn_step_x", x), ("tg_lowp_bn_step_rm", rm), ("tg_lowp_bn_step_rv", rv),
            ("tg_lowp_bn_step_rm_after", rm1), ("tg_lowp_bn_step_rv_after", rv1),
            ("tg_lowp_bn_step_rm_after_bf16", rmb), ("tg_lowp_bn_step_rv_after_bf16", rvb)]
    return "".join(f"static const double {n}[] = {opsprog.c_doubles(t.double().flatten().tolist())};\n"
                   for n, t in rows) + "\n"


def emit_table(table, cases):
    """The cases' arrays and their table, as extra header text (runs them)."""
    text, inits = "", []
    for n, c in enumerate(cases):
        d, init = opsprog.emit_case(c.run(), f"{table}_{n}")
        text += f"/* {c.name}{': ' + c.note if c.note else ''} */\n{d}\n"
        inits.append(init)
    text += f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n"
    text += f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n"
    return text


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    # The vector-edge table draws from a stream of its own, made and run
    # first, so that the older tables' values stay those they had.
    opsprog.GEN.manual_seed(137)
    vec = emit_table("tg_lowp_vec", vector_edge_cases())
    opsprog.GEN.manual_seed(131)
    parts = []
    for table, make in (("tg_lowp_conv", conv_cases), ("tg_lowp_pool", pool_cases), ("tg_lowp_bn", bn_cases)):
        parts.append((table, make()))
    guard = "TSR_TESTS_GOLDEN_CNN_LOWP_GOLDEN_H"
    what = "conv2d, pooling and batch_norm in bfloat16 and float16."
    # One header, four tables: header() writes one table; the others follow as extra text.
    extra = "".join(emit_table(table, cases) for table, cases in parts[1:]) + vec
    text = header(__file__, guard, what, parts[0][1], parts[0][0], extra + running_stats_table())
    write(os.path.join(root, "cnn_lowp_golden.h"), text)


if __name__ == "__main__":
    main()
