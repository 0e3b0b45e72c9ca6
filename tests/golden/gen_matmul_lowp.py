"""Goldens for the bfloat16 and float16 matrix products (tests/test_matmul_lowp.c):
matmul (mm, mv, vm, dot, batched with broadcast batch dims), bmm, baddbmm and
linear over contiguous, transposed, sliced, expanded and empty operands,
forward and backward (values, strides, grad_fn names, gradients).

The semantics: float32 sums of the exact products, rounded once to the
dtype (torch 1.13's oneDNN bfloat16 kernels, which it takes for most
products, and torch 2.x's CPU float16 matmul). tessera sums in float32 too,
in an order that may differ, so values are compared within one unit in the
last place of the dtype relative to the result (rtol 2^-7 for bfloat16,
2^-10 for float16) plus a small absolute term for results near zero, where
the sums cancel.

bfloat16: torch 1.13's own results where they agree with that within the
tolerance. For small products (and bfloat16 dot) torch 1.13 takes other
kernels that round partial sums to bfloat16, many ulps away; those cases
(their comment says so, with the distance) take the float32 product of the
same bfloat16 values rounded once instead.

float16: torch 1.13 has no CPU float16 matmul ("addmm_impl_cpu_" not
implemented for 'Half'): the float32 product of the float16 values, rounded
once (every product of two float16 values is exact in float32), and the
gradients likewise (the backward is itself products). grad_fn names are the
ones torch gives the same program in float32.

Run from the repository root: /usr/bin/python3 tests/golden/gen_matmul_lowp.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, Input, double_bits, step, write  # noqa: E402

bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
R = {"requires_grad": True}
BF16_TOL = (2.0 ** -7, 2.0 ** -11)
F16_TOL = (2.0 ** -10, 2.0 ** -14)


def I(dtype, sizes, strides=None, offset=0, **kw):  # noqa: E743
    return Input(dtype, sizes, strides, offset, **kw)


def rounding_matmul(dtype):
    """torch.matmul on float32 values as torch computes it in dtype: where
    both operands have batch dims and one is broadcast, torch runs bmm on
    the expanded operands, so the broadcast operand's gradient is a sum of
    products each rounded to dtype (the expanded operands' gradients are
    rounded here before expand's backward sums them)."""
    def run(r, s):
        a, b = r[s["a"]], r[s["b"]]
        if a.dim() > 2 and b.dim() > 2 and a.shape[:-2] != b.shape[:-2]:
            batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            a, b = a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:])
            for t in (a, b):
                if t.requires_grad:
                    t.register_hook(lambda g: g.to(dtype).to(f32))
        return torch.matmul(a, b)
    return run


class WidenedCase(Case):
    """A case whose products torch 1.13 cannot take in its dtype (float16),
    or takes with other roundings (small bfloat16 products): run on float32
    leaves holding the same values (an input of another dtype rounded to the
    product's dtype first, as torch converts it), every result and gradient
    rounded once to the dtype; grad_fn names from the float32 program."""

    def _program(self, dtype, ops):
        regs = [i.build().detach().to(dtype).to(f32).requires_grad_(i.requires_grad) for i in self.inputs]
        for s in self.steps:
            regs.append(ops.get(s["op"], opsprog.OPS[s["op"]])(regs, s))
        return regs

    def run(self):
        dtype = self.inputs[1].dtype  # the product's operand (matmul b, linear weight, baddbmm batch1)
        regs = self._program(dtype, {})
        self.step_meta = [(opsprog.grad_fn_name(y), y.requires_grad, y.is_leaf)
                          for y in regs[len(self.inputs):]]
        self.out = regs[-1].detach().to(dtype)
        self.grad_out, self.grads = None, [None] * len(self.inputs)
        if self.backward:
            self.grad_out = opsprog.make_values("randn", self.out.numel(), dtype).reshape(self.out.shape)
            regs = self._program(dtype, {"MATMUL": rounding_matmul(dtype)})
            regs[-1].backward(self.grad_out.to(f32))
            self.grads = [x.grad.to(dtype) if x.grad is not None else None for x in regs[:len(self.inputs)]]
        return self


def tolerances_apart(x, y, tol):
    """The largest |x - y| / (atol + rtol |y|): within the tolerance tol =
    (rtol, atol) when at most 1."""
    x, y = x.detach().double().flatten(), y.detach().double().flatten()
    if x.numel() == 0:
        return 0.0
    return ((x - y).abs() / (tol[1] + tol[0] * y.abs())).max().item()


