"""The model of ckpt_bench.c in PyTorch 1.13, checkpointed the same ways
with torch.utils.checkpoint.checkpoint(..., use_reentrant=False,
preserve_rng_state=True). Peak memory comes from the profiler's memory
events (allocations and frees in time order: the running sum's maximum
above the start), since torch has no CPU max_memory_allocated.
usage: torch_ckpt.py [blocks width batch reps]; same output lines as
ckpt_bench."""
import math
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.l1 = nn.Linear(width, width)
        self.l2 = nn.Linear(width, width)

    def forward(self, x):
        return x + self.l2(F.dropout(F.gelu(self.l1(x)), 0.1, True))


def run_blocks(blocks):
    def fn(x):
        for b in blocks:
            x = b(x)
        return x
    return fn


def forward(model, x, mode):
    n = len(model)
    if mode == "none":
        return run_blocks(model)(x).mean()
    seg = 1 if mode == "per_block" else math.ceil(math.sqrt(n))
    for start in range(0, n, seg):
        x = checkpoint(run_blocks(model[start:start + seg]), x, use_reentrant=False,
                       preserve_rng_state=True)
    return x.mean()


def step(model, x, mode):
    # Gradients stay allocated (zeroed in place), so the peak above the
    # start is activation memory, not the parameters' gradients.
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    torch.manual_seed(1)
    forward(model, x, mode).backward()


def peak_bytes(model, x, mode):
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(model, x, mode)
    events = sorted((e.start_us(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                    if e.name() == "[memory]")
    cur = peak = 0
    for _, n in events:
        cur += n
        peak = max(peak, cur)
    return peak


def main():
    args = [int(a) for a in sys.argv[1:]]
    n, width, batch, reps = (args + [32, 512, 256, 5][len(args):])[:4]
    torch.manual_seed(0)
    model = nn.ModuleList(Block(width) for _ in range(n))
    x = torch.randn(batch, width)
    reference = None
    step(model, x, "none")  # allocates every .grad once
    for mode in ("none", "per_block", "sqrt_segments"):
        step(model, x, mode)
        grads = torch.cat([p.grad.flatten() for p in model.parameters()])
        if reference is None:
            reference, identical = grads, "-"
        else:
            identical = "yes" if torch.equal(grads, reference) else "no"
        peak = peak_bytes(model, x, mode)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            step(model, x, mode)
            times.append((time.perf_counter() - t0) * 1e3)
        print(f"mode {mode} peak_bytes {peak} step_ms {statistics.median(times):.2f} identical {identical}",
              flush=True)


if __name__ == "__main__":
    main()
