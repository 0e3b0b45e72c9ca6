"""Goldens for the losses (tests/test_loss.c): PyTorch runs each case
(float64 input, target, optional weight / pos_weight) forward, then
backward with a random gradient stored in the header; the header keeps the
inputs, the loss (sizes, values), its grad_fn name and the gradients wrt
input and (floating targets) target.

Run from the repository root: /usr/bin/python3 tests/golden/gen_loss.py
"""
import os
import warnings

import torch
import torch.nn.functional as F

warnings.simplefilter("ignore")
torch.manual_seed(33)
D = torch.float64
FNS = ["MSE", "L1", "SMOOTH_L1", "HUBER", "KL_DIV", "KL_DIV_LOG", "NLL", "CE", "BCE", "BCE_LOGITS"]
REDS = ["none", "mean", "sum"]


def run(fn, x, t, red, param, w, pw, ignore):
    if fn == "MSE": return F.mse_loss(x, t, reduction=red)
    if fn == "L1": return F.l1_loss(x, t, reduction=red)
    if fn == "SMOOTH_L1": return F.smooth_l1_loss(x, t, reduction=red, beta=param)
    if fn == "HUBER": return F.huber_loss(x, t, reduction=red, delta=param)
    if fn == "KL_DIV": return F.kl_div(x, t, reduction=red)
    if fn == "KL_DIV_LOG": return F.kl_div(x, t, reduction=red, log_target=True)
    if fn == "NLL": return F.nll_loss(x, t, weight=w, reduction=red, ignore_index=ignore)
    if fn == "CE": return F.cross_entropy(x, t, weight=w, reduction=red, ignore_index=ignore, label_smoothing=param)
    if fn == "BCE": return F.binary_cross_entropy(x, t, weight=w, reduction=red)
    return F.binary_cross_entropy_with_logits(x, t, weight=w, reduction=red, pos_weight=pw)


def cases():
    out = []
    for fn, param in [("MSE", 0), ("L1", 0), ("SMOOTH_L1", 0.5), ("SMOOTH_L1", 0.0), ("HUBER", 0.8), ("KL_DIV", 0),
                      ("KL_DIV_LOG", 0)]:
        for xs, ts in [((3, 4), (3, 4)), ((2, 3), (3,)), ((), ())]:
            for red in REDS:
                x = torch.randn(xs, dtype=D)
                t = torch.rand(ts, dtype=D) + 0.05 if fn == "KL_DIV" else torch.randn(ts, dtype=D)
                out.append((fn, red, param, x, t, None, None, -100))
    for fn in ("NLL", "CE"):
        for xs in [(5,), (4, 5), (2, 5, 3), (2, 5, 2, 2)]:
            ts = xs[:1] + xs[2:] if len(xs) > 1 else ()
            for red in REDS:
                for w, ignore, ls in [(None, -100, 0.0), (torch.rand(5, dtype=D) + 0.1, 1, 0.0),
                                      (torch.rand(5, dtype=D) + 0.1, 3, 0.25)]:
                    if fn == "NLL" and ls:
                        continue
                    out.append((fn, red, ls, torch.randn(xs, dtype=D), torch.randint(0, 5, ts), w, None, ignore))
        if fn == "CE":  # class probabilities
            for red in REDS:
                x = torch.randn(3, 5, dtype=D)
                out.append((fn, red, 0.1, x, torch.rand(3, 5, dtype=D).softmax(1), torch.rand(5, dtype=D), None, -100))
    for red in REDS:
        x = torch.rand(3, 4, dtype=D) * 0.9 + 0.05
        out.append(("BCE", red, 0, x, torch.rand(3, 4, dtype=D), None, None, -100))
        out.append(("BCE", red, 0, x, torch.rand(3, 4, dtype=D), torch.rand(4, dtype=D), None, -100))
        z = torch.randn(3, 4, dtype=D) * 3
        out.append(("BCE_LOGITS", red, 0, z, torch.rand(3, 4, dtype=D), None, None, -100))
        out.append(("BCE_LOGITS", red, 0, z, torch.rand(3, 4, dtype=D), torch.rand(3, 1, dtype=D),
                    torch.rand(4, dtype=D) * 3, -100))
    return out


def cdouble(v):
    v = float(v)
    if v != v:
        return "NAN"
    if v in (float("inf"), float("-inf")):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(v)


