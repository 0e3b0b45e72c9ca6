"""Goldens for the ops in bfloat16 and float16 (tests/test_lowp_ops.c, issue 31):
elementwise math, activations, reductions and scans, softmax / log_softmax,
layer_norm, embedding and the losses, forward and backward, each case once in
each of the two dtypes.

The golden of a case:
- torch 1.13's own result in the dtype, where its CPU kernels take the dtype
  (forward and backward);
- where torch 1.13 refuses the dtype (most float16 kernels, a few bfloat16
  ones: mse_loss, binary_cross_entropy, prod, hardtanh's backward), torch
  2.x's rule: the same program on the (already rounded) inputs converted to
  float32, its result and gradients rounded once to the dtype. Such a case's
  name ends in "(f32 golden)".

Tolerances (opsprog.default_tol): bfloat16 |got - want| <= 1e-2 * |want| +
1e-2 (about two bfloat16 units in the last place; the absolute term covers
results of cancellation, where torch 1.13's bfloat16 kernels round every
intermediate and tessera rounds once); float16 2e-3 * |want| + 1e-3 (two to
four float16 units in the last place). Gradients are checked the same way,
and the dtype of the result and of every gradient exactly.

Run from the repository root: /usr/bin/python3 tests/golden/gen_lowp.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opsprog  # noqa: E402
from opsprog import Case, Input, clamp_args, double_bits, make_values, step, write  # noqa: E402

bf16, f16, f32, i64 = torch.bfloat16, torch.float16, torch.float32, torch.int64
MEAN, SUM, NONE = 1, 2, 0


def refused(e):
    return isinstance(e, RuntimeError) and "not implemented for" in str(e)


class LowpCase(Case):
    """A Case run in its inputs' 16-bit dtype, or through float32 where
    torch 1.13 refuses that dtype (see the module's docstring)."""

    def run(self):
        try:
            return self._run(False)
        except RuntimeError as e:
            if not refused(e):
                raise
        self.name += " (f32 golden)"
        return self._run(True)

    def _run(self, through_f32):
        leaves = [i.build() for i in self.inputs]
        regs = [x.float() if through_f32 and x.is_floating_point() else x for x in leaves]
        self.step_meta = []
        for s in self.steps:
            y = opsprog.OPS[s["op"]](regs, s)
            regs.append(y)
            self.step_meta.append((opsprog.grad_fn_name(y), y.requires_grad, y.is_leaf))
        out = regs[-1]
        lowp = next(i.dtype for i in self.inputs if i.dtype in (bf16, f16))
        self.out = out.detach().to(lowp) if through_f32 and out.is_floating_point() else out.detach()
        self.grad_out, self.grads = None, [None] * len(self.inputs)
        if self.backward:
            if out.dim() == 0:
                out.backward()
            else:
                self.grad_out = make_values("randn", out.numel(), lowp).reshape(out.shape)
                out.backward(self.grad_out.to(out.dtype))
            for k, x in enumerate(leaves):
                if self.inputs[k].requires_grad:
                    assert x.grad is not None, (self.name, k)
                    self.grads[k] = x.grad
        return self


def I(dtype, sizes, strides=None, offset=0, kind="randn", **kw):  # noqa: E743
    return Input(dtype, sizes, strides, offset, kind=kind, **kw)


def G(dtype, sizes, strides=None, offset=0, kind="randn"):
    return I(dtype, sizes, strides, offset, kind, requires_grad=True)


def V(dtype, values, sizes=None, rg=False):
    return Input(dtype, sizes if sizes is not None else [len(values)], values=values, requires_grad=rg)


def unit(n, lo=0.05, hi=0.95):
    return (torch.rand(n, generator=opsprog.GEN, dtype=torch.float64) * (hi - lo) + lo).tolist()


def d(v):
    return double_bits(v)


def cases(dt):
    """The programs of one dtype; T marks the dtype in each name."""
    T = {bf16: "bf16", f16: "f16"}[dt]
    c = []

    def add(name, inputs, steps, backward=True, tol=None, note=None):
        c.append(LowpCase(f"{T} {name}", inputs, steps, backward=backward, tol=tol, note=note))

    # ---- elementwise -------------------------------------------------------
    for op in ["ADD", "SUB", "MUL"]:
        add(op.lower(), [G(dt, [3, 5]), G(dt, [3, 5], [1, 3])], [step(op, 0, 1)])  # b transposed
    add("div", [G(dt, [3, 5]), G(dt, [5], kind="pos")], [step("DIV", 0, 1)])  # broadcast
    add("mul_scalar", [G(dt, [4, 6])], [step("MUL_SCALAR", 0, scalar=0.3)])
    add("add_scalar", [G(dt, [4, 6])], [step("ADD_SCALAR", 0, scalar=2.5)])
    for op in ["NEG", "EXP", "TANH", "SIGMOID", "RELU", "SIN", "COS", "SILU"]:
        add(op.lower(), [G(dt, [4, 9])], [step(op, 0)])
    for op in ["LOG", "SQRT", "RSQRT", "RECIPROCAL"]:
        add(op.lower(), [G(dt, [4, 9], kind="pos")], [step(op, 0)])
    add("tanh (stepped)", [G(dt, [3, 4], [8, 2], 1)], [step("TANH", 0)])
    add("gelu", [G(dt, [4, 9])], [step("GELU", 0, args=[0])])
    add("gelu tanh", [G(dt, [4, 9])], [step("GELU", 0, args=[1])])
    add("gelu (large, SIMD chunks)", [G(dt, [1100])], [step("GELU", 0, args=[0])])
    add("elu", [G(dt, [4, 9])], [step("ELU", 0, args=[d(1.0)])])
    add("leaky_relu", [G(dt, [4, 9])], [step("LEAKY_RELU", 0, args=[d(0.1)])])
    add("softplus", [G(dt, [4, 9])], [step("SOFTPLUS", 0, args=[d(1.0), d(20.0)])])
    add("hardtanh", [G(dt, [4, 9])], [step("HARDTANH", 0, args=[d(-1.0), d(1.0)])])
    add("pow_scalar", [G(dt, [4, 9], kind="pos")], [step("POW_SCALAR", 0, scalar=2.5)])
    add("pow", [G(dt, [4, 9], kind="pos"), G(dt, [4, 9])], [step("POW", 0, 1)])
    add("clamp", [G(dt, [4, 9])], [step("CLAMP", 0, args=clamp_args(-0.5, 0.75))])
    add("clamp_min", [G(dt, [4, 9])], [step("CLAMP", 0, args=clamp_args(-0.5, None))])
    add("clamp_tensor", [G(dt, [4, 9]), I(dt, [9]), V(dt, [1.0] * 9)], [step("CLAMP_TENSOR", 0, args=[1, 2])])
    for op in ["FLOOR", "CEIL", "ROUND", "TRUNC", "SIGN"]:
        add(op.lower(), [G(dt, [4, 9])], [step(op, 0)])
    add("where", [V(torch.bool, [1, 0, 1, 1, 0, 0]), G(dt, [6]), G(dt, [6])], [step("WHERE", 0, 1, args=[2])])
    # ---- reductions and scans ----------------------------------------------
    add("sum", [G(dt, [7, 9])], [step("SUM", 0)])
    add("sum dim 1 keepdim", [G(dt, [7, 9])], [step("SUM", 0, args=[1], keepdim=True)])
    add("sum dim 0 (transposed)", [G(dt, [9, 7], [1, 9])], [step("SUM", 0, args=[0])])
    # A long sum: float accumulation, one rounding at the end (a bfloat16
    # accumulator would stop growing at 256 + ...).
    add("sum of 3000 values in [0.5, 2)", [G(dt, [3000], kind="pos")], [step("SUM", 0)])
    add("mean", [G(dt, [7, 9])], [step("MEAN", 0)])
    add("mean dim 1", [G(dt, [7, 90])], [step("MEAN", 0, args=[1])])
    add("prod dim 1", [G(dt, [4, 5], kind="pos")], [step("PROD_DIM", 0, args=[1, -1])])
    add("prod", [G(dt, [6], kind="pos")], [step("PROD", 0, args=[-1])])
    add("cumsum", [G(dt, [4, 9])], [step("CUMSUM", 0, args=[1, -1])])
    add("cumprod", [G(dt, [4, 6], kind="pos")], [step("CUMPROD", 0, args=[1, -1])])
    add("var", [G(dt, [5, 40])], [step("VAR", 0, args=[1, 1])])
    add("std", [G(dt, [5, 40])], [step("STD", 0, args=[1, 1])])
    add("logsumexp", [G(dt, [5, 12])], [step("LOGSUMEXP", 0, args=[1])])
    add("max", [G(dt, [5, 12])], [step("MAX", 0)])
    add("min dim", [G(dt, [5, 12])], [step("MIN_DIM_VALUES", 0, args=[1])])
    add("max dim indices", [I(dt, [5, 12])], [step("MAX_DIM_INDICES", 0, args=[1])], backward=False)
    # ---- softmax family, layer_norm ----------------------------------------
    add("softmax last dim", [G(dt, [6, 33])], [step("SOFTMAX", 0, args=[1])])
    add("softmax dim 0", [G(dt, [6, 33])], [step("SOFTMAX", 0, args=[0])])
    # The gradient g - exp(y) * sum(g) carries the rounding of y (about
    # |sum(g)| * 2^-9 in bfloat16): torch 1.13 also rounds exp(y), the
    # product and its row sum to bfloat16, tessera computes them in float and
    # rounds once (torch 2.x), so the two differ by up to twice that.
    ls_tol = (1e-2, 3e-2) if dt == bf16 else None
    ls_note = "bfloat16 gradient: absolute tolerance 3e-2 (|sum(g)| * 2 ulp of exp(y))" if dt == bf16 else None
    add("log_softmax last dim", [G(dt, [6, 33])], [step("LOG_SOFTMAX", 0, args=[1])], tol=ls_tol, note=ls_note)
    add("log_softmax dim 0", [G(dt, [6, 33])], [step("LOG_SOFTMAX", 0, args=[0])], tol=ls_tol, note=ls_note)
    add("layer_norm affine", [G(dt, [4, 24]), V(dt, unit(24, 0.5, 1.5), rg=True), G(dt, [24])],
        [step("LAYER_NORM", 0, args=[1, 24, 1, 2], scalar=1e-5)])
    add("layer_norm plain", [G(dt, [3, 2, 16])], [step("LAYER_NORM", 0, args=[2, 2, 16, -1, -1], scalar=1e-5)])
    # ---- embedding ---------------------------------------------------------
    add("embedding", [G(dt, [10, 8]), V(i64, [1, 3, 3, 9, 0, 1])], [step("EMBEDDING", 0, 1)])
    # ---- losses ------------------------------------------------------------
    tgt = V(i64, [3, 1, 4, 0, 10, 3])
    for red, rn in [(MEAN, "mean"), (SUM, "sum"), (NONE, "none")]:
        add(f"mse_loss {rn}", [G(dt, [4, 6]), G(dt, [4, 6])], [step("MSE_LOSS", 0, 1, args=[red])])
    add("l1_loss", [G(dt, [4, 6]), G(dt, [4, 6])], [step("L1_LOSS", 0, 1, args=[MEAN])])
    add("smooth_l1_loss", [G(dt, [4, 6]), G(dt, [4, 6])], [step("SMOOTH_L1_LOSS", 0, 1, args=[MEAN], scalar=0.5)])
    add("huber_loss", [G(dt, [4, 6]), G(dt, [4, 6])], [step("HUBER_LOSS", 0, 1, args=[SUM], scalar=0.7)])
    add("kl_div", [G(dt, [4, 6]), V(dt, unit(24), [4, 6])], [step("KL_DIV", 0, 1, args=[SUM, 0])])
    add("kl_div log_target", [G(dt, [4, 6]), G(dt, [4, 6])], [step("KL_DIV", 0, 1, args=[MEAN, 1])])
    add("nll_loss", [G(dt, [6, 11]), tgt], [step("NLL_LOSS", 0, 1, args=[MEAN, -1, -100])])
    add("nll_loss none ignore_index 3", [G(dt, [6, 11]), tgt], [step("NLL_LOSS", 0, 1, args=[NONE, -1, 3])])
    add("cross_entropy", [G(dt, [6, 11]), tgt], [step("CROSS_ENTROPY_LOSS", 0, 1, args=[MEAN, -1, -100])])
    add("cross_entropy label_smoothing 0.1", [G(dt, [6, 11]), tgt],
        [step("CROSS_ENTROPY_LOSS", 0, 1, args=[MEAN, -1, -100], scalar=0.1)])
    add("cross_entropy ignore_index 3", [G(dt, [6, 11]), tgt],
        [step("CROSS_ENTROPY_LOSS", 0, 1, args=[MEAN, -1, 3])])
    add("cross_entropy weight, label_smoothing, ignore_index", [G(dt, [6, 11]), tgt, I(dt, [11], kind="pos")],
        [step("CROSS_ENTROPY_LOSS", 0, 1, args=[MEAN, 2, 3], scalar=0.2)])
    add("cross_entropy sum", [G(dt, [6, 11]), tgt], [step("CROSS_ENTROPY_LOSS", 0, 1, args=[SUM, -1, -100])])
    add("cross_entropy probabilities", [G(dt, [6, 11]), V(dt, unit(66), [6, 11], rg=True)],
        [step("CROSS_ENTROPY_LOSS", 0, 1, args=[MEAN, -1, -100])])
    add("binary_cross_entropy", [V(dt, unit(12), [3, 4], rg=True), V(dt, unit(12), [3, 4])],
        [step("BCE", 0, 1, args=[MEAN, -1])])
    add("binary_cross_entropy_with_logits", [G(dt, [3, 4]), V(dt, unit(12), [3, 4]), I(dt, [4], kind="pos")],
        [step("BCE_LOGITS", 0, 1, args=[MEAN, -1, 2])])
    return c


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lowp_golden.h")
    guard = "TSR_TESTS_GOLDEN_LOWP_GOLDEN_H"
    out = [f"/* GENERATED FILE - do not edit.\n"
           f" * Produced by tests/golden/{os.path.basename(__file__)} with PyTorch {torch.__version__}\n"
           f" * (/usr/bin/python3). Ops in bfloat16 and float16; see the script for the goldens'\n"
           f" * rule (torch 1.13's own, or its float32 result rounded once) and tolerances.\n"
           f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(__file__)} */\n",
           f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
           '#include "ops_program.h"\n\n']
    for table, dt, seed in [("tg_lowp_bf16", bf16, 3101), ("tg_lowp_f16", f16, 3102)]:
        opsprog.GEN.manual_seed(seed)
        inits = []
        for n, c in enumerate(cases(dt)):
            dd, init = opsprog.emit_case(c.run(), f"{table}_{n}")
            out.append(f"/* {c.name}{': ' + c.note if c.note else ''} */\n{dd}\n")
            inits.append(init)
        out.append(f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n")
        out.append(f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n")
    out.append(f"#endif /* {guard} */\n")
    write(root, "".join(out))


if __name__ == "__main__":
    main()
