#!/usr/bin/env python3
"""Survey: every public elementwise / reduction / normalization / activation /
dropout / embedding / loss op of tessera in bfloat16 and float16, forward and
backward, against torch 1.13 (issue 31).

Run with the binding on PYTHONPATH and Debian's torch:
    PYTHONPATH=<build>/bindings/python /usr/bin/python3 tools/lowp_survey.py

For each op and dtype it prints one line: OK (within 2 units in the last
place, see ulps()), NEAR (further, but within the tolerance of the tests:
rounding of intermediates, e.g. torch 1.13's bfloat16 kernels round every
vector op, a gradient from a rounded saved output), REFUSED (tessera raised)
or DIFF (beyond the tests' tolerance, or a wrong dtype), with the largest
difference in units of the dtype's last place. Exit status 1 on REFUSED or
DIFF; -v prints each worst element. The golden: torch 1.13's own
result in that dtype; where torch 1.13 refuses the dtype (float16 kernels it
lacks), torch 1.13's float32 result on the same (rounded) inputs rounded once
to the dtype (torch 2.x's opmath rule), marked "(f32 golden)".
"""
import math
import sys

import numpy as np
import torch
import torch.nn.functional as TF

import tessera
import tessera.nn.functional as F

torch.manual_seed(0)
RNG = np.random.default_rng(31)

DTYPES = {"bfloat16": (tessera.bfloat16, torch.bfloat16), "float16": (tessera.float16, torch.float16)}
ULP = {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -10}
VERBOSE = "-v" in sys.argv
TOL_ULPS = 2  # forward and backward: two units in the last place of the output (see ulps())


def to_t(a, tdt, rg=False):
    if a.dtype == np.bool_:
        return tessera.from_numpy(np.ascontiguousarray(a.astype(np.uint8))).bool()
    t = tessera.from_numpy(np.array(a.astype(np.float32) if a.dtype.kind == "f" else a, order="C"))
    if a.dtype.kind == "f":
        t = t.to(tdt)
    if rg:
        t.requires_grad_(True)
    return t


def to_torch(a, pdt, rg=False):
    t = torch.from_numpy(np.array(a, order="C"))
    if a.dtype.kind == "f":
        t = t.to(torch.float32).to(pdt)
    if rg:
        t.requires_grad_(True)
    return t


def tensor_np(t):
    t = t.detach()
    return (t.float() if t.is_floating_point() else t.long()).numpy()


def ulps(got, want, pdt):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return math.inf
    if got.size == 0:
        return 0.0
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    # Units of the last place of each expected value, floored at 1/64 of the
    # tensor's largest magnitude: results of cancellation (a layer norm's
    # output near 0, a softmax gradient) carry the rounding of their terms.
    floor = max(2.0 ** -14, float(np.abs(want[np.isfinite(want)]).max(initial=0.0)) / 64)
    scale = np.maximum(np.abs(want), floor) * ULP[pdt]
    err = np.where(same, 0.0, np.abs(got - want) / scale)
    err = np.nan_to_num(err, nan=math.inf)
    if VERBOSE and err.max() > TOL_ULPS:
        i = int(err.argmax())
        print(f"    worst: got {got.flat[i]!r} want {want.flat[i]!r} at {i}")
    return float(err.max())


# The tolerance of tests/test_lowp_ops.c and bindings/python/tests/test_lowp.py
# (rtol, atol), with the wider absolute ones those tests give two gradients.
TEST_TOL = {torch.bfloat16: (1e-2, 1e-2), torch.float16: (2e-3, 1e-3)}
TEST_ATOL = {"log_softmax": 3e-2, "log_softmax_dim0": 3e-2, "layer_norm": 5e-2}


def within_test_tol(got, want, pdt, name=None):
    rtol, atol = TEST_TOL[pdt]
    if pdt == torch.bfloat16 and name in TEST_ATOL:
        atol = TEST_ATOL[name]
    return bool(np.allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol,
                            equal_nan=True))


