#!/usr/bin/python3
"""bench/custom_op/function_bench.py — the cost of a custom differentiable
function's apply, side by side: tessera.autograd.Function against
torch.autograd.Function (PyTorch 1.13) in the same process, each next to
its own built-in op doing the same math (exp), on a 16-element float32
tensor (so the figures are the per-call overhead, not the math).

Cases, each the median over 15 batches of 2,000 calls (microseconds per
call), one thread:
  builtin            y = x.exp()                      (no autograd)
  function           y = Exp.apply(x)                 (no autograd)
  builtin+backward   x.exp().sum().backward()         (x requires grad)
  function+backward  Exp.apply(x).sum().backward()
Prints one table: tessera, torch, tessera / torch."""
import statistics
import sys
import time

import torch

sys.path.insert(0, "")
import tessera  # noqa: E402

BATCHES, CALLS = 15, 2000


def make_exp(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y
    return Exp


def median_us(fn):
    for _ in range(200):  # warm up
        fn()
    samples = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        samples.append((time.perf_counter() - t0) / CALLS * 1e6)
    return statistics.median(samples)


def cases(lib):
    Exp = make_exp(lib)
    x = lib.ones(16)
    xg = lib.ones(16, requires_grad=True)
    return {
        "builtin": lambda: x.exp(),
        "function": lambda: Exp.apply(x),
        "builtin+backward": lambda: xg.exp().sum().backward(),
        "function+backward": lambda: Exp.apply(xg).sum().backward(),
    }


def main():
    torch.set_num_threads(1)
    tessera.set_num_threads(1)
    ours, theirs = cases(tessera), cases(torch)
    print(f"{'case':20s} {'tessera us':>11s} {'torch us':>9s} {'ratio':>7s}")
    for name in ours:
        a, b = median_us(ours[name]), median_us(theirs[name])
        print(f"{name:20s} {a:11.2f} {b:9.2f} {a / b:7.2f}")


if __name__ == "__main__":
    main()
