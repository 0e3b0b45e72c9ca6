"""Gradient checkpointing (activation recomputation), as
torch.utils.checkpoint with use_reentrant=False.

    with tessera.checkpoint():           # a region: ops inside keep no
        h = tessera.relu(x @ w + b)      # activations for backward; backward
    loss = h.sum()                       # recomputes them from the region's
    loss.backward()                      # inputs (same gradients, bit for bit)

    y = tessera.checkpoint(block, x)     # torch's callable form
    y = tessera.checkpoint_sequential([f1, f2, f3, f4], 2, x)

A region belongs to the thread that began it (the C library keeps regions
thread-locally) and must end there; regions nest. Backward while a region is
open on the thread raises AutogradError. Options (see
include/tessera/checkpoint.h):

- preserve_rng_state (True): random ops (dropout) replay the same numbers
  when recomputed, so masks match;
- determinism_check (True, or torch's "default"/"none"): recomputed sizes and
  dtypes must equal the first run's, else backward raises AutogradError;
- early_stop (True): a replay stops once the tensors backward needs exist;
- keep_ops (None): op names (a list, or one comma-separated string, e.g.
  ["matmul", "add"]) whose outputs the region keeps instead of recomputing
  (torch's selective checkpointing with a fixed policy); an unknown name
  raises InvalidArgumentError naming it.
"""
import threading

from . import _core
from .errors import AutogradError, InvalidArgumentError, Status

__all__ = ["checkpoint", "checkpoint_sequential", "checkpoint_begin", "checkpoint_end",
           "checkpoint_depth"]


_OPTIONS = frozenset({"preserve_rng_state", "determinism_check", "early_stop", "keep_ops"})


def _keep_ops_arg(keep_ops):
    """None, a comma-separated string, or an iterable of op names -> the C
    string (None for none)."""
    if keep_ops is None:
        return None
    if isinstance(keep_ops, str):
        return keep_ops
    names = list(keep_ops)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"keep_ops: expected op names (str), got {type(name).__name__}")
    return ",".join(names) if names else None


def _determinism_arg(determinism_check):
    # torch spells it determinism_check="default" / "none".
    if isinstance(determinism_check, str):
        if determinism_check not in ("default", "none"):
            raise ValueError(f'determinism_check: expected "default" or "none" (or a bool), '
                             f'got {determinism_check!r}')
        return determinism_check == "default"
    return bool(determinism_check)


def _use_reentrant_arg(use_reentrant):
    if use_reentrant:
        raise ValueError("tessera's checkpoint is torch's use_reentrant=False only; "
                         "pass use_reentrant=False or leave it out")


def checkpoint_begin(preserve_rng_state=True, determinism_check=True, early_stop=True,
                     keep_ops=None):
    """Opens a region on the calling thread (tsr_checkpoint_begin). Prefer
    ``with tessera.checkpoint(...)``, which always ends it; a region begun here
    must be ended by checkpoint_end() on the same thread.
    InvalidArgumentError for an unknown keep_ops name (nothing is opened)."""
    _core.checkpoint_begin(bool(preserve_rng_state), _determinism_arg(determinism_check),
                           bool(early_stop), _keep_ops_arg(keep_ops))


def checkpoint_end():
    """Closes the calling thread's innermost region (tsr_checkpoint_end).
    AutogradError when none is open; nothing changes then."""
    _core.checkpoint_end()


def checkpoint_depth():
    """The number of regions open on the calling thread (0 outside any)."""
    return _core.checkpoint_depth()


class _Region:
    """What ``tessera.checkpoint(**options)`` returns: a with-block that
    begins a region on entry and ends it on exit, also when the body raises.
    The same object may be entered again (nested or later); each exit ends
    the region its matching entry began."""
    __slots__ = ("_options", "_threads")

    def __init__(self, options):
        self._options = options
        self._threads = []  # a stack: the thread of each entry not yet exited

    def __enter__(self):
        checkpoint_begin(**self._options)
        self._threads.append(threading.get_ident())
        return self

    def __exit__(self, *exc_info):
        if not self._threads:
            raise AutogradError(Status.AUTOGRAD, "checkpoint region exited without being entered")
        if self._threads[-1] != threading.get_ident():
            raise AutogradError(Status.AUTOGRAD,
                                "a checkpoint region must end on the thread that began it")
        self._threads.pop()
        _core.checkpoint_end()

    def __repr__(self):
        state = "open" if self._threads else "not entered"
        options = ", ".join(f"{k}={v!r}" for k, v in self._options.items())
        return f"<tessera.checkpoint region ({state}) {options}>"


def checkpoint(function=None, *args, use_reentrant=None, preserve_rng_state=True,
               determinism_check=True, early_stop=True, keep_ops=None, **kwargs):
    """torch.utils.checkpoint.checkpoint, use_reentrant=False.

    ``checkpoint(**options)``: a with-block region (see the module's doc):
        with tessera.checkpoint(keep_ops=["matmul"]):
            h = block(h)
    ``checkpoint(function, *args, **options, **kwargs)``: runs
    ``function(*args, **kwargs)`` inside a region and returns its result
    (torch's form; the keyword arguments that are not options go to
    function). The region ends whatever function does, raise included.
    """
    _use_reentrant_arg(use_reentrant)
    options = {"preserve_rng_state": preserve_rng_state, "determinism_check": determinism_check,
               "early_stop": early_stop, "keep_ops": keep_ops}
    if function is None:
        if args or kwargs:
            raise TypeError("checkpoint(): arguments without a function to call")
        # Checked now rather than on entry, so a bad option fails where it is written.
        _keep_ops_arg(keep_ops)
        _determinism_arg(determinism_check)
        return _Region(options)
    if not callable(function):
        raise TypeError(f"checkpoint(): expected a callable, got {type(function).__name__}")
    with _Region(options):
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **options):
    """torch.utils.checkpoint.checkpoint_sequential, use_reentrant=False: runs
    ``functions`` (a sequence of callables, each taking and returning one
    tensor) in order on input, in ``segments`` groups of
    ``len(functions) // segments``; the first ``segments - 1`` groups each
    run inside a region, the last (the rest of the functions) runs normally,
    as torch's does. Returns the last function's output. options: as
    checkpoint's. InvalidArgumentError when there is no function or segments
    is not in 1..len(functions)."""
    _use_reentrant_arg(use_reentrant)
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise TypeError(f"checkpoint_sequential(): unexpected keyword arguments {unknown}")
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())  # torch.nn.Sequential-like
    functions = list(functions)
    if not functions:
        raise InvalidArgumentError(Status.INVALID_ARGUMENT,
                                   "checkpoint_sequential: no functions to run")
    if isinstance(segments, bool) or not isinstance(segments, int) \
            or not 1 <= segments <= len(functions):
        raise InvalidArgumentError(
            Status.INVALID_ARGUMENT,
            f"checkpoint_sequential: segments must be between 1 and {len(functions)} "
            f"(the number of functions), got {segments!r}")

    def run(start, end):
        def forward(x):
            for f in functions[start:end]:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    start = 0
    for _ in range(segments - 1):
        input = checkpoint(run(start, start + size), input, **options)
        start += size
    return run(start, len(functions))(input)