class TorchOrWidenedCase(Case):
    """bfloat16: torch 1.13's own result and gradients when they are within
    the tolerance of the float32 sums rounded once, else the latter (noted)."""

    def run(self):
        state = opsprog.GEN.get_state()
        super().run()
        own_out, own_grads, own_gout = self.out, self.grads, self.grad_out
        after = opsprog.GEN.get_state()
        opsprog.GEN.set_state(state)
        w = WidenedCase(self.name, self.inputs, self.steps, check_strides=self.check_strides, tol=self.tol,
                        backward=self.backward).run()
        opsprog.GEN.set_state(after)
        dist = max([tolerances_apart(own_out, w.out, self.tol)] +
                   [tolerances_apart(g, wg, self.tol) for g, wg in zip(own_grads, w.grads) if g is not None])
        if dist > 1.0:
            self.out, self.grads, self.grad_out = w.out, w.grads, w.grad_out
            self.note = (f"torch 1.13's bfloat16 kernel for this size rounds partial sums ({dist:.0f} times "
                         "the tolerance away): float32 sums of the same values rounded once")
        else:
            self.out, self.grads, self.grad_out = own_out, own_grads, own_gout
        return self


def case(name, dtype, inputs, steps, **kw):
    tol = kw.pop("tol", F16_TOL if dtype == f16 else BF16_TOL)
    if dtype == f16:
        return WidenedCase(name, inputs, steps, tol=tol, **kw)
    return TorchOrWidenedCase(name, inputs, steps, tol=tol, **kw)


def matmul(name, dt, a, b, **kw):
    return case(f"MATMUL {name}", dt, [a, b], [step("MATMUL", 0, 1)], **kw)


def bmm(name, dt, a, b, **kw):
    return case(f"BMM {name}", dt, [a, b], [step("BMM", 0, 1)], **kw)


def baddbmm(name, dt, i, a, b, beta=1.0, alpha=1.0, **kw):
    return case(f"BADDBMM {name}", dt, [i, a, b],
                [step("BADDBMM", 0, 1, args=[2, double_bits(beta), double_bits(alpha)])], **kw)


def linear(name, dt, x, w, b=None, **kw):
    ins = [x, w] + ([b] if b is not None else [])
    return case(f"LINEAR {name}", dt, ins, [step("LINEAR", 0, 1, args=[2 if b is not None else -1])], **kw)


def forward(dt):
    n = "bfloat16" if dt == bf16 else "float16"
    return [
        matmul(f"{n} mm", dt, I(dt, [17, 40]), I(dt, [40, 13])),
        matmul(f"{n} a transposed", dt, I(dt, [17, 40], [1, 17]), I(dt, [40, 13])),
        matmul(f"{n} b transposed", dt, I(dt, [17, 40]), I(dt, [40, 13], [1, 40])),
        matmul(f"{n} both transposed", dt, I(dt, [21, 40], [1, 21]), I(dt, [40, 13], [1, 40])),
        matmul(f"{n} sliced rows", dt, I(dt, [9, 16], [40, 2]), I(dt, [16, 11], [24, 1], 5)),
        matmul(f"{n} mv", dt, I(dt, [9, 30]), I(dt, [30])),
        matmul(f"{n} vm", dt, I(dt, [30]), I(dt, [30, 9])),
        matmul(f"{n} dot", dt, I(dt, [70]), I(dt, [70])),
        matmul(f"{n} batch broadcast", dt, I(dt, [2, 1, 5, 24]), I(dt, [3, 24, 6])),
        matmul(f"{n} expanded batch", dt, I(dt, [3, 4, 8], [0, 8, 1]), I(dt, [3, 8, 5])),
        matmul(f"{n} batched x 2-D", dt, I(dt, [2, 3, 6, 10]), I(dt, [10, 7])),
        matmul(f"{n} 2-D x batched", dt, I(dt, [6, 10]), I(dt, [4, 10, 7])),
        matmul(f"{n} empty rows", dt, I(dt, [0, 5]), I(dt, [5, 3])),
        matmul(f"{n} empty inner", dt, I(dt, [4, 0]), I(dt, [0, 3])),
        bmm(f"{n}", dt, I(dt, [3, 6, 20]), I(dt, [3, 20, 5])),
        bmm(f"{n} transposed", dt, I(dt, [2, 12, 20], [240, 1, 12]), I(dt, [2, 20, 9], [180, 1, 20])),
        bmm(f"{n} empty batch", dt, I(dt, [0, 3, 4]), I(dt, [0, 4, 5])),
        baddbmm(f"{n} beta alpha", dt, I(dt, [9]), I(dt, [2, 6, 16]), I(dt, [2, 16, 9]), 0.5, -1.5),
        baddbmm(f"{n} float32 input", dt, I(f32 if dt == bf16 else dt, [2, 6, 1]), I(dt, [2, 6, 16]),
                I(dt, [2, 16, 9])),
        baddbmm(f"{n} empty inner", dt, I(dt, [2, 3, 5]), I(dt, [2, 3, 0]), I(dt, [2, 0, 5]), 2.0),
        linear(f"{n} bias", dt, I(dt, [7, 24]), I(dt, [9, 24]), I(dt, [9])),
        linear(f"{n} no bias 3-D", dt, I(dt, [2, 3, 24]), I(dt, [9, 24])),
        linear(f"{n} 3-D bias", dt, I(dt, [2, 3, 24]), I(dt, [9, 24]), I(dt, [9])),
        linear(f"{n} 2-D bias", dt, I(dt, [4, 24]), I(dt, [6, 24]), I(dt, [4, 1])),
        linear(f"{n} transposed x", dt, I(dt, [12, 24], [1, 12]), I(dt, [6, 24]), I(dt, [6])),
        linear(f"{n} empty inner", dt, I(dt, [3, 0]), I(dt, [4, 0]), I(dt, [4])),
    ]


