"""torch.distributed's other collectives, composed in Python over the C
collectives of tessera.distributed (all_reduce, broadcast,
all_gather_into_tensor) with torch 1.13's names, signatures and checks:
reduce, gather, scatter, all_to_all_single, all_to_all, the object
collectives (all_gather_object, broadcast_object_list, gather_object,
scatter_object_list; pickled into uint8 tensors, sizes exchanged first, as
torch does) and monitored_barrier (tsr_monitored_barrier, through the
group's store).

How they map, and where that differs from torch 1.13's Gloo:
- reduce is an all_reduce into a copy that only dst writes back: the other
  ranks' tensors are left as they were (torch's Gloo leaves partial sums
  there, which its documentation leaves unspecified). ReduceOp.AVG works,
  as for all_reduce.
- gather and gather_object are an all_gather of which dst keeps the
  result; scatter, scatter_object_list and broadcast_object_list are a
  broadcast of which each rank keeps its part. Each moves world_size times
  the bytes of torch's root-only transfers.
- all_to_all_single is an all_gather of the split sizes, then one of every
  rank's input (padded to the largest) of which each rank keeps its
  chunks. all_to_all (torch's Gloo
  refuses it: "ProcessGroup gloo does not support alltoall") goes through
  all_to_all_single on the flattened tensors, as torch's MPI and NCCL do.
- Their with async_op=True Work copies the results into the outputs in
  wait() (or is_completed() once it returns True), as all_gather does;
  all_to_all_single and all_to_all exchange the split sizes before
  returning.

group=None is the default group; a group's src and dst are global ranks
(converted with get_group_rank where a subgroup gives one)."""
import datetime as _datetime
import io as _io
import pickle as _pickle

from . import _core
from . import distributed as _dist  # partly initialised: its names are used at call time
from . import errors as _errors

__all__ = [
    "reduce", "gather", "scatter", "all_to_all_single", "all_to_all", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list", "monitored_barrier",
]


# ---- helpers -----------------------------------------------------------------

def _no_grad():
    from ._grad import no_grad
    return no_grad()


def _empty(sizes, dtype, device=None):
    from ._factories import empty
    return empty(tuple(sizes), dtype=dtype, device=device)


def _invalid(message):
    return _errors.InvalidArgumentError(_errors.Status.INVALID_ARGUMENT, message)


def _shape_mismatch(message):
    return _errors.ShapeMismatchError(_errors.Status.SHAPE_MISMATCH, message)


def _root(pg, rank, fn):
    """The group rank of global rank `rank` (src or dst), checked."""
    rank = int(rank)
    to_group = getattr(_dist, "get_group_rank", None)
    if to_group is not None and pg is not _dist.GroupMember.WORLD:
        rank = to_group(pg, rank)
    if not 0 <= rank < pg.size():
        raise _invalid("{}: invalid root rank {} (the group has {} ranks)".format(fn, rank, pg.size()))
    return rank


def _check_tensor_list(param, param_name):
    if not isinstance(param, list) or not all(isinstance(t, _core.Tensor) for t in param):
        raise RuntimeError("Invalid function argument. Expected parameter `{}` to be of type "
                           "List[tessera.Tensor].".format(param_name))


def _ensure_same_dtype(tensor, tensors):
    for t in tensors:
        if t.dtype != tensor.dtype:
            raise _errors.DTypeMismatchError(
                _errors.Status.DTYPE_MISMATCH,
                "Invalid usage of tensors with different dtypes. Found {} and {}".format(tensor.dtype, t.dtype))


def _check_list_shapes(fn, what, tensors, world, sizes):
    if len(tensors) != world:
        raise _shape_mismatch("{}: Incorrect {} list size {}. {} list size should be {}, same as size of the "
                              "process group.".format(fn, what, len(tensors), what.capitalize(), world))
    for i, t in enumerate(tensors):
        if tuple(t.shape) != sizes:
            raise _shape_mismatch("{}: invalid tensor size at index {} (expected {}, got {})".format(
                fn, i, list(sizes), list(t.shape)))


def _validate_output_list_for_rank(my_rank, dst, gather_list):
    if dst == my_rank:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")


