"""Forward goldens for tests/test_ops.c, test_reductions.c, test_matmul_nn.c
and test_inplace.c: PyTorch computes each program (see opsprog.py) and
the header keeps its inputs, result dtype/sizes/strides/values.

Run from the repository root: /usr/bin/python3 tests/golden/gen_ops.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opsprog import (Case, Input, as_strided_args, c_double, c_table, header, step,  # noqa: E402
                     write, make_values, DTYPES)

f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
u8, i8, i16, i32, i64, b8 = torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool


def kind_for(dtype, kind):
    if kind == "randn" and not dtype.is_floating_point:
        return "int"
    return kind


def I(dtype, sizes, strides=None, offset=0, kind="randn", **kw):  # noqa: E743
    return Input(dtype, sizes, strides, offset, kind=kind_for(dtype, kind), **kw)


def transposed(dtype, m, n, kind="randn", **kw):
    """[m, n] with strides (1, m): the transpose of a contiguous [n, m]."""
    return I(dtype, [m, n], [1, m], kind=kind, **kw)


def stepped(dtype, m, n, kind="randn", **kw):
    """[m, n] = base[m, 2n][:, 1::2]: strides (2n, 2), offset 1."""
    return I(dtype, [m, n], [2 * n, 2], 1, kind=kind, **kw)


def expanded(dtype, m, n, kind="randn", **kw):
    """[m, n] = base[n].expand(m, n): strides (0, 1)."""
    return I(dtype, [m, n], [0, 1], kind=kind, **kw)


def channels_last(dtype, N, C, H, W, kind="randn", **kw):
    return I(dtype, [N, C, H, W], [H * W * C, 1, W * C, C], kind=kind, **kw)


def binary(name, op, a, b, **kw):
    return Case(name, [a, b], [step(op, 0, 1)], **kw)


def unary(name, op, a, scalar=0.0, **kw):
    return Case(name, [a], [step(op, 0, scalar=scalar)], **kw)


def elementwise_cases():
    cs = []
    # Broadcasting, float32.
    for op in ("ADD", "SUB", "MUL", "DIV"):
        den = "pos" if op == "DIV" else "randn"
        cs += [
            binary(f"{op} same shape", op, I(f32, [2, 3]), I(f32, [2, 3], kind=den)),
            binary(f"{op} [2,3] with [3] (leading dim)", op, I(f32, [2, 3]), I(f32, [3], kind=den)),
            binary(f"{op} [4,1,3] with [2,1]", op, I(f32, [4, 1, 3]), I(f32, [2, 1], kind=den)),
            binary(f"{op} 0-dim with [2,3]", op, I(f32, []), I(f32, [2, 3], kind=den)),
            binary(f"{op} [2,3] with 0-dim", op, I(f32, [2, 3]), I(f32, [], kind=den)),
            binary(f"{op} [1] with [5]", op, I(f32, [1]), I(f32, [5], kind=den)),
            binary(f"{op} [3,1] with [1,4]", op, I(f32, [3, 1]), I(f32, [1, 4], kind=den)),
            binary(f"{op} empty [0,3] with [3]", op, I(f32, [0, 3]), I(f32, [3], kind=den)),
            binary(f"{op} float64 [2,1,2] with [3,1]", op, I(f64, [2, 1, 2]), I(f64, [3, 1], kind=den)),
        ]
    cs += [
        binary("DIV by zero: x/0 is +-inf, 0/0 nan", "DIV", I(f32, [4], values=[1, -2, 0, 3]),
               I(f32, [4], values=[0, 0, 0, 2])),
        binary("ADD inf + -inf is nan", "ADD", I(f32, [2], values=[float("inf"), 1]),
               I(f32, [2], values=[float("-inf"), float("nan")])),
    ]
    # Type promotion (torch.result_type), every category pair.
    promo = [
        ("ADD", i32, f32), ("ADD", u8, i8), ("SUB", i8, u8), ("ADD", b8, i32), ("ADD", f16, bf16),
        ("MUL", i64, f16), ("DIV", i32, i32), ("DIV", u8, u8), ("DIV", b8, b8), ("DIV", i64, f64),
        ("MUL", b8, b8), ("ADD", b8, b8), ("MUL", i8, i16), ("ADD", f32, f64), ("ADD", b8, f16),
        ("ADD", u8, b8), ("SUB", i16, i64), ("MUL", bf16, f32), ("ADD", u8, i64), ("SUB", f16, f16),
        ("ADD", bf16, bf16), ("MUL", u8, u8), ("DIV", bf16, i32), ("ADD", i32, i32),
    ]
    for op, da, db in promo:
        kb = "nonzero_int" if op == "DIV" and not db.is_floating_point else \
            ("pos" if op == "DIV" else "randn")
        cs.append(binary(f"{op} {da} with {db}", op, I(da, [2, 3]), I(db, [3], kind=kb)))
    # 0-dim operands take part in promotion only across categories
    # (torch.result_type): f32[3] + f64[] stays float32, int32[3] + f64[] is float64.
    zero_dim = [("ADD", f32, f64), ("ADD", i32, i64), ("MUL", i32, f64), ("ADD", b8, i64),
                ("ADD", u8, i8), ("ADD", f16, f32), ("MUL", i64, f16), ("ADD", f16, bf16)]
    for op, da, db in zero_dim:
        cs.append(binary(f"{op} {da}[3] with 0-dim {db}", op, I(da, [3]), I(db, [])))
        cs.append(binary(f"{op} 0-dim {db} with {da}[3]", op, I(db, []), I(da, [3])))
    cs.append(binary("ADD 0-dim int32 with 0-dim float64", "ADD", I(i32, []), I(f64, [])))
    # Integer overflow wraps (two's complement), as torch.
    cs += [
        binary("ADD int32 wraps", "ADD", I(i32, [3], values=[2147483647, -2147483648, 5]),
               I(i32, [3], values=[1, -1, 2147483647])),
        binary("SUB int32 wraps", "SUB", I(i32, [2], values=[-2147483648, 2147483647]),
               I(i32, [2], values=[1, -1])),
        binary("MUL int32 wraps", "MUL", I(i32, [2], values=[65536, -2147483648]),
               I(i32, [2], values=[65536, -1])),
        binary("ADD int8 wraps", "ADD", I(i8, [2], values=[127, -128]), I(i8, [2], values=[1, -1])),
        binary("MUL uint8 wraps", "MUL", I(u8, [2], values=[200, 16]), I(u8, [2], values=[2, 16])),
        binary("MUL int16 wraps", "MUL", I(i16, [1], values=[300]), I(i16, [1], values=[300])),
    ]
    # Non-contiguous inputs and torch's output strides.
    cs += [
        binary("ADD transposed + contiguous", "ADD", transposed(f32, 3, 4), I(f32, [3, 4])),
        binary("ADD contiguous + transposed", "ADD", I(f32, [3, 4]), transposed(f32, 3, 4)),
        binary("ADD transposed + transposed", "ADD", transposed(f32, 3, 4), transposed(f32, 3, 4)),
        binary("MUL transposed + [4] broadcast", "MUL", transposed(f32, 3, 4), I(f32, [4])),
        binary("MUL transposed + [3,1] broadcast", "MUL", transposed(f32, 3, 4), I(f32, [3, 1])),
        binary("SUB step-sliced + contiguous", "SUB", stepped(f32, 3, 4), I(f32, [3, 4])),
        binary("SUB step-sliced + step-sliced", "SUB", stepped(f32, 3, 4), stepped(f32, 3, 4)),
        binary("MUL expanded + contiguous", "MUL", expanded(f32, 3, 4), I(f32, [3, 4])),
        binary("ADD expanded + expanded", "ADD", expanded(f32, 3, 4), expanded(f32, 3, 4)),
        binary("ADD expanded + transposed", "ADD", expanded(f32, 3, 4), transposed(f32, 3, 4)),
        binary("ADD channels_last + channels_last", "ADD", channels_last(f32, 2, 3, 4, 5),
               channels_last(f32, 2, 3, 4, 5)),
        binary("ADD channels_last + contiguous", "ADD", channels_last(f32, 2, 3, 4, 5),
               I(f32, [2, 3, 4, 5])),
        binary("ADD contiguous + channels_last", "ADD", I(f32, [2, 3, 4, 5]),
               channels_last(f32, 2, 3, 4, 5)),
        binary("MUL channels_last + [3,1,1]", "MUL", channels_last(f32, 2, 3, 4, 5), I(f32, [3, 1, 1])),
        binary("ADD channels_last float16 + channels_last float32", "ADD",
               channels_last(f16, 2, 3, 2, 2), channels_last(f32, 2, 3, 2, 2)),
        binary("ADD permuted [4,2,3]->(2,0,1) + [3,1,1]", "ADD",
               I(f32, [3, 4, 2], [1, 6, 3]), I(f32, [3, 1, 1])),
        binary("DIV int32 transposed / int32", "DIV", transposed(i32, 3, 4),
               I(i32, [3, 4], kind="nonzero_int")),
        binary("ADD int64 step-sliced + float32 transposed", "ADD", stepped(i64, 3, 4),
               transposed(f32, 3, 4)),
        binary("ADD size-1 dims with odd strides", "ADD", I(f32, [2, 1, 3], [3, 17, 1]),
               I(f32, [2, 1, 3])),
        binary("MUL bool expanded * bool", "MUL", expanded(b8, 2, 3), I(b8, [2, 3])),
        binary("ADD bool + bool (logical or)", "ADD", I(b8, [4], values=[0, 1, 0, 1]),
               I(b8, [4], values=[0, 0, 1, 1])),
        binary("MUL bool * int64", "MUL", I(b8, [2, 2]), I(i64, [2])),
    ]
    # Unary ops and scalar variants.
    cs += [
        unary("RELU float32", "RELU", I(f32, [7], values=[-2, -0.5, 0, 0.5, 2, -0.0, 3])),
        unary("RELU int32", "RELU", I(i32, [5], values=[-3, 0, 3, -2147483648, 2147483647])),
        unary("RELU transposed keeps strides", "RELU", transposed(f32, 3, 4)),
        unary("RELU bfloat16", "RELU", I(bf16, [6])),
        unary("RELU channels_last", "RELU", channels_last(f32, 1, 2, 2, 3)),
        unary("RELU nan stays nan", "RELU", I(f32, [2], values=[float("nan"), -1])),
        unary("EXP float32", "EXP", I(f32, [6], values=[0, 1, -1, 88, -104, 100])),
        unary("EXP float64", "EXP", I(f64, [2, 3])),
        unary("EXP int32 gives float32", "EXP", I(i32, [4], values=[0, 1, 2, -3])),
        unary("EXP bool gives float32", "EXP", I(b8, [2], values=[0, 1])),
        unary("EXP uint8 gives float32", "EXP", I(u8, [2], values=[0, 3])),
        unary("EXP step-sliced", "EXP", stepped(f32, 2, 3)),
        unary("LOG float32", "LOG", I(f32, [5], values=[1, 0.5, 0, -1, float("inf")])),
        unary("LOG float64", "LOG", I(f64, [2, 3], kind="pos")),
        unary("LOG int64 gives float32", "LOG", I(i64, [3], values=[1, 10, 0])),
        unary("LOG transposed", "LOG", transposed(f32, 2, 3, kind="pos")),
        unary("NEG float32", "NEG", I(f32, [3], values=[1.5, -0.0, 0])),
        unary("NEG int8 wraps at -128", "NEG", I(i8, [3], values=[-128, 127, 0])),
        unary("NEG uint8 wraps", "NEG", I(u8, [3], values=[0, 1, 200])),
        unary("NEG int32 min wraps", "NEG", I(i32, [2], values=[-2147483648, 5])),
        unary("NEG float16 expanded", "NEG", expanded(f16, 2, 3)),
        unary("MUL_SCALAR float32", "MUL_SCALAR", I(f32, [2, 3]), scalar=-2.5),
        unary("MUL_SCALAR float64 transposed", "MUL_SCALAR", transposed(f64, 2, 3), scalar=0.1),
        unary("MUL_SCALAR float16", "MUL_SCALAR", I(f16, [4]), scalar=3.0),
        unary("MUL_SCALAR bfloat16 channels_last", "MUL_SCALAR", channels_last(bf16, 1, 2, 2, 2),
              scalar=0.5),
        unary("ADD_SCALAR float32", "ADD_SCALAR", I(f32, [2, 3]), scalar=1.25),
        unary("ADD_SCALAR float64 step-sliced", "ADD_SCALAR", stepped(f64, 2, 2), scalar=-7.0),
        unary("ADD_SCALAR 0-dim", "ADD_SCALAR", I(f32, []), scalar=2.0),
        unary("ADD_SCALAR empty", "ADD_SCALAR", I(f32, [0, 2]), scalar=2.0),
    ]
    return cs


def matmul_cases():
    mm = lambda name, a, b, **kw: binary(name, "MATMUL", a, b, **kw)  # noqa: E731
    return [
        mm("dot 1-D . 1-D", I(f32, [5]), I(f32, [5])),
        mm("mv 2-D . 1-D", I(f32, [3, 4]), I(f32, [4])),
        mm("vm 1-D . 2-D", I(f32, [4]), I(f32, [4, 3])),
        mm("mm 2-D . 2-D", I(f32, [3, 4]), I(f32, [4, 5])),
        mm("mm float64", I(f64, [2, 3]), I(f64, [3, 2])),
        mm("mm transposed a", transposed(f32, 3, 4), I(f32, [4, 5])),
        mm("mm transposed b", I(f32, [3, 4]), transposed(f32, 4, 5)),
        mm("mm both transposed", transposed(f64, 3, 4), transposed(f64, 4, 2)),
        mm("mm step-sliced operands", stepped(f32, 3, 4), stepped(f32, 4, 2)),
        mm("mm expanded b (stride 0 rows)", I(f32, [2, 3]), expanded(f32, 3, 4)),
        mm("mm b column expanded (stride 0 cols)", I(f32, [2, 3]), I(f32, [3, 4], [1, 0])),
        mm("mm K = 0 gives zeros", I(f32, [3, 0]), I(f32, [0, 4])),
        mm("mm M = 0", I(f32, [0, 3]), I(f32, [3, 4])),
        mm("dot K = 0", I(f32, [0]), I(f32, [0])),
        mm("batched [5,2,3] . [3,4]", I(f32, [5, 2, 3]), I(f32, [3, 4])),
        mm("batched [2,3] . [5,3,4]", I(f32, [2, 3]), I(f32, [5, 3, 4])),
        mm("batched [5,2,3] . [5,3,4]", I(f32, [5, 2, 3]), I(f32, [5, 3, 4])),
        mm("batched broadcast [2,1,2,3] . [4,3,2]", I(f32, [2, 1, 2, 3]), I(f32, [4, 3, 2])),
        mm("batched [3] . [2,3,4]", I(f32, [3]), I(f32, [2, 3, 4])),
        mm("batched [2,2,3] . [3]", I(f32, [2, 2, 3]), I(f32, [3])),
        mm("batched expanded batch dim", I(f32, [3, 2, 3], [0, 3, 1]), I(f32, [3, 3, 2])),
        mm("batched transposed last dims", I(f64, [2, 3, 4], [12, 1, 3]), I(f64, [2, 4, 2], [8, 1, 4])),
    ]


def reduction_cases():
    r = lambda name, op, x, dims=(), keepdim=False, **kw: Case(  # noqa: E731
        name, [x], [step(op, 0, args=dims, keepdim=keepdim)], **kw)
    red_tol = (1e-5, 1e-5)
    cs = [
        r("SUM all", "SUM", I(f32, [3, 4]), tol=red_tol),
        r("SUM all keepdim", "SUM", I(f32, [3, 4]), keepdim=True, tol=red_tol),
        r("SUM dim 0", "SUM", I(f32, [3, 4]), [0], tol=red_tol),
        r("SUM dim -1 keepdim", "SUM", I(f32, [3, 4]), [-1], True, tol=red_tol),
        r("SUM dims (0,2)", "SUM", I(f32, [2, 3, 4]), [0, 2], tol=red_tol),
        r("SUM dims (-1,0) keepdim", "SUM", I(f32, [2, 3, 4]), [-1, 0], True, tol=red_tol),
        r("SUM all dims listed", "SUM", I(f64, [2, 3, 4]), [0, 1, 2]),
        r("SUM int32 gives int64", "SUM", I(i32, [3, 4]), [1]),
        r("SUM uint8 gives int64 (no wrap at 255)", "SUM", I(u8, [4], values=[200, 200, 100, 1])),
        r("SUM bool counts", "SUM", I(b8, [2, 3]), [0]),
        r("SUM int64 wraps", "SUM", I(i64, [2], values=[2 ** 62, 2 ** 62])),
        r("SUM float16", "SUM", I(f16, [2, 8]), [1]),
        r("SUM bfloat16 all", "SUM", I(bf16, [4, 4]), tol=(2e-2, 2e-2)),
        r("SUM transposed dim 0", "SUM", transposed(f32, 3, 4), [0], tol=red_tol),
        r("SUM expanded", "SUM", expanded(f32, 3, 4), [0], tol=red_tol),
        r("SUM channels_last dim 1 keepdim", "SUM", channels_last(f32, 2, 3, 2, 2), [1], True,
          tol=red_tol),
        r("SUM empty is 0", "SUM", I(f32, [0, 3]), [0]),
        r("SUM empty all", "SUM", I(f32, [2, 0])),
        r("SUM 0-dim", "SUM", I(f32, [])),
        r("SUM 0-dim over dim -1", "SUM", I(f32, []), [-1]),
        r("SUM large float32 stays accurate", "SUM", I(f32, [1000]), tol=(1e-5, 1e-4)),
        r("MEAN all", "MEAN", I(f32, [3, 4]), tol=red_tol),
        r("MEAN dim 1", "MEAN", I(f32, [3, 4]), [1], tol=red_tol),
        r("MEAN dims (0,1) keepdim", "MEAN", I(f64, [2, 3, 4]), [0, 1], True),
        r("MEAN float16", "MEAN", I(f16, [4, 4]), [0]),
        r("MEAN empty is nan", "MEAN", I(f32, [0])),
        r("MEAN over empty dim is nan", "MEAN", I(f32, [2, 0]), [1]),
        r("MEAN step-sliced", "MEAN", stepped(f32, 3, 4), [0], tol=red_tol),
    ]
    md = lambda name, op, x, dim, keepdim=False: Case(  # noqa: E731
        name, [x], [step(op, 0, args=[dim], keepdim=keepdim)])
    ties = [3, 1, 3, 2, 7, 7, 0, 7]
    nan = float("nan")
    for op in ("MAX_DIM_VALUES", "MAX_DIM_INDICES"):
        cs += [
            md(f"{op} dim 1", op, I(f32, [3, 4]), 1),
            md(f"{op} dim 0 keepdim", op, I(f32, [3, 4]), 0, True),
            md(f"{op} dim -1", op, I(f32, [2, 3, 4]), -1),
            md(f"{op} ties give the first index", op, I(f32, [2, 4], values=ties), 1),
            md(f"{op} nan is the maximum (first nan)", op,
               I(f32, [2, 4], values=[1, nan, 3, nan, 5, 2, nan, 9]), 1),
            md(f"{op} int32", op, I(i32, [3, 4]), 0),
            md(f"{op} transposed", op, transposed(f32, 3, 4), 1),
            md(f"{op} 0-dim", op, I(f32, []), 0),
            md(f"{op} -inf only", op, I(f32, [3], values=[float("-inf")] * 3), 0),
        ]
    cs += [
        md("ARGMAX dim 1", "ARGMAX", I(f32, [3, 4]), 1),
        md("ARGMAX keepdim", "ARGMAX", I(f32, [3, 4]), 0, True),
        md("ARGMAX ties", "ARGMAX", I(f32, [8], values=ties), 0),
        md("ARGMAX nan", "ARGMAX", I(f64, [4], values=[1, nan, 5, nan]), 0),
        Case("MAX all", [I(f32, [3, 4])], [step("MAX", 0)]),
        Case("MAX nan", [I(f32, [3], values=[1, nan, 2])], [step("MAX", 0)]),
        Case("MAX int8", [I(i8, [5])], [step("MAX", 0)]),
        Case("MAX expanded", [expanded(f64, 2, 3)], [step("MAX", 0)]),
    ]
    return cs


def nn_cases():
    ls = lambda name, x, dim, **kw: Case(name, [x], [step("LOG_SOFTMAX", 0, args=[dim])], **kw)  # noqa
    big = [1000.0, 1001.0, 999.0, -1000.0, 1e4, 1e4 + 1, 0.0, -1e4]
    cs = [
        ls("LOG_SOFTMAX dim 1", I(f32, [3, 5]), 1),
        ls("LOG_SOFTMAX dim 0", I(f32, [3, 5]), 0),
        ls("LOG_SOFTMAX dim -1 of 3-D", I(f64, [2, 3, 4]), -1),
        ls("LOG_SOFTMAX middle dim", I(f32, [2, 3, 4]), 1),
        ls("LOG_SOFTMAX large values are stable", I(f32, [2, 4], values=big), 1),
        ls("LOG_SOFTMAX large values float64", I(f64, [2, 4], values=big), 1),
        ls("LOG_SOFTMAX with -inf", I(f32, [3], values=[float("-inf"), 0, 1]), 0),
        ls("LOG_SOFTMAX transposed", transposed(f32, 3, 4), 1),
        ls("LOG_SOFTMAX 0-dim", I(f32, []), 0),
    ]
    ce = lambda name, x, t, **kw: Case(name, [x, t], [step("CROSS_ENTROPY", 0, 1)], **kw)  # noqa
    cs += [
        ce("CROSS_ENTROPY float32", I(f32, [4, 3]), I(i64, [4], values=[0, 2, 1, 2])),
        ce("CROSS_ENTROPY float64", I(f64, [5, 7]), I(i64, [5], values=[6, 0, 3, 3, 1])),
        ce("CROSS_ENTROPY large logits", I(f32, [2, 4], values=big), I(i64, [2], values=[1, 3])),
        ce("CROSS_ENTROPY transposed logits", transposed(f32, 4, 3), I(i64, [4], values=[2, 2, 0, 1])),
        ce("CROSS_ENTROPY step-sliced target", I(f32, [3, 3]),
           I(i64, [3], [2], 0, values=[1, 9, 0, 9, 2])),
        ce("CROSS_ENTROPY one class", I(f32, [3, 1]), I(i64, [3], values=[0, 0, 0])),
        ce("CROSS_ENTROPY empty batch is nan", I(f32, [0, 3]), I(i64, [0])),
    ]
    return cs


def inplace_tables():
    """Scenario tables for test_inplace.c: inputs and torch's results."""
    g = torch.Generator().manual_seed(7)
    out = []

    def arr(name, t, ctype="double"):
        vals = t.detach().to(torch.float64).flatten().tolist() if ctype == "double" else \
            [int(v) for v in t.flatten().tolist()]
        fmt = c_double if ctype == "double" else (
            lambda v: "INT64_MIN" if v == -2 ** 63 else f"INT64_C({v})")
        out.append(c_table(name, ctype, vals, fmt))

    # add_(other [3], alpha=-0.5) into [2,3]: broadcasting.
    x = torch.randn(2, 3, generator=g)
    o = torch.randn(3, generator=g)
    arr("ip_add_x", x)
    arr("ip_add_other", o)
    arr("ip_add_result", x.clone().add_(o, alpha=-0.5))
    # add_ through a transposed narrow view of base [3,4]: base sees it.
    b = torch.randn(3, 4, generator=g)
    o2 = torch.randn(2, 3, generator=g)
    bb = b.clone()
    bb.t().narrow(0, 1, 2).add_(o2, alpha=2.0)
    arr("ip_view_base", b)
    arr("ip_view_other", o2)
    arr("ip_view_result", bb)
    # add_ of an int32 other into float32 self (other converted).
    oi = torch.tensor([1, -2, 3], dtype=torch.int32)
    arr("ip_int_other", oi.double())
    arr("ip_int_result", x.clone().add_(oi))
    # add_ where other partly overlaps self (self = base[1:], other =
    # base[:-1], both dense): torch refuses (assert_no_partial_overlap).
    s = torch.arange(6.0)
    try:
        s[1:].add_(s[:-1])
        raise AssertionError("torch accepted a partial overlap")
    except RuntimeError as e:
        assert "some elements of the input tensor and the written-to tensor" in str(e)
    # Interleaved, non-dense views of one storage ("too hard" for ATen's
    # check, and disjoint): allowed. b[0::2] += b[1::2].
    s = torch.arange(6.0)
    s[0::2].add_(s[1::2])
    arr("ip_interleaved_add_result", s)
    # fill_ on a step-sliced view, zero_ on a select, mul_ (scalar) on a transpose.
    f = torch.arange(12.0).reshape(3, 4)
    f[:, ::2].fill_(-1.5)
    f.select(0, 1).zero_()
    f.t().mul_(3.0)
    arr("ip_fill_zero_mul_result", f)
    # add_ into as_strided((2, 3), (3, 2)) of 8 zeros: elements 0 2 4 / 3 5 7,
    # no two alike, so torch allows it (its overlap check says "too hard",
    # not "yes").
    z = torch.zeros(8)
    z.as_strided((2, 3), (3, 2)).add_(torch.ones(3))
    arr("ip_interleaved_result", z)
    # Integer self: add_ wraps like the out-of-place op.
    w = torch.tensor([2 ** 63 - 1, -2 ** 63, 5], dtype=torch.int64)
    w.add_(torch.tensor([1, -1, 2 ** 63 - 1], dtype=torch.int64))
    arr("ip_int64_wrap_result", w, "int64_t")
    m = torch.tensor([2 ** 62, -3], dtype=torch.int64)
    m.mul_(4)
    arr("ip_int64_mul_wrap_result", m, "int64_t")
    # Version counters: a sequence of in-place ops on x and its views.
    x = torch.zeros(3, 4)
    v = x.t()
    d = x.detach()
    versions = [x._version]
    v.add_(torch.ones(4, 3))          # through a view
    versions.append(x._version)
    x.fill_(2.0)
    versions.append(v._version)
    x.select(0, 1).zero_()
    versions.append(x._version)
    x.mul_(2.0)
    versions.append(d._version)       # detach shares the counter
    d.add_(torch.ones(3, 4), alpha=0.5)
    versions.append(x._version)
    _ = x + 1                          # out-of-place: no bump
    versions.append(x._version)
    out.append(c_table("ip_versions", "int64_t", versions, str))
    arr("ip_versions_final", x)
    return "".join(out)


