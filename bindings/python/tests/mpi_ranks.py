"""tessera.distributed with backend="mpi", run by mpirun on every rank
(bindings/python/CMakeLists.txt: bindings_python_mpi). Not a unittest
module: it needs mpirun, and loading MPI happens once per process. A
failed check raises (a Traceback; mpirun then ends the job)."""
import datetime
import os

import tessera
import tessera.distributed as dist


def main():
    assert dist.is_mpi_available()
    # init_method is not used under MPI, as torch's MPI backend.
    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    assert (rank, world) == (int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"]))
    assert dist.get_backend() == "mpi", dist.get_backend()

    t = tessera.arange(6, dtype=tessera.float32) + rank
    dist.all_reduce(t)
    assert t.tolist() == [world * i + world * (world - 1) / 2 for i in range(6)], t.tolist()

    h = (tessera.ones(3, dtype=tessera.bfloat16) * (rank + 1))
    dist.all_reduce(h, op=dist.ReduceOp.MAX)
    assert h.tolist() == [float(world)] * 3, h.tolist()

    b = tessera.full((2, 3), float(rank)).t()  # non-contiguous
    work = dist.broadcast(b, src=world - 1, async_op=True)
    work.wait()
    assert b.tolist() == [[world - 1.0] * 2] * 3, b.tolist()

    out = tessera.zeros(world * 2, dtype=tessera.int64)
    dist.all_gather_into_tensor(out, tessera.full((2,), rank, dtype=tessera.int64))
    assert out.tolist() == [r for r in range(world) for _ in range(2)], out.tolist()

    dist.barrier()
    dist.destroy_process_group()
    print("rank %d of %d: python mpi ok" % (rank, world), flush=True)


if __name__ == "__main__":
    main()