def _all_gather_into(pg, output, input, async_op, on_complete=None):
    return _dist._run(pg, lambda a: _core.ProcessGroup.all_gather_into_tensor(pg._handle, output, input, a),
                      async_op, on_complete)


def _broadcast(pg, tensor, src, async_op=False, on_complete=None):
    return _dist._run(pg, lambda a: _core.ProcessGroup.broadcast(pg._handle, tensor, src, a), async_op,
                      on_complete)


# ---- tensor collectives ------------------------------------------------------

def reduce(tensor, dst, op=_dist.ReduceOp.SUM, group=None, async_op=False):
    """torch.distributed.reduce: rank dst's tensor (in place) becomes the
    reduction of every rank's tensor; the others' tensors are left as they
    were (torch's Gloo leaves partial results there)."""
    _dist._check_single_tensor(tensor, "tensor")
    code = _dist._check_op("reduce", op)
    pg = _dist._group(group)
    root = _root(pg, dst, "reduce")
    buf = _empty(tensor.shape, tensor.dtype, tensor.device)
    with _no_grad():
        buf.copy_(tensor)

    def write_back():
        if pg.rank() == root:
            with _no_grad():
                tensor.copy_(buf)

    return _dist._run(pg, lambda a: _core.ProcessGroup.all_reduce(pg._handle, buf, code, a), async_op, write_back)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """torch.distributed.gather: on rank dst, gather_list[r] (in place)
    becomes rank r's tensor; the other ranks pass no gather_list."""
    _dist._check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    _ensure_same_dtype(tensor, gather_list)
    pg = _dist._group(group)
    root = _root(pg, dst, "gather")
    rank, world = pg.rank(), pg.size()
    _validate_output_list_for_rank(rank, root, gather_list)
    sizes = tuple(tensor.shape)
    if rank == root:
        _check_list_shapes("gather", "output", gather_list, world, sizes)
    gathered = _empty((world,) + sizes, tensor.dtype, tensor.device)

    def copy_out():
        if rank == root:
            with _no_grad():
                for i, t in enumerate(gather_list):
                    t.copy_(gathered[i])

    return _all_gather_into(pg, gathered, tensor, async_op, copy_out)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """torch.distributed.scatter: every rank's tensor (in place) becomes
    scatter_list[rank] of rank src; the other ranks pass no scatter_list."""
    _dist._check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    _ensure_same_dtype(tensor, scatter_list)
    pg = _dist._group(group)
    root = _root(pg, src, "scatter")
    rank, world = pg.rank(), pg.size()
    if rank == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    sizes = tuple(tensor.shape)
    stacked = _empty((world,) + sizes, tensor.dtype, tensor.device)
    if rank == root:
        _check_list_shapes("scatter", "input", scatter_list, world, sizes)
        with _no_grad():
            for i, t in enumerate(scatter_list):
                stacked[i].copy_(t)

    def copy_out():
        with _no_grad():
            tensor.copy_(stacked[rank])

    return _broadcast(pg, stacked, root, async_op, copy_out)


