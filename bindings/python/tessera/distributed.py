"""tessera.distributed: torch.distributed of PyTorch 1.13 (the default
process group and its collectives) over include/tessera/distributed.h.

    import tessera as torch
    import tessera.distributed as dist
    dist.init_process_group("gloo")          # env://: MASTER_ADDR/PORT, RANK, WORLD_SIZE
    t = torch.ones(4) * (dist.get_rank() + 1)
    dist.all_reduce(t)                       # every rank: 1 + 2 + ... + world_size
    work = dist.broadcast(t, src=0, async_op=True)
    ...                                      # t must not be touched meanwhile
    work.wait()
    dist.destroy_process_group()

Ranks find each other through init_method "env://" (the default; what
tessera-run and torchrun set), "tcp://host:port" or "file:///dir". The
backend is Gloo over TCP for CPU tensors ("gloo", or None / "cpu:gloo"),
or "mpi" where tessera was built with Open MPI (is_mpi_available()): run
under mpirun, rank and world size come from MPI and init_method is not used
(as torch's MPI backend). "nccl" is not built and raises UnsupportedError
(a RuntimeError), as does "mpi" without the MPI module.

Where this differs from torch 1.13's Gloo process group:
- ReduceOp.AVG works (the sum divided by the world size, truncating for
  integers, as torch 2.x's NCCL); torch 1.13's Gloo refuses it.
- all_gather_into_tensor and reduce_scatter_tensor work (torch 1.13's Gloo
  refuses them; torch 2.x has the same semantics); all_gather goes through
  all_gather_into_tensor and then copies into tensor_list (with
  async_op=True the copies happen in Work.wait(), or in is_completed() once
  it returns True).
- A rank outside [0, world_size) or a world_size < 1 raises
  InvalidArgumentError (a ValueError) at once instead of waiting for the
  rendezvous's timeout.
- reduce, gather, scatter, all_to_all_single, all_to_all and the object
  collectives are composed over all_reduce, broadcast and
  all_gather_into_tensor (see _distributed_collectives.py for what that
  changes: reduce leaves the other ranks' tensors as they were, all_to_all
  works on Gloo); monitored_barrier goes through the group's store.
- new_group(ranks) refuses repeated ranks (torch 1.13 accepts them and
  then hangs); subgroups need no store-based barrier at their end.
- send() to this process's own rank raises InvalidArgumentError (torch
  1.13's Gloo crashes), a rank out of range InvalidArgumentError (torch:
  IndexError).
- BAND, BOR and BXOR also reduce bool tensors (logically); torch 1.13's
  Gloo takes no bool tensor.
- store= is not supported.

Failures of the rendezvous or of a collective (a peer died, hung past the
timeout, the store is unreachable) raise tessera.errors.DistBackendError,
a RuntimeError; a failed group refuses every later collective. Blocking
calls release the GIL, so other Python threads run meanwhile. On the main
thread a Ctrl-C interrupts a collective or Work.wait() within 0.1 s (torch
1.13 waits for the collective): the group is aborted (the peers fail with
DistBackendError instead of hanging) and KeyboardInterrupt is raised.
"""
import _thread
import datetime as _datetime
import enum as _enum
import threading as _threading

from . import _core
from . import errors as _errors
from ._tensor import Closable as _Closable

__all__ = [
    "Backend", "ReduceOp", "ProcessGroup", "Work", "GroupMember", "group", "default_pg_timeout",
    "is_available", "is_initialized", "is_gloo_available", "is_nccl_available", "is_mpi_available",
    "is_ucc_available", "is_torchelastic_launched", "init_process_group", "destroy_process_group",
    "get_rank", "get_world_size", "get_backend", "all_reduce", "broadcast", "all_gather",
    "all_gather_into_tensor", "reduce_scatter_tensor", "barrier", "DistBackendError", "new_group",
    "get_global_rank", "get_group_rank", "get_process_group_ranks", "send", "recv", "isend", "irecv",
]

DistBackendError = _errors.DistBackendError

#: torch.distributed.default_pg_timeout: 30 minutes.
default_pg_timeout = _datetime.timedelta(minutes=30)

_MAIN_THREAD = _threading.main_thread().ident


def _on_main_thread():
    """Where Python runs signal handlers (Ctrl-C's KeyboardInterrupt)."""
    return _thread.get_ident() == _MAIN_THREAD


