"""Goldens for the scans and products of reductions.h (tests/test_reductions_more.c):
cumsum, cumprod, prod (all and by dim). PyTorch runs each program
(opsprog.py) forward, and for gradient cases backward with a random
gradient stored in the header; the header keeps the inputs, the result
(dtype, sizes, strides, values), each step's grad_fn name and every input's
.grad.

Run from the repository root: /usr/bin/python3 tests/golden/gen_reductions_more.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import DTYPE_CODE, Case, step, write  # noqa: E402
from gen_ops import (I, b8, bf16, channels_last, expanded, f32, f64, i8, i16, i32, i64,  # noqa: E402
                     stepped, transposed, u8)

R = {"requires_grad": True}
ALL = [b8, u8, i8, i16, i32, i64, bf16, f32, f64]
NONE = -1


def code(dtype):
    return NONE if dtype is None else DTYPE_CODE[dtype]


def scan(op, name, x, dim, dtype=None, backward=False, **kw):
    return Case(f"{op} {name}", [x], [step(op, 0, args=[dim, code(dtype)])], backward=backward, **kw)


def prod_all(name, x, dtype=None, backward=False, **kw):
    return Case(f"PROD {name}", [x], [step("PROD", 0, args=[code(dtype)])], backward=backward, **kw)


def prod_dim(name, x, dim, keepdim=False, dtype=None, backward=False, **kw):
    return Case(f"PROD_DIM {name}", [x], [step("PROD_DIM", 0, args=[dim, code(dtype)], keepdim=keepdim)],
                backward=backward, **kw)


# Small values keep integer products and float16-free products exact enough.
SMALL = "nonzero_int"


def scan_forward():
    cases = []
    for op in ("CUMSUM", "CUMPROD"):
        kind = "randn" if op == "CUMSUM" else SMALL
        for dt in ALL:
            tol = (2e-2, 2e-2) if dt == bf16 else None
            cases.append(scan(op, f"{dt} [3,5] dim 1", I(dt, [3, 5], kind=kind), 1, tol=tol))
            cases.append(scan(op, f"{dt} [4,3] dim 0", I(dt, [4, 3], kind=kind), 0, tol=tol))
        cases += [
            scan(op, "[2,3,4] dim 0", I(f32, [2, 3, 4], kind=kind), 0),
            scan(op, "[2,3,4] dim 1", I(f32, [2, 3, 4], kind=kind), 1),
            scan(op, "[2,3,4] dim -1", I(f32, [2, 3, 4], kind=kind), -1),
            scan(op, "transposed dim 0", transposed(f32, 4, 3, kind=kind), 0),
            scan(op, "transposed dim 1", transposed(f64, 4, 3, kind=kind), 1),
            scan(op, "step-sliced", stepped(i32, 3, 4, kind=kind), 1),
            scan(op, "expanded dim 0", expanded(f32, 3, 4, kind=kind), 0),
            scan(op, "channels_last dim 1", channels_last(f32, 2, 3, 2, 2, kind=kind), 1),
            scan(op, "channels_last dim 3", channels_last(f32, 2, 3, 2, 2, kind=kind), 3),
            scan(op, "0-dim dim 0", I(f32, [], kind=kind), 0),
            scan(op, "0-dim dim -1", I(i64, [], kind=kind), -1),
            scan(op, "empty along dim", I(f32, [0, 3]), 0),
            scan(op, "empty across dim", I(f32, [0, 3]), 1),
            scan(op, "dtype float64 from float32", I(f32, [3, 4], kind=kind), 1, f64),
            scan(op, "dtype int8 from int32 (wraps)", I(i32, [2, 6], kind="int"), 1, i8),
            scan(op, "dtype float32 from int64", I(i64, [2, 4], kind=kind), 0, f32),
            scan(op, "dtype bfloat16 from float32", I(f32, [2, 4], kind=kind), 1, bf16, tol=(2e-2, 2e-2)),
            scan(op, "long row [2,300]", I(f32, [2, 300], kind="randn" if op == "CUMSUM" else "pos"), 1,
                 tol=(1e-4, 1e-4)),
            scan(op, "long column [300,3]", I(f32, [300, 3], kind="randn" if op == "CUMSUM" else "pos"), 0,
                 tol=(1e-4, 1e-4)),
        ]
    return cases


def prod_forward():
    cases = []
    for dt in [b8, u8, i8, i16, i32, i64, f32, f64]:
        cases.append(prod_all(f"{dt} [3,4]", I(dt, [3, 4], kind=SMALL)))
        cases.append(prod_dim(f"{dt} [3,4] dim 1", I(dt, [3, 4], kind=SMALL), 1))
    return cases + [
        prod_all("int64 large (wraps)", I(i64, [40], kind="int")),
        prod_dim("keepdim dim 0", I(f32, [3, 4]), 0, True),
        prod_dim("[2,3,4] dim 1", I(f32, [2, 3, 4]), 1),
        prod_dim("[2,3,4] dim -1 keepdim", I(f64, [2, 3, 4]), -1, True),
        prod_all("transposed", transposed(f32, 3, 4)),
        prod_dim("transposed dim 0", transposed(f32, 3, 4), 0),
        prod_dim("step-sliced dim 1", stepped(f64, 3, 4), 1),
        prod_dim("expanded dim 0", expanded(f32, 3, 4), 0),
        prod_dim("channels_last dim 1", channels_last(f32, 2, 3, 2, 2), 1),
        prod_all("0-dim", I(f32, [])),
        prod_dim("0-dim dim 0", I(f32, []), 0),
        prod_dim("0-dim dim -1 keepdim", I(f32, []), -1, True),
        prod_all("empty gives 1", I(f32, [0, 3])),
        prod_dim("empty dim gives 1s", I(f32, [0, 3]), 0),
        prod_dim("empty across dim", I(f32, [0, 3]), 1, True),
        prod_all("dtype float64 from float32", I(f32, [3, 4]), f64),
        prod_all("dtype int32 from float32", I(f32, [2, 2], kind=SMALL), i32),
        prod_dim("dtype float32 from int64", I(i64, [3, 4], kind=SMALL), 1, False, f32),
    ]


ZEROS = [1.5, 0.0, 2.0, -1.0, 0.5, 3.0, 0.0, 0.0, 2.0, 1.0, -2.0, 0.0]


def grads():
    return [
        scan("CUMSUM", "float32 dim 1", I(f32, [3, 4], **R), 1, backward=True),
        scan("CUMSUM", "float64 dim 0", I(f64, [3, 4], **R), 0, backward=True),
        scan("CUMSUM", "transposed [2,3,4] dim 1", I(f64, [2, 3, 4], [1, 2, 6], **R), 1, backward=True),
        scan("CUMSUM", "0-dim", I(f64, [], **R), 0, backward=True),
        scan("CUMSUM", "dtype float64 from float32", I(f32, [3, 4], **R), 1, f64, backward=True,
             tol=(1e-6, 1e-6), note="a float32 gradient"),
        scan("CUMPROD", "float64 dim 1", I(f64, [3, 4], kind="pos", **R), 1, backward=True),
        scan("CUMPROD", "float32 dim 0", I(f32, [3, 4], kind="pos", **R), 0, backward=True),
        scan("CUMPROD", "zeros (one, two, none per row)", I(f64, [3, 4], values=ZEROS, **R), 1, backward=True),
        scan("CUMPROD", "zeros along dim 0", I(f64, [4, 3], values=ZEROS, **R), 0, backward=True),
        scan("CUMPROD", "0-dim", I(f64, [], **R), 0, backward=True),
        scan("CUMPROD", "dtype float64 from float32", I(f32, [2, 3], kind="pos", **R), 1, f64, backward=True,
             tol=(1e-6, 1e-6), note="a float32 gradient"),
        prod_all("float64", I(f64, [3, 4], kind="pos", **R), backward=True),
        prod_all("one zero", I(f64, [2, 3], values=[1.5, 2.0, 0.0, -1.0, 0.5, 3.0], **R), backward=True),
        prod_all("two zeros", I(f64, [2, 3], values=[1.5, 0.0, 0.0, -1.0, 0.5, 3.0], **R), backward=True),
        prod_all("0-dim", I(f64, [], **R), backward=True),
        prod_all("transposed float32", transposed(f32, 3, 4, kind="pos", **R), backward=True),
        prod_dim("zeros dim 1", I(f64, [3, 4], values=ZEROS, **R), 1, backward=True),
        prod_dim("zeros dim 0 keepdim", I(f64, [4, 3], values=ZEROS, **R), 0, True, backward=True),
        prod_dim("0-dim", I(f64, [], **R), 0, backward=True),
        prod_dim("dtype float64 from float32", I(f32, [3, 4], kind="pos", **R), 1, False, f64, backward=True,
                 tol=(1e-6, 1e-6), note="a float32 gradient"),
    ]


def var(op, name, x, dims=(), correction=1, keepdim=False, backward=False, **kw):
    return Case(f"{op} {name}", [x], [step(op, 0, args=[correction] + list(dims), keepdim=keepdim)],
                backward=backward, **kw)


VAR_OPS = ["VAR", "STD", "VAR_MEAN_VAR", "VAR_MEAN_MEAN", "STD_MEAN_STD", "STD_MEAN_MEAN"]


def var_forward():
    cases = []
    for op in VAR_OPS:
        cases += [
            var(op, "all", I(f32, [3, 4])),
            var(op, "dim 1", I(f32, [3, 4]), [1]),
            var(op, "dims (0, 2) keepdim", I(f64, [2, 3, 4]), [0, 2], keepdim=True),
            var(op, "dim -1 correction 0", I(f32, [3, 5]), [-1], 0),
            var(op, "all keepdim correction 2", I(f64, [3, 4]), [], 2, True),
            var(op, "float16", I(torch.float16, [4, 6]), [1], tol=(2e-3, 2e-3)),
            var(op, "bfloat16", I(bf16, [4, 6]), [0], tol=(2e-2, 2e-2)),
            var(op, "transposed", transposed(f32, 4, 3), [0]),
            var(op, "channels_last dim 1", channels_last(f32, 2, 3, 2, 2), [1]),
            var(op, "channels_last keepdim", channels_last(f32, 2, 3, 2, 2), [1], 1, True),
            var(op, "expanded", expanded(f32, 3, 4), [0]),
            var(op, "one element (nan)", I(f32, [1, 3]), [0]),
            var(op, "empty (nan)", I(f32, [0, 3]), [0]),
            var(op, "empty across dim", I(f32, [0, 3]), [1]),
            var(op, "0-dim", I(f64, []), [], 0),
            var(op, "0-dim dim 0 (nan)", I(f64, []), [0]),
            var(op, "correction past N (inf)", I(f64, [2, 3]), [1], 3),
        ]
    return cases


def var_grads():
    cases = []
    for op in VAR_OPS:
        cases += [
            var(op, "float64 dim 1", I(f64, [3, 4], **R), [1], backward=True),
            var(op, "float32 all", I(f32, [3, 4], **R), backward=True),
            var(op, "dims (0, 2) keepdim correction 0", I(f64, [2, 3, 4], **R), [0, 2], 0, True, backward=True),
            var(op, "transposed", transposed(f64, 4, 3, **R), [0], backward=True),
            var(op, "constant rows (std 0)", I(f64, [2, 3], values=[1.0, 1.0, 1.0, 2.0, 0.5, 1.0], **R), [1],
                backward=True),
        ]
    return cases


INF, NAN = float("inf"), float("nan")


def lse(name, x, dims, keepdim=False, backward=False, **kw):
    return Case(f"LOGSUMEXP {name}", [x], [step("LOGSUMEXP", 0, args=list(dims), keepdim=keepdim)],
                backward=backward, **kw)


def logsumexp_forward():
    return [
        lse("float32 dim 1", I(f32, [3, 5]), [1]),
        lse("float64 dims (0, 2) keepdim", I(f64, [2, 3, 4]), [0, 2], True),
        lse("bfloat16", I(bf16, [3, 4]), [1], tol=(2e-2, 2e-2)),
        lse("int64 gives float32", I(i64, [3, 4]), [0]),
        lse("bool gives float32", I(b8, [3, 4]), [1]),
        lse("large values (stable)", I(f32, [2, 3], values=[1000.0, 1001.0, 999.0, -1000.0, -1002.0, -1001.0]), [1]),
        lse("infinities and nan", I(f32, [3, 3], values=[-INF, -INF, -INF, INF, 1.0, 2.0, 1.0, 2.0, NAN]), [1]),
        lse("transposed", transposed(f32, 4, 3), [0]),
        lse("channels_last dim 1", channels_last(f32, 2, 3, 2, 2), [1]),
        lse("expanded", expanded(f32, 3, 4), [0]),
        lse("empty slice gives -inf", I(f32, [0, 3]), [0]),
        lse("empty across", I(f32, [0, 3]), [1], True),
        lse("0-dim", I(f32, []), [0]),
        lse("all dims", I(f64, [2, 3]), [0, 1]),
    ]


def logsumexp_grads():
    return [
        lse("float64 dim 1", I(f64, [3, 4], **R), [1], backward=True),
        lse("float32 keepdim", I(f32, [3, 4], **R), [0], True, backward=True),
        lse("transposed dims (0, 1)", transposed(f64, 3, 4, **R), [0, 1], backward=True),
        lse("infinities", I(f64, [2, 3], values=[-INF, -INF, -INF, INF, 1.0, 2.0], **R), [1], backward=True),
    ]


def any_all_forward():
    cases = []
    sparse = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0]
    for op in ("ANY", "ALL"):
        for dt in ALL + [torch.float16]:
            cases.append(Case(f"{op} {dt}", [I(dt, [3, 4], values=sparse)], [step(op, 0)]))
            cases.append(Case(f"{op}_DIM {dt} dim 1", [I(dt, [3, 4], values=sparse)],
                              [step(op + "_DIM", 0, args=[1])]))
        cases += [
            Case(f"{op}_DIM dim 0 keepdim", [I(f32, [3, 4], values=sparse)], [step(op + "_DIM", 0, args=[0], keepdim=True)]),
            Case(f"{op}_DIM dim -1 transposed", [transposed(i32, 4, 3, values=sparse)], [step(op + "_DIM", 0, args=[-1])]),
            Case(f"{op}_DIM channels_last", [channels_last(f32, 2, 3, 2, 2, kind="nonzero_int")],
                 [step(op + "_DIM", 0, args=[1])]),
            Case(f"{op} empty", [I(f32, [0, 3])], [step(op, 0)]),
            Case(f"{op}_DIM empty dim", [I(f32, [0, 3])], [step(op + "_DIM", 0, args=[0])]),
            Case(f"{op} nan is true", [I(f32, [2], values=[NAN, 1.0])], [step(op, 0)]),
            Case(f"{op}_DIM 0-dim", [I(f32, [], values=[2.0])], [step(op + "_DIM", 0, args=[0])]),
            Case(f"{op} of a tensor requiring grad", [I(f32, [3], **R)], [step(op, 0)]),
        ]
    return cases


TIES = [3.0, 1.0, 1.0, 2.0, 5.0, 5.0, 5.0, 5.0, -1.0, 4.0, -1.0, 0.0]


def min_forward():
    cases = []
    for dt in ALL + [torch.float16]:
        x = I(dt, [3, 4], values=TIES)
        cases += [Case(f"MIN {dt}", [x], [step("MIN", 0)]),
                  Case(f"MIN_DIM_VALUES {dt}", [x], [step("MIN_DIM_VALUES", 0, args=[1])]),
                  Case(f"MIN_DIM_INDICES {dt} (first on ties)", [x], [step("MIN_DIM_INDICES", 0, args=[1])]),
                  ] + ([] if dt == b8 else [Case(f"ARGMIN {dt} dim 0", [x], [step("ARGMIN", 0, args=[0])])])
    nan = I(f32, [2, 3], values=[3.0, NAN, 1.0, NAN, 2.0, NAN])
    int_extremes = I(i8, [4], values=[-128.0, 127.0, 0.0, -128.0])
    return cases + [
        Case("MIN nan is the minimum", [nan], [step("MIN", 0)]),
        Case("MIN_DIM_VALUES nan", [nan], [step("MIN_DIM_VALUES", 0, args=[1])]),
        Case("MIN_DIM_INDICES first nan", [nan], [step("MIN_DIM_INDICES", 0, args=[1])]),
        Case("MIN int8 extremes", [int_extremes], [step("MIN", 0)]),
        Case("ARGMIN int8 extremes", [int_extremes], [step("ARGMIN", 0, args=[0])]),
        Case("MIN_DIM_VALUES keepdim transposed", [transposed(f32, 4, 3)], [step("MIN_DIM_VALUES", 0, args=[0], keepdim=True)]),
        Case("MIN_DIM_INDICES channels_last", [channels_last(f32, 2, 3, 2, 2)], [step("MIN_DIM_INDICES", 0, args=[1])]),
        Case("MIN_DIM_VALUES channels_last", [channels_last(f32, 2, 3, 2, 2)], [step("MIN_DIM_VALUES", 0, args=[1])]),
        Case("MIN expanded", [expanded(f32, 3, 4)], [step("MIN", 0)]),
        Case("MIN 0-dim", [I(f32, [])], [step("MIN", 0)]),
        Case("MIN_DIM_VALUES 0-dim", [I(f32, [])], [step("MIN_DIM_VALUES", 0, args=[0])]),
        Case("ARGMIN empty across dim", [I(f32, [0, 3])], [step("ARGMIN", 0, args=[1])]),
        Case("MIN_DIM_VALUES empty across dim", [I(f32, [0, 3])], [step("MIN_DIM_VALUES", 0, args=[1])]),
    ]


def min_grads():
    return [
        Case("MIN ties split evenly", [I(f64, [3, 4], values=[3.0, 1.0, 1.0, 2.0, 5.0, 1.0, 5.0, 5.0, 2.0, 4.0, 3.0, 7.0], **R)],
             [step("MIN", 0)], backward=True),
        Case("MIN_DIM_VALUES to the first minimum", [I(f64, [3, 4], values=TIES, **R)],
             [step("MIN_DIM_VALUES", 0, args=[1])], backward=True),
        Case("MIN_DIM_VALUES keepdim float32", [I(f32, [3, 4], **R)],
             [step("MIN_DIM_VALUES", 0, args=[0], keepdim=True)], backward=True),
        Case("MIN_DIM_VALUES transposed", [transposed(f64, 3, 4, **R)], [step("MIN_DIM_VALUES", 0, args=[1])],
             backward=True),
    ]


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    fname = "reductions_more_golden.h"
    guard = "TSR_TESTS_GOLDEN_REDUCTIONS_MORE_GOLDEN_H"
    opsprog.GEN.manual_seed(331)
    out = [f"/* GENERATED FILE - do not edit.\n"
           f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch "
           f"{torch.__version__}\n * (/usr/bin/python3). cumsum, cumprod, prod, var, std, var_mean, std_mean, logsumexp, any, all, min, argmin.\n"
           f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
           f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
           '#include "ops_program.h"\n\n']
    for table, make in [("tg_scan_fwd", scan_forward), ("tg_prod_fwd", prod_forward), ("tg_scan_grad", grads),
                        ("tg_var_fwd", var_forward), ("tg_var_grad", var_grads),
                        ("tg_lse_fwd", logsumexp_forward), ("tg_lse_grad", logsumexp_grads),
                        ("tg_any_fwd", any_all_forward), ("tg_min_fwd", min_forward),
                        ("tg_min_grad", min_grads)]:
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
