"""tessera.cuda: torch.cuda's namespace over the CUDA plugin.

    if tessera.cuda.is_available():
        x = x.cuda()
        start, end = tessera.cuda.Event(enable_timing=True), tessera.cuda.Event(enable_timing=True)
        start.record(); y = x @ x; end.record(); end.synchronize()
        print(start.elapsed_time(end), "ms", tessera.cuda.memory_allocated())

On a machine without a usable GPU (no plugin, no driver, no device) these
behave as torch's do there: is_available() is False, device_count() 0, the
memory statistics 0 (memory_stats() empty), empty_cache() does nothing, and
whatever needs a device (current_device, synchronize, Stream, Event.record,
moving a tensor) raises CUDAUnavailableError, an AssertionError as torch's
"Torch not compiled with CUDA enabled" is.
"""
import contextlib
import json
import sys
import threading
import types

from . import _core
from . import _memory
from ._autocast import cuda_autocast
from ._dtypes import device as _device
from ._tensor import CUDAUnavailableError

__all__ = ["is_available", "device_count", "current_device", "set_device", "device", "synchronize",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "empty_cache", "memory_stats", "memory_summary",
           "memory_snapshot", "Event", "Stream", "stream", "current_stream", "default_stream",
           "CUDAUnavailableError", "memory", "amp"]

_CUDA = _core.DEVICE_CUDA
_state = threading.local()  # the current device index of each thread, as torch's


def is_available():
    """A CUDA plugin is loaded and sees at least one GPU."""
    return bool(_core.cuda_is_available())


def device_count():
    return int(_core.cuda_device_count())


def _require():
    if not is_available():
        raise CUDAUnavailableError(int(_core.ERR_UNSUPPORTED),
                                   "CUDA is not available: no CUDA plugin, driver or GPU "
                                   "(tessera.cuda.is_available() is False)")


def _index(dev):
    """A device argument (None: the current device, an int, "cuda:N", a
    device) as an index."""
    if dev is None:
        return getattr(_state, "index", 0)
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev
    d = _device(dev)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return getattr(_state, "index", 0) if d.index is None else d.index


def current_device():
    _require()
    return _index(None)


def set_device(dev):
    _require()
    index = _index(dev)
    if not 0 <= index < device_count():
        raise ValueError(f"invalid device ordinal {index} (device_count() is {device_count()})")
    _state.index = index


@contextlib.contextmanager
def device(dev):
    """torch.cuda.device(d): makes d current inside the block."""
    previous = getattr(_state, "index", 0)
    set_device(dev)
    try:
        yield
    finally:
        _state.index = previous


def synchronize(dev=None):
    """Waits for every stream of the device."""
    _require()
    _core.cuda_synchronize(_index(dev))


# ---- memory: torch.cuda.memory_* over the device's caching allocator ----------
def _stat(fn, dev):
    return fn(_device("cuda", _index(dev))) if is_available() else 0


def memory_allocated(device=None):
    """Bytes in allocated blocks on the device (0 without CUDA, as torch)."""
    return _stat(_memory.memory_allocated, device)


def max_memory_allocated(device=None):
    return _stat(_memory.max_memory_allocated, device)


def memory_reserved(device=None):
    return _stat(_memory.memory_reserved, device)


def max_memory_reserved(device=None):
    return _stat(_memory.max_memory_reserved, device)


def reset_peak_memory_stats(device=None):
    if is_available():
        _memory.reset_peak_memory_stats(_device("cuda", _index(device)))


def empty_cache():
    """Returns unused cached segments of the current device to the driver
    (nothing to do without CUDA)."""
    if is_available():
        _memory.empty_cache(_device("cuda", _index(None)))


def memory_stats(device=None):
    """torch.cuda.memory_stats(): the flat dict ("allocated_bytes.all.current",
    ...); empty without CUDA, as torch's."""
    return _memory.memory_stats(_device("cuda", _index(device))) if is_available() else {}


def memory_summary(device=None, abbreviated=False):
    """The statistics as torch's text table."""
    _require()
    return _core.memory_summary(_CUDA, _index(device))