def _split_sizes(splits, rows, world):
    """The rows each rank gets (None or []: equal parts), checked as c10d's
    checkSplitSizes."""
    if not splits:
        if world and rows % world != 0:
            raise _shape_mismatch("Tensor's dim 0 does not divide equally across group size")
        return [rows // world] * world
    splits = [int(s) for s in splits]
    if len(splits) != world:
        raise _shape_mismatch("Number of tensor splits not equal to group size")
    if any(s < 0 for s in splits) or sum(splits) != rows:
        raise _shape_mismatch("Split sizes doesn't match total dim 0 size")
    return splits


def _all_to_all_single(output, input, output_split_sizes, input_split_sizes, group, async_op, then=None):
    _dist._check_single_tensor(output, "output")
    _dist._check_single_tensor(input, "input")
    _ensure_same_dtype(output, [input])
    if output.dim() == 0 or input.dim() == 0:
        raise _shape_mismatch("all_to_all_single: output and input need at least one dimension")
    pg = _dist._group(group)
    rank, world = pg.rank(), pg.size()
    rest = tuple(input.shape[1:])
    if tuple(output.shape[1:]) != rest:
        raise _shape_mismatch("all_to_all_single: output sizes {} and input sizes {} differ beyond dim 0".format(
            list(output.shape), list(input.shape)))
    in_splits = _split_sizes(input_split_sizes, input.shape[0], world)
    out_splits = _split_sizes(output_split_sizes, output.shape[0], world)
    # Every rank's split sizes (exchanged even when equal, so that ranks
    # passing split sizes and ranks passing None still issue the same
    # collectives): sent[j][r] rows go from rank j to rank r.
    mine = _core_tensor(in_splits)
    table = _empty((world, world), mine.dtype)
    _all_gather_into(pg, table, mine, False)
    sent = table.tolist()
    rows = max(sum(s) for s in sent)
    padded = input
    if rows != input.shape[0]:
        padded = _empty((rows,) + rest, input.dtype, input.device)
        with _no_grad():
            padded[:input.shape[0]].copy_(input)
    gathered = _empty((world, rows) + rest, input.dtype, input.device)
    wrong = [j for j in range(world) if sent[j][rank] != out_splits[j]]

    def copy_out():
        if wrong:
            raise _shape_mismatch(
                "all_to_all_single: rank {} expects {} rows from ranks {} but they send {}".format(
                    rank, [out_splits[j] for j in wrong], wrong, [sent[j][rank] for j in wrong]))
        with _no_grad():
            at = 0
            for j in range(world):
                start = sum(sent[j][:rank])
                n = sent[j][rank]
                if n:
                    output[at:at + n].copy_(gathered[j, start:start + n])
                at += n
        if then is not None:
            then()

    return _all_gather_into(pg, gathered, padded, async_op, copy_out)


def _core_tensor(values):
    from ._factories import tensor
    from ._dtypes import dtype
    return tensor(list(values), dtype=dtype.int64)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """torch.distributed.all_to_all_single: input is split along dim 0 into
    input_split_sizes (None: world_size equal parts) and part r goes to rank
    r; output (in place) is the parts every rank sent here, in rank order,
    of output_split_sizes rows each (None: equal parts)."""
    return _all_to_all_single(output, input, output_split_sizes, input_split_sizes, group, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """torch.distributed.all_to_all: input_tensor_list[r] goes to rank r;
    output_tensor_list[j] (in place) becomes what rank j sent here. torch
    1.13's Gloo refuses it; this follows its NCCL and MPI semantics."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    if not input_tensor_list:
        raise _shape_mismatch("all_to_all: the tensor lists are empty")
    _ensure_same_dtype(input_tensor_list[0], input_tensor_list + output_tensor_list)
    from ._functions import cat
    dtype, device = input_tensor_list[0].dtype, input_tensor_list[0].device
    with _no_grad():
        flat_in = cat([t.reshape(-1) for t in input_tensor_list])
    in_splits = [t.numel() for t in input_tensor_list]
    out_splits = [t.numel() for t in output_tensor_list]
    flat_out = _empty((sum(out_splits),), dtype, device)

    def copy_out():
        with _no_grad():
            at = 0
            for t, n in zip(output_tensor_list, out_splits):
                t.copy_(flat_out[at:at + n].reshape(t.shape))
                at += n

    return _all_to_all_single(flat_out, flat_in, out_splits, in_splits, group, async_op, copy_out)


# ---- object collectives ------------------------------------------------------

def _to_bytes(obj):
    f = _io.BytesIO()
    _pickle.Pickler(f).dump(obj)
    return f.getvalue()


def _from_bytes(data):
    return _pickle.Unpickler(_io.BytesIO(bytes(data))).load()


def _bytes_tensor(buffer):
    """A uint8 tensor over buffer (a bytearray, never empty): collectives
    write into the bytearray itself."""
    from ._frombuffer import frombuffer
    from ._dtypes import dtype
    return frombuffer(buffer, dtype=dtype.uint8)


def _exchange_sizes(pg, n):
    mine = _core_tensor([n])
    sizes = _empty((pg.size(),), mine.dtype)
    _all_gather_into(pg, sizes, mine, False)
    return [int(s) for s in sizes.tolist()]


def _all_gather_bytes(pg, data):
    """Every rank's bytes (pickles are never empty)."""
    sizes = _exchange_sizes(pg, len(data))
    longest = max(sizes)
    mine = bytearray(longest)
    mine[:len(data)] = data
    everyone = bytearray(longest * pg.size())
    _all_gather_into(pg, _bytes_tensor(everyone), _bytes_tensor(mine), False)
    return [everyone[r * longest:r * longest + n] for r, n in enumerate(sizes)]


def all_gather_object(object_list, obj, group=None):
    """torch.distributed.all_gather_object: object_list[r] (of
    world_size entries) becomes rank r's picklable obj."""
    pg = _dist._group(group)
    for r, data in enumerate(_all_gather_bytes(pg, _to_bytes(obj))):
        object_list[r] = _from_bytes(data)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """torch.distributed.gather_object: on rank dst,
    object_gather_list[r] becomes rank r's obj; the others pass none."""
    pg = _dist._group(group)
    root = _root(pg, dst, "gather_object")
    _validate_output_list_for_rank(pg.rank(), root, object_gather_list)
    everyone = _all_gather_bytes(pg, _to_bytes(obj))
    if pg.rank() == root:
        for r, data in enumerate(everyone):
            object_gather_list[r] = _from_bytes(data)


def _broadcast_bytes(pg, root, parts, count):
    """Rank root's list of count byte strings (parts; None elsewhere) on
    every rank: their sizes, then their concatenation."""
    sizes = _core_tensor([len(p) for p in parts] if pg.rank() == root else [0] * count)
    _broadcast(pg, sizes, root)
    sizes = [int(s) for s in sizes.tolist()]
    everything = bytearray(b"".join(parts)) if pg.rank() == root else bytearray(sum(sizes))
    _broadcast(pg, _bytes_tensor(everything), root)
    out, at = [], 0
    for n in sizes:
        out.append(everything[at:at + n])
        at += n
    return out


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """torch.distributed.broadcast_object_list: every rank's object_list
    (of the same length everywhere) becomes rank src's picklable objects.
    device is accepted for torch's signature; the bytes go through CPU
    tensors."""
    pg = _dist._group(group)
    root = _root(pg, src, "broadcast_object_list")
    if not object_list:
        return
    parts = [_to_bytes(o) for o in object_list] if pg.rank() == root else None
    received = _broadcast_bytes(pg, root, parts, len(object_list))
    if pg.rank() != root:
        for i, data in enumerate(received):
            object_list[i] = _from_bytes(data)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """torch.distributed.scatter_object_list: scatter_object_output_list[0]
    becomes scatter_object_input_list[rank] of rank src (world_size
    picklable objects; ignored on the other ranks)."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise RuntimeError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = _dist._group(group)
    root = _root(pg, src, "scatter_object_list")
    world = pg.size()
    parts = None
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != world:
            raise _shape_mismatch("scatter_object_list: Incorrect input list size {}. Input list size should be "
                                  "{}, same as size of the process group.".format(
                                      None if scatter_object_input_list is None
                                      else len(scatter_object_input_list), world))
        parts = [_to_bytes(o) for o in scatter_object_input_list]
    received = _broadcast_bytes(pg, root, parts, world)
    scatter_object_output_list[0] = _from_bytes(received[pg.rank()])


# ---- monitored_barrier -------------------------------------------------------

def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """torch.distributed.monitored_barrier: a barrier after which rank 0
    names the ranks that did not enter it within timeout (a
    datetime.timedelta; None: torch 1.13's default_pg_timeout, 30 minutes):
    DistBackendError "[Rank 0]: Rank 1 failed to pass monitoredBarrier in
    1000 ms" (every missing rank with wait_all_ranks), and on the other
    ranks "Rank r successfully reached monitoredBarrier, but rank 0
    reported: ...". It goes through the group's store and leaves the group
    usable; it does not wait for queued async work."""
    pg = _dist._group(group)
    if pg.name() != _dist.Backend.GLOO:
        raise RuntimeError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        timeout = _dist.default_pg_timeout
    if not isinstance(timeout, _datetime.timedelta):
        raise TypeError("monitored_barrier(): argument 'timeout' must be a datetime.timedelta, not "
                        + type(timeout).__name__)
    _core.ProcessGroup.monitored_barrier(pg._handle, _dist._timeout_ms(timeout), bool(wait_all_ranks))
