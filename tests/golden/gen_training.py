"""Goldens for tests/test_clip_grad.c, tests/test_lr_scheduler.c and
tests/test_optim_groups.c: torch.nn.utils.clip_grad_norm_ / clip_grad_value_,
torch.optim.lr_scheduler (the lr of every group after the constructor and
each of STEPS steps, and OneCycleLR's momentum), and torch.optim's
state_dict after a few steps with two parameter groups, plus torch's
messages for the errors the C API reproduces.

Run from the repository root: /usr/bin/python3 tests/golden/gen_training.py
"""
import math
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import c_string, header_preamble, write  # noqa: E402

warnings.filterwarnings("ignore")

SHAPES = [[3, 4], [5], [2, 2]]
TOTAL = 21
torch.manual_seed(3313)
GRADS = [torch.randn(s, dtype=torch.float64) * 0.7 for s in SHAPES]


def dlist(vals):
    return "{" + ", ".join(repr(float(v)) for v in vals) + "}"


def flat(ts):
    return [float(x) for t in ts for x in t.detach().to(torch.float64).reshape(-1)]


# ---- clip_grad ---------------------------------------------------------------
# (name, max_norm, norm_type, dtype, p1 without grad)
CLIP_NORM = [
    ("l2 clipped", 1.0, 2.0, torch.float32, False),
    ("l2 not clipped", 100.0, 2.0, torch.float32, False),
    ("l1", 0.5, 1.0, torch.float32, False),
    ("inf", 0.3, math.inf, torch.float32, False),
    ("p3", 0.7, 3.0, torch.float32, False),
    ("p0.5 float64", 2.0, 0.5, torch.float64, False),
    ("zero norm_type", 4.0, 0.0, torch.float32, False),
    ("-inf", 0.05, -math.inf, torch.float32, False),
    ("l2 float64 one without grad", 0.25, 2.0, torch.float64, True),
]


def clip_section():
    out = ["#define TG_CLIP_TOTAL 21", f"static const double tg_clip_grads[TG_CLIP_TOTAL] = {dlist(flat(GRADS))};",
           """typedef struct tg_clip_case {
  const char* name;
  double max_norm, norm_type;
  int float64, p1_without_grad;
  double total_norm;
  double after[TG_CLIP_TOTAL]; /* the grads after (p1's left at its value when it has none) */
} tg_clip_case;""", "static const tg_clip_case tg_clip_cases[] = {"]
    for name, mx, nt, dtype, nog in CLIP_NORM:
        ps = [torch.zeros(s, dtype=dtype, requires_grad=True) for s in SHAPES]
        for i, p in enumerate(ps):
            if not (nog and i == 1):
                p.grad = GRADS[i].to(dtype).clone()
        total = torch.nn.utils.clip_grad_norm_(ps, mx, nt)
        after = flat([p.grad if p.grad is not None else GRADS[i].to(dtype) for i, p in enumerate(ps)])
        assert total.dtype == dtype and total.dim() == 0
        nt_c = "INFINITY" if nt == math.inf else "-INFINITY" if nt == -math.inf else repr(nt)
        out.append(f"  {{{c_string(name)}, {mx!r}, {nt_c}, {int(dtype == torch.float64)}, {int(nog)}, "
                   f"{float(total)!r},\n   {dlist(after)}}},")
    out.append("};")
    out.append("#define TG_CLIP_NUM_CASES (sizeof tg_clip_cases / sizeof tg_clip_cases[0])")
    for name, c in [("pos", 0.5), ("neg", -0.25)]:
        ps = [torch.zeros(s, requires_grad=True) for s in SHAPES]
        for i, p in enumerate(ps):
            p.grad = GRADS[i].float().clone()
        torch.nn.utils.clip_grad_value_(ps, c)
        out.append(f"static const double tg_clip_value_{name}_after[TG_CLIP_TOTAL] = {dlist(flat([p.grad for p in ps]))};")
    # The non-finite error.
    p = torch.zeros(2, requires_grad=True)
    p.grad = torch.tensor([float("inf"), 1.0])
    try:
        torch.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        raise AssertionError("no error")
    except RuntimeError as e:
        out.append(f"#define TG_CLIP_ERR_NONFINITE {c_string(str(e))}")
    return "\n".join(out)


