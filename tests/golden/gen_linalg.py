"""Goldens for linalg.h (tests/test_linalg.c): bmm, baddbmm and outer over contiguous,
transposed, expanded and empty operands, forward and backward (values,
strides, grad_fn names, gradients).

Run from the repository root: /usr/bin/python3 tests/golden/gen_linalg.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, double_bits, step, write  # noqa: E402
from gen_ops import I, b8, bf16, f32, f64, i32  # noqa: E402

R = {"requires_grad": True}


def bmm(name, a, b, **kw):
    return Case(f"BMM {name}", [a, b], [step("BMM", 0, 1)], **kw)


def outer(name, a, b, **kw):
    return Case(f"OUTER {name}", [a, b], [step("OUTER", 0, 1)], **kw)


def outer_forward():
    return [
        outer("float32", I(f32, [3]), I(f32, [4])),
        outer("float32 x float64", I(f32, [3]), I(f64, [2])),
        outer("int32 x bool", I(i32, [3]), I(b8, [4])),
        outer("bfloat16", I(bf16, [3]), I(bf16, [2]), tol=(1e-2, 1e-2)),
        outer("strided", I(f32, [3], [2]), I(f32, [4], [0])),
        outer("empty", I(f32, [0]), I(f32, [4])),
    ]


def outer_grads():
    return [
        outer("float64", I(f64, [3], **R), I(f64, [4], **R), backward=True),
        outer("float32 x float64", I(f32, [3], **R), I(f64, [2], **R), backward=True, tol=(1e-6, 1e-6)),
    ]


def baddbmm(name, i, a, b, beta=1.0, alpha=1.0, **kw):
    return Case(f"BADDBMM {name}", [i, a, b],
                [step("BADDBMM", 0, 1, args=[2, double_bits(beta), double_bits(alpha)])], **kw)


def baddbmm_forward():
    nan = float("nan")
    return [
        baddbmm("defaults", I(f32, [2, 3, 5]), I(f32, [2, 3, 4]), I(f32, [2, 4, 5])),
        baddbmm("broadcast input, beta, alpha", I(f64, [5]), I(f64, [2, 3, 4]), I(f64, [2, 4, 5]), 0.5, -2.0),
        baddbmm("float64 input, float32 batches", I(f64, [3, 1]), I(f32, [2, 3, 4]), I(f32, [2, 4, 5])),
        baddbmm("beta 0 ignores NaN", I(f32, [1], values=[nan]), I(f32, [2, 3, 4]), I(f32, [2, 4, 5]), 0.0),
        baddbmm("transposed", I(f32, [2, 3, 5], [15, 1, 3]), I(f32, [2, 3, 4], [12, 1, 3]), I(f32, [2, 4, 5])),
        baddbmm("empty inner", I(f32, [2, 3, 5]), I(f32, [2, 3, 0]), I(f32, [2, 0, 5]), 2.0),
    ]


def baddbmm_grads():
    return [
        baddbmm("float64", I(f64, [3, 1], **R), I(f64, [2, 3, 4], **R), I(f64, [2, 4, 5], **R), 0.5, 3.0,
                backward=True),
        baddbmm("full input", I(f64, [2, 3, 5], **R), I(f64, [2, 3, 4], **R), I(f64, [2, 4, 5], **R),
                backward=True),
        baddbmm("beta 0", I(f64, [5], **R), I(f64, [2, 3, 4]), I(f64, [2, 4, 5], **R), 0.0, 2.0, backward=True),
    ]


def forward():
    return [
        bmm("float32", I(f32, [2, 3, 4]), I(f32, [2, 4, 5])),
        bmm("float64", I(f64, [3, 2, 4]), I(f64, [3, 4, 1])),
        bmm("transposed operands", I(f32, [2, 3, 4], [12, 1, 3]), I(f32, [2, 4, 5], [20, 1, 4])),
        bmm("batch-major strides", I(f64, [2, 3, 4], [4, 8, 1]), I(f64, [2, 4, 2], [1, 2, 8])),
        bmm("expanded batch", I(f32, [3, 2, 4], [0, 4, 1]), I(f32, [3, 4, 2])),
        bmm("empty batch", I(f32, [0, 3, 4]), I(f32, [0, 4, 5])),
        bmm("empty inner dim", I(f32, [2, 3, 0]), I(f32, [2, 0, 5])),
        bmm("empty rows", I(f32, [2, 0, 4]), I(f32, [2, 4, 5])),
    ]


def grads():
    return [
        bmm("float64", I(f64, [2, 3, 4], **R), I(f64, [2, 4, 5], **R), backward=True),
        bmm("float32 transposed", I(f32, [2, 3, 4], [12, 1, 3], **R), I(f32, [2, 4, 5], **R), backward=True),
        bmm("only b", I(f64, [2, 3, 4]), I(f64, [2, 4, 2], **R), backward=True),
        bmm("empty inner dim", I(f64, [2, 3, 0], **R), I(f64, [2, 0, 5], **R), backward=True),
    ]


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    guard = "TSR_TESTS_GOLDEN_LINALG_GOLDEN_H"
    opsprog.GEN.manual_seed(434)
    out = [f"/* GENERATED FILE - do not edit.\n"
           f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch "
           f"{torch.__version__}\n * (/usr/bin/python3). bmm, baddbmm, outer.\n"
           f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
           f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
           '#include "ops_program.h"\n\n']
    for table, make in [("tg_bmm_fwd", forward), ("tg_bmm_grad", grads), ("tg_outer_fwd", outer_forward),
                        ("tg_outer_grad", outer_grads), ("tg_baddbmm_fwd", baddbmm_forward),
                        ("tg_baddbmm_grad", baddbmm_grads)]:
        inits = []
        for n, c in enumerate(make()):
            d, init = opsprog.emit_case(c.run(), f"{table}_{n}")
            out.append(f"/* {c.name}{': ' + c.note if c.note else ''} */\n{d}\n")
            inits.append(init)
        out.append(f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n")
        out.append(f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n")
    out.append(f"#endif /* {guard} */\n")
    write(os.path.join(root, "linalg_golden.h"), "".join(out))


if __name__ == "__main__":
    main()
