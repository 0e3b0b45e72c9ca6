"""One rank of test_distributed.py's multi-process runs.

    python dist_worker.py tessera|torch SCENARIO

runs SCENARIO with `import tessera as torch; import tessera.distributed as
dist` or with PyTorch 1.13 itself (the oracle), in the process group that
MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE describe (env://), and prints
one JSON object: each result as a list. The test compares tessera's objects
with torch's. Values are small integers (or halves), so every sum is exact
whatever order the ranks' values are added in.

Where torch 1.13's Gloo lacks an operation (AVG, all_gather_into_tensor,
reduce_scatter_tensor, strided in-place results), the torch side computes
the documented result from operations it has (torch 2.x's semantics).
"""
import json
import sys
import threading
import time

IMPL, SCENARIO = sys.argv[1], sys.argv[2]
if IMPL == "torch":
    import torch
    import torch.distributed as dist
else:
    import tessera as torch
    import tessera.distributed as dist

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64}


def values(rank, dtype, rows=2, cols=3):
    """Rank-dependent small values: rank r holds (i + 1) * (r + 1) - 2 r."""
    base = torch.arange(1, rows * cols + 1, dtype=torch.float64).reshape(rows, cols)
    return (base * (rank + 1) - 2 * rank).to(dtype)


def collectives(out, rank, world):
    ops = {"SUM": dist.ReduceOp.SUM, "PRODUCT": dist.ReduceOp.PRODUCT, "MIN": dist.ReduceOp.MIN,
           "MAX": dist.ReduceOp.MAX}
    for dname, dtype in DTYPES.items():
        for oname, op in ops.items():
            t = values(rank, dtype)
            assert dist.all_reduce(t, op=op) is None
            out["all_reduce_%s_%s" % (oname, dname)] = t.tolist()
    # A transposed (strided) tensor is reduced in place through its view.
    base = values(rank, torch.float32, 3, 2)
    view = base.t()
    if IMPL == "torch":  # torch 1.13's Gloo wants dense tensors
        dense = view.contiguous()
        dist.all_reduce(dense)
        view.copy_(dense)
    else:
        dist.all_reduce(view)
    out["all_reduce_strided_base"] = base.tolist()
    # AVG: the sum divided by the world size (truncated for integers).
    for dname in ("float32", "int64"):
        t = values(rank, DTYPES[dname])
        if IMPL == "torch":  # torch 1.13's Gloo: "Cannot use ReduceOp.AVG with Gloo"
            dist.all_reduce(t)
            t = torch.div(t, world, rounding_mode="trunc") if dname == "int64" else t / world
        else:
            dist.all_reduce(t, op=dist.ReduceOp.AVG)
        out["all_reduce_AVG_" + dname] = t.tolist()
    for src in sorted({0, world - 1}):
        t = values(rank, torch.float64) + 0.5
        assert dist.broadcast(t, src) is None
        out["broadcast_%d" % src] = t.tolist()
    # all_gather into a list, and all_gather_into_tensor (torch: all_gather + stack).
    mine = values(rank, torch.int64)
    gathered = [torch.zeros(2, 3, dtype=torch.int64) for _ in range(world)]
    assert dist.all_gather(gathered, mine) is None
    out["all_gather"] = [g.tolist() for g in gathered]
    if IMPL == "torch":
        parts = [torch.zeros(2, 3) for _ in range(world)]
        dist.all_gather(parts, mine.float())
        stacked = torch.stack(parts)
    else:
        stacked = torch.zeros(world, 2, 3)
        dist.all_gather_into_tensor(stacked, mine.float())
    out["all_gather_into_tensor"] = stacked.tolist()
    # reduce_scatter_tensor: chunk `rank` of the sum of every rank's input.
    full = values(rank, torch.float32, world, 3)
    if IMPL == "torch":
        dist.all_reduce(full)
        chunk = full[rank].clone()
    else:
        chunk = torch.zeros(3)
        dist.reduce_scatter_tensor(chunk, full)
    out["reduce_scatter_tensor"] = chunk.tolist()
    # Asynchronous: queued work, then wait.
    t = values(rank, torch.float32)
    work = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)
    out["async_wait"] = work.wait()
    out["async_completed"] = work.is_completed()
    out["async_all_reduce"] = t.tolist()
    parts = [torch.zeros(2, 3) for _ in range(world)]
    work = dist.all_gather(parts, values(rank, torch.float32), async_op=True)
    work.wait()
    out["async_all_gather"] = [p.tolist() for p in parts]
    assert dist.barrier() is None
    dist.barrier(async_op=True).wait()
    out["rank"], out["world_size"], out["backend"] = dist.get_rank(), dist.get_world_size(), dist.get_backend()


