"""Goldens for autocast (tests/test_autocast.c): PyTorch 1.13 runs each
program (opsprog.py) forward inside torch.autocast("cpu", dtype=torch.bfloat16)
and, for gradient cases, backward after the region; the header keeps the
inputs, the result (dtype, sizes, strides, values), each step's grad_fn name
and every input's .grad. The C side runs the same program between
tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true) and tsr_autocast_end(),
then backward.

The cases cover each policy of torch's CPU lists for the ops tessera has:
lower precision (matmul, linear, bmm, baddbmm, conv2d), float32 (the losses,
prod), promote (cat, stack), and ops outside the lists (run in their inputs'
dtypes), with float32, bfloat16, float64 and mixed inputs. Tolerances are
bfloat16's: the products accumulate in float32 in both libraries but in
different orders, and a result is rounded to bfloat16 once.

Run from the repository root: /usr/bin/python3 tests/golden/gen_autocast.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, header, step, write  # noqa: E402
from gen_ops import I, bf16, f32, f64, i64, transposed  # noqa: E402

R = {"requires_grad": True}
BF = (2e-2, 2e-2)  # a bfloat16 result: 8 bits of mantissa, different summation order


class AutocastCase(Case):
    """A case whose forward runs in a bfloat16 CPU autocast region."""

    def run(self):
        forward = opsprog.OPS
        with torch.autocast("cpu", dtype=torch.bfloat16):
            regs = [i.build() for i in self.inputs]
            self.step_meta = []
            for s in self.steps:
                y = forward[s["op"]](regs, s)
                regs.append(y)
                self.step_meta.append((opsprog.grad_fn_name(y), y.requires_grad, y.is_leaf))
        self.out, self.grad_out, self.grads = regs[-1], None, [None] * len(self.inputs)
        if self.backward:
            out = self.out
            if out.numel() == 1 and out.dim() == 0:
                out.backward()
            else:
                self.grad_out = opsprog.make_values("randn", out.numel(), out.dtype).reshape(out.shape)
                out.backward(self.grad_out)
            for k, x in enumerate(regs[:len(self.inputs)]):
                if self.inputs[k].requires_grad:
                    self.grads[k] = x.grad
        return self


def fwd(name, inputs, steps, tol=BF, **kw):
    return AutocastCase(name, inputs, steps, tol=tol, **kw)


def grad(name, inputs, steps, tol=BF, **kw):
    return AutocastCase(name, inputs, steps, tol=tol, backward=True, **kw)


def lower_precision():
    return [
        fwd("matmul float32 -> bfloat16", [I(f32, [3, 8]), I(f32, [8, 5])], [step("MATMUL", 0, 1)]),
        fwd("matmul bfloat16 x float32 -> bfloat16", [I(bf16, [3, 8]), I(f32, [8, 5])],
            [step("MATMUL", 0, 1)]),
        fwd("matmul transposed float32", [transposed(f32, 8, 3), I(f32, [8, 5])],
            [step("T", 0), step("MATMUL", 2, 1)]),
        fwd("matmul float64 stays float64", [I(f64, [3, 4]), I(f64, [4, 2])], [step("MATMUL", 0, 1)],
            tol=(1e-12, 1e-12)),
        fwd("linear with bias", [I(f32, [4, 8]), I(f32, [6, 8]), I(f32, [6])],
            [step("LINEAR", 0, 1, args=[2])]),
        fwd("bmm", [I(f32, [2, 3, 8]), I(f32, [2, 8, 4])], [step("BMM", 0, 1)]),
        fwd("baddbmm", [I(f32, [2, 3, 4]), I(f32, [2, 3, 8]), I(f32, [2, 8, 4])],
            [step("BADDBMM", 0, 1, args=[2, opsprog.double_bits(0.5), opsprog.double_bits(2.0)])]),
        fwd("conv2d with bias", [I(f32, [1, 3, 6, 6]), I(f32, [4, 3, 3, 3]), I(f32, [4])],
            [step("CONV2D", 0, 1, args=[2, 1, 1, 1, 1, 1, 1, 1])]),
        fwd("outer is not listed: float32", [I(f32, [3]), I(f32, [4])], [step("OUTER", 0, 1)],
            tol=(1e-6, 1e-6)),
    ]


def float32_and_promote():
    return [
        fwd("mse_loss of bfloat16 -> float32", [I(bf16, [4, 5]), I(bf16, [4, 5])],
            [step("MSE_LOSS", 0, 1)], tol=(1e-5, 1e-6)),
        fwd("mse_loss of a product -> float32", [I(f32, [4, 8]), I(f32, [8, 5]), I(f32, [4, 5])],
            [step("MATMUL", 0, 1), step("MSE_LOSS", 3, 2)]),
        fwd("l1_loss (composite) of bfloat16 -> float32", [I(bf16, [6]), I(f32, [6])],
            [step("L1_LOSS", 0, 1)], tol=(1e-5, 1e-6)),
        fwd("nll_loss of bfloat16 -> float32", [I(bf16, [3, 4]), I(i64, [3], values=[0, 3, 1])],
            [step("NLL_LOSS", 0, 1)], tol=(1e-5, 1e-6)),
        fwd("cross_entropy of bfloat16 logits runs in float32",
            [I(bf16, [5, 7]), I(i64, [5], values=[6, 0, 3, 3, 1])], [step("CROSS_ENTROPY", 0, 1)],
            tol=(1e-5, 1e-6)),
        fwd("prod of bfloat16 -> float32", [I(bf16, [5])], [step("PROD", 0, args=[-1])],
            tol=(1e-5, 1e-6)),
        fwd("cat bfloat16 with float32 -> float32", [I(bf16, [2, 3]), I(f32, [1, 3])],
            [step("CAT", -1, args=[0, 2, 0, 1])], tol=(0, 0)),
        fwd("stack bfloat16 with bfloat16 stays bfloat16", [I(bf16, [3]), I(bf16, [3])],
            [step("STACK", -1, args=[0, 2, 0, 1])], tol=(0, 0)),
        fwd("cat float64 with float32: float64 is not cast", [I(f64, [2]), I(f32, [2])],
            [step("CAT", -1, args=[0, 2, 0, 1])], tol=(0, 0)),
    ]


def unlisted():
    return [
        fwd("softmax of bfloat16 stays bfloat16", [I(bf16, [3, 8])], [step("SOFTMAX", 0, args=[1])]),
        fwd("softmax of float32 stays float32", [I(f32, [3, 8])], [step("SOFTMAX", 0, args=[1])],
            tol=(1e-5, 1e-6)),
        fwd("add of bfloat16 and float32 promotes as usual", [I(bf16, [4]), I(f32, [4])],
            [step("ADD", 0, 1)], tol=(1e-6, 1e-6)),
        fwd("gelu after a product stays bfloat16", [I(f32, [3, 8]), I(f32, [8, 4])],
            [step("MATMUL", 0, 1), step("GELU", 2, args=[0])]),
    ]


def gradients():
    return [
        grad("matmul: float32 gradients through the casts", [I(f32, [3, 8], **R), I(f32, [8, 5], **R)],
             [step("MATMUL", 0, 1)]),
        grad("linear + mse_loss: float32 gradients",
             [I(f32, [4, 8], **R), I(f32, [6, 8], **R), I(f32, [6], **R), I(f32, [4, 6])],
             [step("LINEAR", 0, 1, args=[2]), step("MSE_LOSS", 4, 3)]),
        grad("linear, gelu, linear, cross_entropy",
             [I(f32, [4, 8], **R), I(f32, [6, 8], **R), I(f32, [5, 6], **R),
              I(i64, [4], values=[4, 0, 2, 1])],
             [step("LINEAR", 0, 1, args=[-1]), step("GELU", 4, args=[0]),
              step("LINEAR", 5, 2, args=[-1]), step("CROSS_ENTROPY", 6, 3)]),
        grad("the same weight used twice: one cast, gradients summed",
             [I(f32, [3, 4], **R), I(f32, [4, 4], **R)],
             [step("MATMUL", 0, 1), step("MATMUL", 2, 1), step("SUM", 3)]),
    ]


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    write(os.path.join(root, "tests/golden/autocast_golden.h"),
          header(__file__, "TSR_TESTS_GOLDEN_AUTOCAST_GOLDEN_H",
                 "torch.autocast('cpu', dtype=torch.bfloat16): output dtypes, values, gradients.",
                 lower_precision() + float32_and_promote() + unlisted() + gradients(),
                 "tg_autocast"))
