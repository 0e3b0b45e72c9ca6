#!/usr/bin/python3
"""Expected values of the bindings' optimizer tests, from PyTorch 1.13
(run with /usr/bin/python3, which has torch 1.13). Each language's test
pastes these numbers: two steps of SGD with momentum and of AdamW on one
float32 parameter with a fixed gradient set before each step.

    /usr/bin/python3 bindings/support/optim_golden.py
"""
import torch

P0 = [1.0, -2.0, 3.0, 0.5]
G = [0.1, -0.2, 0.3, 0.4]


def run(make):
    p = torch.tensor(P0, dtype=torch.float32, requires_grad=True)
    opt = make([p])
    out = []
    for _ in range(2):
        p.grad = torch.tensor(G, dtype=torch.float32)
        opt.step()
        out.append([float(v) for v in p.detach()])
    return out


def show(name, steps):
    for i, values in enumerate(steps):
        print(f"{name} step {i + 1}: " + ", ".join(repr(v) for v in values))


print("torch", torch.__version__)
print("p0:", P0, "grad:", G)
show("SGD(lr=0.1, momentum=0.9, weight_decay=0.01)",
     run(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01)))
show("AdamW(lr=0.01, weight_decay=0.1)",
     run(lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1)))
try:
    torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=-0.1)
except ValueError as e:
    print("negative lr:", e)
print("kaiming_uniform_ bound of [4, 3] (fan_in 3, a=0, leaky_relu): ",
      repr(torch.nn.init.calculate_gain("leaky_relu", 0) * (3.0 / 3) ** 0.5))
