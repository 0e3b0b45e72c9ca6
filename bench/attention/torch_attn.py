"""bench/attention: torch 1.13's composed attention, softmax(q k^T * scale) v
(torch 2.x's math path; 1.13 has no fused scaled_dot_product_attention), on
float32 q, k, v of (1, heads, L, E), forward under no_grad and forward +
backward (sum of the output). Time: median wall time of `reps` runs after
one warm-up. Peak memory: torch has no CPU max_memory_allocated, so the
profiler's memory events (profile_memory=True) of one run are summed in
time order and their maximum above the start is taken (the same approach
as bench/checkpoint/torch_ckpt.py).
usage: torch_attn.py threads heads E reps L...; prints lines as attn_bench:
  L <n> impl torch phase <fwd|fwdbwd> ms <median> peak_bytes <n>"""
import math
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile


def composed(q, k, v):
    return torch.softmax(q @ k.transpose(-2, -1) * (1.0 / math.sqrt(q.shape[-1])), -1) @ v


def run(q, k, v, backward):
    for t in (q, k, v):
        t.grad = None
    with torch.set_grad_enabled(backward):
        o = composed(q, k, v)
        if backward:
            o.sum().backward()


def peak_bytes(q, k, v, backward):
    for t in (q, k, v):
        t.grad = None
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        run(q, k, v, backward)
    events = sorted((e.start_us(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                    if e.name() == "[memory]")
    cur = peak = 0
    for _, n in events:
        cur += n
        peak = max(peak, cur)
    return peak


def main():
    threads, heads, E, reps = (int(a) for a in sys.argv[1:5])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    for L in (int(a) for a in sys.argv[5:]):
        q, k, v = (torch.randn(1, heads, L, E, requires_grad=True) for _ in range(3))
        for backward in (False, True):
            run(q, k, v, backward)
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                run(q, k, v, backward)
                times.append((time.perf_counter() - t0) * 1e3)
            peak = peak_bytes(q, k, v, backward)
            print(f"L {L} impl torch phase {'fwdbwd' if backward else 'fwd'} ms {statistics.median(times):.2f} "
                  f"peak_bytes {peak}", flush=True)


if __name__ == "__main__":
    main()
