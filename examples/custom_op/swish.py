#!/usr/bin/python3
"""custom_op in Python — the fused swish of swish.c, y = x * sigmoid(x), as a
tessera.autograd.Function whose forward and backward work on raw float32
memory (NumPy arrays sharing the tensors' memory) instead of four ops.

It checks the gradient against the composed ops, runs the op inside a
checkpointed block (tessera.utils.checkpoint) and checks that the block's
gradients are bit-identical to running it without the region. Exits 1 when
a check fails."""
import sys

import numpy as np

import tessera as torch


class Swish(torch.autograd.Function):
    forward_calls = 0

    @staticmethod
    def forward(ctx, x):
        Swish.forward_calls += 1
        xs = x.detach().contiguous().numpy()           # shares x's memory (a copy if strided)
        y = torch.from_numpy(xs / (np.float32(1) + np.exp(-xs)))
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        xs, g = x.detach().contiguous().numpy(), grad.detach().contiguous().numpy()
        s = np.float32(1) / (np.float32(1) + np.exp(-xs))
        return torch.from_numpy(g * (s + xs * s * (np.float32(1) - s)))


def block(x, w):
    h = Swish.apply(x @ w)
    return h * h  # reads h in backward: a checkpointed block recomputes it


def main():
    g = torch.Generator(7)
    x = torch.randn(1000, generator=g, requires_grad=True)
    y = Swish.apply(x)
    y.sum().backward()
    custom = x.grad.clone()
    x.grad = None
    (x * torch.sigmoid(x)).sum().backward()
    value_diff = (y - x * torch.sigmoid(x)).abs().max().item()
    grad_diff = (custom - x.grad).abs().max().item()
    print(f"swish over 1000 float32 elements: grad_fn {y.grad_fn.name()}")
    print(f"  max |custom - composed|: values {value_diff:.3g}, gradients {grad_diff:.3g}")

    m = torch.randn(8, 16, generator=g, requires_grad=True)
    w = torch.randn(16, 4, generator=g, requires_grad=True)
    grads = []
    calls = []
    for checkpointed in (False, True):
        Swish.forward_calls = 0
        out = torch.utils.checkpoint.checkpoint(block, m, w) if checkpointed else block(m, w)
        out.sum().backward()
        grads.append((m.grad.tolist(), w.grad.tolist()))
        m.grad = w.grad = None
        calls.append(Swish.forward_calls)
    same = grads[0] == grads[1]
    print(f"checkpointed block: forward ran {calls[0]} time(s) plain, {calls[1]} checkpointed "
          f"(the replay); gradients {'bit-identical' if same else 'DIFFER'}")
    if value_diff > 1e-5 or grad_diff > 1e-5 or not same or calls != [1, 2]:
        print("FAILED", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