_NOT_INITIALIZED = ("Default process group has not been initialized, "
                    "please make sure to call init_process_group.")


class Backend(str):
    """torch.distributed.Backend: the backend names as lower-case strings
    (Backend.GLOO == "gloo"); Backend(name) checks and lowers a name
    (ValueError for an unknown one)."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend name must be a string, but got: {}".format(name))
        value = {"gloo": Backend.GLOO, "nccl": Backend.NCCL, "ucc": Backend.UCC,
                 "mpi": Backend.MPI}.get(name.lower())
        if value is None:
            if name.lower() == "tcp":
                raise ValueError("TCP backend has been deprecated. Please use Gloo or MPI backend for "
                                 "collective operations on CPU tensors.")
            raise ValueError("Invalid backend: '{}'".format(name))
        return value


class ReduceOp(_enum.IntEnum):
    """torch.distributed.ReduceOp: SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR,
    BXOR (the values are tsr_reduce_op's and torch's RedOpType's). Bool
    tensors reduce as logical or (SUM, MAX, BOR), and (PRODUCT, MIN, BAND)
    and xor (BXOR); BAND, BOR and BXOR take integer and bool tensors only."""
    SUM = _core.REDUCE_SUM
    AVG = _core.REDUCE_AVG
    PRODUCT = _core.REDUCE_PRODUCT
    MIN = _core.REDUCE_MIN
    MAX = _core.REDUCE_MAX
    BAND = _core.REDUCE_BAND
    BOR = _core.REDUCE_BOR
    BXOR = _core.REDUCE_BXOR

    def __repr__(self):
        return "<ReduceOp.{}: {}>".format(self.name, int(self))


ReduceOp.RedOpType = ReduceOp  # torch 1.13's ReduceOp.RedOpType.SUM == ReduceOp.SUM


class Work(_Closable):
    """torch.distributed.Work: the handle of a collective issued with
    async_op=True. Its tensors must not be used until wait() returns (the
    library keeps them alive meanwhile, also when the Work is dropped)."""

    def __init__(self, handle, group, on_complete=None):
        self._handle = handle
        self._group = group
        self._on_complete = on_complete

    def _completed(self):
        if self._on_complete is not None:
            hook, self._on_complete = self._on_complete, None
            hook()

    def wait(self, timeout=_datetime.timedelta(0)):
        """Waits for the collective (timeout: a datetime.timedelta; 0 means
        the group's timeout) and returns True. Raises DistBackendError when
        it failed or did not finish in time; a wait that times out aborts
        the group, as the collective cannot be cancelled."""
        if not isinstance(timeout, _datetime.timedelta):
            raise TypeError("wait(): argument 'timeout' must be a datetime.timedelta, not "
                            + type(timeout).__name__)
        if not timeout and _on_main_thread():
            _wait_interruptible(self._handle, self._group)
        else:
            _core.Work.wait(self._handle, _timeout_ms(timeout) if timeout else -1)
        self._completed()
        return True

    def _source_rank(self):
        """torch's Work._source_rank(): the sender's rank in the group of a
        completed recv/irecv."""
        return _core.Work.source_rank(self._handle)

    def is_completed(self):
        """Whether the collective has finished (successfully or not); never
        blocks."""
        done = _core.Work.is_completed(self._handle)
        if done and self._on_complete is not None:
            try:
                _core.Work.wait(self._handle, -1)  # returns at once; raises its failure
            except _errors.Error:
                return True  # the failure is raised again by wait()
            self._completed()
        return done

    def close(self):
        """Drops the handle (the collective still runs to its end)."""
        _core._release(self._handle)


class ProcessGroup(_Closable):
    """torch.distributed.ProcessGroup: the group init_process_group made
    (group.WORLD), or one of new_group's. rank() and size() as torch's."""

    def __init__(self, handle):
        self._handle = handle
        self._aborted_by = None  # the exception that interrupted a wait (Ctrl-C)

    def rank(self):
        return _core.ProcessGroup.rank(self._handle)

    def size(self):
        return _core.ProcessGroup.size(self._handle)

    def name(self):
        return _core.ProcessGroup.backend(self._handle)

    def close(self):
        """Releases the group now (waits for its queued collectives)."""
        _core._release(self._handle)

    def __repr__(self):
        if not _core._is_open(self._handle):
            return "<tessera.distributed.ProcessGroup (destroyed)>"
        return "<tessera.distributed.ProcessGroup {} rank {} of {}>".format(self.name(), self.rank(), self.size())


class GroupMember:
    """torch.distributed.GroupMember: WORLD is the default group (None
    before init_process_group)."""
    WORLD = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801  (torch's name)
    """torch.distributed.group: group.WORLD is the default group."""
    WORLD = None


def _set_world(pg):
    GroupMember.WORLD = group.WORLD = pg


def is_available():
    """torch.distributed.is_available(): True (Gloo is built in)."""
    return True


def is_initialized():
    """Whether init_process_group has made the default group."""
    return GroupMember.WORLD is not None


def is_gloo_available():
    return True


def is_nccl_available():
    """Whether NCCL can be used: the CUDA plugin starts (a CUDA device) and
    NCCL (libnccl.so.2, or $TSR_NCCL_LIBRARY) loads."""
    return _core.ProcessGroup.available(_core.DIST_NCCL)


def is_mpi_available():
    """Whether the MPI module (libtessera_mpi.so) loads; MPI itself starts
    with the first "mpi" group."""
    return _core.ProcessGroup.available(_core.DIST_MPI)


def is_ucc_available():
    return False


def is_torchelastic_launched():
    """torch's test: TORCHELASTIC_RUN_ID is set (torchrun, tessera-run)."""
    import os
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _timeout_ms(timeout):
    """A timedelta as whole milliseconds (rounded up, at least 1)."""
    ms = -(-timeout // _datetime.timedelta(milliseconds=1))
    if ms <= 0:
        raise ValueError("timeout must be positive, got {}".format(timeout))
    return ms


def _backend_code(backend):
    """The tsr_dist_backend of init_process_group's backend argument: None
    (Gloo for CPU tensors, NCCL for CUDA ones, as torch 2.x), a name, or
    torch 2.x's "cpu:gloo,cuda:nccl" form."""
    if backend is None:
        return _core.DIST_DEFAULT
    if isinstance(backend, str) and ":" in backend:
        pairs = {}
        for item in backend.split(","):
            device, _, name = item.partition(":")
            if not name or device.strip().lower() not in ("cpu", "cuda"):
                raise ValueError("Invalid backend: '{}'".format(backend))
            pairs[device.strip().lower()] = Backend(name.strip())
        if pairs.get("cpu") == Backend.GLOO and pairs.get("cuda", Backend.NCCL) == Backend.NCCL:
            return _core.DIST_GLOO if "cuda" not in pairs else _core.DIST_DEFAULT
        backend = pairs.get("cpu", pairs.get("cuda"))
    name = Backend(backend)
    if name == Backend.UCC:
        raise _errors.UnsupportedError(_errors.Status.UNSUPPORTED,
                                       "the UCC backend is not built in this version of tessera; use gloo")
    return {Backend.GLOO: _core.DIST_GLOO, Backend.NCCL: _core.DIST_NCCL, Backend.MPI: _core.DIST_MPI}[name]


def init_process_group(backend=None, init_method=None, timeout=default_pg_timeout, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None):
    """torch.distributed.init_process_group: joins the rendezvous of
    init_method ("env://" when None, "tcp://host:port", "file:///dir") and
    connects to every other rank; returns when all world_size ranks have
    joined. rank and world_size -1 come from the environment (RANK,
    WORLD_SIZE). timeout (a datetime.timedelta) bounds the rendezvous and
    every collective. store= and pg_options are not supported."""
    if not isinstance(timeout, _datetime.timedelta):
        raise RuntimeError("Expected timeout argument to be of type datetime.timedelta")
    if GroupMember.WORLD is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if store is not None:
        if init_method is not None:
            raise ValueError("Cannot specify both init_method and store.")
        raise _errors.UnsupportedError(_errors.Status.UNSUPPORTED,
                                       "init_process_group: store= is not supported by tessera; give "
                                       "init_method (env://, tcp://host:port or file:///dir)")
    code = _backend_code(backend)
    if pg_options is not None and code in (_core.DIST_GLOO, _core.DIST_DEFAULT):
        raise RuntimeError("GLOO options not supported")
    handle = _core.ProcessGroup.create(code, init_method, int(rank), int(world_size), _timeout_ms(timeout))
    _set_world(ProcessGroup(handle))


def _group(group_arg):
    """The ProcessGroup a call names (None: the default group)."""
    if group_arg is None or group_arg is GroupMember.WORLD:
        if GroupMember.WORLD is None:
            raise RuntimeError(_NOT_INITIALIZED)
        return GroupMember.WORLD
    if isinstance(group_arg, ProcessGroup) and _core._is_open(group_arg._handle):
        return group_arg
    raise RuntimeError("Invalid process group specified")


# The groups new_group made (destroy_process_group() closes them too).
_subgroups = []


def destroy_process_group(group=None):
    """torch.distributed.destroy_process_group: waits for the group's queued
    collectives and closes its connections. Without group, every group
    (new_group's too) and the default group is forgotten (a later
    init_process_group makes a new one)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = _group(group)
    if group is None or group is GroupMember.WORLD:
        for sub in _subgroups:
            sub.close()
        del _subgroups[:]
        _set_world(None)
    elif pg in _subgroups:
        _subgroups.remove(pg)
    pg.close()


def get_rank(group=None):
    """This process's rank in the group, in [0, get_world_size()); -1 for
    GroupMember.NON_GROUP_MEMBER."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None):
    """The number of processes in the group; -1 for
    GroupMember.NON_GROUP_MEMBER."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """torch.distributed.new_group: a group of the default group's ranks
    (all of them when None; the new ranks follow their sorted order), with
    connections and a worker of its own. Every rank of the default group
    calls it, in the same order; the ranks outside get
    GroupMember.NON_GROUP_MEMBER. timeout (a datetime.timedelta; None: 30
    minutes, torch's default_pg_timeout) bounds its collectives."""
    world = _group(None)
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, _datetime.timedelta):
        raise RuntimeError("Expected timeout argument to be of type datetime.timedelta")
    if backend is not None and Backend(backend) != Backend.GLOO:
        raise _errors.UnsupportedError(_errors.Status.UNSUPPORTED,
                                       "new_group: backend {!r}: subgroups use the default group's backend "
                                       "(gloo)".format(backend))
    if pg_options is not None:
        raise RuntimeError("GLOO options not supported")
    if ranks is None:
        handle = _core.ProcessGroup.new_group(world._handle, [], True, _timeout_ms(timeout))
    else:
        ranks = [int(r) for r in ranks]
        if len(ranks) > world.size():
            raise RuntimeError("the new group's world size should be less or equal to the world size set by "
                               "init_process_group")
        if any(r < 0 or r >= world.size() for r in ranks):
            raise RuntimeError("The new group's rank should be within the the world_size set by "
                               "init_process_group")
        handle = _core.ProcessGroup.new_group(world._handle, ranks, False, _timeout_ms(timeout))
    if handle is None:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(handle)
    _subgroups.append(pg)
    return pg


def get_group_rank(group, global_rank):
    """torch.distributed.get_group_rank: group's rank of the process whose
    rank in the default group is global_rank (RuntimeError when it is not a
    member)."""
    if group is GroupMember.WORLD:
        return global_rank
    ranks = get_process_group_ranks(group)
    if global_rank not in ranks:
        raise RuntimeError("Global rank {} is not part of group {}".format(global_rank, group))
    return ranks.index(global_rank)


def get_global_rank(group, group_rank):
    """torch.distributed.get_global_rank: the default group's rank of
    group's rank group_rank (RuntimeError when out of range)."""
    if group is GroupMember.WORLD:
        return group_rank
    pg = _group(group)
    if not 0 <= group_rank < pg.size():
        raise RuntimeError("Group rank {} is not part of group {}".format(group_rank, group))
    return _core.ProcessGroup.global_rank(pg._handle, group_rank)


def get_process_group_ranks(group):
    """torch.distributed.get_process_group_ranks: the default group's ranks
    of group's members, in group rank order."""
    pg = _group(group)
    return [_core.ProcessGroup.global_rank(pg._handle, r) for r in range(pg.size())]


def get_backend(group=None):
    """The group's backend for CPU tensors: "gloo" or "mpi"."""
    return Backend(_group(group).name())


def _check_single_tensor(param, param_name):
    if not isinstance(param, _core.Tensor):
        raise RuntimeError("Invalid function argument. Expected parameter `{}` to be of type "
                           "tessera.Tensor.".format(param_name))


def _check_op(fn, op):
    if not isinstance(op, ReduceOp):
        raise TypeError("{}(): argument 'op' must be a tessera.distributed.ReduceOp, not {}".format(
            fn, type(op).__name__))
    return int(op)


def _wait_interruptible(handle, pg):
    """Waits for a Work; a Ctrl-C (any exception of a signal handler)
    aborts pg and abandons it (see python_distributed.i: the exit must not
    wait for the aborted collective's Gloo timeout)."""
    try:
        _core.Work.wait_interruptible(handle)
    except _errors.Error:
        raise
    except BaseException as e:
        _core.ProcessGroup.abandon(pg._handle)
        # The library refuses later work only once the aborted collective
        # ends (its Gloo timeout): refuse it here at once.
        pg._aborted_by = type(e).__name__
        raise


def _check_not_aborted(pg):
    if pg._aborted_by is not None:
        raise _errors.DistBackendError(
            _errors.Status.DISTRIBUTED, "the process group was aborted by a {} during a collective and takes no "
            "more work".format(pg._aborted_by))


def _run(pg, issue, async_op, on_complete=None):
    """Runs a collective: issue(async) is the native call. With async_op a
    Work; else None once complete. On the main thread a blocking collective
    is queued and waited for with wait_interruptible, so that Ctrl-C
    interrupts it (elsewhere the native call itself blocks)."""
    _check_not_aborted(pg)
    if async_op:
        return Work(issue(True), pg, on_complete)
    if _on_main_thread():
        handle = issue(True)
        try:
            _wait_interruptible(handle, pg)
        finally:
            _core._release(handle)
    else:
        issue(False)
    if on_complete is not None:
        on_complete()
    return None


def _not_in_group(group, op_name):
    """torch's _rank_not_in_group: a call on NON_GROUP_MEMBER warns and does
    nothing."""
    if group is not GroupMember.NON_GROUP_MEMBER:
        return False
    import warnings
    world = GroupMember.WORLD
    warnings.warn("Running {} on global rank {} which does not belong to the given group.".format(
        op_name, -1 if world is None else world.rank()))
    return True


def _peer_in(pg, group, rank):
    """The group's rank of the default group's rank `rank` (torch's send and
    recv take global ranks)."""
    rank = int(rank)
    if group is None or group is GroupMember.WORLD:
        return rank
    return get_group_rank(pg, rank)


def isend(tensor, dst, group=None, tag=0):
    """torch.distributed.isend: sends tensor to global rank dst; returns the
    Work (tensor must not be written until it completes)."""
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "isend"):
        return None
    pg = _group(group)
    peer = _peer_in(pg, group, dst)
    return _run(pg, lambda a: _core.ProcessGroup.send(pg._handle, tensor, peer, int(tag), a), True)


def send(tensor, dst, group=None, tag=0):
    """torch.distributed.send: sends tensor to global rank dst and returns
    once dst received it (tag matches the receiver's)."""
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "send"):
        return None
    pg = _group(group)
    peer = _peer_in(pg, group, dst)
    _run(pg, lambda a: _core.ProcessGroup.send(pg._handle, tensor, peer, int(tag), a), False)
    return None


def irecv(tensor, src=None, group=None, tag=0):
    """torch.distributed.irecv: receives into tensor from global rank src
    (None: any rank); returns the Work."""
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "irecv"):
        return None
    pg = _group(group)
    peer = -1 if src is None else _peer_in(pg, group, src)
    return _run(pg, lambda a: _core.ProcessGroup.irecv(pg._handle, tensor, peer, int(tag)), True)


