"""The caching allocator's statistics and controls, with the names of
torch.cuda.memory_* (here for each tessera device, the CPU by default)."""
from . import _core
from ._dtypes import device_args

_STATS = ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
          "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")
_FIELDS = ("current", "peak", "allocated", "freed")
_EVENTS = ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free")


def memory_stats(device=None):
    """A dict like torch.cuda.memory_stats(): "allocated_bytes.all.current",
    ..., "num_device_alloc"."""
    stats = _core.memory_stats(*device_args(device))
    out = {}
    for name in _STATS:
        stat = getattr(stats, name)
        for field in _FIELDS:
            out[f"{name}.all.{field}"] = getattr(stat, field)
    for name in _EVENTS:
        out[name] = getattr(stats, name)
    return out


def memory_allocated(device=None):
    """Bytes in allocated blocks now."""
    return _core.memory_allocated(*device_args(device))


def max_memory_allocated(device=None):
    return _core.max_memory_allocated(*device_args(device))


def memory_reserved(device=None):
    """Bytes in segments held from the OS, allocated or cached."""
    return _core.memory_reserved(*device_args(device))


def max_memory_reserved(device=None):
    return _core.max_memory_reserved(*device_args(device))


def reset_peak_memory_stats(device=None):
    _core.reset_peak_memory_stats(*device_args(device))


def reset_accumulated_memory_stats(device=None):
    _core.reset_accumulated_memory_stats(*device_args(device))


def empty_cache(device=None):
    """Returns cached segments that hold no allocated block to the OS."""
    _core.empty_cache(*device_args(device))


def set_memory_limit(nbytes, device=None):
    """Caps reserved bytes (0 removes the cap)."""
    _core.set_memory_limit(nbytes, *device_args(device))


def memory_limit(device=None):
    """The cap set by set_memory_limit, in bytes (0: none)."""
    return _core.memory_limit(*device_args(device))
