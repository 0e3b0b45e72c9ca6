"""Tensor factories, as torch's: empty, zeros, ones, full, arange,
empty_strided, tensor (from Python data or any buffer), and the *_like
forms. Sizes may be given as separate ints or one sequence. Every factory
makes a new CPU tensor; dtype None means float32 (int64 for arange over ints,
inferred for full and tensor)."""
import numbers

from . import _core
from ._dtypes import dtype as _dtype, dtype_of_format, device_args, memory_format as _mf
from ._tensor import sizes_arg

_N = _core.Tensor
_CONTIGUOUS = int(_mf.contiguous_format)


def _finish(tensor, requires_grad):
    if requires_grad:
        tensor.requires_grad = True
    return tensor


def _float_default(dtype):
    return _core.FLOAT32 if dtype is None else dtype


def empty(*size, dtype=None, memory_format=None, device=None, requires_grad=False):
    """Uninitialised elements (memory_format None: contiguous)."""
    # Written out rather than through the helpers: the most frequent factory,
    # and every argument passed to the native call costs time to parse.
    if len(size) == 1 and (size[0].__class__ in (tuple, list) or hasattr(size[0], "__len__")):
        size = size[0]
    if dtype is None:
        dtype = _core.FLOAT32
    if memory_format is None and device is None:
        t = _N.empty(size, dtype)
    else:
        t = _N.empty(size, dtype, _CONTIGUOUS if memory_format is None else memory_format,
                     *device_args(device))
    if requires_grad:
        t.requires_grad = True
    return t


def empty_strided(size, stride, dtype=None, device=None, requires_grad=False):
    t = _N.empty_strided(size, stride, _float_default(dtype), *device_args(device))
    return _finish(t, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    t = _N.zeros(sizes_arg(size), _float_default(dtype), *device_args(device))
    return _finish(t, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    t = _N.ones(sizes_arg(size), _float_default(dtype), *device_args(device))
    return _finish(t, requires_grad)


def _dtype_of_scalar(value):
    if isinstance(value, bool):
        return _dtype.bool
    if isinstance(value, numbers.Integral):
        return _dtype.int64
    return _dtype.float32


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """Every element fill_value; dtype None follows fill_value's kind."""
    if dtype is None:
        dtype = _dtype_of_scalar(fill_value)
    t = _N.full(size, fill_value, dtype, *device_args(device))
    return _finish(t, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """start, start+step, ... below end (arange(n) counts 0..n-1); int64
    unless a bound or step is a float."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        all_ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _dtype.int64 if all_ints else _dtype.float32
    t = _N.arange(start, end, step, dtype, *device_args(device))
    return _finish(t, requires_grad)


def empty_like(t, dtype=None, requires_grad=False):
    return empty(t.shape, dtype=t.dtype if dtype is None else dtype, requires_grad=requires_grad)


def zeros_like(t, dtype=None, requires_grad=False):
    return zeros(t.shape, dtype=t.dtype if dtype is None else dtype, requires_grad=requires_grad)


def ones_like(t, dtype=None, requires_grad=False):
    return ones(t.shape, dtype=t.dtype if dtype is None else dtype, requires_grad=requires_grad)


def full_like(t, fill_value, dtype=None, requires_grad=False):
    return full(t.shape, fill_value, dtype=t.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


def tensor(data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of data: a number, nested sequences of
    numbers, a Tensor, or any object with the buffer protocol (array.array,
    memoryview, NumPy arrays) whose format is a tessera dtype. dtype None
    infers it as torch: bool, else int64 for integers, else float32 (a
    buffer keeps its own element type)."""
    if isinstance(data, _N):
        t = data.to(dtype, copy=True) if dtype is not None else _N.clone(data)
        return _finish(_N.detach(t), requires_grad)
    if isinstance(data, (bytes, str)):
        # torch refuses both; a silent byte-by-byte conversion would hide
        # that the caller meant to reinterpret the bytes (frombuffer).
        hint = ("; tessera.frombuffer(buffer, dtype=...) reinterprets bytes as elements"
                if isinstance(data, bytes) else "")
        raise TypeError(f"new(): invalid data type '{type(data).__name__}' (tensor() takes a number, "
                        f"nested sequences of numbers, a Tensor or a buffer{hint})")
    if isinstance(data, bytearray):
        data = list(data)  # torch: a sequence of small ints (int64 unless dtype says)
    view = _buffer_view(data)
    if view is not None:
        t = _from_buffer(view)
        if dtype is not None and int(dtype) != _N.dtype(t):
            t = _N.to(t, dtype)
        return _finish(t, requires_grad)
    sizes, values = _nested(data)
    if dtype is None:
        dtype = _infer_dtype(values)
    if not _dtype(dtype).is_floating_point and all(isinstance(v, numbers.Integral) for v in values):
        t = _N.from_int64([int(v) for v in values], sizes, dtype)
    else:
        t = _N.from_float64(values, sizes, dtype)
    return _finish(t, requires_grad)


def _buffer_view(data):
    if isinstance(data, (list, tuple, numbers.Number)):
        return None
    try:
        return memoryview(data)
    except TypeError:
        return None


def _from_buffer(view):
    dtype = dtype_of_format(view.format, view.itemsize)
    if dtype is None:
        raise TypeError(f"tensor: buffer format {view.format!r} is not a tessera dtype")
    if not view.c_contiguous:
        raise ValueError("tensor: the buffer is not C-contiguous")
    return _N.from_bytes(view, view.shape, dtype)


def _nested(data):
    """(sizes, flat values) of a number or nested sequences; ragged nesting
    is a ValueError."""
    if isinstance(data, numbers.Number):
        return (), [data]
    sizes, level = [], data
    while isinstance(level, (list, tuple)):
        sizes.append(len(level))
        if not level:
            break
        level = level[0]
    values = []

    def walk(item, depth):
        if depth == len(sizes):
            if not isinstance(item, numbers.Number):
                raise TypeError(f"tensor: expected a number, got {type(item).__name__}")
            values.append(item)
            return
        if not isinstance(item, (list, tuple)) or len(item) != sizes[depth]:
            raise ValueError(f"tensor: expected a sequence of length {sizes[depth]} at dim "
                             f"{depth} (ragged nested sequence)")
        for element in item:
            walk(element, depth + 1)
    walk(data, 0)
    return tuple(sizes), values


def _infer_dtype(values):
    if values and all(isinstance(v, bool) for v in values):
        return _dtype.bool
    if values and all(isinstance(v, numbers.Integral) for v in values):
        return _dtype.int64
    return _dtype.float32
