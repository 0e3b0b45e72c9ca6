"""One rank of test_ddp.py's multi-process runs.

    python ddp_worker.py tessera|torch SCENARIO[,SCENARIO...]

runs each SCENARIO in turn (each with a model and DDP of its own) with `import tessera as torch` (and tessera.distributed,
tessera.nn.parallel) or with PyTorch 1.13 itself, in the process group that
MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE describe, and prints one JSON
object: each scenario's results (lists of floats, strings). The model's parameters start
from fixed values (rank-dependent, so DDP's broadcast of rank 0's is
visible), each rank trains on its rows of a fixed global batch, and the
test compares the gradients and parameters with torch's.
"""
import json
import math
import sys

IMPL, SCENARIOS = sys.argv[1], sys.argv[2].split(",")
if IMPL == "torch":
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
else:
    import tessera as torch
    import tessera.distributed as dist
    import tessera.nn as nn
    from tessera.nn.parallel import DistributedDataParallel as DDP
    from tessera.distributed.algorithms.ddp_comm_hooks import default_hooks

G = 6  # global batch rows


class Net(nn.Module):
    def __init__(self, rank, extra=False):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 3)
        if extra:  # used by some iterations or ranks only
            self.extra = nn.Linear(16, 3)
        self.register_buffer("running", torch.zeros(3))
        with torch.no_grad():
            for k, p in enumerate(self.parameters()):
                n = p.numel()
                vals = [0.3 * math.sin(0.7 * i + k) + 0.01 * rank for i in range(n)]
                p.copy_(torch.tensor(vals, dtype=torch.float32).reshape(p.shape))
            self.running.fill_(float(rank + 1))

    def forward(self, x, use_extra=False):
        h = torch.relu(self.fc1(x))
        y = self.fc2(h)
        if use_extra:
            y = y + self.extra(h)
        return y


def batch(which, rank, world):
    x = torch.tensor([[math.cos(0.9 * i + which + 0.3 * j) for j in range(4)] for i in range(G)],
                     dtype=torch.float32)
    t = torch.tensor([[0.5 * math.sin(0.4 * i - which + j) for j in range(3)] for i in range(G)],
                     dtype=torch.float32)
    rows = G // world
    return x[rank * rows:(rank + 1) * rows], t[rank * rows:(rank + 1) * rows]


def loss_of(model, which, rank, world, use_extra=False):
    x, t = batch(which, rank, world)
    return ((model(x, use_extra) - t) ** 2).mean()


def grads(module):
    return {n: (None if p.grad is None else p.grad.flatten().tolist()) for n, p in module.named_parameters()}


def params(module):
    return {n: p.detach().flatten().tolist() for n, p in module.named_parameters()}


def run(SCENARIO, rank, world):
    out = {}
    net = Net(rank, extra=SCENARIO.startswith("unused"))
    if SCENARIO in ("basic", "bucket_view", "fp16_hook"):
        model = DDP(net, bucket_cap_mb=0.0001, gradient_as_bucket_view=SCENARIO == "bucket_view")
        if SCENARIO == "fp16_hook":
            model.register_comm_hook(None, default_hooks.fp16_compress_hook)
        out["broadcast"] = params(net)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for it in range(3):
            opt.zero_grad(set_to_none=SCENARIO != "bucket_view")
            loss_of(model, it % 2, rank, world).backward()
            out["grads%d" % it] = grads(net)
            opt.step()
            out["params%d" % it] = params(net)
    elif SCENARIO == "no_sync":
        model = DDP(net)
        for rnd in range(2):
            with model.no_sync():
                loss_of(model, 0, rank, world).backward()
            out["local%d" % rnd] = grads(net)
            loss_of(model, 1, rank, world).backward()
            out["synced%d" % rnd] = grads(net)
            for p in net.parameters():
                p.grad = None
    elif SCENARIO == "unused_found":
        model = DDP(net, find_unused_parameters=True)
        for it, users in enumerate([{0}, set(), {world - 1}]):
            loss_of(model, it % 2, rank, world, use_extra=rank in users).backward()
            out["grads%d" % it] = grads(net)
            for p in net.parameters():
                p.grad = None
    elif SCENARIO == "unused_error":
        model = DDP(net)
        messages = []
        for it in range(2):  # torch fails at the second forward, tessera at the first backward
            try:
                loss_of(model, 0, rank, world).backward()
            except RuntimeError as e:
                messages.append(str(e))
                break
        out["error"] = [line for line in messages[0].splitlines() if line.startswith("Parameter indices")]
    elif SCENARIO == "buffers":
        model = DDP(net)
        out["after_init"] = net.running.tolist()
        with torch.no_grad():
            net.running.fill_(float(10 * (rank + 1)))
        loss_of(model, 0, rank, world).backward()
        out["after_forward"] = net.running.tolist()
    else:
        raise SystemExit("unknown scenario " + SCENARIO)
    return out


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    out = {scenario: run(scenario, rank, world) for scenario in SCENARIOS}
    dist.destroy_process_group()
    print(json.dumps(out))


main()