# ---- lr_scheduler --------------------------------------------------------------
STEPS = 50
LRS = [0.1, 0.01]
S = torch.optim.lr_scheduler


def make_opt(kind):
    a = torch.zeros(2, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    if kind == 0:
        return torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": LRS[1]}], lr=LRS[0], momentum=0.9)
    return torch.optim.Adam([{"params": [a]}, {"params": [b], "lr": LRS[1]}], lr=LRS[0])


# (name, kind for the C test, optimizer kind 0 SGD 1 Adam, builder, ints, reals, milestones)
# ints/reals are what the C test passes; the builder is torch's call with them.
SCHEDULERS = [
    ("StepLR", 0, 0, lambda o: S.StepLR(o, step_size=7, gamma=0.5), [7, 0, 0, 0], [0.5, 0, 0, 0], []),
    ("MultiStepLR", 1, 0, lambda o: S.MultiStepLR(o, milestones=[30, 5, 12, 12], gamma=0.3), [0, 0, 0, 0],
     [0.3, 0, 0, 0], [30, 5, 12, 12]),
    ("ExponentialLR", 2, 0, lambda o: S.ExponentialLR(o, gamma=0.93), [0, 0, 0, 0], [0.93, 0, 0, 0], []),
    ("CosineAnnealingLR", 3, 0, lambda o: S.CosineAnnealingLR(o, T_max=12, eta_min=0.001), [12, 0, 0, 0],
     [0.001, 0, 0, 0], []),
    ("LinearLR", 4, 0, lambda o: S.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=20),
     [20, 0, 0, 0], [0.25, 0.9, 0, 0], []),
    ("OneCycleLR cos SGD", 5, 0, lambda o: S.OneCycleLR(o, max_lr=[0.5, 0.05], total_steps=50),
     [50, 0, 0, 0, 0], [0.5, 0.05, 0.3, 0], []),
    ("OneCycleLR linear three_phase Adam", 6, 1,
     lambda o: S.OneCycleLR(o, max_lr=0.2, epochs=10, steps_per_epoch=6, pct_start=0.25,
                            anneal_strategy="linear", three_phase=True, div_factor=10.0,
                            final_div_factor=100.0), [10, 6, 0, 0], [0.2, 0.25, 10.0, 100.0], []),
    ("SequentialLR linear cosine step", 7, 0,
     lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=5), S.CosineAnnealingLR(o, T_max=20),
                                  S.StepLR(o, step_size=5, gamma=0.5)], milestones=[5, 25]),
     [0, 0, 0, 0], [0, 0, 0, 0], [5, 25]),
    ("SequentialLR exponential multistep", 8, 1,
     lambda o: S.SequentialLR(o, [S.ExponentialLR(o, gamma=0.9), S.MultiStepLR(o, milestones=[3, 8], gamma=0.5)],
                              milestones=[10]),
     [0, 0, 0, 0], [0, 0, 0, 0], [10]),
]


def momentum_of(opt, g):
    group = opt.param_groups[g]
    return group["betas"][0] if "betas" in group else group["momentum"]