def groups(out, rank, world):
    """World 3: new_group([2, 0]) (rank 1 outside it), collectives in it
    interleaved with the default group's, the rank maps, send/recv (an
    exchange, a ring, any source, tags, in the subgroup too) and the
    bitwise reductions."""
    sub = dist.new_group([2, 0])
    member = sub is not dist.GroupMember.NON_GROUP_MEMBER
    out["member"] = [member]
    out["sub_rank_size"] = [dist.get_rank(sub), dist.get_world_size(sub)]
    s = values(rank, torch.float32)
    w = torch.ones(3) * (rank + 1)
    if member:
        work = dist.all_reduce(s, group=sub, async_op=True)
    dist.all_reduce(w)  # the default group meanwhile
    if member:
        work.wait()
        dist.broadcast(w, src=2, group=sub)  # src is a global rank
        out["maps"] = [dist.get_global_rank(sub, 1), dist.get_group_rank(sub, 2),
                       dist.get_process_group_ranks(sub)]
    else:
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out["outside_all_reduce"] = [dist.all_reduce(s, group=sub)]
        out["outside_warned"] = [len(caught) == 1 and "does not belong to the given group" in str(caught[0].message)]
        out["outside_recv"] = [dist.recv(s, 0, group=sub)]
    out["sub_all_reduce"] = s.tolist()
    out["world_then_broadcast"] = w.tolist()

    # The exchange: isend to the next rank, recv from the previous (a ring).
    mine = torch.arange(4, dtype=torch.int64) + 10 * rank
    got = torch.zeros(4, dtype=torch.int64)
    work = dist.isend(mine, (rank + 1) % world, tag=3)
    out["ring_source"] = [dist.recv(got, (rank + world - 1) % world, tag=3)]
    work.wait()
    out["ring"] = got.tolist()
    # Tags out of order, blocking, between 0 and 2.
    if rank == 0:
        a, b = torch.full((2,), 1.5), torch.full((2,), 2.5)
        wa = dist.isend(a, 2, tag=1)
        wb = dist.isend(b, 2, tag=2)
        wb.wait()
        wa.wait()
    elif rank == 2:
        x = torch.zeros(2)
        dist.recv(x, 0, tag=2)
        y = torch.zeros(2)
        dist.recv(y, 0, tag=1)
        out["tags"] = [x.tolist(), y.tolist()]
    # Any source: rank 0 receives from 1 and 2.
    if rank == 0:
        sources = []
        for _ in range(2):
            t = torch.zeros(4, dtype=torch.int64)
            src = dist.recv(t)
            sources.append([src, t.tolist()])
        out["any_source"] = sorted(sources)
        t = torch.zeros(4, dtype=torch.int64)
        work = dist.irecv(t, tag=8)
        work.wait()
        out["irecv_any"] = [work._source_rank(), t.tolist()]
    else:
        dist.send(mine, 0)
        if rank == 1:
            dist.send(mine, 0, tag=8)
    # In the subgroup, with global ranks: 2 sends to 0; 0 receives from any.
    if member:
        if rank == 2:
            dist.send(mine, 0, group=sub)
        else:
            t = torch.zeros(4, dtype=torch.int64)
            out["sub_any_source"] = [dist.recv(t, group=sub), t.tolist()]
    # Bitwise reductions.
    for oname in ("BAND", "BOR", "BXOR"):
        for dname, dtype in (("int32", torch.int32), ("int64", torch.int64), ("uint8", torch.uint8)):
            t = torch.tensor([(i * 37 + rank * 11 + 5) % 128 for i in range(6)], dtype=dtype)
            dist.all_reduce(t, op=getattr(dist.ReduceOp, oname))
            out["all_reduce_%s_%s" % (oname, dname)] = t.tolist()
    dist.barrier()
    if member:
        dist.destroy_process_group(sub)