def rnd(*shape, lo=-3.0, hi=3.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


# name, tessera fn, torch fn, input makers (numpy), indices of inputs needing grad
OPS = []


def op(name, tfn, pfn, inputs, grads=(0,)):
    OPS.append((name, tfn, pfn, inputs, grads))


X = lambda: rnd(4, 37)
POS = lambda: rnd(4, 37, lo=0.1, hi=4.0)
UNIT = lambda: rnd(4, 37, lo=0.05, hi=0.95)

# elementwise unary
for n in ["abs", "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "reciprocal",
          "sign", "floor", "ceil", "round", "trunc"]:
    mk = POS if n in ("log", "sqrt", "rsqrt", "reciprocal") else X
    g = (0,) if n not in ("sign", "floor", "ceil", "round", "trunc") else ()
    op(n, getattr(tessera, n), getattr(torch, n), [mk], g)
op("pow_scalar", lambda x: tessera.pow(x, 2.5), lambda x: torch.pow(x, 2.5), [POS])
op("pow_tensor", tessera.pow, torch.pow, [POS, lambda: rnd(4, 37, lo=-1, hi=2)], (0, 1))
op("clamp", lambda x: tessera.clamp(x, -1.0, 1.5), lambda x: torch.clamp(x, -1.0, 1.5), [X])
op("clamp_min", lambda x: tessera.clamp(x, min=-0.5), lambda x: torch.clamp(x, min=-0.5), [X])
# binary
for n in ["add", "sub", "mul", "div", "maximum", "minimum"]:
    op(n, getattr(tessera, n), getattr(torch, n), [X, lambda: rnd(4, 37, lo=0.5, hi=3)], (0, 1))
op("add_bcast", tessera.add, torch.add, [X, lambda: rnd(37)], (0, 1))
op("where", lambda c, a, b: tessera.where(c, a, b), lambda c, a, b: torch.where(c, a, b),
   [lambda: RNG.uniform(size=(4, 37)) > 0.5, X, X], (1, 2))
op("masked_fill", lambda x, m: x.masked_fill(m, 0.25), lambda x, m: x.masked_fill(m, 0.25),
   [X, lambda: RNG.uniform(size=(4, 37)) > 0.5])
# comparisons (bool output)
for n in ["eq", "ne", "lt", "le", "gt", "ge"]:
    op(n, getattr(tessera, n), getattr(torch, n), [X, X], ())
# reductions
op("sum", tessera.sum, torch.sum, [lambda: rnd(64, 129)])
op("sum_big", tessera.sum, torch.sum, [lambda: rnd(100000, lo=0.5, hi=1.5)])
op("sum_dim", lambda x: tessera.sum(x, 1), lambda x: torch.sum(x, 1), [lambda: rnd(8, 1000)])
op("sum_dim0", lambda x: tessera.sum(x, 0), lambda x: torch.sum(x, 0), [lambda: rnd(1000, 8)])
op("mean", tessera.mean, torch.mean, [lambda: rnd(64, 129)])
op("mean_dim", lambda x: tessera.mean(x, 1), lambda x: torch.mean(x, 1), [lambda: rnd(8, 1000)])
op("prod", lambda x: tessera.prod(x, 1), lambda x: torch.prod(x, 1), [lambda: rnd(4, 6, lo=0.5, hi=1.5)])
op("amax", lambda x: tessera.amax(x, 1), lambda x: torch.amax(x, 1), [X])
op("amin", lambda x: tessera.amin(x, 1), lambda x: torch.amin(x, 1), [X])
op("max", tessera.max, torch.max, [X])
op("min", tessera.min, torch.min, [X])
op("argmax", lambda x: tessera.argmax(x, 1), lambda x: torch.argmax(x, 1), [X], ())
op("var", lambda x: tessera.var(x, 1), lambda x: torch.var(x, 1), [lambda: rnd(8, 300)])
op("std", lambda x: tessera.std(x, 1), lambda x: torch.std(x, 1), [lambda: rnd(8, 300)])
op("norm", tessera.norm, torch.norm, [X])
op("logsumexp", lambda x: tessera.logsumexp(x, 1), lambda x: torch.logsumexp(x, 1), [X])
op("cumsum", lambda x: tessera.cumsum(x, 1), lambda x: torch.cumsum(x, 1), [X])
op("cumprod", lambda x: tessera.cumprod(x, 1), lambda x: torch.cumprod(x, 1), [lambda: rnd(4, 8, lo=0.5, hi=1.5)])
# softmax family
op("softmax", lambda x: tessera.softmax(x, 1), lambda x: torch.softmax(x, 1), [X])
op("softmax_dim0", lambda x: tessera.softmax(x, 0), lambda x: torch.softmax(x, 0), [X])
op("log_softmax", lambda x: tessera.log_softmax(x, 1), lambda x: torch.log_softmax(x, 1), [X])
op("log_softmax_dim0", lambda x: tessera.log_softmax(x, 0), lambda x: torch.log_softmax(x, 0), [X])
# layer norm
op("layer_norm", lambda x, w, b: F.layer_norm(x, [37], w, b), lambda x, w, b: TF.layer_norm(x, [37], w, b),
   [X, lambda: rnd(37, lo=0.5, hi=1.5), lambda: rnd(37)], (0, 1, 2))
op("layer_norm_noaffine", lambda x: F.layer_norm(x, [37]), lambda x: TF.layer_norm(x, [37]), [X])
# activations
op("gelu", F.gelu, TF.gelu, [X])
op("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh"), [X])
op("silu", F.silu, TF.silu, [X])
op("elu", F.elu, TF.elu, [X])
op("leaky_relu", lambda x: F.leaky_relu(x, 0.1), lambda x: TF.leaky_relu(x, 0.1), [X])
op("hardtanh", F.hardtanh, TF.hardtanh, [X])
op("softplus", F.softplus, TF.softplus, [X])
op("F.relu", F.relu, TF.relu, [X])
op("F.sigmoid", F.sigmoid, torch.sigmoid, [X])
op("F.tanh", F.tanh, torch.tanh, [X])
# dropout in eval mode / p=0 (randomness differs between libraries)
op("dropout_p0", lambda x: F.dropout(x, 0.0, True), lambda x: TF.dropout(x, 0.0, True), [X])
op("dropout_eval", lambda x: F.dropout(x, 0.5, False), lambda x: TF.dropout(x, 0.5, False), [X])
# embedding
op("embedding", lambda i, w: F.embedding(i, w), lambda i, w: TF.embedding(i, w),
   [lambda: RNG.integers(0, 10, size=(5, 7)), lambda: rnd(10, 16)], (1,))
