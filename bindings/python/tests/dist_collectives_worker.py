"""One rank of test_distributed_collectives.py's multi-process runs.

    python dist_collectives_worker.py tessera|torch SCENARIO

runs SCENARIO with `import tessera as torch; import tessera.distributed as
dist` or with PyTorch 1.13 itself (the oracle, Gloo), in the group that
MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE describe (env://), and prints
one JSON object of results; the test compares tessera's with torch's.
Values are small integers, so every sum is exact in any order.

Where torch 1.13's Gloo lacks an operation (all_to_all of tensor lists:
"ProcessGroup gloo does not support alltoall"), the torch side computes the
documented result from operations it has (all_to_all_single of the
flattened tensors, as torch's MPI backend does).
"""
import datetime
import json
import sys
import time

IMPL, SCENARIO = sys.argv[1], sys.argv[2]
if IMPL == "torch":
    import torch
    import torch.distributed as dist
else:
    import tessera as torch
    import tessera.distributed as dist


def values(rank, dtype, rows=2, cols=3):
    base = torch.arange(1, rows * cols + 1, dtype=torch.float64).reshape(rows, cols)
    return (base * (rank + 1) - 2 * rank).to(dtype)


def splits(sender, receiver):
    """Rows rank sender sends rank receiver in the uneven all_to_all (0 included)."""
    return (sender + 2 * receiver) % 3


def tensor_collectives(out, rank, world):
    # reduce: only dst's result is defined (torch's Gloo leaves partial
    # sums elsewhere; tessera leaves the tensor as it was: checked below).
    for dst in sorted({0, world - 1}):
        for oname, op, dname, dtype in (("SUM", dist.ReduceOp.SUM, "float32", torch.float32),
                                        ("MAX", dist.ReduceOp.MAX, "int64", torch.int64),
                                        ("PRODUCT", dist.ReduceOp.PRODUCT, "float64", torch.float64)):
            t = values(rank, dtype)
            before = t.tolist()
            assert dist.reduce(t, dst, op=op) is None
            if rank == dst:
                out["reduce_%s_%s_dst%d" % (oname, dname, dst)] = t.tolist()
            elif IMPL == "tessera":
                assert t.tolist() == before, "reduce changed a non-dst rank's tensor"
    # A transposed tensor, reduced into its view.
    base = values(rank, torch.float32, 3, 2)
    view = base.t()
    dist.reduce(view, 0)
    if rank == 0:
        out["reduce_strided_base"] = base.tolist()
    # gather into dst's list.
    for dst in sorted({0, world - 1}):
        mine = values(rank, torch.int64)
        parts = [torch.full((2, 3), -1, dtype=torch.int64) for _ in range(world)] if rank == dst else None
        assert dist.gather(mine, parts, dst=dst) is None
        out["gather_dst%d" % dst] = [p.tolist() for p in parts] if parts is not None else None
    # scatter from src's list.
    for src in sorted({0, world - 1}):
        got = torch.zeros(2, 3)
        pieces = [values(r, torch.float32) + 10 * src for r in range(world)] if rank == src else None
        assert dist.scatter(got, pieces, src=src) is None
        out["scatter_src%d" % src] = got.tolist()
    # all_to_all_single: equal parts, then uneven split sizes.
    inp = torch.arange(2 * world, dtype=torch.float32) + 100 * rank
    got = torch.zeros(2 * world)
    assert dist.all_to_all_single(got, inp) is None
    out["all_to_all_single_equal"] = got.tolist()
    in_splits = [splits(rank, j) for j in range(world)]
    out_splits = [splits(j, rank) for j in range(world)]
    inp = (torch.arange(2 * sum(in_splits), dtype=torch.int64) + 100 * rank).reshape(sum(in_splits), 2)
    got = torch.full((sum(out_splits), 2), -1, dtype=torch.int64)
    dist.all_to_all_single(got, inp, out_splits, in_splits)
    out["all_to_all_single_uneven"] = got.tolist()
    # all_to_all of lists of differently shaped tensors.
    ins = [torch.full((j + 1, rank + 1), 10.0 * rank + j) for j in range(world)]
    outs = [torch.zeros(rank + 1, j + 1) for j in range(world)]
    if IMPL == "torch":  # Gloo: "ProcessGroup gloo does not support alltoall"
        flat_out = torch.zeros(sum(o.numel() for o in outs))
        dist.all_to_all_single(flat_out, torch.cat([t.reshape(-1) for t in ins]), [o.numel() for o in outs],
                               [t.numel() for t in ins])
        for o, part in zip(outs, torch.split(flat_out, [o.numel() for o in outs])):
            o.copy_(part.reshape(o.shape))
    else:
        assert dist.all_to_all(outs, ins) is None
    out["all_to_all"] = [o.tolist() for o in outs]
    # Asynchronous forms: the results are there once wait() returns.
    t = values(rank, torch.float32)
    work = dist.reduce(t, 0, async_op=True)
    work.wait()
    if rank == 0:
        out["async_reduce"] = t.tolist()
    parts = [torch.zeros(2, 3) for _ in range(world)] if rank == 0 else None
    dist.gather(values(rank, torch.float32), parts, dst=0, async_op=True).wait()
    out["async_gather"] = [p.tolist() for p in parts] if parts else None
    got = torch.zeros(2, 3)
    dist.scatter(got, [values(r, torch.float32) for r in range(world)] if rank == 0 else None, 0,
                 async_op=True).wait()
    out["async_scatter"] = got.tolist()


def object_collectives(out, rank, world):
    mine = {"rank": rank, "payload": "x" * (rank * 37), "nested": [rank, (rank, "t")]}
    gathered = [None] * world
    assert dist.all_gather_object(gathered, mine) is None
    out["all_gather_object"] = repr(gathered)
    src = world - 1
    objects = [{"from": rank}, "text" * (rank + 1), [1, 2, rank], None] if rank == src else [None, 0, 0, 0]
    assert dist.broadcast_object_list(objects, src=src) is None
    out["broadcast_object_list"] = repr(objects)
    target = [None] * world if rank == 0 else None
    assert dist.gather_object(("g", rank, "y" * rank), target, dst=0) is None
    out["gather_object"] = repr(target)
    received = [None]
    inputs = [{"to": r, "pad": "z" * (r * 50)} for r in range(world)] if rank == 0 else None
    assert dist.scatter_object_list(received, inputs, src=0) is None
    out["scatter_object_list"] = repr(received)


def monitored(out, rank, world):
    """On time (both flags), then ranks 1.. come 1.5 s late to a 500 ms
    monitored_barrier with wait_all_ranks: rank 0 names them all."""
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=10))
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=10), wait_all_ranks=True)
    if rank != 0:
        time.sleep(1.5)
    start = time.monotonic()
    try:
        dist.monitored_barrier(timeout=datetime.timedelta(milliseconds=500), wait_all_ranks=True)
        out["raised"] = None
    except RuntimeError as e:
        out["raised"] = "RuntimeError"
        if rank == 0:
            out["message"] = str(e).split("\n")[0]
            out["within_timeout"] = 0.4 < time.monotonic() - start < 1.4
    if rank == 0:
        time.sleep(1.5)  # the late ranks get their verdict before rank 0 exits


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    out = {}
    globals()[SCENARIO](out, dist.get_rank(), dist.get_world_size())
    print(json.dumps(out, sort_keys=True), flush=True)
    if SCENARIO != "monitored":
        dist.destroy_process_group()


main()