def longest_gap_while(busy):
    """The longest time (s) this thread went without running while
    busy.is_set()."""
    longest = 0.0
    last = time.monotonic()
    while busy.is_set():
        now = time.monotonic()
        longest = max(longest, now - last)
        last = now
    return longest


def threads(out, rank, world):
    """Other Python threads run while one waits in a collective (the GIL is
    released): twice, rank 0 waits in a barrier that the last rank enters
    1 s late, first on the main thread (the polled wait), then on another
    thread (the native call blocks), while the other thread notes the
    longest time it went without running. A held GIL would stop it for the
    whole barrier; a loaded machine can stop it for a while too, so the
    bound is half the barrier's time."""
    for where in ("main", "thread"):
        dist.barrier()  # both ranks start together
        busy = threading.Event()
        busy.set()
        gap = [0.0]
        waited = [0.0]

        def watch():
            gap[0] = longest_gap_while(busy)

        def wait_in_barrier():
            time.sleep(0.05)
            if rank == world - 1:
                time.sleep(1.0)
            start = time.monotonic()
            dist.barrier()
            waited[0] = time.monotonic() - start
            time.sleep(0.05)  # lets the watcher note a gap that ended with the barrier
            busy.clear()

        other = threading.Thread(target=watch if where == "main" else wait_in_barrier)
        other.start()
        if where == "main":
            wait_in_barrier()
        else:
            watch()
        other.join()
        if rank == 0:
            out["waited_in_barrier_" + where] = waited[0] > 0.7
            out["other_thread_ran_" + where] = gap[0] < 0.5 * waited[0]
            print("barrier on the %s thread: %.3f s, longest gap of the other thread %.3f s"
                  % (where, waited[0], gap[0]), file=sys.stderr)


def peer_dies(out, rank, world):
    """The last rank exits without joining the all_reduce: the others fail
    with DistBackendError (a RuntimeError) within the group's timeout."""
    dist.barrier()
    if rank == world - 1:
        sys.stdout.flush()
        import os
        os._exit(0)
    try:
        dist.all_reduce(torch.ones(4))
        out["raised"] = None
    except RuntimeError as e:
        out["raised"] = type(e).__name__


def interrupt(out, rank, world):
    """Ctrl-C during a collective that a peer never joins: rank 0 gets
    KeyboardInterrupt within a second (not at the 20 s timeout), its group
    is aborted, and the peer, joining late, fails instead of hanging."""
    import os
    import signal
    if rank == 0:
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(4))
            out["raised"] = None
        except KeyboardInterrupt:
            out["raised"] = "KeyboardInterrupt"
        out["interrupted_within_1s"] = time.monotonic() - start < 1.0
        try:
            dist.barrier()
            out["after"] = None
        except RuntimeError as e:
            out["after"] = type(e).__name__
    else:
        time.sleep(1.0)
        start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(4))
            out["raised"] = None
        except RuntimeError as e:
            out["raised"] = type(e).__name__
        out["failed_within_5s"] = time.monotonic() - start < 5.0


def main():
    import datetime
    timeout = datetime.timedelta(seconds=20)
    dist.init_process_group("gloo", timeout=timeout)
    out = {}
    globals()[SCENARIO](out, dist.get_rank(), dist.get_world_size())
    print(json.dumps(out, sort_keys=True), flush=True)
    if SCENARIO not in ("peer_dies", "interrupt"):
        dist.destroy_process_group()


main()