def grads(dt):
    n = "bfloat16" if dt == bf16 else "float16"
    return [
        matmul(f"{n} mm", dt, I(dt, [23, 40], **R), I(dt, [40, 15], **R), backward=True),
        matmul(f"{n} transposed", dt, I(dt, [23, 40], [1, 23], **R), I(dt, [40, 15], [1, 40], **R),
               backward=True),
        matmul(f"{n} mv", dt, I(dt, [11, 30], **R), I(dt, [30], **R), backward=True),
        matmul(f"{n} batch broadcast", dt, I(dt, [2, 1, 5, 12], **R), I(dt, [3, 12, 6], **R),
               backward=True),
        bmm(f"{n}", dt, I(dt, [2, 7, 16], **R), I(dt, [2, 16, 5], **R), backward=True),
        baddbmm(f"{n}", dt, I(dt, [5], **R), I(dt, [2, 7, 16], **R), I(dt, [2, 16, 5], **R), 0.5, 2.0,
                backward=True),
        linear(f"{n} bias", dt, I(dt, [9, 32], **R), I(dt, [11, 32], **R), I(dt, [11], **R), backward=True),
        linear(f"{n} 3-D", dt, I(dt, [2, 4, 32], **R), I(dt, [11, 32], **R), I(dt, [11], **R),
               backward=True),
    ]


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    guard = "TSR_TESTS_GOLDEN_MATMUL_LOWP_GOLDEN_H"
    opsprog.GEN.manual_seed(3131)
    out = [f"/* GENERATED FILE - do not edit.\n"
           f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch "
           f"{torch.__version__}\n * (/usr/bin/python3). bfloat16 and float16 matmul, bmm, baddbmm, linear.\n"
           f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
           f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
           '#include "ops_program.h"\n\n']
    for table, make in [("tg_lowp_bf16_fwd", lambda: forward(bf16)), ("tg_lowp_bf16_grad", lambda: grads(bf16)),
                        ("tg_lowp_f16_fwd", lambda: forward(f16)), ("tg_lowp_f16_grad", lambda: grads(f16))]:
        inits = []
        for k, c in enumerate(make()):
            d, init = opsprog.emit_case(c.run(), f"{table}_{k}")
            out.append(f"/* {c.name}{': ' + c.note if c.note else ''} */\n{d}\n")
            inits.append(init)
        out.append(f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n")
        out.append(f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n")
    out.append(f"#endif /* {guard} */\n")
    write(os.path.join(root, "matmul_lowp_golden.h"), "".join(out))


if __name__ == "__main__":
    main()
