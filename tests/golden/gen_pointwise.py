"""Goldens for pointwise.h (tests/test_pointwise.c): silu, leaky_relu, elu,
softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc,
sign, and clamp with tensor bounds. PyTorch runs each program (opsprog.py) forward over every dtype it
takes and over strided, expanded, 0-dim and empty inputs, and backward for
the gradient cases; the header keeps the inputs, the result (dtype, sizes,
strides, values), each step's grad_fn name and every input's .grad.

Run from the repository root: /usr/bin/python3 tests/golden/gen_pointwise.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, double_bits, step, write  # noqa: E402
from gen_ops import I, b8, bf16, expanded, f16, f32, f64, i8, i32, i64, stepped, transposed, u8  # noqa: E402

R = {"requires_grad": True}
INTS = [b8, u8, i8, i32, i64]
FLOATS = [bf16, f32, f64]

# op -> (parameter sets, the dtypes torch 1.13's CPU kernel takes)
OPS = {
    "SILU": ([[]], FLOATS),
    "LEAKY_RELU": ([[0.01], [0.2]], FLOATS),
    "ELU": ([[1.0], [0.5]], FLOATS),
    "SOFTPLUS": ([[1.0, 20.0], [2.0, 1.0]], FLOATS),
    "HARDTANH": ([[-1.0, 1.0], [-0.5, 2.5]], FLOATS + [i8, i32, i64]),
    "SIN": ([[]], FLOATS + INTS),
    "COS": ([[]], FLOATS + INTS),
    "RSQRT": ([[]], FLOATS + INTS),
    "RECIPROCAL": ([[]], [f16] + FLOATS + INTS),
    "FLOOR": ([[]], FLOATS + [u8, i8, i32, i64]),
    "CEIL": ([[]], FLOATS + [u8, i8, i32, i64]),
    "ROUND": ([[]], FLOATS + [u8, i8, i32, i64]),
    "TRUNC": ([[]], FLOATS + [u8, i8, i32, i64]),
    "SIGN": ([[]], [f16] + FLOATS + INTS),
}
# Halves (round to even), integers, boundaries of hardtanh, zeros.
SPECIAL = [-2.5, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.5, 3.7, -3.7, 0.25]
POSITIVE = {"RSQRT"}


def kind(op):
    return "pos" if op in POSITIVE else "randn"


def case(op, name, x, params, **kw):
    return Case(f"{op} {name} {params}", [x], [step(op, 0, args=[double_bits(p) for p in params])], **kw)


def forward():
    cases = []
    for op, (param_sets, dtypes) in OPS.items():
        for params in param_sets:
            for dt in dtypes:
                tol = (2e-2, 2e-2) if dt in (bf16, f16) else None
                cases.append(case(op, f"{dt} [3,4]", I(dt, [3, 4], kind=kind(op)), params, tol=tol))
        p = param_sets[0]
        if op not in POSITIVE:
            cases.append(case(op, "special values", I(f32, [12], values=SPECIAL), p))
            cases.append(case(op, "special values float64", I(f64, [3, 4], values=SPECIAL), p))
        cases += [
            case(op, "transposed", transposed(f32, 4, 3, kind=kind(op)), p),
            case(op, "stepped", stepped(f64, 3, 4, kind=kind(op)), p),
            case(op, "expanded", expanded(f32, 3, 4, kind=kind(op)), p),
            case(op, "0-dim", I(f32, [], kind=kind(op)), p),
            case(op, "empty", I(f32, [0, 3]), p),
        ]
    # hardtanh on uint8: bounds truncated toward zero first (-0.5 -> 0).
    cases.append(case("HARDTANH", "uint8 truncated bounds", I(u8, [3, 4]), [-0.5, 2.5]))
    return cases


def grads():
    cases = []
    for op, (param_sets, _) in OPS.items():
        for params in param_sets:
            cases.append(case(op, "float64", I(f64, [3, 4], kind=kind(op), **R), params, backward=True))
            cases.append(case(op, "float32 transposed", transposed(f32, 4, 3, kind=kind(op), **R), params,
                              backward=True))
        if op not in POSITIVE:
            cases.append(case(op, "special values", I(f64, [12], values=SPECIAL, **R), param_sets[0],
                              backward=True))
        cases.append(case(op, "0-dim", I(f64, [], kind=kind(op), **R), param_sets[0], backward=True))
    return cases


def clamp(name, x, lo, hi, **kw):
    """torch.clamp(x, lo, hi) with tensor bounds; lo/hi Inputs or None."""
    inputs, regs = [x], []
    for b in (lo, hi):
        if b is None:
            regs.append(-1)
        else:
            regs.append(len(inputs))
            inputs.append(b)
    return Case(f"CLAMP_TENSOR {name}", inputs, [step("CLAMP_TENSOR", 0, args=regs)], **kw)


def clamp_forward():
    cases = []
    for dt in [u8, i8, i32, i64, bf16, f32, f64]:
        tol = (2e-2, 2e-2) if dt == bf16 else None
        cases.append(clamp(f"{dt} both", I(dt, [3, 4]), I(dt, [3, 4]), I(dt, [4]), tol=tol))
    cases += [
        clamp("float16 min only", I(f16, [3, 4]), I(f16, [4]), None, tol=(2e-3, 1e-3)),
        clamp("bool min only", I(b8, [3, 4]), I(b8, [3, 1]), None),
        clamp("bool max only", I(b8, [3, 4]), None, I(b8, [4])),
        clamp("max only", I(f32, [3, 4]), None, I(f32, [3, 1])),
        clamp("promoted int32 x float64 bounds", I(i32, [3, 4]), I(f64, [4]), I(f64, [3, 1])),
        clamp("0-dim float64 bound keeps float32", I(f32, [3, 4]), I(f64, []), None),
        clamp("0-dim float bound on int32 gives float32", I(i32, [3, 4]), None, I(f32, [])),
        clamp("all 0-dim", I(f32, []), I(f64, []), I(f32, [])),
        clamp("broadcast x", I(f32, [4]), I(f32, [3, 1]), I(f32, [3, 4])),
        clamp("transposed", transposed(f32, 4, 3), stepped(f32, 4, 3), expanded(f32, 4, 3)),
        clamp("min > max", I(f64, [6], values=[-2, -1, 0, 1, 2, 3]), I(f64, [], values=[1.5]),
              I(f64, [], values=[0.5])),
        clamp("empty", I(f32, [0, 3]), I(f32, [3]), None),
    ]
    return cases


def clamp_grads():
    xs = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, -3.0, 0.25, 0.75]
    return [
        clamp("float64 both", I(f64, [3, 4], values=xs, **R), I(f64, [4], values=[-1.0, 0.0, -0.5, 0.5], **R),
              I(f64, [3, 1], values=[1.0, 0.5, 2.0], **R), backward=True),
        clamp("float64 min only", I(f64, [3, 4], **R), I(f64, [4], **R), None, backward=True),
        clamp("float64 max only", I(f64, [3, 4], **R), None, I(f64, [3, 1], **R), backward=True),
        clamp("min > max", I(f64, [6], values=[-2, -1, 0, 1, 2, 3], **R), I(f64, [], values=[1.5], **R),
              I(f64, [], values=[0.5], **R), backward=True),
        clamp("float32 x float64 0-dim bounds", transposed(f32, 4, 3, **R), I(f64, [], values=[-0.3], **R),
              I(f64, [], values=[0.4], **R), backward=True, tol=(1e-6, 1e-6)),
        clamp("x without grad", I(f64, [3, 4]), I(f64, [4], **R), I(f64, [3, 4], **R), backward=True),
    ]


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    fname = "pointwise_golden.h"
    guard = "TSR_TESTS_GOLDEN_POINTWISE_GOLDEN_H"
    opsprog.GEN.manual_seed(433)
    out = [f"/* GENERATED FILE - do not edit.\n"
           f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch "
           f"{torch.__version__}\n * (/usr/bin/python3). Pointwise math of pointwise.h.\n"
           f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
           f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
           '#include "ops_program.h"\n\n']
    for table, make in [("tg_pointwise_fwd", forward), ("tg_pointwise_grad", grads),
                        ("tg_clamp_tensor_fwd", clamp_forward), ("tg_clamp_tensor_grad", clamp_grads)]:
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