# losses
LOGITS = lambda: rnd(6, 11)
TGT = lambda: RNG.integers(0, 11, size=(6,))
op("cross_entropy", F.cross_entropy, TF.cross_entropy, [LOGITS, TGT])
op("cross_entropy_ls", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
   lambda x, t: TF.cross_entropy(x, t, label_smoothing=0.1), [LOGITS, TGT])
op("cross_entropy_ignore", lambda x, t: F.cross_entropy(x, t, ignore_index=3),
   lambda x, t: TF.cross_entropy(x, t, ignore_index=3), [LOGITS, lambda: np.array([3, 1, 3, 0, 10, 3])])
op("cross_entropy_probs", F.cross_entropy, TF.cross_entropy, [LOGITS, lambda: rnd(6, 11, lo=0, hi=1)], (0, 1))
op("cross_entropy_sum", lambda x, t: F.cross_entropy(x, t, reduction="sum"),
   lambda x, t: TF.cross_entropy(x, t, reduction="sum"), [LOGITS, TGT])
op("nll_loss", F.nll_loss, TF.nll_loss, [LOGITS, TGT])
op("nll_loss_none", lambda x, t: F.nll_loss(x, t, reduction="none"),
   lambda x, t: TF.nll_loss(x, t, reduction="none"), [LOGITS, TGT])
op("mse_loss", F.mse_loss, TF.mse_loss, [X, X], (0, 1))
op("l1_loss", F.l1_loss, TF.l1_loss, [X, X], (0, 1))
op("smooth_l1_loss", F.smooth_l1_loss, TF.smooth_l1_loss, [X, X], (0, 1))
op("huber_loss", F.huber_loss, TF.huber_loss, [X, X], (0, 1))
op("binary_cross_entropy", F.binary_cross_entropy, TF.binary_cross_entropy, [UNIT, UNIT])
op("bce_with_logits", F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits, [X, UNIT])
op("kl_div", lambda x, t: F.kl_div(x, t, reduction="batchmean"),
   lambda x, t: TF.kl_div(x, t, reduction="batchmean"), [lambda: -POS(), UNIT])


