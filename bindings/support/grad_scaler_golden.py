#!/usr/bin/python3
"""Expected values of the bindings' GradScaler tests (Java, C#, Go), from
PyTorch 1.13's torch.cuda.amp.GradScaler run on CPU tensors
(tests/golden/torch_grad_scaler_cpu.py: torch's own class, its two CUDA
kernels replaced). Each language's test pastes these numbers.

The run: p = P0 (float32 [4], requires grad), SGD(lr=0.1), a scaler with
init_scale 8, growth_interval 2; four steps of
    loss = (p * X[k]).sum(); scaler.scale(loss).backward();
    scaler.step(opt); scaler.update(); opt.zero_grad(set_to_none=True)
with X[2] holding an inf (that step is skipped, the scale backs off).

    /usr/bin/python3 bindings/support/grad_scaler_golden.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "golden"))
from torch_grad_scaler_cpu import CPUGradScaler  # noqa: E402

P0 = [1.0, -2.0, 3.0, 0.5]
X = [[0.5, 1.0, -1.5, 2.0], [1.0, 0.25, 0.5, -1.0], [1.0, math.inf, 0.5, -1.0], [-0.5, 0.75, 1.0, 0.125]]


def main():
    p = torch.tensor(P0, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1)
    scaler = CPUGradScaler(init_scale=8.0, growth_interval=2)
    for k, x in enumerate(X):
        loss = (p * torch.tensor(x)).sum()
        scaler.scale(loss).backward()
        stepped = not sum(v.item() for v in scaler._per_optimizer_states[id(opt)]["found_inf_per_device"].values()) \
            if scaler.step(opt) is None else True
        scaler.update()
        opt.zero_grad(set_to_none=True)
        print(f"step {k}: stepped {stepped}, scale {scaler.get_scale()!r}, tracker {scaler._get_growth_tracker()}, "
              "p " + ", ".join(repr(float(v)) for v in p.detach()))
    print("state_dict:", scaler.state_dict())


if __name__ == "__main__":
    main()