def sched_section():
    out = [f"#define TG_SCHED_STEPS {STEPS}", """typedef struct tg_sched_case {
  const char* name;
  int kind;     /* which scheduler the C test builds (see test_lr_scheduler.c) */
  int adam;     /* 0: SGD(momentum=0.9), 1: Adam; groups with lr 0.1 and 0.01 */
  int64_t ints[5];
  double reals[4];
  int64_t milestones[4];
  int num_milestones;
  double lrs[TG_SCHED_STEPS + 1][2];      /* get_last_lr() after the constructor, then each step */
  double momentum[TG_SCHED_STEPS + 1][2]; /* momentum / betas[0] of each group then */
  int64_t last_epoch;                     /* after the last step */
} tg_sched_case;""", "static const tg_sched_case tg_sched_cases[] = {"]
    for name, kind, okind, build, ints, reals, ms in SCHEDULERS:
        opt = make_opt(okind)
        s = build(opt)
        lrs = [list(s.get_last_lr())]
        moms = [[momentum_of(opt, g) for g in range(2)]]
        for _ in range(STEPS):
            opt.step()
            s.step()
            lrs.append(list(s.get_last_lr()))
            moms.append([momentum_of(opt, g) for g in range(2)])
        for row in lrs:
            assert all(isinstance(x, float) for x in row), (name, row)
        ints = (ints + [0] * 5)[:5]
        out.append(f"  {{{c_string(name)}, {kind}, {okind}, {{{', '.join(map(str, ints))}}}, {dlist(reals)},")
        out.append(f"   {{{', '.join(map(str, ms)) if ms else '0'}}}, {len(ms)},")
        out.append("   {" + ", ".join(dlist(r) for r in lrs) + "},")
        out.append("   {" + ", ".join(dlist(r) for r in moms) + "},")
        out.append(f"   {s.last_epoch}}},")
    out.append("};")
    out.append("#define TG_SCHED_NUM_CASES (sizeof tg_sched_cases / sizeof tg_sched_cases[0])")
    # The closed forms, through step(epoch): epochs 0..STEPS after the constructor.
    out.append("/* step(epoch) (closed forms) of the cases of kind 0-4, for epochs 0..TG_SCHED_STEPS */")
    out.append(f"static const double tg_sched_closed[5][TG_SCHED_STEPS + 1][2] = {{")
    for name, kind, okind, build, *_ in SCHEDULERS[:5]:
        opt = make_opt(okind)
        s = build(opt)
        rows = []
        for e in range(STEPS + 1):
            s.step(e)
            rows.append(list(s.get_last_lr()))
        out.append("  {" + ", ".join(dlist(r) for r in rows) + "},")
    out.append("};")
    return "\n".join(out)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e.args[0] if isinstance(e, KeyError) else str(e)  # KeyError's str() quotes
    raise AssertionError("no error")


def onecycle_too_far():
    s = S.OneCycleLR(make_opt(0), max_lr=0.1, total_steps=3)
    for _ in range(4):
        s.step()


ERRORS = [
    ("linear_start", lambda: S.LinearLR(make_opt(0), start_factor=1.5)),
    ("linear_end", lambda: S.LinearLR(make_opt(0), end_factor=-0.5)),
    ("resume", lambda: S.StepLR(make_opt(0), 3, last_epoch=4)),
    ("onecycle_none", lambda: S.OneCycleLR(make_opt(0), max_lr=0.1)),
    ("onecycle_total", lambda: S.OneCycleLR(make_opt(0), max_lr=0.1, total_steps=-1)),
    ("onecycle_epochs", lambda: S.OneCycleLR(make_opt(0), max_lr=0.1, epochs=0, steps_per_epoch=3)),
    ("onecycle_spe", lambda: S.OneCycleLR(make_opt(0), max_lr=0.1, epochs=2, steps_per_epoch=-3)),
    ("onecycle_pct", lambda: S.OneCycleLR(make_opt(0), max_lr=0.1, total_steps=10, pct_start=1.5)),
    ("onecycle_max_lr", lambda: S.OneCycleLR(make_opt(0), max_lr=[0.1, 0.2, 0.3], total_steps=10)),
    ("onecycle_max_momentum", lambda: S.OneCycleLR(make_opt(0), max_lr=0.1, total_steps=10,
                                                   max_momentum=[0.9, 0.9, 0.9])),
    ("onecycle_too_far", onecycle_too_far),
    ("sequential_optimizer", lambda: (lambda o1, o2: S.SequentialLR(o1, [S.StepLR(o1, 2), S.StepLR(o2, 2)],
                                                                    milestones=[3]))(make_opt(0), make_opt(0))),
    ("sequential_milestones", lambda: (lambda o: S.SequentialLR(o, [S.StepLR(o, 2), S.StepLR(o, 2)],
                                                               milestones=[3, 4]))(make_opt(0))),
    ("groups_count", lambda: make_opt(0).load_state_dict(
        torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1).state_dict())),
    ("groups_size", lambda: make_opt(0).load_state_dict(
        torch.optim.SGD([{"params": [torch.zeros(2, requires_grad=True)]},
                         {"params": [torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)]}],
                        lr=0.1).state_dict())),
]


