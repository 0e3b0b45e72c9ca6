#!/usr/bin/python3
"""Writes goldens.properties: what PyTorch 1.13 answers for the cases the Java
tests replay on tessera (layouts of views, a small autograd problem, a view
error message, the nn ops' values, gradients and errors: nn.NAME.dtype,
.sizes and .values for each tensor of nn_cases(), nn_error.NAME for each
message of nn_errors()).

    /usr/bin/python3 bindings/java/tests/make_goldens.py

Run it with Debian's python3-torch and commit the regenerated file. Each
layout case is an op list (";"-separated, list arguments ","-separated) that
Goldens.java replays on tessera exactly as replay() below does on torch.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../support"))
from nn_golden_cases import nn_cases, nn_errors  # noqa: E402
from training_ops_golden_cases import training_ops_cases, training_ops_errors  # noqa: E402

# name -> (base sizes, ops). The base is arange(numel) float32 viewed as sizes.
LAYOUT_CASES = {
    "base": ((2, 3, 4, 5), ""),
    "transpose": ((2, 3, 4, 5), "transpose 1 2"),
    "permute": ((2, 3, 4, 5), "permute 0,2,3,1"),
    "select": ((2, 3, 4, 5), "select 1 1"),
    "narrow": ((2, 3, 4, 5), "narrow 2 1 2"),
    "slice_step": ((2, 3, 4, 5), "slice 3 0 5 2"),
    "unsqueeze": ((2, 3, 4, 5), "unsqueeze 1"),
    "expand": ((2, 3, 4, 5), "narrow 1 0 1; expand 2,3,4,5"),
    "squeeze": ((2, 3, 4, 5), "narrow 1 0 1; squeeze"),
    "channels_last": ((2, 3, 4, 5), "contiguous channels_last"),
    "channels_last_clone_narrow": ((2, 3, 4, 5), "clone channels_last; narrow 3 1 3"),
    "as_strided": ((2, 3, 4, 5), "as_strided 3,4 2,7 5"),
    "unfold": ((2, 3, 4, 5), "unfold 3 2 1"),
    "diagonal": ((2, 3, 4, 5), "diagonal 0 2 3"),
    "flatten": ((2, 3, 4, 5), "flatten 1 -1"),
    "unflatten": ((2, 3, 4, 5), "flatten 2 -1; unflatten 2 2,10"),
    "movedim": ((2, 3, 4, 5), "movedim 0 3"),
    "t": ((6, 20), "t"),
    "t_narrow": ((6, 20), "t; narrow 0 3 10"),
    "reshape_copies": ((2, 3, 4, 5), "transpose 0 1; reshape 6,20"),
    "reshape_views": ((2, 3, 4, 5), "reshape 6,4,5"),
    "view": ((2, 3, 4, 5), "view 6,-1"),
}


def ints(arg):
    return [int(v) for v in arg.split(",")]


def memory_format(name):
    return {"contiguous": torch.contiguous_format, "channels_last": torch.channels_last,
            "preserve": torch.preserve_format}[name]


def replay(t, ops):
    for op in filter(None, (o.strip() for o in ops.split(";"))):
        name, *args = op.split()
        if name == "transpose":
            t = t.transpose(int(args[0]), int(args[1]))
        elif name == "permute":
            t = t.permute(*ints(args[0]))
        elif name == "select":
            t = t.select(int(args[0]), int(args[1]))
        elif name == "narrow":
            t = t.narrow(int(args[0]), int(args[1]), int(args[2]))
        elif name == "slice":
            d, start, end, step = (int(a) for a in args)
            index = [slice(None)] * t.dim()
            index[d] = slice(start, end, step)
            t = t[tuple(index)]
        elif name == "unsqueeze":
            t = t.unsqueeze(int(args[0]))
        elif name == "expand":
            t = t.expand(*ints(args[0]))
        elif name == "squeeze":
            t = t.squeeze()
        elif name == "contiguous":
            t = t.contiguous(memory_format=memory_format(args[0]))
        elif name == "clone":
            t = t.clone(memory_format=memory_format(args[0]))
        elif name == "as_strided":
            t = t.as_strided(ints(args[0]), ints(args[1]), int(args[2]))
        elif name == "unfold":
            t = t.unfold(int(args[0]), int(args[1]), int(args[2]))
        elif name == "diagonal":
            t = t.diagonal(int(args[0]), int(args[1]), int(args[2]))
        elif name == "flatten":
            t = t.flatten(int(args[0]), int(args[1]))
        elif name == "unflatten":
            t = t.unflatten(int(args[0]), ints(args[1]))
        elif name == "movedim":
            t = t.movedim(ints(args[0]), ints(args[1]))
        elif name == "t":
            t = t.t()
        elif name == "reshape":
            t = t.reshape(*ints(args[0]))
        elif name == "view":
            t = t.view(*ints(args[0]))
        else:
            raise ValueError("unknown op " + name)
    return t


def join(values):
    return " ".join(repr(v) if isinstance(v, float) else str(v) for v in values)


def layout_lines():
    lines = []
    for name, (sizes, ops) in LAYOUT_CASES.items():
        numel = 1
        for s in sizes:
            numel *= s
        base = torch.arange(numel, dtype=torch.float32).view(*sizes)
        t = replay(base, ops)
        key = "layout." + name
        lines += [
            f"{key}.base = {join(sizes)}",
            f"{key}.ops = {ops}",
            f"{key}.sizes = {join(t.size())}",
            f"{key}.strides = {join(t.stride())}",
            f"{key}.storage_offset = {t.storage_offset()}",
            f"{key}.contiguous = {str(t.is_contiguous()).lower()}",
            f"{key}.channels_last = "
            f"{str(t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last)).lower()}",
            f"{key}.shares_storage = {str(t.storage().data_ptr() == base.storage().data_ptr()).lower()}",
            f"{key}.values = {join(int(v) for v in t.flatten().tolist())}",
        ]
    return lines


# loss = cross_entropy(relu(x @ w + b), target) + 0.5 * mean(exp(x))
#        + 0.1 * sum(w * w) - mean(log_softmax(x, 1)) / 3
AUTOGRAD_X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
AUTOGRAD_W = [[0.2, -0.4, 0.1, 0.7], [-0.3, 0.5, 0.9, -0.2], [0.6, 0.05, -0.8, 0.3]]
AUTOGRAD_B = [0.1, -0.2, 0.3, 0.0]
AUTOGRAD_TARGET = [1, 3]


def autograd_lines():
    x = torch.tensor(AUTOGRAD_X, requires_grad=True)
    w = torch.tensor(AUTOGRAD_W, requires_grad=True)
    b = torch.tensor(AUTOGRAD_B, requires_grad=True)
    target = torch.tensor(AUTOGRAD_TARGET)
    h = torch.relu(x.matmul(w) + b)
    loss = (torch.nn.functional.cross_entropy(h, target) + x.exp().mean() * 0.5
            + (w * w).sum() * 0.1 - torch.log_softmax(x, 1).mean() / 3)
    loss.backward()
    flat = lambda t: join(float(v) for v in t.detach().flatten().tolist())  # noqa: E731
    return [
        f"autograd.x = {flat(x)}",
        f"autograd.w = {flat(w)}",
        f"autograd.b = {flat(b)}",
        f"autograd.target = {join(AUTOGRAD_TARGET)}",
        f"autograd.loss = {float(loss)!r}",
        f"autograd.grad_x = {flat(x.grad)}",
        f"autograd.grad_w = {flat(w.grad)}",
        f"autograd.grad_b = {flat(b.grad)}",
        f"autograd.loss_grad_fn = {type(loss.grad_fn).__name__}",
    ]


def error_lines():
    base = torch.arange(12, dtype=torch.float32).view(3, 4)
    try:
        base.t().view(12)
    except RuntimeError as e:
        message = str(e)
    else:
        raise SystemExit("torch did not refuse the view")
    return [f"error.not_viewable = {message}"]


def nn_lines():
    lines = []
    for name, t in {**nn_cases(), **training_ops_cases()}.items():
        lines += [
            f"nn.{name}.dtype = {str(t.dtype).replace('torch.', '')}",
            f"nn.{name}.sizes = {join(t.shape)}",
            f"nn.{name}.values = {join(float(v) for v in t.detach().flatten().tolist())}",
        ]
    return lines + [f"nn_error.{name} = {message}" for name, message in {**nn_errors(), **training_ops_errors()}.items()]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens.properties")
    lines = [f"# Written by make_goldens.py with torch {torch.__version__}; do not edit."]
    lines += layout_lines() + autograd_lines() + error_lines() + nn_lines()
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