def memory_snapshot():
    """torch.cuda.memory_snapshot(): the segments of the current device
    with their blocks (the snapshot's "segments" list)."""
    return _snapshot()["segments"]


def _snapshot(device=None):
    _require()
    return json.loads(_core.memory_snapshot(_CUDA, _index(device)))


def _record_memory_history(enabled=True, max_entries=1, device=None, **_torch_options):
    """torch.cuda.memory._record_memory_history: keep the newest max_entries
    allocator events (with enabled=False: stop and drop them). torch's
    stack-trace options are accepted and ignored (no Python frames are
    recorded)."""
    _require()
    if isinstance(enabled, str):  # torch 2.x spells it enabled="all" / None
        enabled = enabled != "None"
    _core.memory_record_history(_CUDA, _index(device), bool(enabled),
                                max(int(max_entries), 1) if enabled else 1)


# ---- streams and events -----------------------------------------------------------
class Stream:
    """torch.cuda.Stream(device=None, priority=0): a new stream from the
    device's pool."""

    def __init__(self, device=None, priority=0, _handle=None):
        self.device_index = _index(device)
        if _handle is None:
            _require()
            _handle = _core._stream_create(_CUDA, self.device_index)
        self._handle = _handle

    @property
    def device(self):
        return _device("cuda", self.device_index)

    @property
    def stream_id(self):
        return _core._stream_id(self._handle)

    def synchronize(self):
        _core._stream_synchronize(self._handle)

    def query(self):
        """True when all work queued on the stream has completed."""
        return _core._stream_query(self._handle)

    def wait_event(self, event):
        event._ensure()
        _core._stream_wait_event(self._handle, event._handle)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self.stream_id == other.stream_id

    def __hash__(self):
        return hash(self.stream_id)

    def __repr__(self):
        return f"<tessera.cuda.Stream device={self.device} id={self.stream_id}>"

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None and not sys.is_finalizing():
            _core._stream_release(handle)


def current_stream(device=None):
    _require()
    return Stream(device, _handle=_core._stream_current(_CUDA, _index(device)))


def default_stream(device=None):
    _require()
    return Stream(device, _handle=_core._stream_default(_CUDA, _index(device)))


@contextlib.contextmanager
def stream(s):
    """torch.cuda.stream(s): s is the current stream inside the block (None:
    nothing changes)."""
    if s is None:
        yield
        return
    previous = current_stream()
    _core._stream_set_current(s._handle)
    try:
        yield
    finally:
        _core._stream_set_current(previous._handle)


class Event:
    """torch.cuda.Event(enable_timing=False, blocking=False,
    interprocess=False); the native event is made on first record, as
    torch's."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = bool(enable_timing)
        self._handle = None

    def _ensure(self):
        if self._handle is None:
            self._handle = _core._event_create(self.enable_timing)

    def record(self, stream=None):
        """Marks the point the stream (None: the current one) has reached."""
        stream = current_stream() if stream is None else stream
        self._ensure()
        _core._event_record(self._handle, stream._handle)

    def wait(self, stream=None):
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self):
        return True if self._handle is None else _core._event_query(self._handle)

    def synchronize(self):
        if self._handle is not None:
            _core._event_synchronize(self._handle)

    def elapsed_time(self, end_event):
        """Milliseconds from this event to end_event (both recorded with
        enable_timing, and completed)."""
        if self._handle is None or end_event._handle is None:
            raise ValueError("elapsed_time: both events must be recorded first")
        return _core._event_elapsed_time(self._handle, end_event._handle)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None and not sys.is_finalizing():
            _core._event_release(handle)


# tessera.cuda.memory: torch.cuda.memory's names (a module, so that
# `import tessera.cuda.memory` works too; __init__ registers it).
memory = types.ModuleType("tessera.cuda.memory", "torch.cuda.memory's names")
for _name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
              "memory_stats", "memory_summary", "memory_snapshot", "reset_peak_memory_stats",
              "empty_cache", "_record_memory_history", "_snapshot"):
    setattr(memory, _name, globals()[_name])
del _name

amp = types.ModuleType("tessera.cuda.amp", "torch.cuda.amp's names")
amp.autocast = cuda_autocast