def errors_section():
    return "\n".join(f"#define TG_TRAIN_ERR_{k.upper()} {c_string(error_of(f))}" for k, f in ERRORS)


# ---- state_dict after STATE_STEPS steps with two groups ----------------------
STATE_STEPS = 3


def state_section():
    out = [f"#define TG_STATE_STEPS {STATE_STEPS}",
           """typedef struct tg_state_case {
  const char* name;
  int adam; /* 0: SGD(lr=0.1, momentum=0.9) groups [p0, p1] and [p2] (lr 0.01, nesterov);
               1: Adam(lr=0.01) groups [p0, p1] and [p2] (lr 0.02, betas (0.8, 0.99), amsgrad) */
  double params[TG_CLIP_TOTAL];   /* after the steps, starting from zeros */
  double state_a[TG_CLIP_TOTAL];  /* momentum_buffer / exp_avg */
  double state_b[TG_CLIP_TOTAL];  /* - / exp_avg_sq */
  double state_c[4];              /* - / p2's max_exp_avg_sq */
  double step;                    /* Adam's step of every parameter, 0 for SGD */
} tg_state_case;""", "static const tg_state_case tg_state_cases[] = {"]
    for adam in (0, 1):
        ps = [torch.zeros(s, requires_grad=True) for s in SHAPES]
        if adam:
            opt = torch.optim.Adam([{"params": ps[:2]}, {"params": [ps[2]], "lr": 0.02, "betas": (0.8, 0.99),
                                                          "amsgrad": True}], lr=0.01)
        else:
            opt = torch.optim.SGD([{"params": ps[:2]}, {"params": [ps[2]], "lr": 0.01, "nesterov": True}],
                                  lr=0.1, momentum=0.9)
        for k in range(STATE_STEPS):
            for i, p in enumerate(ps):
                p.grad = (GRADS[i] * (k + 1)).float()
            opt.step()
        sd = opt.state_dict()
        assert sorted(sd["state"].keys()) == [0, 1, 2]
        assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
        a = flat([sd["state"][i]["exp_avg" if adam else "momentum_buffer"] for i in range(3)])
        b = flat([sd["state"][i]["exp_avg_sq"] for i in range(3)]) if adam else [0.0] * TOTAL
        c = flat([sd["state"][2]["max_exp_avg_sq"]]) if adam else [0.0] * 4
        step = float(sd["state"][0]["step"]) if adam else 0.0
        out.append(f"  {{{c_string('Adam' if adam else 'SGD')}, {adam}, {dlist(flat(ps))},\n   {dlist(a)},\n"
                   f"   {dlist(b)},\n   {dlist(c)}, {step!r}}},")
    out.append("};")
    return "\n".join(out)


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    text = (header_preamble(__file__, "clip_grad, lr_scheduler and optimizer state_dict goldens.")
            + "#ifndef TG_TRAINING_GOLDEN_H\n#define TG_TRAINING_GOLDEN_H\n#include <math.h>\n#include <stdint.h>\n\n"
            + clip_section() + "\n\n" + sched_section() + "\n\n" + state_section() + "\n\n" + errors_section()
            + "\n\n#endif\n")
    write(os.path.join(root, "training_golden.h"), text)


if __name__ == "__main__":
    main()
