"""Gradient goldens for tests/test_autograd.c and tests/test_grad_views.c:
PyTorch runs each program (opsprog.py) forward, then backward (implicit 1 for
a 0-dim result, else a random gradient stored in the header), and the header
keeps the result, every step's grad_fn name / requires_grad / is_leaf and
every input's .grad (values, dtype, strides). Also writes scenario tables for
the hand-written autograd tests.

Run from the repository root: /usr/bin/python3 tests/golden/gen_autograd.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opsprog import Case, as_strided_args, c_double, c_table, header, step, write  # noqa: E402
from gen_ops import (I, b8, bf16, channels_last, expanded, f16, f32, f64, i32, i64,  # noqa: E402
                     stepped, transposed)

R = {"requires_grad": True}


def case(name, inputs, steps, **kw):
    return Case(name, inputs, steps, backward=True, **kw)


def binary_grad_cases():
    cs = []
    for op in ("ADD", "SUB", "MUL", "DIV"):
        den = "pos" if op == "DIV" else "randn"
        cs += [
            case(f"{op} same shape", [I(f32, [2, 3], **R), I(f32, [2, 3], kind=den, **R)],
                 [step(op, 0, 1)]),
            case(f"{op} broadcast [2,3] with [3] sums back", [I(f32, [2, 3], **R),
                 I(f32, [3], kind=den, **R)], [step(op, 0, 1)]),
            case(f"{op} broadcast [4,1,3] with [2,1]", [I(f32, [4, 1, 3], **R),
                 I(f32, [2, 1], kind=den, **R)], [step(op, 0, 1)]),
            case(f"{op} 0-dim with [2,3]", [I(f32, [], **R), I(f32, [2, 3], kind=den, **R)],
                 [step(op, 0, 1)]),
            case(f"{op} only b requires grad", [I(f32, [2, 3]), I(f32, [1, 3], kind=den, **R)],
                 [step(op, 0, 1)]),
            case(f"{op} only a requires grad", [I(f32, [2, 3], **R), I(f32, [2, 1], kind=den)],
                 [step(op, 0, 1)]),
        ]
    cs += [
        case("MUL float32 * float64 (grads in each dtype)", [I(f32, [2, 3], **R), I(f64, [3], **R)],
             [step("MUL", 0, 1)]),
        case("ADD float32 + int32 (int has no grad)", [I(f32, [2, 3], **R), I(i32, [3])],
             [step("ADD", 0, 1)]),
        case("DIV float64 / int64", [I(f64, [3], **R), I(i64, [3], kind="nonzero_int")],
             [step("DIV", 0, 1)]),
        case("MUL bfloat16 * float32", [I(bf16, [4], **R), I(f32, [4], **R)], [step("MUL", 0, 1)],
             tol=(1e-2, 1e-2)),
        case("MUL float16 0-dim * float32 [3] (result float32)", [I(f16, [], **R),
             I(f32, [3], **R)], [step("MUL", 0, 1)], tol=(2e-3, 2e-3)),
        case("MUL by bool mask", [I(f32, [4], **R), I(b8, [4], values=[1, 0, 1, 1])],
             [step("MUL", 0, 1)]),
        case("x * x + x uses x three times", [I(f32, [5], **R)],
             [step("MUL", 0, 0), step("ADD", 1, 0)]),
        case("(a - b) / (a + b) shares a and b", [I(f32, [3], kind="pos", **R),
             I(f32, [3], kind="pos", **R)],
             [step("SUB", 0, 1), step("ADD", 0, 1), step("DIV", 2, 3)]),
        case("MUL transposed leaf * step-sliced leaf", [transposed(f32, 3, 4, **R),
             stepped(f32, 3, 4, **R)], [step("MUL", 0, 1)]),
        case("ADD channels_last leaf + [3,1,1]", [channels_last(f32, 2, 3, 2, 2, **R),
             I(f32, [3, 1, 1], **R)], [step("ADD", 0, 1)]),
        case("MUL expanded leaf (overlapping) * x", [expanded(f32, 3, 4, **R), I(f32, [3, 4], **R)],
             [step("MUL", 0, 1)]),
    ]
    return cs


def unary_grad_cases():
    u = lambda name, x, op, scalar=0.0, **kw: case(name, [x], [step(op, 0, scalar=scalar)], **kw)  # noqa
    return [
        u("MUL_SCALAR", I(f32, [2, 3], **R), "MUL_SCALAR", -1.5),
        u("ADD_SCALAR", I(f32, [2, 3], **R), "ADD_SCALAR", 4.0),
        u("MUL_SCALAR float64 transposed", transposed(f64, 2, 3, **R), "MUL_SCALAR", 0.25),
        u("NEG", I(f32, [4], **R), "NEG"),
        u("RELU (exact zeros get 0)", I(f32, [6], values=[-1, 0, 2, -0.0, 0.5, -3], **R), "RELU"),
        u("RELU transposed", transposed(f32, 3, 2, **R), "RELU"),
        u("EXP", I(f32, [5], **R), "EXP"),
        u("EXP float64", I(f64, [2, 2], **R), "EXP"),
        u("LOG", I(f32, [5], kind="pos", **R), "LOG"),
        u("LOG step-sliced", stepped(f64, 2, 3, kind="pos", **R), "LOG"),
        case("EXP(LOG(x) * 2) = x^2", [I(f64, [4], kind="pos", **R)],
             [step("LOG", 0), step("MUL_SCALAR", 1, scalar=2.0), step("EXP", 2)]),
        case("RELU(NEG(x)) + ADD_SCALAR", [I(f32, [6], **R)],
             [step("NEG", 0), step("RELU", 1), step("ADD_SCALAR", 2, scalar=1.0)]),
    ]


def matmul_grad_cases():
    mm = lambda name, a, b, **kw: case(name, [a, b], [step("MATMUL", 0, 1)], **kw)  # noqa: E731
    return [
        mm("dot", I(f32, [5], **R), I(f32, [5], **R)),
        mm("mv", I(f32, [3, 4], **R), I(f32, [4], **R)),
        mm("vm (1-D . 2-D)", I(f32, [4], **R), I(f32, [4, 3], **R)),
        mm("mm", I(f32, [3, 4], **R), I(f32, [4, 5], **R)),
        mm("mm float64", I(f64, [2, 3], **R), I(f64, [3, 2], **R)),
        mm("mm only a requires grad", I(f32, [3, 4], **R), I(f32, [4, 2])),
        mm("mm only b requires grad", I(f32, [3, 4]), I(f32, [4, 2], **R)),
        mm("mm transposed leaves", transposed(f32, 3, 4, **R), transposed(f32, 4, 2, **R)),
        mm("mm K = 0", I(f32, [3, 0], **R), I(f32, [0, 4], **R)),
        mm("batched [5,2,3] . [3,4] (b's grad summed over batch)", I(f32, [5, 2, 3], **R),
           I(f32, [3, 4], **R)),
        mm("batched [2,3] . [5,3,4]", I(f32, [2, 3], **R), I(f32, [5, 3, 4], **R)),
        mm("batched [5,2,3] . [5,3,4]", I(f32, [5, 2, 3], **R), I(f32, [5, 3, 4], **R)),
        mm("batched broadcast [2,1,2,3] . [4,3,2]", I(f32, [2, 1, 2, 3], **R),
           I(f32, [4, 3, 2], **R)),
        mm("batched [3] . [2,3,4]", I(f32, [3], **R), I(f32, [2, 3, 4], **R)),
        mm("batched [2,2,3] . [3]", I(f32, [2, 2, 3], **R), I(f32, [3], **R)),
        mm("batched [1,2,3] . [4,3,2]", I(f64, [1, 2, 3], **R), I(f64, [4, 3, 2], **R)),
    ]


def reduction_grad_cases():
    r = lambda name, op, x, dims=(), keepdim=False, **kw: case(  # noqa: E731
        name, [x], [step(op, 0, args=dims, keepdim=keepdim)], **kw)
    ties = [3, 1, 3, 2, 7, 7, 0, 7]
    return [
        r("SUM all (implicit gradient 1)", "SUM", I(f32, [3, 4], **R)),
        r("SUM dim 1", "SUM", I(f32, [3, 4], **R), [1]),
        r("SUM dims (0,2) keepdim", "SUM", I(f32, [2, 3, 4], **R), [0, 2], True),
        r("SUM dim -1 of transposed", "SUM", transposed(f32, 3, 4, **R), [-1]),
        r("SUM all keepdim", "SUM", I(f64, [2, 3], **R), (), True),
        r("MEAN all", "MEAN", I(f32, [3, 4], **R)),
        r("MEAN dims (-1,0)", "MEAN", I(f32, [2, 3, 4], **R), [-1, 0]),
        r("MEAN dim 1 keepdim", "MEAN", I(f64, [2, 5], **R), [1], True),
        case("MAX_DIM values dim 1", [I(f32, [3, 4], **R)],
             [step("MAX_DIM_VALUES", 0, args=[1])]),
        case("MAX_DIM values keepdim dim 0, indices alongside", [I(f32, [3, 4], **R)],
             [step("MAX_DIM_INDICES", 0, args=[0], keepdim=True),
              step("MAX_DIM_VALUES", 0, args=[0], keepdim=True)]),
        case("MAX_DIM ties: gradient to the first maximum", [I(f32, [2, 4], values=ties, **R)],
             [step("MAX_DIM_VALUES", 0, args=[1])]),
        case("MAX_DIM of 3-D dim -2", [I(f64, [2, 3, 2], **R)],
             [step("MAX_DIM_VALUES", 0, args=[-2])]),
        case("MAX all: ties share the gradient evenly", [I(f32, [2, 4], values=ties, **R)],
             [step("MAX", 0)]),
        case("MAX all", [I(f64, [3, 3], **R)], [step("MAX", 0)]),
        case("ARGMAX has no history", [I(f32, [3, 4], **R)],
             [step("ARGMAX", 0, args=[1]), step("SUM", 0)]),
    ]


def nn_grad_cases():
    big = [1000.0, 1001.0, 999.0, -1000.0, 1e4, 1e4 + 1, 0.0, -1e4]
    return [
        case("LOG_SOFTMAX dim 1", [I(f32, [3, 5], **R)], [step("LOG_SOFTMAX", 0, args=[1])]),
        case("LOG_SOFTMAX dim 0", [I(f64, [3, 5], **R)], [step("LOG_SOFTMAX", 0, args=[0])]),
        case("LOG_SOFTMAX middle dim of 3-D", [I(f32, [2, 3, 4], **R)],
             [step("LOG_SOFTMAX", 0, args=[1])]),
        case("LOG_SOFTMAX large values", [I(f32, [2, 4], values=big, **R)],
             [step("LOG_SOFTMAX", 0, args=[1])]),
        case("LOG_SOFTMAX transposed", [transposed(f32, 3, 4, **R)],
             [step("LOG_SOFTMAX", 0, args=[-1])]),
        case("CROSS_ENTROPY", [I(f32, [4, 3], **R), I(i64, [4], values=[0, 2, 1, 2])],
             [step("CROSS_ENTROPY", 0, 1)]),
        case("CROSS_ENTROPY float64", [I(f64, [5, 7], **R), I(i64, [5], values=[6, 0, 3, 3, 1])],
             [step("CROSS_ENTROPY", 0, 1)]),
        case("CROSS_ENTROPY large logits", [I(f32, [2, 4], values=big, **R),
             I(i64, [2], values=[1, 3])], [step("CROSS_ENTROPY", 0, 1)]),
        case("CROSS_ENTROPY of scaled logits", [I(f32, [3, 4], **R), I(i64, [3], values=[3, 0, 1])],
             [step("MUL_SCALAR", 0, scalar=3.0), step("CROSS_ENTROPY", 2, 1)]),
        case("MLP: cross_entropy(relu(x W1 + b1) W2 + b2)",
             [I(f32, [8, 5]), I(f32, [5, 16], **R), I(f32, [16], **R), I(f32, [16, 3], **R),
              I(f32, [3], **R), I(i64, [8], values=[0, 1, 2, 1, 0, 2, 2, 1])],
             [step("MATMUL", 0, 1), step("ADD", 6, 2), step("RELU", 7), step("MATMUL", 8, 3),
              step("ADD", 9, 4), step("CROSS_ENTROPY", 10, 5)], tol=(1e-5, 1e-7)),
    ]


def view_grad_cases():
    v = lambda name, x, op, args=(), then_mul=True, **kw: case(  # noqa: E731
        name, [x], [step(op, 0, args=args)], **kw)
    asg = as_strided_args
    return [
        v("TRANSPOSE", I(f32, [2, 3, 4], **R), "TRANSPOSE", [0, 2]),
        v("T", I(f32, [3, 4], **R), "T"),
        v("PERMUTE", I(f32, [2, 3, 4], **R), "PERMUTE", [2, 0, 1]),
        v("NARROW", I(f32, [4, 5], **R), "NARROW", [1, 1, 3]),
        v("SLICE with step", I(f32, [4, 6], **R), "SLICE", [1, 1, 6, 2]),
        v("SELECT", I(f32, [3, 4], **R), "SELECT", [0, -1]),
        v("EXPAND (gradient summed over the expanded dims)", I(f32, [3, 1], **R), "EXPAND",
          [2, 3, 4]),
        v("UNFOLD overlapping windows", I(f32, [7], **R), "UNFOLD", [0, 3, 1]),
        v("UNFOLD 2-D step 2", I(f32, [3, 6], **R), "UNFOLD", [1, 2, 2]),
        v("DIAGONAL", I(f32, [3, 4], **R), "DIAGONAL", [0, 0, 1]),
        v("DIAGONAL offset -1 of 3-D", I(f32, [2, 4, 3], **R), "DIAGONAL", [-1, 1, 2]),
        v("RESHAPE that is a view", I(f32, [3, 4], **R), "RESHAPE", [2, 6]),
        v("RESHAPE with copy (of a transpose)", transposed(f32, 3, 4, **R), "RESHAPE", [-1]),
        v("VIEW", I(f32, [2, 6], **R), "VIEW", [3, 2, 2]),
        v("FLATTEN", I(f32, [2, 3, 2], **R), "FLATTEN", [0, 1]),
        v("FLATTEN of a transpose (copy)", transposed(f32, 3, 4, **R), "FLATTEN", [0, 1]),
        v("SQUEEZE", I(f32, [3, 1, 2], **R), "SQUEEZE"),
        v("SQUEEZE_DIM", I(f32, [1, 3], **R), "SQUEEZE_DIM", [0]),
        v("UNSQUEEZE", I(f32, [3], **R), "UNSQUEEZE", [1]),
        v("AS_STRIDED on contiguous input (overlapping)", I(f32, [9], **R), "AS_STRIDED",
          asg([3, 3], [1, 1], 0)),
        v("AS_STRIDED with offset", I(f32, [3, 4], **R), "AS_STRIDED", asg([2, 2], [4, 1], 5)),
        v("CLONE", transposed(f32, 3, 2, **R), "CLONE", [1]),
        v("CONTIGUOUS of a transpose", transposed(f32, 3, 2, **R), "CONTIGUOUS", [0]),
        v("TO_DTYPE float32 -> float64", I(f32, [4], **R), "TO_DTYPE", [7]),
        case("chain: permute, narrow, select, expand, mul, sum",
             [I(f32, [2, 3, 4], **R), I(f32, [5, 3], **R)],
             [step("PERMUTE", 0, args=[2, 0, 1]), step("NARROW", 2, args=[0, 1, 2]),
              step("SELECT", 3, args=[1, 0]), step("UNSQUEEZE", 4, args=[0]),
              step("EXPAND", 5, args=[5, 2, 3]), step("SELECT", 6, args=[1, 1]),
              step("MUL", 7, 1), step("SUM", 8, args=[0])]),
        case("views of views: transpose of unfold of a narrow", [I(f64, [3, 8], **R)],
             [step("NARROW", 0, args=[1, 1, 6]), step("UNFOLD", 1, args=[1, 3, 2]),
              step("TRANSPOSE", 2, args=[0, 2]), step("MUL_SCALAR", 3, scalar=2.0)]),
        case("diagonal of a matmul", [I(f32, [3, 4], **R), I(f32, [4, 3], **R)],
             [step("MATMUL", 0, 1), step("DIAGONAL", 2, args=[0, 0, 1]), step("SUM", 3)]),
    ]


def scenario_tables():
    """Inputs and torch's answers for the hand-written autograd tests."""
    g = torch.Generator().manual_seed(11)
    out = []

    def arr(name, t):
        out.append(c_table(name, "double", t.detach().double().flatten().tolist(), c_double))

    # Accumulation: y = sum(x * x * w); backward twice with retain_graph.
    x = torch.randn(2, 3, generator=g).requires_grad_()
    w = torch.randn(2, 3, generator=g)
    y = (x * x * w).sum()
    y.backward(retain_graph=True)
    arr("sc_acc_x", x)
    arr("sc_acc_w", w)
    arr("sc_acc_grad1", x.grad)
    y.backward()
    arr("sc_acc_grad2", x.grad)
    arr("sc_acc_loss", y)
    # Explicit gradient for a non-scalar root: z = exp(x) * 2, backward(v).
    x = torch.randn(3, generator=g).requires_grad_()
    v = torch.randn(3, generator=g)
    (x.exp() * 2).backward(v)
    arr("sc_explicit_x", x)
    arr("sc_explicit_v", v)
    arr("sc_explicit_grad", x.grad)
    # Gradient descent under no_grad: w.add_(w.grad, alpha=-0.1).
    w = torch.randn(4, generator=g).requires_grad_()
    t = torch.randn(4, generator=g)
    loss = ((w - t) * (w - t)).mean()
    loss.backward()
    arr("sc_sgd_w", w)
    arr("sc_sgd_t", t)
    arr("sc_sgd_grad", w.grad)
    with torch.no_grad():
        w.add_(w.grad, alpha=-0.1)
    arr("sc_sgd_w_after", w)
    return "".join(out)


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(root, "autograd_golden.h"),
          header(__file__, "TSR_TESTS_GOLDEN_AUTOGRAD_GOLDEN_H",
                 "Gradients of the math ops, nn functions and an MLP.",
                 binary_grad_cases() + unary_grad_cases() + matmul_grad_cases()
                 + reduction_grad_cases() + nn_grad_cases(), "tg_grads",
                 "/* Scenarios for the hand-written tests in test_autograd.c. */\n"
                 + scenario_tables() + "\n"))
    write(os.path.join(root, "grad_views_golden.h"),
          header(__file__, "TSR_TESTS_GOLDEN_GRAD_VIEWS_GOLDEN_H",
                 "Gradients through views (test_grad_views.c).", view_grad_cases(),
                 "tg_grad_views", ""))


if __name__ == "__main__":
    main()