def run_torch(pfn, arrays, pdt, grads, gout_np):
    """torch 1.13's result in pdt (or through float32 when it refuses pdt)."""
    def attempt(cdt):
        ins = [to_torch(a, pdt, i in grads and a.dtype.kind == "f") for i, a in enumerate(arrays)]
        leaves = ins
        if cdt != pdt:
            leaves = ins
            ins = [t.detach().to(cdt).requires_grad_(t.requires_grad) if t.is_floating_point() else t for t in ins]
        out = pfn(*ins)
        res = out[0] if isinstance(out, tuple) else out
        gr = []
        if grads and res.is_floating_point():
            gout = torch.from_numpy(gout_np(res.shape)).to(pdt).to(res.dtype)
            res.backward(gout)
            gr = [ins[i].grad for i in grads]
        if cdt != pdt:
            rdt = pdt if res.is_floating_point() else res.dtype
            return res.detach().to(rdt), [g.to(pdt) if g is not None else None for g in gr], True
        return res.detach(), gr, False
    try:
        return attempt(pdt)
    except RuntimeError as e:
        if "not implemented" not in str(e):
            raise
        return attempt(torch.float32)


def main():
    failures = 0
    for name, tfn, pfn, makers, grads in OPS:
        arrays = [m() for m in makers]
        for dname, (tdt, pdt) in DTYPES.items():
            gout_np = lambda shape: np.random.default_rng(7).uniform(-1, 1, size=tuple(shape)).astype(np.float32)
            try:
                want, wgrads, f32 = run_torch(pfn, arrays, pdt, grads, gout_np)
            except Exception as e:  # noqa: BLE001 - the survey reports anything torch refuses
                print(f"{name:24s} {dname:9s} TORCH-REFUSES {str(e).splitlines()[0][:70]}")
                continue
            tag = " (f32 golden)" if f32 else ""
            try:
                ins = [to_t(a, tdt, i in grads and a.dtype.kind == "f") for i, a in enumerate(arrays)]
                out = tfn(*ins)
                res = out[0] if isinstance(out, tuple) else out
                problems, beyond = [], False  # beyond: outside the tests' tolerance too
                pres = want.dtype
                if str(res.dtype).split(".")[-1] != str(pres).split(".")[-1]:
                    problems.append(f"dtype {res.dtype} vs {pres}")
                    beyond = True
                wv = want.float().numpy() if want.is_floating_point() else want.numpy()
                err = ulps(tensor_np(res), wv, pdt)
                if err > TOL_ULPS:
                    problems.append(f"fwd {err:.1f} ulp")
                    beyond |= not within_test_tol(tensor_np(res), wv, pdt)
                if wgrads:
                    res.backward(to_t(gout_np(want.shape), res.dtype))
                    for k, i in enumerate(grads):
                        g = ins[i].grad
                        if g is None:
                            problems.append(f"grad{i} missing")
                            beyond = True
                            continue
                        if str(g.dtype).split(".")[-1] != str(pdt).split(".")[-1]:
                            problems.append(f"grad{i} dtype {g.dtype}")
                            beyond = True
                        gv = wgrads[k].float().numpy()
                        ge = ulps(tensor_np(g), gv, pdt)
                        if ge > TOL_ULPS:
                            problems.append(f"grad{i} {ge:.1f} ulp")
                            beyond |= not within_test_tol(tensor_np(g), gv, pdt, name)
                if not problems:
                    status = "OK"
                elif not beyond:
                    status = "NEAR " + "; ".join(problems) + " (within the tests' tolerance)"
                else:
                    status = "DIFF " + "; ".join(problems)
                    failures += 1
            except Exception as e:  # noqa: BLE001
                status = f"REFUSED {type(e).__name__}: {str(e).splitlines()[0][:80]}"
                failures += 1
            print(f"{name:24s} {dname:9s} {status}{tag}")
    print(f"{failures} op/dtype pairs refused or differ beyond the tests' tolerance")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
