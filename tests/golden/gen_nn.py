"""Goldens for the torch.nn.functional-style ops (tests/test_nn_*.c):
linear, activations, normalisation, joining and indexing. PyTorch runs
each program (opsprog.py) forward — and for gradient cases backward, with a
random gradient stored in the header — and the header keeps the inputs, the
result (dtype, sizes, strides, values), every step's grad_fn name and every
input's .grad. One header per op family; each family reseeds the value
generator, so adding cases to one family leaves the others' values alone.

Run from the repository root: /usr/bin/python3 tests/golden/gen_nn.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, clamp_args, header, step, write  # noqa: E402
from gen_ops import (I, b8, bf16, channels_last, expanded, f16, f32, f64, i32, i64,  # noqa: E402
                     stepped, transposed, u8)

R = {"requires_grad": True}
INF, NAN = float("inf"), float("nan")


def fwd(name, inputs, steps, **kw):
    return Case(name, inputs, steps, **kw)


def grad(name, inputs, steps, **kw):
    return Case(name, inputs, steps, backward=True, **kw)


# ---- linear -----------------------------------------------------------------

def linear(x, w, b=None):
    """Inputs and the LINEAR step for x, w and an optional bias (input 2)."""
    ins = [x, w] + ([b] if b is not None else [])
    return ins, [step("LINEAR", 0, 1, args=[2 if b is not None else -1])]


LIN_TOL = (1e-5, 1e-5)


def linear_forward():
    def c(name, x, w, b=None, **kw):
        ins, steps = linear(x, w, b)
        return fwd("LINEAR " + name, ins, steps, tol=kw.pop("tol", LIN_TOL), **kw)
    return [
        c("2-D with bias", I(f32, [3, 4]), I(f32, [5, 4]), I(f32, [5])),
        c("2-D without bias", I(f32, [3, 4]), I(f32, [5, 4])),
        c("3-D contiguous with bias", I(f32, [2, 3, 4]), I(f32, [5, 4]), I(f32, [5])),
        c("3-D without bias", I(f32, [2, 3, 4]), I(f32, [5, 4])),
        c("1-D with bias", I(f32, [4]), I(f32, [5, 4]), I(f32, [5])),
        c("1-D without bias", I(f32, [4]), I(f32, [5, 4])),
        c("4-D with bias", I(f32, [2, 2, 3, 4]), I(f32, [3, 4]), I(f32, [3])),
        c("float64", I(f64, [3, 6]), I(f64, [2, 6]), I(f64, [2]), tol=(1e-12, 1e-12)),
        c("transposed x", transposed(f32, 3, 4), I(f32, [5, 4]), I(f32, [5])),
        c("3-D x permuted (0,2,1)", I(f32, [2, 3, 4], [12, 1, 3]), I(f32, [5, 4]), I(f32, [5])),
        c("3-D x transposed (0,2) without bias", I(f32, [3, 2, 4], [1, 3, 6]), I(f32, [5, 4])),
        c("step-sliced x", stepped(f32, 3, 4), I(f32, [2, 4]), I(f32, [2])),
        c("expanded x (stride-0 rows)", expanded(f32, 3, 4), I(f32, [2, 4]), I(f32, [2])),
        c("transposed weight", I(f32, [3, 4]), transposed(f32, 5, 4), I(f32, [5])),
        c("step-sliced weight and bias", I(f32, [3, 4]), stepped(f32, 2, 4), I(f32, [2], [3])),
        c("bias [3,5] broadcast to the output", I(f32, [3, 4]), I(f32, [5, 4]), I(f32, [3, 5])),
        c("0-dim bias", I(f32, [3, 4]), I(f32, [5, 4]), I(f32, [])),
        c("expanded bias", I(f32, [3, 4]), I(f32, [5, 4]), I(f32, [5], [0])),
        c("no rows", I(f32, [0, 4]), I(f32, [5, 4]), I(f32, [5])),
        c("in_features 0 gives the bias", I(f32, [3, 0]), I(f32, [5, 0]), I(f32, [5])),
        c("3-D with a zero batch", I(f32, [0, 3, 4]), I(f32, [5, 4]), I(f32, [5])),
        c("out_features 0", I(f32, [3, 4]), I(f32, [0, 4]), I(f32, [0])),
        c("large K", I(f32, [4, 300]), I(f32, [3, 300]), I(f32, [3]), tol=(1e-4, 1e-4)),
        c("bfloat16 2-D with bias", I(bf16, [3, 8]), I(bf16, [5, 8]), I(bf16, [5]), tol=(1e-2, 1e-2)),
        c("bfloat16 3-D permuted with bias", I(bf16, [2, 3, 4], [12, 1, 3]), I(bf16, [5, 4]),
          I(bf16, [5]), tol=(1e-2, 1e-2)),
        c("bfloat16 without bias", I(bf16, [2, 2, 8]), I(bf16, [3, 8]), tol=(1e-2, 1e-2)),
    ]


def linear_grads():
    def c(name, x, w, b=None, **kw):
        ins, steps = linear(x, w, b)
        return grad("LINEAR " + name, ins, steps, tol=kw.pop("tol", LIN_TOL), **kw)
    return [
        c("2-D with bias", I(f32, [3, 4], **R), I(f32, [5, 4], **R), I(f32, [5], **R)),
        c("2-D without bias", I(f32, [3, 4], **R), I(f32, [5, 4], **R)),
        c("3-D contiguous with bias", I(f32, [2, 3, 4], **R), I(f32, [5, 4], **R), I(f32, [5], **R)),
        c("3-D without bias", I(f32, [2, 3, 4], **R), I(f32, [5, 4], **R)),
        c("1-D with bias", I(f32, [4], **R), I(f32, [5, 4], **R), I(f32, [5], **R)),
        c("1-D without bias", I(f32, [4], **R), I(f32, [5, 4], **R)),
        c("4-D with bias", I(f64, [2, 2, 3, 4], **R), I(f64, [3, 4], **R), I(f64, [3], **R),
          tol=(1e-12, 1e-12)),
        c("transposed x (grad keeps x's layout)", transposed(f32, 3, 4, **R), I(f32, [5, 4], **R),
          I(f32, [5], **R)),
        c("3-D permuted x", I(f32, [2, 3, 4], [12, 1, 3], **R), I(f32, [5, 4], **R), I(f32, [5], **R)),
        c("transposed weight", I(f32, [3, 4], **R), transposed(f32, 5, 4, **R), I(f32, [5], **R)),
        c("bias broadcast [3,5]", I(f32, [3, 4], **R), I(f32, [5, 4], **R), I(f32, [3, 5], **R)),
        c("0-dim bias", I(f32, [2, 3, 4], **R), I(f32, [5, 4], **R), I(f32, [], **R)),
        c("only weight requires grad", I(f32, [3, 4]), I(f32, [5, 4], **R), I(f32, [5])),
        c("only x requires grad", I(f32, [2, 3, 4], **R), I(f32, [5, 4]), I(f32, [5])),
        c("only bias requires grad", I(f32, [3, 4]), I(f32, [5, 4]), I(f32, [5], **R)),
        grad("LINEAR through an expand of x",
             [I(f32, [4], **R), I(f32, [5, 4], **R), I(f32, [5], **R)],
             [step("EXPAND", 0, args=[3, 4]), step("LINEAR", 3, 1, args=[2])], tol=LIN_TOL),
        c("in_features 0", I(f32, [3, 0], **R), I(f32, [5, 0], **R), I(f32, [5], **R)),
        c("no rows", I(f32, [0, 4], **R), I(f32, [5, 4], **R), I(f32, [5], **R)),
        c("bfloat16", I(bf16, [2, 3, 4], **R), I(bf16, [5, 4], **R), I(bf16, [5], **R),
          tol=(2e-2, 2e-2)),
    ]


# ---- activations ------------------------------------------------------------

SPECIAL = [-INF, -10.0, -3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 3.0, 10.0, INF, NAN]
POS = {"kind": "pos"}


def act_tol(dtype):
    return {torch.float32: (1e-5, 1e-6), torch.float64: (1e-12, 1e-12),
            torch.bfloat16: (1e-2, 1e-2)}.get(dtype, (1e-5, 1e-6))


def unary_op(op, x, args=(), scalar=0.0):
    return [x], [step(op, 0, args=args, scalar=scalar)]


ACTS = [("GELU", [0]), ("GELU tanh", [1]), ("TANH", []), ("SIGMOID", []), ("SQRT", [])]


def act_step(name, args):
    return name.split()[0], args


def activation_forward():
    cs = []
    for label, args in ACTS:
        op, _ = act_step(label, args)
        kw = POS if op == "SQRT" else {}
        def c(name, x, tol=None):
            ins, steps = unary_op(op, x, args)
            cs.append(fwd(f"{label} {name}", ins, steps, tol=tol or act_tol(x.dtype)))
        c("float32", I(f32, [3, 4], **kw))
        c("float64", I(f64, [2, 5], **kw))
        c("bfloat16 (computed in float)", I(bf16, [6], **kw))
        c("special values", I(f32, [len(SPECIAL)], values=SPECIAL))
        c("special values float64", I(f64, [len(SPECIAL)], values=SPECIAL))
        c("wide range", I(f32, [12], values=[-20, -8, -5, -2.5, -1e-3, 1e-7, 1e-3, 0.7, 2.5, 5, 8, 20]))
        c("transposed keeps strides", transposed(f32, 3, 4, **kw))
        c("expanded input", expanded(f32, 3, 4, **kw))
        c("step-sliced input", stepped(f64, 3, 4, **kw))
        c("channels_last keeps strides", channels_last(f32, 2, 3, 2, 2, **kw))
        c("0-dim", I(f32, [], **kw))
        c("empty", I(f32, [0, 3]))
        if op != "GELU":
            c("int64 gives float32", I(i64, [5], values=[-2, 0, 1, 4, 9]))
            c("bool gives float32", I(b8, [3], values=[0, 1, 1]))
            c("uint8 gives float32", I(u8, [3], values=[0, 4, 200]))
    return cs


def pow_clamp_forward():
    ps = lambda name, x, e, **kw: fwd(f"POW_SCALAR {name}", [x], [step("POW_SCALAR", 0, scalar=e)],  # noqa
                                      tol=kw.pop("tol", None) or act_tol(x.dtype), **kw)
    cs = []
    for e in (2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 0.0, 1.0, 2.5, -1.5, 0.3):
        cs.append(ps(f"x ** {e}", I(f32, [8], kind="pos"), e))
    cs += [
        ps("special values ** 2", I(f32, [len(SPECIAL)], values=SPECIAL), 2.0),
        ps("special values ** 0.5", I(f32, [len(SPECIAL)], values=SPECIAL), 0.5),
        ps("special values ** -1", I(f32, [len(SPECIAL)], values=SPECIAL), -1.0),
        ps("special values ** 0", I(f32, [len(SPECIAL)], values=SPECIAL), 0.0),
        ps("negative base ** 2.5 is nan", I(f32, [3], values=[-1, -2, 4]), 2.5),
        ps("float64 ** 3", I(f64, [5]), 3.0),
        ps("float64 ** 1.7", I(f64, [5], kind="pos"), 1.7),
        ps("bfloat16 ** 3", I(bf16, [6]), 3.0),
        ps("bfloat16 ** -2", I(bf16, [6], kind="pos"), -2.0),
        ps("bfloat16 ** 1.3", I(bf16, [6], kind="pos"), 1.3),
        ps("float16 ** 2", I(f16, [6]), 2.0, tol=(2e-3, 1e-3)),
        ps("float16 ** 0.1 (exponent rounded to half)", I(f16, [6], kind="pos"), 0.1, tol=(2e-3, 1e-3)),
        ps("int64 ** 2 gives float32", I(i64, [5], values=[-3, 0, 1, 2, 7]), 2.0),
        ps("bool ** 2 gives float32", I(b8, [3], values=[0, 1, 1]), 2.0),
        ps("transposed keeps strides", transposed(f32, 3, 4), 2.0),
        ps("channels_last keeps strides", channels_last(f32, 2, 3, 2, 2), 3.0),
        ps("expanded", expanded(f32, 3, 4, kind="pos"), 1.5),
    ]
    pw = lambda name, a, b, **kw: fwd(f"POW {name}", [a, b], [step("POW", 0, 1)],  # noqa: E731
                                      tol=kw.pop("tol", None) or (1e-5, 1e-6), **kw)
    cs += [
        pw("same shape", I(f32, [3, 4], kind="pos"), I(f32, [3, 4])),
        pw("broadcast [3,1] ** [4]", I(f32, [3, 1], kind="pos"), I(f32, [4])),
        pw("float64", I(f64, [5], kind="pos"), I(f64, [5])),
        pw("float32 ** int64 exponent", I(f32, [4], kind="pos"), I(i64, [4], values=[0, 1, 2, -1])),
        pw("int64 ** float32 gives float32", I(i64, [4], values=[1, 2, 3, 4]), I(f32, [4])),
        pw("int64 ** int64", I(i64, [6], values=[2, -3, 1, -1, 0, 5]),
           I(i64, [6], values=[10, 3, -4, -3, 0, 2])),
        pw("int64 negative exponents", I(i64, [5], values=[2, 1, -1, -1, 0]),
           I(i64, [5], values=[-1, -5, -2, -3, -1])),
        pw("int32 wraps", I(i32, [2], values=[3, -2]), I(i32, [2], values=[21, 33])),
        pw("uint8", I(u8, [3], values=[2, 3, 255]), I(u8, [3], values=[7, 5, 2])),
        pw("float32 with 0-dim float64 exponent", I(f32, [3], kind="pos"), I(f64, [])),
        pw("special values", I(f32, [6], values=[0, 0, -1, INF, NAN, 1]),
           I(f32, [6], values=[0, -1, 0.5, -1, 0, NAN])),
        pw("bfloat16", I(bf16, [4], kind="pos"), I(bf16, [4]), tol=(1e-2, 1e-2)),
        pw("float16", I(f16, [4], kind="pos"), I(f16, [4]), tol=(2e-3, 1e-3)),
        pw("transposed + expanded", transposed(f32, 3, 4, kind="pos"), expanded(f32, 3, 4)),
    ]
    cl = lambda name, x, lo, hi, **kw: fwd(f"CLAMP {name}", [x], [step("CLAMP", 0, args=clamp_args(lo, hi))],  # noqa
                                           tol=kw.pop("tol", None) or act_tol(x.dtype), **kw)
    cs += [
        cl("min and max", I(f32, [3, 4]), -0.5, 0.5),
        cl("min only", I(f32, [3, 4]), -0.2, None),
        cl("max only", I(f32, [3, 4]), None, 0.1),
        cl("min > max gives max", I(f32, [5]), 1.0, -1.0),
        cl("nan in x stays", I(f32, [4], values=[NAN, -3, 0.5, 3]), -1.0, 1.0),
        cl("nan min with max: all nan", I(f32, [3]), NAN, 1.0),
        cl("nan max with min: all nan", I(f32, [3]), -1.0, NAN),
        cl("lone nan min leaves x", I(f32, [3], values=[NAN, -2, 2]), NAN, None),
        cl("lone nan max leaves x", I(f32, [3], values=[NAN, -2, 2]), None, NAN),
        cl("infinite bounds", I(f32, [4], values=[-INF, -1, 1, INF]), -INF, 0.5),
        cl("float64", I(f64, [6]), -0.3, 0.7),
        cl("bfloat16 (bounds rounded to bfloat16)", I(bf16, [8]), -0.3, 0.7),
        cl("int64 gives float32", I(i64, [5], values=[-9, -1, 0, 2, 9]), -1.5, 2.5),
        cl("bool gives float32", I(b8, [3], values=[0, 1, 1]), 0.5, None),
        cl("transposed keeps strides", transposed(f32, 3, 4), -0.5, 0.5),
        cl("channels_last keeps strides", channels_last(f32, 2, 3, 2, 2), None, 0.0),
        cl("expanded", expanded(f32, 3, 4), -0.1, 0.1),
    ]
    return cs


def pow_clamp_grads():
    cs = [
        grad("POW_SCALAR x ** 2", [I(f32, [3, 4], **R)], [step("POW_SCALAR", 0, scalar=2.0)]),
        grad("POW_SCALAR x ** 3 float64", [I(f64, [5], **R)], [step("POW_SCALAR", 0, scalar=3.0)],
             tol=(1e-12, 1e-12)),
        grad("POW_SCALAR x ** 0.5", [I(f32, [5], kind="pos", **R)], [step("POW_SCALAR", 0, scalar=0.5)]),
        grad("POW_SCALAR x ** -1.5", [I(f32, [5], kind="pos", **R)],
             [step("POW_SCALAR", 0, scalar=-1.5)]),
        grad("POW_SCALAR x ** 0 has zero grad", [I(f32, [4], **R)], [step("POW_SCALAR", 0, scalar=0.0)]),
        grad("POW_SCALAR special values", [I(f32, [5], values=[-1, 0, 0.5, 1, 2], **R)],
             [step("POW_SCALAR", 0, scalar=0.5)]),
        grad("POW_SCALAR through expand", [I(f64, [4], kind="pos", **R)],
             [step("EXPAND", 0, args=[3, 4]), step("POW_SCALAR", 1, scalar=2.5)], tol=(1e-12, 1e-12)),
        grad("POW_SCALAR bfloat16", [I(bf16, [4], **R)], [step("POW_SCALAR", 0, scalar=2.0)],
             tol=(1e-2, 1e-2)),
        grad("POW both", [I(f32, [3, 4], kind="pos", **R), I(f32, [3, 4], **R)], [step("POW", 0, 1)]),
        grad("POW broadcast sums back", [I(f64, [3, 1], kind="pos", **R), I(f64, [4], **R)],
             [step("POW", 0, 1)], tol=(1e-12, 1e-12)),
        grad("POW special values", [I(f32, [6], values=[-1, 0, 0.5, 1, 2, 0], **R),
                                    I(f32, [6], values=[2, 0, 1.5, 2, -1, -1], **R)], [step("POW", 0, 1)]),
        grad("POW only base requires grad", [I(f32, [4], kind="pos", **R), I(f32, [4])],
             [step("POW", 0, 1)]),
        grad("POW only exponent requires grad", [I(f32, [4], kind="pos"), I(f32, [4], **R)],
             [step("POW", 0, 1)]),
        grad("POW float32 ** int64 exponent", [I(f32, [4], **R), I(i64, [4], values=[0, 1, 2, 3])],
             [step("POW", 0, 1)]),
        grad("POW float32 ** 0-dim float64", [I(f32, [3], kind="pos", **R), I(f64, [], **R)],
             [step("POW", 0, 1)]),
        grad("CLAMP min and max (bounds pass the gradient)",
             [I(f32, [6], values=[-1, 0, 0.5, 1, 2, NAN], **R)],
             [step("CLAMP", 0, args=clamp_args(0.0, 1.0))]),
        grad("CLAMP min only", [I(f32, [3, 4], **R)], [step("CLAMP", 0, args=clamp_args(0.0, None))]),
        grad("CLAMP max only", [I(f64, [3, 4], **R)], [step("CLAMP", 0, args=clamp_args(None, 0.2))],
             tol=(1e-12, 1e-12)),
        grad("CLAMP min > max: no gradient", [I(f32, [4], **R)], [step("CLAMP", 0, args=clamp_args(1.0, -1.0))]),
        grad("CLAMP transposed", [transposed(f32, 3, 4, **R)], [step("CLAMP", 0, args=clamp_args(-0.5, 0.5))]),
        grad("CLAMP through expand", [I(f64, [4], **R)],
             [step("EXPAND", 0, args=[3, 4]), step("CLAMP", 1, args=clamp_args(-0.5, 0.5))]),
        grad("CLAMP bfloat16", [I(bf16, [6], **R)], [step("CLAMP", 0, args=clamp_args(-0.3, 0.7))],
             tol=(1e-2, 1e-2)),
    ]
    return cs


def activation_grads():
    cs = []
    for label, args in ACTS:
        op, _ = act_step(label, args)
        kw = dict(POS) if op == "SQRT" else {}
        def c(name, ins, steps, tol=None):
            cs.append(grad(f"{label} {name}", ins, steps, tol=tol or act_tol(ins[0].dtype)))
        c("float32", [I(f32, [3, 4], **kw, **R)], [step(op, 0, args=args)])
        c("float64", [I(f64, [2, 5], **kw, **R)], [step(op, 0, args=args)])
        c("bfloat16", [I(bf16, [6], **kw, **R)], [step(op, 0, args=args)], tol=(2e-2, 2e-2))
        c("transposed input", [transposed(f32, 3, 4, **kw, **R)], [step(op, 0, args=args)])
        c("channels_last input", [channels_last(f64, 2, 3, 2, 2, **kw, **R)], [step(op, 0, args=args)])
        c("through expand (broadcast sums back)", [I(f64, [4], **kw, **R)],
          [step("EXPAND", 0, args=[3, 4]), step(op, 1, args=args)])
        c("through a slice", [I(f64, [3, 6], **kw, **R)],
          [step("SLICE", 0, args=[1, 1, 6, 2]), step(op, 1, args=args)])
        c("0-dim", [I(f32, [], **kw, **R)], [step(op, 0, args=args)])
    return cs


# ---- normalisation ------------------------------------------------------------

def ln_step(a, shape, w=-1, b=-1, eps=1e-5):
    return step("LAYER_NORM", a, args=[len(shape)] + list(shape) + [w, b], scalar=eps)


NORM_TOL = (1e-5, 1e-5)


def norm_forward():
    sm = lambda name, x, dim, **kw: fwd("SOFTMAX " + name, [x], [step("SOFTMAX", 0, args=[dim])],  # noqa
                                        tol=kw.pop("tol", NORM_TOL), **kw)
    big = [1000.0, 1001.0, 999.0, -1000.0, 1e4, 1e4 + 1, 0.0, -1e4]
    cs = [
        sm("dim 1", I(f32, [3, 5]), 1),
        sm("dim 0", I(f32, [3, 5]), 0),
        sm("dim -1 of 3-D float64", I(f64, [2, 3, 4]), -1, tol=(1e-12, 1e-12)),
        sm("middle dim", I(f32, [2, 3, 4]), 1),
        sm("large values are stable", I(f32, [2, 4], values=big), 1),
        sm("-inf gives 0", I(f32, [4], values=[-INF, 0, 1, -INF]), 0),
        sm("nan spreads over its row", I(f32, [2, 3], values=[0, NAN, 1, 0, 1, 2]), 1),
        sm("transposed input (contiguous result)", transposed(f32, 3, 4), 1),
        sm("transposed input, dim 0", transposed(f32, 3, 4), 0),
        sm("expanded input", expanded(f32, 3, 4), 1),
        sm("channels_last input", channels_last(f32, 2, 3, 2, 2), 1),
        sm("bfloat16", I(bf16, [2, 8]), 1, tol=(1e-2, 1e-2)),
        sm("0-dim", I(f32, []), 0),
        sm("empty", I(f32, [0, 3]), 1),
        sm("one element per row", I(f32, [3, 1]), 1),
    ]
    ln = lambda name, ins, shape, w=-1, b=-1, eps=1e-5, **kw: fwd(  # noqa: E731
        "LAYER_NORM " + name, ins, [ln_step(0, shape, w, b, eps)], tol=kw.pop("tol", NORM_TOL), **kw)
    cs += [
        ln("last dim", [I(f32, [3, 5])], [5]),
        ln("last dim with weight and bias", [I(f32, [3, 5]), I(f32, [5]), I(f32, [5])], [5], 1, 2),
        ln("weight only", [I(f32, [3, 5]), I(f32, [5])], [5], 1),
        ln("bias only", [I(f32, [3, 5]), I(f32, [5])], [5], -1, 1),
        ln("two dims", [I(f64, [2, 3, 4]), I(f64, [3, 4]), I(f64, [3, 4])], [3, 4], 1, 2,
           tol=(1e-12, 1e-12)),
        ln("all dims", [I(f32, [2, 3])], [2, 3]),
        ln("eps 0.1", [I(f32, [4, 3])], [3], eps=0.1),
        ln("constant rows give bias", [I(f32, [2, 3], values=[2, 2, 2, -1, -1, -1]), I(f32, [3]),
                                       I(f32, [3])], [3], 1, 2),
        ln("transposed input", [transposed(f32, 3, 4)], [4]),
        ln("channels_last input", [channels_last(f32, 2, 3, 2, 2)], [2, 2]),
        ln("step-sliced weight", [I(f32, [2, 4]), I(f32, [4], [2], 1)], [4], 1),
        ln("large offset values", [I(f32, [2, 4], values=[1e4, 1e4 + 1, 1e4 + 2, 1e4 + 3,
                                                          -5, 5, -5, 5])], [4]),
        ln("bfloat16", [I(bf16, [3, 8]), I(bf16, [8]), I(bf16, [8])], [8], 1, 2, tol=(2e-2, 2e-2)),
        ln("no rows", [I(f32, [0, 4])], [4]),
        ln("1-D input", [I(f32, [6])], [6]),
    ]
    return cs


def norm_grads():
    sm = lambda name, ins, dim, **kw: grad("SOFTMAX " + name, ins, [step("SOFTMAX", 0, args=[dim])],  # noqa
                                           tol=kw.pop("tol", NORM_TOL), **kw)
    cs = [
        sm("dim 1", [I(f32, [3, 5], **R)], 1),
        sm("dim 0 float64", [I(f64, [3, 5], **R)], 0, tol=(1e-12, 1e-12)),
        sm("middle dim", [I(f32, [2, 3, 4], **R)], 1),
        sm("transposed input", [transposed(f32, 3, 4, **R)], 1),
        sm("bfloat16", [I(bf16, [2, 6], **R)], 1, tol=(2e-2, 2e-2)),
        sm("0-dim", [I(f32, [], **R)], 0),
        grad("SOFTMAX through expand", [I(f64, [4], **R)],
             [step("EXPAND", 0, args=[3, 4]), step("SOFTMAX", 1, args=[0])], tol=(1e-12, 1e-12)),
    ]
    ln = lambda name, ins, shape, w=-1, b=-1, eps=1e-5, **kw: grad(  # noqa: E731
        "LAYER_NORM " + name, ins, [ln_step(0, shape, w, b, eps)], tol=kw.pop("tol", NORM_TOL), **kw)
    cs += [
        ln("x only", [I(f32, [3, 5], **R)], [5]),
        ln("x, weight, bias", [I(f32, [3, 5], **R), I(f32, [5], **R), I(f32, [5], **R)], [5], 1, 2),
        ln("weight and bias only", [I(f32, [3, 5]), I(f32, [5], **R), I(f32, [5], **R)], [5], 1, 2),
        ln("two dims float64", [I(f64, [2, 3, 4], **R), I(f64, [3, 4], **R), I(f64, [3, 4], **R)],
           [3, 4], 1, 2, tol=(1e-12, 1e-12)),
        ln("weight without bias", [I(f32, [4, 3], **R), I(f32, [3], **R)], [3], 1),
        ln("transposed x", [transposed(f32, 3, 4, **R), I(f32, [4], **R), I(f32, [4], **R)], [4], 1, 2),
        ln("bfloat16", [I(bf16, [2, 8], **R), I(bf16, [8], **R), I(bf16, [8], **R)], [8], 1, 2,
           tol=(3e-2, 3e-2)),
        grad("LAYER_NORM through expand and slice", [I(f64, [6], **R), I(f64, [3], **R)],
             [step("EXPAND", 0, args=[2, 6]), step("SLICE", 2, args=[1, 0, 6, 2]),
              ln_step(3, [3], w=1, eps=1e-3)], tol=(1e-12, 1e-12)),
    ]
    return cs


# ---- joining ------------------------------------------------------------------

def join(op, dim, regs):
    return step(op, 0, args=[dim, len(regs)] + list(regs))


def joining_forward():
    def c(op, name, ins, dim, **kw):
        return fwd(f"{op} {name}", ins, [join(op, dim, range(len(ins)))], **kw)
    cs = [
        c("CAT", "dim 0", [I(f32, [2, 3]), I(f32, [4, 3])], 0),
        c("CAT", "dim 1 of three", [I(f32, [2, 1]), I(f32, [2, 3]), I(f32, [2, 2])], 1),
        c("CAT", "dim -1 of 3-D", [I(f64, [2, 3, 1]), I(f64, [2, 3, 4])], -1),
        c("CAT", "one tensor", [I(f32, [2, 3])], 1),
        c("CAT", "promotion float32 + int64", [I(f32, [2, 2]), I(i64, [1, 2])], 0),
        c("CAT", "promotion int32 + uint8", [I(i32, [3]), I(u8, [2])], 0),
        c("CAT", "promotion bool + float16 + bfloat16", [I(b8, [2]), I(f16, [2]), I(bf16, [1])], 0),
        c("CAT", "bool", [I(b8, [2, 2]), I(b8, [1, 2])], 0),
        c("CAT", "transposed inputs", [transposed(f32, 3, 2), transposed(f32, 3, 4)], 1),
        c("CAT", "step-sliced and expanded", [stepped(f32, 2, 3), expanded(f32, 2, 3)], 0),
        c("CAT", "channels_last inputs stay channels_last",
          [channels_last(f32, 2, 3, 2, 2), channels_last(f32, 2, 1, 2, 2)], 1),
        c("CAT", "channels_last with contiguous gives contiguous",
          [channels_last(f32, 2, 3, 2, 2), I(f32, [2, 1, 2, 2])], 1),
        c("CAT", "legacy 1-D empty is skipped", [I(f32, [0]), I(f32, [2, 3]), I(f64, [0])], 1),
        c("CAT", "only legacy empties", [I(f32, [0]), I(f32, [0])], 0),
        c("CAT", "empty along dim", [I(f32, [0, 3]), I(f32, [2, 3])], 0),
        c("CAT", "empty elsewhere", [I(f32, [2, 0]), I(f32, [2, 0])], 0),
        c("STACK", "dim 0", [I(f32, [2, 3]), I(f32, [2, 3])], 0),
        c("STACK", "dim 1 of three", [I(f32, [2, 3]), I(f32, [2, 3]), I(f32, [2, 3])], 1),
        c("STACK", "dim == ndim", [I(f32, [2, 3]), I(f32, [2, 3])], 2),
        c("STACK", "dim -1", [I(f64, [3]), I(f64, [3])], -1),
        c("STACK", "dim -3", [I(f32, [2, 3]), I(f32, [2, 3])], -3),
        c("STACK", "0-dim tensors", [I(f32, []), I(f32, []), I(f32, [])], 0),
        c("STACK", "one tensor", [I(f32, [3, 4])], 1),
        c("STACK", "promotion", [I(f32, [2]), I(i64, [2])], 0),
        c("STACK", "transposed inputs", [transposed(f32, 3, 4), transposed(f32, 3, 4)], 1),
        c("STACK", "transposed inputs at the end", [transposed(f32, 3, 4), transposed(f32, 3, 4)], 2),
        c("STACK", "channels_last inputs dim 1",
          [channels_last(f32, 2, 3, 2, 2), channels_last(f32, 2, 3, 2, 2)], 1),
        c("STACK", "channels_last inputs dim 4",
          [channels_last(f32, 2, 3, 2, 2), channels_last(f32, 2, 3, 2, 2)], 4),
        c("STACK", "expanded", [expanded(f32, 3, 4), I(f32, [3, 4])], 0),
        c("STACK", "empty tensors", [I(f32, [0]), I(f32, [0])], 1),
    ]
    return cs


def joining_grads():
    def c(op, name, ins, dim, **kw):
        return grad(f"{op} {name}", ins, [join(op, dim, range(len(ins)))], **kw)
    return [
        c("CAT", "dim 0", [I(f32, [2, 3], **R), I(f32, [4, 3], **R)], 0),
        c("CAT", "dim 1 of three, one without grad", [I(f32, [2, 1], **R), I(f32, [2, 3]),
                                                      I(f32, [2, 2], **R)], 1),
        c("CAT", "promotion float32 + float64 (grads in each dtype)",
          [I(f32, [2, 2], **R), I(f64, [1, 2], **R)], 0),
        c("CAT", "with int64 (no grad)", [I(f32, [2, 2], **R), I(i64, [1, 2])], 0),
        c("CAT", "legacy empty gets an empty grad", [I(f32, [0], **R), I(f32, [2, 3], **R)], 1),
        c("CAT", "transposed inputs", [transposed(f32, 3, 2, **R), transposed(f32, 3, 4, **R)], 1),
        c("CAT", "channels_last inputs", [channels_last(f32, 2, 3, 2, 2, **R),
                                          channels_last(f32, 2, 1, 2, 2, **R)], 1),
        grad("CAT same tensor twice", [I(f32, [2, 3], **R)], [join("CAT", 0, [0, 0])]),
        grad("CAT through expand", [I(f64, [3], **R), I(f64, [2, 3], **R)],
             [step("EXPAND", 0, args=[4, 3]), join("CAT", 0, [2, 1])]),
        c("STACK", "dim 0", [I(f32, [2, 3], **R), I(f32, [2, 3], **R)], 0),
        c("STACK", "dim 1, one without grad", [I(f32, [2, 3], **R), I(f32, [2, 3])], 1),
        c("STACK", "dim == ndim", [I(f64, [2, 3], **R), I(f64, [2, 3], **R)], 2),
        c("STACK", "0-dim tensors", [I(f32, [], **R), I(f32, [], **R)], 0),
        c("STACK", "promotion", [I(bf16, [3], **R), I(f32, [3], **R)], 0, tol=(1e-2, 1e-2)),
        grad("STACK same tensor twice", [I(f32, [2, 3], **R)], [join("STACK", -1, [0, 0])]),
    ]


# ---- selection and indexing ---------------------------------------------------

def where(name, cond, a, b, **kw):
    return fwd("WHERE " + name, [cond, a, b], [step("WHERE", 0, 1, args=[2])], **kw)


def indexing_forward():
    C = lambda sizes, **kw: I(b8, sizes, kind="int", **kw)  # noqa: E731
    cs = [
        where("same shape", C([3, 4]), I(f32, [3, 4]), I(f32, [3, 4])),
        where("broadcast all three", C([3, 1]), I(f32, [4]), I(f32, [2, 1, 1])),
        where("0-dim operands", C([2, 3]), I(f32, []), I(f32, [])),
        where("promotion float32 / float64", C([4]), I(f32, [4]), I(f64, [4])),
        where("promotion float32 / int64", C([4]), I(f32, [4]), I(i64, [4])),
        where("0-dim float64 does not widen float32", C([3]), I(f32, [3]), I(f64, [])),
        where("int32 / bool", C([4]), I(i32, [4]), I(b8, [4])),
        where("float16 / bfloat16 gives float32", C([3]), I(f16, [3]), I(bf16, [3])),
        where("uint8 condition", I(u8, [4], values=[0, 1, 7, 0]), I(f32, [4]), I(f32, [4])),
        where("transposed operands keep their order", transposed(b8, 3, 4, kind="int"),
              transposed(f32, 3, 4), transposed(f32, 3, 4)),
        where("channels_last operands", channels_last(b8, 2, 3, 2, 2, kind="int"),
              channels_last(f32, 2, 3, 2, 2), channels_last(f32, 2, 3, 2, 2)),
        where("expanded condition", expanded(b8, 3, 4, kind="int"), I(f32, [3, 4]), I(f32, [3, 4])),
        where("nan and inf pass through", I(b8, [4], values=[1, 0, 1, 0]),
              I(f32, [4], values=[NAN, 0, INF, 1]), I(f32, [4], values=[1, NAN, 2, -INF])),
        where("empty", C([0, 3]), I(f32, [3]), I(f32, [1])),
    ]
    L = lambda vals, dtype=i64, sizes=None, **kw: I(dtype, sizes if sizes is not None else [len(vals)],  # noqa
                                                   values=vals, **kw)
    isel = lambda name, x, dim, idx, **kw: fwd("INDEX_SELECT " + name, [x, idx],  # noqa: E731
                                               [step("INDEX_SELECT", 0, 1, args=[dim])], **kw)
    cs += [
        isel("dim 0", I(f32, [3, 4]), 0, L([2, 0, 2])),
        isel("dim 1", I(f32, [3, 4]), 1, L([3, 1])),
        isel("dim -1 of 3-D", I(f64, [2, 3, 4]), -1, L([0, 0, 3, 1])),
        isel("int32 index", I(f32, [3, 4]), 0, L([1], i32)),
        isel("0-dim index", I(f32, [3, 4]), 1, L([2], sizes=[])),
        isel("empty index", I(f32, [3, 4]), 1, L([], sizes=[0])),
        isel("0-dim x", I(f32, []), 0, L([0])),
        isel("transposed x", transposed(f32, 3, 4), 1, L([2, 0])),
        isel("channels_last x", channels_last(f32, 2, 3, 2, 2), 1, L([0, 2])),
        isel("expanded x", expanded(f32, 3, 4), 0, L([1, 1, 2])),
        isel("step-sliced index", I(f32, [4, 2]), 0, I(i64, [3], [2], 1, values=[9, 3, 9, 0, 9, 1])),
        isel("int64 x", I(i64, [3, 2]), 0, L([2, 1])),
        isel("bool x", I(b8, [3, 2]), 1, L([1])),
        isel("bfloat16 x", I(bf16, [3, 2]), 0, L([0, 2])),
    ]
    gat = lambda name, x, dim, idx, **kw: fwd("GATHER " + name, [x, idx],  # noqa: E731
                                              [step("GATHER", 0, 1, args=[dim])], **kw)
    cs += [
        gat("dim 1", I(f32, [3, 4]), 1, L([0, 3, 1, 1, 2, 0], sizes=[3, 2])),
        gat("dim 0", I(f32, [3, 4]), 0, L([2, 0, 1, 2], sizes=[1, 4])),
        gat("index larger along dim", I(f32, [3, 4]), 1, L([0, 1, 2, 3, 3, 3, 0], sizes=[1, 7])),
        gat("3-D middle dim", I(f64, [2, 3, 2]), 1, L([2, 0, 1, 1, 0, 0, 2, 2], sizes=[2, 2, 2])),
        gat("0-dim", I(f32, []), 0, L([0], sizes=[])),
        gat("1-D x with 0-dim index", I(f32, [3]), 0, L([2], sizes=[])),
        gat("empty index", I(f32, [3, 4]), 1, L([], sizes=[0, 2])),
        gat("transposed x", transposed(f32, 3, 4), 0, L([2, 0, 1, 1], sizes=[1, 4])),
        gat("transposed index", I(f32, [3, 4]), 0,
            I(i64, [2, 4], [1, 2], values=[0, 2, 1, 0, 2, 2, 1, 1])),
        gat("channels_last x", channels_last(f32, 2, 3, 2, 2), 1,
            L([0, 2, 1, 1, 0, 0, 2, 2, 1, 0, 2, 1, 0, 0, 1, 1], sizes=[2, 2, 2, 2])),
        gat("int32 x", I(i32, [2, 3]), 1, L([2, 2, 0, 1], sizes=[2, 2])),
        gat("bfloat16 x", I(bf16, [2, 3]), 1, L([2, 2, 0, 1], sizes=[2, 2])),
    ]
    emb = lambda name, w, idx, **kw: fwd("EMBEDDING " + name, [w, idx],  # noqa: E731
                                         [step("EMBEDDING", 0, 1)], **kw)
    cs += [
        emb("1-D indices", I(f32, [5, 3]), L([4, 0, 4, 2])),
        emb("2-D indices", I(f32, [5, 3]), L([1, 2, 0, 0, 4, 3], sizes=[2, 3])),
        emb("0-dim index", I(f32, [5, 3]), L([3], sizes=[])),
        emb("int32 indices", I(f64, [4, 2]), L([3, 1], i32)),
        emb("empty indices", I(f32, [5, 3]), L([], sizes=[0])),
        emb("transposed weight", transposed(f32, 4, 3), L([2, 0])),
        emb("transposed indices", I(f32, [5, 2]), I(i64, [2, 2], [1, 2], values=[0, 1, 2, 3])),
        emb("bool weight", I(b8, [3, 2]), L([0, 2])),
        emb("bfloat16 weight", I(bf16, [3, 2]), L([1, 1])),
    ]
    return cs


def indexing_grads():
    C = lambda sizes, **kw: I(b8, sizes, kind="int", **kw)  # noqa: E731
    cs = [
        grad("WHERE same shape", [C([3, 4]), I(f32, [3, 4], **R), I(f32, [3, 4], **R)],
             [step("WHERE", 0, 1, args=[2])]),
        grad("WHERE broadcast sums back", [C([3, 1]), I(f64, [4], **R), I(f64, [2, 1, 1], **R)],
             [step("WHERE", 0, 1, args=[2])], tol=(1e-12, 1e-12)),
        grad("WHERE promotion float32 / float64", [C([4]), I(f32, [4], **R), I(f64, [4], **R)],
             [step("WHERE", 0, 1, args=[2])]),
        grad("WHERE only a requires grad", [C([4]), I(f32, [4], **R), I(f32, [4])],
             [step("WHERE", 0, 1, args=[2])]),
        grad("WHERE with int64 b", [C([4]), I(f32, [4], **R), I(i64, [4])], [step("WHERE", 0, 1, args=[2])]),
        grad("WHERE 0-dim a", [C([2, 3]), I(f32, [], **R), I(f32, [2, 3], **R)],
             [step("WHERE", 0, 1, args=[2])]),
        grad("WHERE same tensor both sides", [C([5]), I(f32, [5], **R)], [step("WHERE", 0, 1, args=[1])]),
    ]
    L = lambda vals, dtype=i64, sizes=None, **kw: I(dtype, sizes if sizes is not None else [len(vals)],  # noqa
                                                   values=vals, **kw)
    cs += [
        grad("INDEX_SELECT repeated indices accumulate", [I(f32, [3, 4], **R), L([0, 0, 2, 0])],
             [step("INDEX_SELECT", 0, 1, args=[0])]),
        grad("INDEX_SELECT dim 1 float64", [I(f64, [3, 4], **R), L([3, 1, 3])],
             [step("INDEX_SELECT", 0, 1, args=[1])], tol=(1e-12, 1e-12)),
        grad("INDEX_SELECT transposed x", [transposed(f32, 3, 4, **R), L([1], i32)],
             [step("INDEX_SELECT", 0, 1, args=[-1])]),
        grad("INDEX_SELECT 0-dim index", [I(f32, [3, 4], **R), L([2], sizes=[])],
             [step("INDEX_SELECT", 0, 1, args=[0])]),
        grad("INDEX_SELECT bfloat16", [I(bf16, [3, 2], **R), L([2, 2, 2])],
             [step("INDEX_SELECT", 0, 1, args=[0])], tol=(1e-2, 1e-2)),
        grad("INDEX_SELECT through expand", [I(f64, [4], **R), L([2, 0, 2])],
             [step("EXPAND", 0, args=[3, 4]), step("INDEX_SELECT", 2, 1, args=[0])]),
        grad("GATHER dim 1 with repeats", [I(f32, [3, 4], **R), L([0, 0, 1, 3, 3, 3], sizes=[3, 2])],
             [step("GATHER", 0, 1, args=[1])]),
        grad("GATHER dim 0 float64", [I(f64, [3, 4], **R), L([2, 0, 1, 2, 2, 2, 2, 2], sizes=[2, 4])],
             [step("GATHER", 0, 1, args=[0])], tol=(1e-12, 1e-12)),
        grad("GATHER transposed x and index", [transposed(f32, 3, 4, **R),
                                               I(i64, [2, 4], [1, 2], values=[0, 2, 1, 0, 2, 2, 1, 1])],
             [step("GATHER", 0, 1, args=[0])]),
        grad("GATHER 0-dim", [I(f32, [], **R), L([0], sizes=[])], [step("GATHER", 0, 1, args=[0])]),
        grad("GATHER bfloat16", [I(bf16, [2, 3], **R), L([2, 2, 2, 2], sizes=[2, 2])],
             [step("GATHER", 0, 1, args=[1])], tol=(1e-2, 1e-2)),
        grad("EMBEDDING repeated indices accumulate", [I(f32, [5, 3], **R), L([4, 0, 4, 4])],
             [step("EMBEDDING", 0, 1)]),
        grad("EMBEDDING 2-D indices", [I(f64, [5, 3], **R), L([1, 2, 0, 0, 4, 1], sizes=[2, 3])],
             [step("EMBEDDING", 0, 1)], tol=(1e-12, 1e-12)),
        grad("EMBEDDING 0-dim index, int32", [I(f32, [5, 3], **R), L([3], i32, sizes=[])],
             [step("EMBEDDING", 0, 1)]),
        grad("EMBEDDING transposed weight", [transposed(f32, 4, 3, **R), L([2, 0, 2])],
             [step("EMBEDDING", 0, 1)]),
        grad("EMBEDDING unused rows get zeros", [I(f32, [6, 2], **R), L([], sizes=[0])],
             [step("EMBEDDING", 0, 1)]),
    ]
    return cs


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    families = [
        ("nn_linear_golden.h", "linear (torch.nn.functional.linear).", 101,
         [("tg_linear_fwd", linear_forward), ("tg_linear_grad", linear_grads)]),
        ("nn_activation_golden.h", "gelu, tanh, sigmoid, sqrt, pow, clamp.", 102,
         [("tg_act_fwd", activation_forward), ("tg_act_grad", activation_grads),
          ("tg_powclamp_fwd", pow_clamp_forward), ("tg_powclamp_grad", pow_clamp_grads)]),
        ("nn_normalization_golden.h", "softmax, layer_norm.", 103,
         [("tg_norm_fwd", norm_forward), ("tg_norm_grad", norm_grads)]),
        ("nn_joining_golden.h", "cat, stack.", 104,
         [("tg_join_fwd", joining_forward), ("tg_join_grad", joining_grads)]),
        ("nn_indexing_golden.h", "where, index_select, gather, embedding.", 105,
         [("tg_index_fwd", indexing_forward), ("tg_index_grad", indexing_grads)]),
    ]
    for fname, what, seed, tables in families:
        guard = "TSR_TESTS_GOLDEN_" + fname.upper().replace(".", "_")
        opsprog.GEN.manual_seed(seed)
        out = [f"/* GENERATED FILE - do not edit.\n"
               f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch "
               f"{torch.__version__}\n * (/usr/bin/python3). {what}\n"
               f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
               f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
               '#include "ops_program.h"\n\n']
        for table, make in tables:
            inits = []
            for n, c in enumerate(make()):
                d, init = opsprog.emit_case(c.run(), f"{table}_{n}")
                out.append(f"/* {c.name}{': ' + c.note if c.note else ''} */\n{d}\n")
                inits.append(init)
            out.append(f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n")
            out.append(f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n")
        out.append(f"#endif /* {guard} */\n")
        write(os.path.join(root, fname), "".join(out))

if __name__ == "__main__":
    main()
