"""torch.autocast over the C library's per-thread regions (tsr_autocast_begin
/ end): a context manager and decorator with torch's signature, plus
torch.cpu.amp.autocast / torch.cuda.amp.autocast and the torch.* queries
(is_autocast_cpu_enabled, get_autocast_cpu_dtype, ...).

    with tessera.autocast("cpu", dtype=tessera.bfloat16):
        loss = loss_fn(model(x), y)       # linear/conv/matmul in bfloat16,
    loss.backward()                       # losses in float32

The op lists are torch 1.13's (docs/AMP.md). torch 1.13 refuses float16 on
the CPU; tessera accepts it, as torch 2.x does. As torch does on a machine
without CUDA, a "cuda" region there warns and is disabled."""
import functools
import warnings

from . import _core
from ._dtypes import DTYPE_OF, dtype as _dtype

_DEVICE_TYPES = {"cpu": _core.DEVICE_CPU, "cuda": _core.DEVICE_CUDA}


def is_autocast_enabled():
    """torch.is_autocast_enabled(): CUDA autocast on this thread."""
    return bool(_core.is_autocast_enabled(_core.DEVICE_CUDA))


def is_autocast_cpu_enabled():
    return bool(_core.is_autocast_enabled(_core.DEVICE_CPU))


def get_autocast_gpu_dtype():
    return DTYPE_OF[int(_core.get_autocast_dtype(_core.DEVICE_CUDA))]


def get_autocast_cpu_dtype():
    return DTYPE_OF[int(_core.get_autocast_dtype(_core.DEVICE_CPU))]


def is_autocast_cache_enabled():
    return bool(_core.is_autocast_cache_enabled())


def set_autocast_cache_enabled(enabled):
    _core.set_autocast_cache_enabled(bool(enabled))


def clear_autocast_cache():
    _core.clear_autocast_cache()


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
    inside the block, the listed ops on device_type's tensors run in dtype
    (bfloat16 on the CPU, float16 on CUDA by default) or in float32. Usable as
    a decorator; the same object may be entered again while inside."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if device_type not in _DEVICE_TYPES:
            raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu', but got "
                               + str(device_type))
        self.device = device_type
        self._device_type = _DEVICE_TYPES[device_type]
        if dtype is None:
            dtype = DTYPE_OF[int(_core.get_autocast_dtype(self._device_type))]
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        if dtype not in (_dtype.bfloat16, _dtype.float16):
            kind = "CPU" if device_type == "cpu" else "CUDA"
            warnings.warn(f"In {kind} autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\n{kind} Autocast only supports dtypes of torch.bfloat16 and "
                          "torch.float16 currently.")
            self._enabled = False
            self.fast_dtype = DTYPE_OF[int(_core.get_autocast_dtype(self._device_type))]
        if device_type == "cuda" and self._enabled and not _core.cuda_is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            self._enabled = False
        self._previous_cache = []  # a stack: the object may be entered while inside

    def __enter__(self):
        _core.autocast_begin(self._device_type, int(self.fast_dtype), self._enabled)
        self._previous_cache.append(_core.set_autocast_cache_enabled(self._cache_enabled))
        return self

    def __exit__(self, *exc_info):
        _core.set_autocast_cache_enabled(self._previous_cache.pop())
        _core.autocast_end()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def decorate_autocast(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return decorate_autocast


class cpu_autocast(autocast):
    """torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=_dtype.bfloat16, cache_enabled=True):
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class cuda_autocast(autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