def arr(name, t, ctype="double"):
    vals = t.reshape(-1).tolist() if t is not None else []
    body = ", ".join(cdouble(v) if ctype == "double" else str(int(v)) for v in vals) or "0"
    return f"static const {ctype} {name}[] = {{{body}}};\n"


def dims(t):
    s = list(t.shape)
    return f"{len(s)}, {{{', '.join(map(str, s + [0] * (6 - len(s))))}}}"


def main():
    lines, entries = [], []
    for n, (fn, red, param, x, t, w, pw, ignore) in enumerate(cases()):
        xr = x.clone().requires_grad_()
        tf = t.is_floating_point()
        tr = t.clone().requires_grad_() if tf else t
        y = run(fn, xr, tr, red, param, w, pw, ignore)
        g = torch.randn(y.shape, dtype=D)
        inputs = [xr] + ([tr] if tf else [])
        grads = torch.autograd.grad(y, inputs, g, allow_unused=True)
        gx = grads[0]
        gt = grads[1] if tf else None
        p = f"tg_loss_{n}"
        lines.append(f"/* {fn} reduction={red} param={param} ignore_index={ignore} */\n")
        lines.append(arr(p + "_x", x))
        lines.append(arr(p + "_t", t, "double" if tf else "int64_t"))
        lines.append(arr(p + "_w", w))
        lines.append(arr(p + "_pw", pw))
        lines.append(arr(p + "_y", y.detach()))
        lines.append(arr(p + "_g", g))
        lines.append(arr(p + "_gx", gx if gx is not None else torch.zeros_like(x)))
        lines.append(arr(p + "_gt", gt if gt is not None else None))
        entries.append(
            f"  {{TG_LOSS_{fn}, {REDS.index(red)}, {param!r}, {ignore}, {dims(x)}, {dims(t)}, {int(tf)}, "
            f"{p}_x, {p}_t, {'NULL' if tf else p + '_t'}, {dims(w) if w is not None else '0, {0}'}, "
            f"{p + '_w' if w is not None else 'NULL'}, {dims(pw) if pw is not None else '0, {0}'}, "
            f"{p + '_pw' if pw is not None else 'NULL'}, {dims(y)}, {p}_y, {p}_g, {p}_gx, "
            f"{p + '_gt' if gt is not None else 'NULL'}, \"{y.grad_fn.name()}\"}},\n")
    text = ("/* GENERATED FILE - do not edit.\n"
            f" * Produced by tests/golden/gen_loss.py with PyTorch {torch.__version__} (/usr/bin/python3).\n"
            " * Regenerate: /usr/bin/python3 tests/golden/gen_loss.py */\n"
            "#ifndef TESSERA_TESTS_LOSS_GOLDEN_H\n#define TESSERA_TESTS_LOSS_GOLDEN_H\n\n#include <math.h>\n#include <stddef.h>\n"
            "#include <stdint.h>\n\n"
            "typedef enum { " + ", ".join("TG_LOSS_" + f for f in FNS) + " } tg_loss_fn;\n\n"
            "typedef struct {\n  int64_t ndim;\n  int64_t sizes[6];\n} tg_loss_dims;\n\n"
            "typedef struct {\n  tg_loss_fn fn;\n  int reduction;\n  double param; /* beta, delta or label_smoothing */\n"
            "  int64_t ignore_index;\n  tg_loss_dims xs, ts;\n  int target_floating;\n  const double* x;\n"
            "  const void* t; /* double or int64_t */\n  const int64_t* t_int;\n  tg_loss_dims ws;\n"
            "  const double* w;\n  tg_loss_dims pws;\n  const double* pw;\n  tg_loss_dims ys;\n  const double* y;\n"
            "  const double* g;  /* the gradient backward starts from */\n  const double* gx;\n"
            "  const double* gt; /* NULL: no target gradient */\n  const char* grad_fn;\n} tg_loss_case;\n\n"
            + "".join(lines) + "\nstatic const tg_loss_case tg_loss_cases[] = {\n" + "".join(entries) + "};\n"
            f"#define TG_LOSS_N {len(entries)}\n\n#endif\n")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "loss_golden.h")
    with open(path, "w") as f:
        f.write(text)
    print("wrote", path)


if __name__ == "__main__":
    main()
