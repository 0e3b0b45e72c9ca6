"""bench/distributed: one rank of the DDP step benchmark (issue 30). An
8-layer 1024-wide MLP (Linear + ReLU), batch 64 per rank, MSE loss, SGD:
the local step (no DDP) and the DDP step, each the median of STEPS steps
after WARMUP, rank 0 printing both and the exposed communication time (DDP
step - local step). The same script runs tessera (`import tessera as
torch`) and torch 1.13, ranks started by tessera-run, one intra-op thread.

Usage: ddp_step.py tessera|torch [STEPS] [WARMUP]
"""
import statistics
import sys
import time

impl = sys.argv[1]
if impl == "tessera":
    import tessera as torch
    import tessera.distributed as dist
    from tessera.nn.parallel import DistributedDataParallel
else:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
WARMUP = int(sys.argv[3]) if len(sys.argv) > 3 else 3
WIDTH, DEPTH, BATCH = 1024, 8, 64


def model():
    torch.manual_seed(0)
    layers = []
    for _ in range(DEPTH):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers)


def median_step_ms(net, x, y):
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    times = []
    for i in range(WARMUP + STEPS):
        start = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        if i >= WARMUP:
            times.append((time.perf_counter() - start) * 1e3)
    # the slowest rank's median
    t = torch.tensor([statistics.median(times)], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def main():
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1 + rank)
    x = torch.randn(BATCH, WIDTH)
    y = torch.randn(BATCH, WIDTH)
    local = median_step_ms(model(), x, y)
    ddp = median_step_ms(DistributedDataParallel(model()), x, y)
    if rank == 0:
        print(f"impl {impl} world {world} local_ms {local:.2f} ddp_ms {ddp:.2f} exposed_ms {ddp - local:.2f}",
              flush=True)
    dist.destroy_process_group()


main()