def int64_tables():
    """int64 wrap-around (values beyond double's 53 bits)."""
    a = torch.tensor([2 ** 63 - 1, -2 ** 63, 2 ** 62, -7, 3037000500], dtype=torch.int64)
    b = torch.tensor([1, -1, 4, 2 ** 63 - 1, 3037000500], dtype=torch.int64)
    fmt = lambda v: "INT64_MIN" if v == -2 ** 63 else f"INT64_C({v})"  # noqa: E731
    t = lambda name, x: c_table(name, "int64_t", [int(v) for v in x.tolist()], fmt)  # noqa: E731
    return (t("i64_a", a) + t("i64_b", b) + t("i64_add", a + b) + t("i64_sub", a - b)
            + t("i64_mul", a * b) + t("i64_neg", -a)
            + t("i64_sum", torch.stack([a, b]).sum(0)))


def tables_header(guard, what, body):
    return (
        "/* GENERATED FILE - do not edit.\n"
        f" * Produced by tests/golden/gen_ops.py with PyTorch {torch.__version__}\n"
        f" * (/usr/bin/python3). {what}\n"
        " * Regenerate: /usr/bin/python3 tests/golden/gen_ops.py */\n"
        f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
        f"{body}\n#endif /* {guard} */\n")


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    # One header per test executable keeps each one's cases together.
    parts = [
        ("ops_golden.h", "TSR_TESTS_GOLDEN_OPS_GOLDEN_H", "Elementwise ops: broadcasting, "
         "promotion, strides, wrap-around.", elementwise_cases(), "tg_elementwise",
         "/* int64 wrap-around (values beyond double's 53 bits). */\n" + int64_tables() + "\n"),
        ("matmul_golden.h", "TSR_TESTS_GOLDEN_MATMUL_GOLDEN_H", "matmul, log_softmax, "
         "cross_entropy.", matmul_cases() + nn_cases(), "tg_matmul_nn", ""),
        ("reductions_golden.h", "TSR_TESTS_GOLDEN_REDUCTIONS_GOLDEN_H", "sum, mean, max, argmax.",
         reduction_cases(), "tg_reductions", ""),
    ]
    for fname, guard, what, cases, table, ex in parts:
        write(os.path.join(root, fname), header(__file__, guard, what, cases, table, ex))
    write(os.path.join(root, "inplace_golden.h"),
          tables_header("TSR_TESTS_GOLDEN_INPLACE_GOLDEN_H",
                        "In-place ops and version counters (test_inplace.c).", inplace_tables()))


if __name__ == "__main__":
    main()