def recv(tensor, src=None, group=None, tag=0):
    """torch.distributed.recv: receives into tensor from global rank src
    (None: any rank) and returns the sender's global rank (-1 when this
    process is not in group)."""
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "recv"):
        return -1
    pg = _group(group)
    peer = -1 if src is None else _peer_in(pg, group, src)
    _check_not_aborted(pg)
    if _on_main_thread():  # interruptible, as _run's blocking collectives
        work = Work(_core.ProcessGroup.irecv(pg._handle, tensor, peer, int(tag)), pg)
        try:
            _wait_interruptible(work._handle, pg)
            source = work._source_rank()
        finally:
            work.close()
    else:
        source = _core.ProcessGroup.recv(pg._handle, tensor, peer, int(tag))
    if group is None or group is GroupMember.WORLD:
        return source
    return get_global_rank(pg, source)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """torch.distributed.all_reduce: every rank's tensor (in place) becomes
    the reduction of all ranks' tensors (the same sizes and dtype on each)."""
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "all_reduce"):
        return None
    code = _check_op("all_reduce", op)
    pg = _group(group)
    return _run(pg, lambda a: _core.ProcessGroup.all_reduce(pg._handle, tensor, code, a), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """torch.distributed.broadcast: every rank's tensor (in place) becomes
    rank src's."""
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "broadcast"):
        return None
    pg = _group(group)
    src = _peer_in(pg, group, src)
    return _run(pg, lambda a: _core.ProcessGroup.broadcast(pg._handle, tensor, src, a), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """torch.distributed.all_gather_into_tensor: output_tensor holds every
    rank's input_tensor, rank r's at elements [r*n, (r+1)*n) in C order
    (torch's [world*d0, ...] concatenation or [world, d0, ...] stack forms)."""
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    if _not_in_group(group, "all_gather_into_tensor"):
        return None
    pg = _group(group)
    return _run(pg, lambda a: _core.ProcessGroup.all_gather_into_tensor(pg._handle, output_tensor, input_tensor, a),
                async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """torch.distributed.reduce_scatter_tensor: output is chunk rank of the
    reduction of every rank's input (world_size * output.numel() elements)."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    code = _check_op("reduce_scatter_tensor", op)
    if _not_in_group(group, "reduce_scatter_tensor"):
        return None
    pg = _group(group)
    return _run(pg, lambda a: _core.ProcessGroup.reduce_scatter_tensor(pg._handle, output, input, code, a), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """torch.distributed.all_gather: tensor_list[r] (in place) becomes rank
    r's tensor; tensor_list holds world_size tensors of tensor's sizes and
    dtype."""
    if not isinstance(tensor_list, list) or not all(isinstance(t, _core.Tensor) for t in tensor_list):
        raise RuntimeError("Invalid function argument. Expected parameter `tensor_list` to be of type "
                           "List[tessera.Tensor].")
    _check_single_tensor(tensor, "tensor")
    if _not_in_group(group, "all_gather"):
        return None
    for t in tensor_list:
        if t.dtype != tensor.dtype:
            raise _errors.DTypeMismatchError(
                _errors.Status.DTYPE_MISMATCH,
                "Invalid usage of tensors with different dtypes. Found {} and {}".format(t.dtype, tensor.dtype))
    pg = _group(group)
    world = pg.size()
    if len(tensor_list) != world:
        raise _errors.ShapeMismatchError(
            _errors.Status.SHAPE_MISMATCH,
            "all_gather: invalid output tensor list (expected length {}, got {})".format(world, len(tensor_list)))
    sizes = tuple(tensor.shape)
    for i, t in enumerate(tensor_list):
        if tuple(t.shape) != sizes:
            raise _errors.ShapeMismatchError(
                _errors.Status.SHAPE_MISMATCH, "all_gather: invalid tensor size at index {} (expected {}, got {})"
                .format(i, list(sizes), list(t.shape)))
    from ._factories import empty
    from ._grad import no_grad
    gathered = empty((world,) + sizes, dtype=tensor.dtype, device=tensor.device)

    def scatter_into_list():
        with no_grad():
            for i, t in enumerate(tensor_list):
                t.copy_(gathered[i])

    return _run(pg, lambda a: _core.ProcessGroup.all_gather_into_tensor(pg._handle, gathered, tensor, a), async_op,
                scatter_into_list)


def barrier(group=None, async_op=False, device_ids=None):
    """torch.distributed.barrier: returns when every rank has entered it."""
    if _not_in_group(group, "barrier"):
        return None
    pg = _group(group)
    return _run(pg, lambda a: _core.ProcessGroup.barrier(pg._handle, a), async_op)


# torch.distributed.algorithms.ddp_comm_hooks.default_hooks (the built-in
# DistributedDataParallel hooks; tessera.nn.parallel runs them).
from . import _ddp_comm_hooks  # noqa: E402
algorithms = _ddp_comm_hooks.algorithms

# torch.distributed's collectives composed in Python over the ones above:
# reduce, gather, scatter, all_to_all_single, all_to_all, the object
# collectives and monitored_barrier (_distributed_collectives.py).
from . import _distributed_collectives  # noqa: E402
from ._distributed_collectives import (  # noqa: E402,F401
    reduce, gather, scatter, all_to_all_single, all_to_all, all_gather_object, broadcast_object_list,
    gather_object, scatter_object_list, monitored_barrier)
__all__ += _distributed_collectives.__all__
