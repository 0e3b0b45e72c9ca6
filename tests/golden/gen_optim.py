"""Goldens for tests/test_optim.c: torch.optim.SGD / Adam / AdamW (1.13's
single-tensor algorithms, foreach=False) and torch.nn.init's deterministic
parts (calculate_gain, _calculate_fan_in_and_fan_out, kaiming/xavier
bounds), plus torch's error messages for the arguments the C API checks.

Every optimizer case optimizes the same three parameters: p0 [3, 4]
(optionally a transposed, non-contiguous leaf), p1 [5] and p2 [2, 2], for
STEPS steps with fixed gradients; p2 has a gradient only on even steps (on
odd steps its .grad is None, so the optimizer skips it). The header keeps the
initial values, the gradients, every parameter after every step (C order of
the logical shape, the three concatenated) and the state after the last step.

Run from the repository root: /usr/bin/python3 tests/golden/gen_optim.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import c_string, header_preamble, write  # noqa: E402

STEPS = 4
SHAPES = [[3, 4], [5], [2, 2]]
NUMEL = [12, 5, 4]
TOTAL = sum(NUMEL)

torch.manual_seed(1113)
INIT = [torch.randn(s, dtype=torch.float64) for s in SHAPES]
GRADS = [[torch.randn(s, dtype=torch.float64) for s in SHAPES] for _ in range(STEPS)]

KIND = {"sgd": 0, "adam": 1, "adamw": 2}

# (name, kind, dtype, transposed p0, options, lr set before step 2 or None)
CASES = [
    ("sgd plain", "sgd", torch.float32, False, dict(lr=0.1), None),
    ("sgd momentum", "sgd", torch.float32, False, dict(lr=0.1, momentum=0.9), None),
    ("sgd momentum dampening weight_decay transposed", "sgd", torch.float32, True,
     dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01), None),
    ("sgd nesterov weight_decay", "sgd", torch.float32, False,
     dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05), None),
    ("sgd momentum float64 transposed lr change", "sgd", torch.float64, True,
     dict(lr=0.1, momentum=0.5), 0.02),
    ("adam", "adam", torch.float32, False, dict(lr=0.01), None),
    ("adam weight_decay betas eps transposed", "adam", torch.float32, True,
     dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1), None),
    ("adam amsgrad", "adam", torch.float32, False, dict(lr=0.01, amsgrad=True), None),
    ("adam amsgrad weight_decay float64 lr change", "adam", torch.float64, False,
     dict(lr=0.01, amsgrad=True, weight_decay=0.05), 0.03),
    ("adamw", "adamw", torch.float32, False, dict(lr=0.01), None),
    ("adamw amsgrad weight_decay transposed", "adamw", torch.float32, True,
     dict(lr=0.01, weight_decay=0.1, amsgrad=True), None),
    ("adamw float64", "adamw", torch.float64, False, dict(lr=0.005, weight_decay=0.0), None),
]


def make_params(dtype, transposed):
    ps = []
    for i, v in enumerate(INIT):
        if i == 0 and transposed:
            p = v.t().contiguous().to(dtype).t()  # [3, 4] with strides (1, 3)
        else:
            p = v.clone().to(dtype)
        p.requires_grad_(True)
        assert p.is_leaf
        ps.append(p)
    return ps


def flat(ts):
    return [float(x) for t in ts for x in t.detach().to(torch.float64).reshape(-1)]


def run_case(kind, dtype, transposed, opts, lr_change):
    ps = make_params(dtype, transposed)
    opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind](
        ps, foreach=False, **opts)
    after = []
    for s in range(STEPS):
        if lr_change is not None and s == 2:
            for g in opt.param_groups:
                g["lr"] = lr_change
        for i, p in enumerate(ps):
            p.grad = GRADS[s][i].to(dtype) if (i != 2 or s % 2 == 0) else None
        opt.step()
        after.append(flat(ps))
    state = {}
    for key in ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        vals, present = [], []
        for i, p in enumerate(ps):
            v = opt.state[p].get(key)
            present.append(v is not None)
            vals += flat([v]) if v is not None else [0.0] * NUMEL[i]
        state[key] = (present, vals)
    steps = [float(opt.state[p]["step"]) if "step" in opt.state[p] else -1.0 for p in ps]
    versions = [p._version for p in ps]
    return after, state, steps, versions


def dlist(vals):
    return "{" + ", ".join(repr(float(v)) for v in vals) + "}"


def optim_section():
    out = [f"#define TG_OPTIM_STEPS {STEPS}", f"#define TG_OPTIM_TOTAL {TOTAL}",
           "static const int64_t tg_optim_numel[3] = {12, 5, 4};",
           f"static const double tg_optim_init[{TOTAL}] = {dlist(flat(INIT))};",
           f"static const double tg_optim_grads[{STEPS}][{TOTAL}] = {{"]
    out += ["  " + dlist(flat(g)) + "," for g in GRADS]
    out.append("};")
    out.append("""typedef struct tg_optim_case {
  const char* name;
  int kind; /* 0 SGD, 1 Adam, 2 AdamW */
  int float64;
  int transposed; /* p0 is a transposed (strides {1, 3}) leaf */
  double lr, momentum, dampening, weight_decay;
  int nesterov;
  double beta1, beta2, eps;
  int amsgrad;
  double lr_at_step2; /* < 0: unchanged */
  double after[TG_OPTIM_STEPS][TG_OPTIM_TOTAL]; /* params after each step */
  int has_momentum_buffer[3], has_exp_avg[3], has_exp_avg_sq[3], has_max_exp_avg_sq[3];
  double momentum_buffer[TG_OPTIM_TOTAL], exp_avg[TG_OPTIM_TOTAL], exp_avg_sq[TG_OPTIM_TOTAL],
      max_exp_avg_sq[TG_OPTIM_TOTAL];
  double step[3]; /* state["step"] per parameter, -1 when absent */
  int64_t versions[3]; /* p._version after the last step (0 before the first) */
} tg_optim_case;""")
    out.append("static const tg_optim_case tg_optim_cases[] = {")
    for name, kind, dtype, tr, opts, lrc in CASES:
        after, state, steps, versions = run_case(kind, dtype, tr, opts, lrc)
        full = dict(lr=opts["lr"], momentum=opts.get("momentum", 0.0), dampening=opts.get("dampening", 0.0),
                    weight_decay=opts.get("weight_decay", 0.01 if kind == "adamw" else 0.0),
                    nesterov=int(opts.get("nesterov", False)))
        betas = opts.get("betas", (0.9, 0.999))
        out.append(f"  {{{c_string(name)}, {KIND[kind]}, {int(dtype == torch.float64)}, {int(tr)},")
        out.append(f"   {full['lr']!r}, {full['momentum']!r}, {full['dampening']!r}, {full['weight_decay']!r}, "
                   f"{full['nesterov']},")
        out.append(f"   {betas[0]!r}, {betas[1]!r}, {opts.get('eps', 1e-8)!r}, {int(opts.get('amsgrad', False))}, "
                   f"{(lrc if lrc is not None else -1.0)!r},")
        out.append("   {" + ",\n    ".join(dlist(a) for a in after) + "},")
        for key in ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            out.append("   {" + ", ".join(str(int(x)) for x in state[key][0]) + "},")
        for key in ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            out.append("   " + dlist(state[key][1]) + ",")
        out.append("   " + dlist(steps) + ",")
        out.append("   {" + ", ".join(str(v) for v in versions) + "}},")
    out.append("};")
    out.append("#define TG_OPTIM_NUM_CASES (sizeof tg_optim_cases / sizeof tg_optim_cases[0])")
    return "\n".join(out)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return str(e)
    raise AssertionError("no error")


def z():
    return [torch.zeros(2, requires_grad=True)]


ERRORS = [
    ("sgd_lr", lambda: torch.optim.SGD(z(), lr=-0.1)),
    ("sgd_momentum", lambda: torch.optim.SGD(z(), lr=0.1, momentum=-0.5)),
    ("sgd_weight_decay", lambda: torch.optim.SGD(z(), lr=0.1, weight_decay=-1.0)),
    ("sgd_nesterov", lambda: torch.optim.SGD(z(), lr=0.1, nesterov=True)),
    ("adam_lr", lambda: torch.optim.Adam(z(), lr=-0.001)),
    ("adam_beta1", lambda: torch.optim.Adam(z(), betas=(1.0, 0.999))),
    ("adam_beta2", lambda: torch.optim.Adam(z(), betas=(0.9, -0.1))),
    ("adam_eps", lambda: torch.optim.Adam(z(), eps=-1e-08)),
    ("adam_weight_decay", lambda: torch.optim.Adam(z(), weight_decay=-0.5)),
    ("non_leaf", lambda: torch.optim.Adam([torch.zeros(2, requires_grad=True) * 2])),
    ("empty", lambda: torch.optim.Adam([])),
    ("normal_std", lambda: torch.nn.init.normal_(torch.zeros(2), 0.0, -1.0)),
    ("fan_1d", lambda: torch.nn.init.kaiming_uniform_(torch.zeros(2))),
    ("mode", lambda: torch.nn.init.kaiming_uniform_(torch.zeros(2, 2), mode="fan_avg")),
    ("nonlinearity", lambda: torch.nn.init.kaiming_uniform_(torch.zeros(2, 2), nonlinearity="foo")),
]


def errors_section():
    return "\n".join(f"#define TG_OPTIM_ERR_{k.upper()} {c_string(error_of(f))}" for k, f in ERRORS)


GAINS = [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
         ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 0.0), ("selu", None),
         ("conv_transpose3d", None)]
FAN_SHAPES = [[3, 4], [7, 1], [5, 3, 2, 2], [2, 3, 4, 5, 6], [6, 4, 3]]
# (shape, a, mode, nonlinearity), and xavier (shape, gain)
KAIMING = [([64, 32], 0.0, "fan_in", "leaky_relu"), ([64, 32], 5 ** 0.5, "fan_in", "leaky_relu"),
           ([16, 8, 3, 3], 0.0, "fan_out", "relu"), ([40, 20], 0.0, "fan_in", "linear"),
           ([20, 30, 2], 0.1, "fan_out", "tanh")]
XAVIER = [([64, 32], 1.0), ([16, 8, 3, 3], 2.0), ([30, 20], 5.0 / 3.0)]


def kaiming_bound(shape, a, mode, nl):
    t = torch.empty(shape)
    fan = torch.nn.init._calculate_correct_fan(t, mode)
    return math.sqrt(3.0) * torch.nn.init.calculate_gain(nl, a) / math.sqrt(fan)


def xavier_bound(shape, gain):
    fi, fo = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    return math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fi + fo))


def init_section():
    out = ["typedef struct { const char* nonlinearity; int has_param; double param; double gain; } tg_gain_case;",
           "static const tg_gain_case tg_gain_cases[] = {"]
    for nl, prm in GAINS:
        g = torch.nn.init.calculate_gain(nl, prm)
        out.append(f"  {{{c_string(nl)}, {int(prm is not None)}, {(prm or 0.0)!r}, {g!r}}},")
    out.append("};")
    out.append("typedef struct { int64_t ndim; int64_t sizes[5]; int64_t fan_in, fan_out; } tg_fan_case;")
    out.append("static const tg_fan_case tg_fan_cases[] = {")
    for s in FAN_SHAPES:
        fi, fo = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(s))
        out.append(f"  {{{len(s)}, {{{', '.join(map(str, s))}}}, {fi}, {fo}}},")
    out.append("};")
    out.append("typedef struct { int64_t ndim; int64_t sizes[4]; double a; const char* mode; "
               "const char* nonlinearity; double bound; } tg_kaiming_case;")
    out.append("static const tg_kaiming_case tg_kaiming_cases[] = {")
    for s, a, mode, nl in KAIMING:
        out.append(f"  {{{len(s)}, {{{', '.join(map(str, s))}}}, {a!r}, {c_string(mode)}, {c_string(nl)}, "
                   f"{kaiming_bound(s, a, mode, nl)!r}}},")
    out.append("};")
    out.append("typedef struct { int64_t ndim; int64_t sizes[4]; double gain; double bound; } tg_xavier_case;")
    out.append("static const tg_xavier_case tg_xavier_cases[] = {")
    for s, gain in XAVIER:
        out.append(f"  {{{len(s)}, {{{', '.join(map(str, s))}}}, {gain!r}, {xavier_bound(s, gain)!r}}},")
    out.append("};")
    return "\n".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    text = (header_preamble(__file__, "torch.optim SGD/Adam/AdamW (foreach=False) and torch.nn.init.")
            + "#ifndef TSR_TESTS_GOLDEN_OPTIM_GOLDEN_H\n#define TSR_TESTS_GOLDEN_OPTIM_GOLDEN_H\n\n"
            + "#include <stdint.h>\n\n"
            + optim_section() + "\n\n" + errors_section() + "\n\n" + init_section()
            + "\n\n#endif\n")
    write(os.path.join(here, "optim_golden.h"), text)


if __name__ == "__main__":
    main()
