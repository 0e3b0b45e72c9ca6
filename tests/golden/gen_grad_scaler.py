"""Goldens for tests/test_grad_scaler.c: torch.cuda.amp.GradScaler of
PyTorch 1.13 (its own class, run on CPU by torch_grad_scaler_cpu.py, which
replaces only its two CUDA kernels and its is_cuda assertions) driving two
optimizers through a scripted run with infs and NaNs injected.

The run: parameters p0 [3, 4] float32 (a transposed leaf, strides (1, 3)),
p1 [5] float64, p2 [2, 2] float32; optimizer A = SGD([p0, p1], lr=0.1,
momentum=0.9), B = Adam([p2], lr=0.01); a scaler with init_scale 4096,
growth_factor 2, backoff_factor 0.25, growth_interval 3. Each step:
  zero_grad(set_to_none=True) on both;
  loss = (p0 * x0).sum() + (p1 * x1).sum() + (p2 * x2).sum();
  scaler.scale(loss).backward();
  scaler.unscale_(A) on the steps marked so;
  scaler.step(A); scaler.step(B);
  scaler.update(new_scale) on the step that has one, else scaler.update().
An inf or NaN put into x_i reaches p_i's gradient only, so A or B or both
skip their step. The header keeps the x's, the script, and after each step
the scale, the growth tracker, whether A and B stepped, and the parameters.

Also: one gradient of bfloat16 and one of float64 unscaled at scale 3 (the
float32 reciprocal 1/3 and the kernel's rounding), and the state_dict at
the end of the run.

Run from the repository root: /usr/bin/python3 tests/golden/gen_grad_scaler.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import header_preamble, write  # noqa: E402
from torch_grad_scaler_cpu import CPUGradScaler  # noqa: E402

STEPS = 12
SHAPES = [[3, 4], [5], [2, 2]]
DTYPES = [torch.float32, torch.float64, torch.float32]
NUMEL = [12, 5, 4]
TOTAL = sum(NUMEL)
OPTIONS = dict(init_scale=4096.0, growth_factor=2.0, backoff_factor=0.25, growth_interval=3)

# step -> [(param, flat index, value)] put into x before the step.
INJECT = {3: [(0, 5, math.inf)], 5: [(2, 1, math.nan)], 6: [(1, 2, -math.inf), (2, 0, math.nan)],
          11: [(0, 0, math.inf)]}
UNSCALE_A = {4, 11}
NEW_SCALE = {7: 3.0}

torch.manual_seed(3131)
INIT = [torch.randn(s, dtype=torch.float64) for s in SHAPES]
XS = []
for step in range(STEPS):
    xs = [torch.randn(s, dtype=torch.float64) for s in SHAPES]
    for i, j, v in INJECT.get(step, []):
        xs[i].view(-1)[j] = v
    XS.append(xs)


def flat(ts):
    return [float(x) for t in ts for x in t.detach().to(torch.float64).reshape(-1)]


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def dlist(vals):
    return "{" + ", ".join(c_double(v) for v in vals) + "}"


def found_inf(scaler, opt):
    return sum(v.item() for v in scaler._per_optimizer_states[id(opt)]["found_inf_per_device"].values())


def run():
    ps = []
    for i, v in enumerate(INIT):
        p = v.t().contiguous().to(DTYPES[i]).t() if i == 0 else v.clone().to(DTYPES[i])
        ps.append(p.requires_grad_(True))
    assert ps[0].stride() == (1, 3)
    opt_a = torch.optim.SGD(ps[:2], lr=0.1, momentum=0.9, foreach=False)
    opt_b = torch.optim.Adam(ps[2:], lr=0.01, foreach=False)
    scaler = CPUGradScaler(**OPTIONS)
    rows = []
    for step in range(STEPS):
        opt_a.zero_grad(set_to_none=True)
        opt_b.zero_grad(set_to_none=True)
        x = [XS[step][i].to(DTYPES[i]) for i in range(3)]
        loss = (ps[0] * x[0]).sum() + (ps[1] * x[1]).sum() + (ps[2] * x[2]).sum()
        scaled = scaler.scale(loss)
        assert scaled.dtype == torch.float32 and scaled.shape == (1,)
        scaled.backward()
        if step in UNSCALE_A:
            scaler.unscale_(opt_a)
        scaler.step(opt_a)
        scaler.step(opt_b)
        stepped = (not found_inf(scaler, opt_a), not found_inf(scaler, opt_b))
        if step in NEW_SCALE:
            scaler.update(NEW_SCALE[step])
        else:
            scaler.update()
        rows.append((scaler.get_scale(), scaler._get_growth_tracker(), stepped, flat(ps)))
    return rows, scaler.state_dict()


def unscale_case(dtype):
    """A gradient of dtype unscaled at scale 3: (grad before, grad after)."""
    torch.manual_seed(77)
    p = torch.zeros(9, dtype=dtype, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = CPUGradScaler(init_scale=3.0)
    scaler.scale(torch.ones(()))
    p.grad = (torch.randn(9, dtype=torch.float64) * 100).to(dtype)
    before = flat([p.grad])
    scaler.unscale_(opt)
    assert found_inf(scaler, opt) == 0
    return before, flat([p.grad])


def main():
    rows, sd = run()
    out = [header_preamble(__file__, "torch.cuda.amp.GradScaler on CPU (torch_grad_scaler_cpu.py)."),
           "#include <math.h>",
           f"#define TG_GS_STEPS {STEPS}",
           f"#define TG_GS_TOTAL {TOTAL}",
           "static const int64_t tg_gs_numel[3] = {12, 5, 4};",
           f"static const double tg_gs_init_scale = {OPTIONS['init_scale']!r}, tg_gs_growth_factor = "
           f"{OPTIONS['growth_factor']!r}, tg_gs_backoff_factor = {OPTIONS['backoff_factor']!r};",
           f"static const int64_t tg_gs_growth_interval = {OPTIONS['growth_interval']};",
           f"static const double tg_gs_init[{TOTAL}] = {dlist(flat(INIT))};",
           f"/* x_k: inputs of step k (p0's 12, p1's 5, p2's 4), infs/NaNs injected */",
           f"static const double tg_gs_x[{STEPS}][{TOTAL}] = {{"]
    out += ["  " + dlist(flat(xs)) + "," for xs in XS]
    out.append("};")
    out.append(f"static const int tg_gs_unscale_a[{STEPS}] = {{"
               + ", ".join(str(int(s in UNSCALE_A)) for s in range(STEPS)) + "};")
    out.append(f"/* update(new_scale) where > 0, else update() */\nstatic const double tg_gs_new_scale[{STEPS}] = {{"
               + ", ".join(repr(float(NEW_SCALE.get(s, 0.0))) for s in range(STEPS)) + "};")
    out.append(f"static const double tg_gs_scale[{STEPS}] = {{" + ", ".join(repr(r[0]) for r in rows) + "};")
    out.append(f"static const int64_t tg_gs_tracker[{STEPS}] = {{" + ", ".join(str(r[1]) for r in rows) + "};")
    out.append(f"static const int tg_gs_stepped_a[{STEPS}] = {{" + ", ".join(str(int(r[2][0])) for r in rows) + "};")
    out.append(f"static const int tg_gs_stepped_b[{STEPS}] = {{" + ", ".join(str(int(r[2][1])) for r in rows) + "};")
    out.append(f"static const double tg_gs_params[{STEPS}][{TOTAL}] = {{")
    out += ["  " + dlist(r[3]) + "," for r in rows]
    out.append("};")
    out.append(f"/* state_dict() after the run */\nstatic const double tg_gs_sd_scale = {sd['scale']!r}, "
               f"tg_gs_sd_growth_factor = {sd['growth_factor']!r}, tg_gs_sd_backoff_factor = "
               f"{sd['backoff_factor']!r};")
    out.append(f"static const int64_t tg_gs_sd_growth_interval = {sd['growth_interval']}, tg_gs_sd_growth_tracker = "
               f"{sd['_growth_tracker']};")
    for name, dtype in (("bf16", torch.bfloat16), ("f64", torch.float64)):
        before, after = unscale_case(dtype)
        out.append(f"/* a {dtype} gradient unscaled at scale 3 */")
        out.append(f"static const double tg_gs_{name}_grad[9] = {dlist(before)};")
        out.append(f"static const double tg_gs_{name}_unscaled[9] = {dlist(after)};")
    write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_scaler_golden.h"), "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
