"""bench/distributed: torch 1.13's contender. One rank of the all_reduce
benchmark: torch.distributed.all_reduce (synchronous, SUM) of a contiguous
float32 tensor on the gloo backend, env:// from tessera-run, one intra-op
thread; the protocol of allreduce_cases.h, in Python.

Usage: torch_allreduce.py WARMUP BYTES:ITERS [BYTES:ITERS ...]
"""
import datetime
import statistics
import sys
import time

import torch
import torch.distributed as dist


def run_case(world, warmup, nbytes, iters):
    t = torch.ones(nbytes // 4, dtype=torch.float32)
    dist.all_reduce(t)
    if t[0].item() != world or t[-1].item() != world:
        sys.exit(f"torch: all_reduce of ones over {world} ranks gave {t[0].item()} ... {t[-1].item()}")
    t.zero_()
    for _ in range(warmup):
        dist.all_reduce(t)
    dist.barrier()
    us = [0.0] * iters
    clock = time.perf_counter_ns
    for i in range(iters):
        start = clock()
        dist.all_reduce(t)
        us[i] = (clock() - start) * 1e-3
    times = torch.tensor(us, dtype=torch.float64)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    if dist.get_rank() == 0:
        median = statistics.median(times.tolist())
        print(f"impl torch world {world} bytes {nbytes} iters {iters} median_us {median:.3f}", flush=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=5))
    world = dist.get_world_size()
    warmup = int(sys.argv[1])
    for case in sys.argv[2:]:
        nbytes, iters = (int(x) for x in case.split(":"))
        run_case(world, warmup, nbytes, iters)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
