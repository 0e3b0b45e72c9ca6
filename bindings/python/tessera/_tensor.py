"""tessera.Tensor: torch.Tensor's surface over the native handle.

Tensor subclasses the native type tessera._core.Tensor (a SWIG -builtin
type, whose methods are the C API's) without adding instance fields, and is
registered with the native module so that every tensor a call returns is a
tessera.Tensor. Queries that need no translation (numel, storage_offset,
is_contiguous, ...) are the native methods themselves; the methods defined
here translate arguments or results into PyTorch's conventions.

A Tensor owns one reference to the native tensor. It is released when the
object is collected, or at once by close() / a with block; any use after
that raises InvalidArgumentError.
"""
import collections
import numbers
import operator
import sys

from . import _core
from ._dtypes import CPU, DTYPE_OF, STRUCT_FORMAT, DeviceType, device, dtype as _dtype
from ._dtypes import memory_format as _memory_format
_device = device  # methods whose parameter is named device (cuda) reach the class by this name
from . import _callback_errors
from . import _graph
from .errors import AutogradError, Error, InvalidArgumentError, UnsupportedError

_N = _core.Tensor
_FLOATING_CODES = frozenset({_core.FLOAT16, _core.FLOAT32, _core.FLOAT64, _core.BFLOAT16,
                             _core.FLOAT8_E5M2, _core.FLOAT8_E4M3FN})
_INT64_MAX = (1 << 63) - 1

# torch.max(t, dim) returns a named (values, indices) pair.
MaxResult = collections.namedtuple("max", ["values", "indices"])


class Closable:
    """close() on leaving a with block."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def sizes_arg(args):
    """view(2, 3) and view((2, 3)) both mean sizes (2, 3), as in torch."""
    if len(args) == 1 and hasattr(args[0], "__len__"):
        return args[0]
    return args


def dims_arg(dim):
    """A reduction's dim argument as a list: None (all dims), an int, or a
    sequence of ints."""
    if dim is None:
        return ()
    if hasattr(dim, "__len__"):
        return dim
    return (dim,)


def _is_number(value):
    return isinstance(value, numbers.Real)


def _numpy_bool_type():
    """numpy.bool_ when NumPy is loaded (it is not a Python bool)."""
    numpy = sys.modules.get("numpy")
    return numpy.bool_ if numpy is not None else bool


def where_op(condition, input, other):
    """torch.where(condition, input, other): input where condition (bool)
    is true, else other; all three broadcast. input or other may be a
    number, typed as a binary op types it. (Here, below Tensor, so that
    both Tensor.where and tessera.where use it without an import cycle.)"""
    if not isinstance(input, _N):
        if not isinstance(other, _N):
            raise TypeError("where: input or other must be a Tensor")
        input = scalar_tensor(input, other)
    elif not isinstance(other, _N):
        other = scalar_tensor(other, input)
    return _core.where(condition, input, other)


def scalar_tensor(value, like):
    """value as a 0-dim tensor whose dtype is the one torch gives a Python
    number in an op with `like`: like's dtype when the number's kind (bool <
    int < float) fits it, else the default dtype of the number's kind."""
    code = _N.dtype(like)
    if isinstance(value, (bool, _numpy_bool_type())):
        kind = 0
    elif isinstance(value, numbers.Integral):
        kind = 1
    elif isinstance(value, numbers.Real):
        kind = 2
    else:
        raise TypeError(f"expected a Tensor or a number, got {type(value).__name__}")
    like_kind = 2 if code in _FLOATING_CODES else 0 if code == _core.BOOL else 1
    if kind > like_kind:
        code = (_core.BOOL, _core.INT64, _core.FLOAT32)[kind]
    if kind == 2 or code in _FLOATING_CODES:
        scalar = _N.from_float64([float(value)], (), code)
    else:
        scalar = _N.from_int64([int(value)], (), code)
    # On like's device: torch passes a Python number to a CUDA kernel as a
    # CPU scalar, which tessera's device ops do not take (yet), so the
    # number travels to the device (one small copy).
    kind = _N.device_type(like)
    if kind != _core.DEVICE_CPU:
        scalar = _core.to_device(scalar, kind, _N.device_index(like), False)
    return scalar


class Size(tuple):
    """torch.Size: a tensor's sizes, a tuple that prints as tessera.Size([2, 3])."""
    __slots__ = ()

    def numel(self):
        n = 1
        for size in self:
            n *= size
        return n

    def __repr__(self):
        return f"tessera.Size({list(self)!r})"

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item


class AreaMethods:
    """The Tensor methods of the op-area modules (indexing, sorting, ...),
    which _areas.install sets here: a plain class ahead of the native type
    among Tensor's bases, because the SWIG -builtin type refuses new
    attributes. Methods of Tensor's own body still come first."""
    __slots__ = ()


class Tensor(AreaMethods, _N, Closable):
    """A strided view of typed elements, with PyTorch's semantics.

    Create tensors with the factories (tessera.zeros, tessera.tensor, ...);
    the constructor is not public.
    """
    __slots__ = ()

    # ---- layout -----------------------------------------------------------
    shape = property(lambda self: Size(_N.sizes(self)), doc="Sizes (torch.Tensor.shape).")
    ndim = property(_N.ndim, doc="Number of dims.")
    dim = _N.ndim
    nbytes = property(_N.nbytes, doc="numel() * element size, in bytes.")
    itemsize = property(_N.element_size, doc="Bytes per element.")
    nelement = _N.numel

    def size(self, dim=None):
        """Sizes (a Size, torch's tuple), or the size of one dim."""
        return Size(_N.sizes(self)) if dim is None else _N.size(self, dim)

    def stride(self, dim=None):
        """Strides (in elements) as a tuple, or the stride of one dim."""
        return _N.strides(self) if dim is None else _N.stride(self, dim)

    @property
    def dtype(self):
        return DTYPE_OF[_N.dtype(self)]

    @property
    def device(self):
        kind = _N.device_type(self)
        if kind == _core.DEVICE_CPU:
            return CPU
        return device(DeviceType(kind).name, _N.device_index(self))

    @property
    def is_cpu(self):
        return _N.device_type(self) == _core.DEVICE_CPU

    def is_floating_point(self):
        return _N.dtype(self) in _FLOATING_CODES

    @property
    def T(self):
        """Dims reversed (t() for up to 2 dims)."""
        n = _N.ndim(self)
        return _N.t(self) if n <= 2 else _N.permute(self, range(n - 1, -1, -1))

    # ---- views --------------------------------------------------------------
    def view(self, *shape):
        """Same storage, new sizes; NotViewableError when that needs a copy."""
        return _N.view(self, sizes_arg(shape))

    def reshape(self, *shape):
        """A view when possible, else a copy."""
        return _N.reshape(self, sizes_arg(shape))

    def permute(self, *dims):
        return _N.permute(self, sizes_arg(dims))

    def expand_as(self, other):
        return _N.expand(self, _N.sizes(other))

    def view_as(self, other):
        return _N.view(self, _N.sizes(other))

    def reshape_as(self, other):
        return _N.reshape(self, _N.sizes(other))

    def type_as(self, other):
        return self.to(DTYPE_OF[_N.dtype(other)])

    def expand(self, *sizes):
        return _N.expand(self, sizes_arg(sizes))

    def squeeze(self, dim=None):
        return _N.squeeze(self) if dim is None else _N.squeeze_dim(self, dim)

    def movedim(self, source, destination):
        return _N.movedim(self, dims_arg(source), dims_arg(destination))

    def as_strided(self, size, stride, storage_offset=None):
        """storage_offset None keeps this tensor's (as torch)."""
        if storage_offset is None:
            storage_offset = _N.storage_offset(self)
        return _N.as_strided(self, size, stride, storage_offset)

    def split(self, split_size, dim=0):
        """Views of split_size elements along dim (the last may be shorter)."""
        return _pieces(_N.split(self, split_size, dim))

    def chunk(self, chunks, dim=0):
        return _pieces(_N.chunk(self, chunks, dim))

    def unbind(self, dim=0):
        return tuple(_N.select(self, dim, i) for i in range(_N.size(self, dim)))

    # ---- conversions ----------------------------------------------------------
    def to(self, *args, **kwargs):
        """torch.Tensor.to's three forms: to(dtype, non_blocking=False,
        copy=False, memory_format=preserve_format), to(device=None,
        dtype=None, non_blocking=False, copy=False, memory_format=...) and
        to(other, non_blocking=False, copy=False) (other's device and dtype).
        Self when nothing changes and copy is False, as torch; else a new
        tensor: converted, copied to the device, then laid out in
        memory_format when it is not already."""
        target_device, target_dtype, non_blocking, copy, memory_format = _to_arguments(args, kwargs)
        out = self
        if target_dtype is not None and int(target_dtype) != _N.dtype(out):
            out = _N.to(out, target_dtype)
        if target_device is not None and device(target_device) != self.device:
            out = move_to_device(out, device(target_device), non_blocking)
        if int(memory_format) != _core.PRESERVE_FORMAT and \
                _N.suggest_memory_format(out) != int(memory_format):
            out = _N.clone(out, memory_format)
        if copy and out is self:
            out = _N.clone(self)
        return out

    def cpu(self, memory_format=_core.PRESERVE_FORMAT):
        """A copy in host memory, or self when already there (torch's cpu())."""
        if _N.device_type(self) == _core.DEVICE_CPU:
            return self
        return self.to("cpu", memory_format=memory_format)

    def cuda(self, device=None, non_blocking=False, memory_format=_core.PRESERVE_FORMAT):
        """A copy on CUDA device `device` (an index, "cuda:N" or a device;
        None: device 0), or self when already there. Without a usable GPU
        this raises as torch's does (tessera.cuda.is_available() tells)."""
        index = device if isinstance(device, int) else _device(device or "cuda").device_index
        return self.to(_device("cuda", index), non_blocking=non_blocking, memory_format=memory_format)

    @property
    def is_cuda(self):
        return _N.device_type(self) == _core.DEVICE_CUDA

    def get_device(self):
        """The CUDA device index, -1 for a CPU tensor (torch's get_device)."""
        return -1 if _N.device_type(self) == _core.DEVICE_CPU else _N.device_index(self)

    def type(self, dtype=None):
        return self.dtype if dtype is None else self.to(dtype)

    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def half(self):
        return self.to(_dtype.float16)

    def bfloat16(self):
        return self.to(_dtype.bfloat16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    def bool(self):
        return self.to(_dtype.bool)

    def item(self):
        """The single element as a Python float, int or bool."""
        code = _N.dtype(self)
        if code in _FLOATING_CODES:
            return _N.item_double(self)
        if code == _core.BOOL:
            return _N.item_int64(self) != 0
        if code == _core.UINT64:  # the C API reads it as int64 (wrapped)
            return _N.item_int64(self) & 0xFFFFFFFFFFFFFFFF
        return _N.item_int64(self)

    def tolist(self):
        """Elements as (nested) Python lists; a 0-dim tensor gives a number."""
        code = _N.dtype(self)
        if code in (_core.FLOAT16, _core.BFLOAT16, _core.FLOAT8_E5M2,
                    _core.FLOAT8_E4M3FN):  # exact in float32
            return _N.to(self, _core.FLOAT32).tolist()
        sizes = _N.sizes(self)
        if not sizes:
            return self.item()
        if 0 in sizes:
            return _empty_nested(sizes)
        return memoryview(_N.to_bytes(self)).cast(STRUCT_FORMAT[code], sizes).tolist()

    def numpy(self):
        """A writable NumPy array sharing this tensor's memory (same sizes and
        strides), as torch's numpy(). The array holds its own reference to
        the storage, so it stays valid after this tensor is closed."""
        if _N.requires_grad(self):
            raise AutogradError(
                int(_core.ERR_AUTOGRAD),
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if _N.device_type(self) != _core.DEVICE_CPU:
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        import numpy
        if _N.numel(self) == 0:  # no memory to share, maybe no address at all
            return numpy.empty(_N.sizes(self), dtype=_array_typestr(_N.dtype(self)))
        return numpy.asarray(_ArrayView(_N.detach(self)))

    def __array__(self, dtype=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    # ---- autograd ------------------------------------------------------------
    @property
    def data(self):
        """torch's .data: this tensor detached (same memory, no history)."""
        return _N.detach(self)

    @data.setter
    def data(self, value):
        """torch's `t.data = other`: this object now holds other's memory,
        sizes and dtype, keeping its own requires_grad (nn.Module.to()
        converts parameters in place this way). Its grad is kept when it
        still fits."""
        if not isinstance(value, _N):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        grad = _N.grad(self)
        replacement = _N.detach(value)
        _N.set_requires_grad(replacement, _N.requires_grad(self))
        if grad is not None and _N.sizes(grad) == _N.sizes(value) and \
                _N.dtype(grad) == _N.dtype(value) and grad.device == value.device:
            _N.set_grad(replacement, grad)
        _core._swap_tensors(self, replacement)

    requires_grad = property(_N.requires_grad, _N.set_requires_grad,
                             doc="Whether autograd records operations on this tensor.")
    is_leaf = property(_N.is_leaf)
    _version = property(_N.version)

    def requires_grad_(self, requires_grad=True):
        _N.set_requires_grad(self, requires_grad)
        return self

    @property
    def grad_fn(self):
        """The node of the autograd graph that made this tensor (its class
        and name() are torch's: MulBackward0), or None for a leaf."""
        return _graph.grad_fn_of(self)

    @property
    def grad(self):
        """Accumulated gradient (None until backward reaches this tensor)."""
        return _N.grad(self)

    @grad.setter
    def grad(self, value):
        _check_open(value, "grad")
        _N.set_grad(self, value)

    @grad.deleter
    def grad(self):
        _N.set_grad(self, None)

    def backward(self, gradient=None, retain_graph=False):
        _check_open(gradient, "gradient")
        _callback_errors.clear()
        try:
            _N.backward(self, gradient, retain_graph)
        except Error as error:  # a custom Function's backward raised: that exception
            _callback_errors.reraise(error)

    # ---- math ----------------------------------------------------------------
    def add(self, other, alpha=1):
        if alpha != 1:
            other = other * alpha
        return self + other

    def sub(self, other, alpha=1):
        if alpha != 1:
            other = other * alpha
        return self - other

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def sum(self, dim=None, keepdim=False, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _N.sum(source, dims_arg(dim), keepdim)

    def mean(self, dim=None, keepdim=False, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _N.mean(source, dims_arg(dim), keepdim)

    def max(self, dim=None, keepdim=False):
        """The largest element (0-dim), or (values, indices) along dim."""
        if dim is None:
            return _N.max(self)
        return MaxResult(*_pieces(_N.max_dim(self, dim, keepdim)))

    def argmax(self, dim=None, keepdim=False):
        """Index of the first maximum along dim (of the flattened tensor
        when dim is None)."""
        if dim is None:
            return _N.argmax(_N.reshape(self, (-1,)), 0, False)
        return _N.argmax(self, dim, keepdim)

    def softmax(self, dim):
        return _N.softmax(self, dim)

    def pow(self, exponent):
        """torch.Tensor.pow: exponent a number or a tensor (broadcast). A
        float exponent gives a floating self's dtype, float32 for integer and
        bool self; an int exponent keeps an integer self's dtype (as torch)."""
        if isinstance(exponent, _N):
            return _N.pow(self, exponent)
        if _N.dtype(self) in _FLOATING_CODES or (_is_number(exponent)
                                                  and not isinstance(exponent, numbers.Integral)):
            return _N.pow_scalar(self, exponent)
        return _N.pow(self, scalar_tensor(exponent, self))

    def clamp(self, min=None, max=None):
        """Elements limited to [min, max]; either bound may be None (not both)."""
        if isinstance(min, _N) or isinstance(max, _N):
            # Tensor bounds (torch's clamp.Tensor): both tensors or None.
            if not all(b is None or isinstance(b, _N) for b in (min, max)):
                raise TypeError("clamp() received an invalid combination of arguments: min and max must be "
                                "both tensors (or None) or both numbers (or None)")
            return _core.pointwise_clamp_tensor(self, min, max)
        return _N.clamp(self, min is not None, 0.0 if min is None else min,
                        max is not None, 0.0 if max is None else max)

    clip = clamp

    def clamp_min(self, min):
        return self.clamp(min=min)

    def clamp_max(self, max):
        return self.clamp(max=max)

    def where(self, condition, other):
        """torch.where(condition, self, other)."""
        return where_op(condition, self, other)

    # ---- in place (return self, as torch) ------------------------------------------
    def add_(self, other, alpha=1):
        if not isinstance(other, _N):
            other = scalar_tensor(other, self)
        _N.add_(self, other, alpha)
        return self

    def sub_(self, other, alpha=1):
        return self.add_(other, -alpha)

    def mul_(self, other):
        """Multiplies by a number in place."""
        if isinstance(other, _N):
            raise TypeError("mul_ takes a number; use t.copy_(t * other) for a tensor")
        _N.mul_scalar_(self, other)
        return self

    def fill_(self, value):
        _N.fill_(self, value)
        return self

    def zero_(self):
        _N.zero_(self)
        return self

    def copy_(self, src):
        _N.copy_(self, src)
        return self

    def relu_(self):
        _N.relu_(self)
        return self

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        if isinstance(other, _N):
            return NotImplemented  # falls back to self * other, a new tensor
        return self.mul_(other)

    # ---- operators --------------------------------------------------------------
    def __add__(self, other):
        if isinstance(other, _N):
            return _N.add(self, other)
        if _N.dtype(self) in _FLOATING_CODES and _is_number(other):
            return _N.add_scalar(self, other)
        return _N.add(self, scalar_tensor(other, self))

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, _N):
            return _N.sub(self, other)
        if _N.dtype(self) in _FLOATING_CODES and _is_number(other):
            return _N.add_scalar(self, -other)
        return _N.sub(self, scalar_tensor(other, self))

    def __rsub__(self, other):
        return _N.sub(scalar_tensor(other, self), self)

    def __mul__(self, other):
        if isinstance(other, _N):
            return _N.mul(self, other)
        if _N.dtype(self) in _FLOATING_CODES and _is_number(other):
            return _N.mul_scalar(self, other)
        return _N.mul(self, scalar_tensor(other, self))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not isinstance(other, _N):
            other = scalar_tensor(other, self)
        return _N.div(self, other)

    def __rtruediv__(self, other):
        return _N.div(scalar_tensor(other, self), self)

    __pow__ = pow

    def __rpow__(self, other):
        return _N.pow(scalar_tensor(other, self), self)

    __matmul__ = _N.matmul
    __neg__ = _N.neg
    __abs__ = _N.abs

    # Comparisons are elementwise and give bool tensors, as torch's; a
    # number is compared as a 0-dim tensor. Anything else is not comparable
    # (NotImplemented: Python then falls back to identity for == and !=).
    def _compare(self, other, op):
        if isinstance(other, _N):
            return op(self, other)
        if _is_number(other):
            return op(self, scalar_tensor(other, self))
        return NotImplemented

    def __eq__(self, other):
        return self._compare(other, _N.eq)

    def __ne__(self, other):
        return self._compare(other, _N.ne)

    def __lt__(self, other):
        return self._compare(other, _N.lt)

    def __le__(self, other):
        return self._compare(other, _N.le)

    def __gt__(self, other):
        return self._compare(other, _N.gt)

    def __ge__(self, other):
        return self._compare(other, _N.ge)

    def eq(self, other):
        return self == other

    def ne(self, other):
        return self != other

    def lt(self, other):
        return self < other

    def le(self, other):
        return self <= other

    def gt(self, other):
        return self > other

    def ge(self, other):
        return self >= other

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """torch.allclose: every |self - other| <= atol + rtol * |other|."""
        return _N.allclose(self, other, rtol, atol, equal_nan)

    def __pos__(self):
        return self

    # ---- Python protocols -------------------------------------------------------------
    def __len__(self):
        if _N.ndim(self) == 0:
            raise TypeError("len() of a 0-d tensor")
        return _N.size(self, 0)

    def __iter__(self):
        if _N.ndim(self) == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (_N.select(self, 0, i) for i in range(_N.size(self, 0)))

    def __getitem__(self, key):
        """torch's indexing: ints, slices (step >= 1), None and ... give a
        view; index tensors, masks and sequences (advanced indexing, in
        _indexing) a copy."""
        if _is_advanced(key):
            return _advanced_getitem(self, key)
        return _index(self, key)

    def __setitem__(self, key, value):
        if _is_advanced(key):
            _advanced_setitem(self, key, value)
        else:
            basic_setitem(_index(self, key), value)

    def __bool__(self):
        return bool(self._single("Boolean value"))

    def __float__(self):
        return float(self._single("float()"))

    def __int__(self):
        return int(self._single("int()"))

    def _single(self, what):
        if _N.numel(self) != 1:
            raise InvalidArgumentError(
                int(_core.ERR_INVALID_ARGUMENT),
                f"{what} of Tensor with more than one value is ambiguous")
        return self.item()

    def __repr__(self):
        """torch's repr, from the library (tsr_tensor_to_string): values,
        summaries past 1000 elements, dtype/device/grad_fn suffixes."""
        if not _core._is_open(self):
            return "tensor(<closed>)"
        return _N.to_string(self)

    __hash__ = object.__hash__

    def __reduce__(self):
        """pickle and copy.deepcopy: the values, sizes, dtype and
        requires_grad (not the strides or autograd history, as torch)."""
        return (_rebuild, (_N.to_bytes(self), _N.sizes(self), _N.dtype(self),
                           _N.requires_grad(self)))

    # ---- DLPack -----------------------------------------------------------------------
    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """A "dltensor" capsule sharing this tensor's memory (DLPack). The
        keywords of newer consumers are understood: max_version is answered
        with the unversioned capsule (DLPack 0.x, which the spec allows),
        copy=True exports a copy, dl_device must be this tensor's device."""
        if stream is not None and stream != -1:
            raise InvalidArgumentError(int(_core.ERR_INVALID_ARGUMENT),
                                       "__dlpack__: CPU tensors take no stream")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise UnsupportedError(int(_core.ERR_UNSUPPORTED),
                                   f"__dlpack__: cannot export a {self.device} tensor to {dl_device}")
        return _core._to_dlpack(_N.clone(self) if copy else self)

    def __dlpack_device__(self):
        return (_N.device_type(self), _N.device_index(self))


# NumPy's array-interface type string of each dtype NumPy has.
_ENDIAN = "<" if sys.byteorder == "little" else ">"
_TYPESTR = {_core.UINT8: "|u1", _core.INT8: "|i1", _core.INT16: _ENDIAN + "i2",
            _core.INT32: _ENDIAN + "i4", _core.INT64: _ENDIAN + "i8", _core.FLOAT16: _ENDIAN + "f2",
            _core.FLOAT32: _ENDIAN + "f4", _core.FLOAT64: _ENDIAN + "f8", _core.BOOL: "|b1",
            _core.UINT16: _ENDIAN + "u2", _core.UINT32: _ENDIAN + "u4",
            _core.UINT64: _ENDIAN + "u8"}


class _ArrayView:
    """What numpy() hands NumPy: the array interface of a tensor this object
    alone references, so the array (whose base it becomes) keeps the
    storage alive whatever happens to the user's tensor."""
    __slots__ = ("tensor", "__array_interface__")

    def __init__(self, tensor):
        itemsize = _N.element_size(tensor)
        self.tensor = tensor
        self.__array_interface__ = {
            "version": 3,
            "shape": _N.sizes(tensor),
            "typestr": _array_typestr(_N.dtype(tensor)),
            "strides": tuple(s * itemsize for s in _N.strides(tensor)),
            "data": (_N.data_ptr(tensor), False),  # False: writable
        }


def _array_typestr(code):
    if code not in _TYPESTR:
        raise UnsupportedError(int(_core.ERR_UNSUPPORTED),
                               f"numpy() of a {DTYPE_OF[code]!r} tensor: NumPy has no such dtype")
    return _TYPESTR[code]


def _rebuild(data, sizes, code, requires_grad):
    tensor = _N.from_bytes(data, sizes, code)
    if requires_grad:
        _N.set_requires_grad(tensor, True)
    return tensor


def _check_open(tensor, what):
    """None is allowed; a closed tensor is not (it would read as None)."""
    if tensor is not None and not _core._is_open(tensor):
        raise InvalidArgumentError(int(_core.ERR_INVALID_ARGUMENT), f"{what}: tensor is closed")


def _pieces(tensor_list):
    """A native TensorList as a tuple of tensors; the list is closed."""
    with tensor_list:
        return tuple(tensor_list.get(i) for i in range(tensor_list.size()))


def _empty_nested(sizes):
    if len(sizes) == 1:
        return []
    return [_empty_nested(sizes[1:]) for _ in range(sizes[0])]


def basic_setitem(target, value):
    """x[basic key] = value: a copy into the view, or a fill."""
    if isinstance(value, _N):
        _N.copy_(target, value)
    else:
        _N.fill_(target, value)


# Advanced indexing lives in _indexing (it needs factories and TensorList,
# which sit above this module); it installs its getitem/setitem here.
_advanced_getitem = _advanced_setitem = None


def install_advanced_indexing(getitem, setitem):
    global _advanced_getitem, _advanced_setitem
    _advanced_getitem, _advanced_setitem = getitem, setitem


def _is_advanced(key):
    """Whether key has an index tensor, a sequence or a bool (torch's
    advanced indexing) rather than only ints, slices, None and ...."""
    items = key if isinstance(key, tuple) else (key,)
    for k in items:
        if isinstance(k, (_N, list, bool)) or (isinstance(k, tuple) and items is not key):
            return True
        if hasattr(k, "__array__") and not hasattr(k, "__index__"):
            return True
    return False


def view_step(result, dim, k):
    """One None or slice of an index key applied at dim: (view, next dim).
    Shared by basic indexing here and advanced indexing (_indexing)."""
    if k is None:
        return _N.unsqueeze(result, dim), dim + 1
    step = 1 if k.step is None else operator.index(k.step)
    start = 0 if k.start is None else operator.index(k.start)
    stop = _INT64_MAX if k.stop is None else operator.index(k.stop)
    return _N.slice(result, dim, start, stop, step), dim + 1


def _index(tensor, key):
    if not isinstance(key, tuple):
        key = (key,)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    ndim = _N.ndim(tensor)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim = tensor, 0
    for k in key:
        if k is None or isinstance(k, slice):
            result, dim = view_step(result, dim, k)
        elif k is Ellipsis:
            dim += ndim - consumed
        elif isinstance(k, bool) or isinstance(k, _N) or not hasattr(k, "__index__"):
            raise TypeError("only integers, slices (`:`), ellipsis (`...`) and None are "
                            f"valid indices (got {type(k).__name__})")
        else:
            result = _N.select(result, dim, operator.index(k))
    return result


def _to_arguments(args, kwargs):
    """(device, dtype, non_blocking, copy, memory_format) of Tensor.to's
    arguments in any of torch's three forms; TypeError for anything else,
    naming what was passed (torch's "to() received an invalid combination
    of arguments")."""
    args = list(args)
    options = {"device": None, "dtype": None, "non_blocking": False, "copy": False,
               "memory_format": _memory_format.preserve_format}
    if args and isinstance(args[0], _N):        # to(other, non_blocking, copy)
        other = args.pop(0)
        options["device"], options["dtype"] = other.device, other.dtype
        names = ["non_blocking", "copy"]
    elif args and isinstance(args[0], _dtype):  # to(dtype, non_blocking, copy)
        options["dtype"] = args.pop(0)
        names = ["non_blocking", "copy"]
    else:                                       # to(device, dtype, non_blocking, copy)
        names = ["device", "dtype", "non_blocking", "copy"]
    if len(args) > len(names):
        raise TypeError(f"to() received an invalid combination of arguments: {len(args)} "
                        "positional arguments too many")
    for name, value in zip(names, args):
        options[name] = value
    for name, value in kwargs.items():
        if name not in options:
            raise TypeError(f"to() got an unexpected keyword argument '{name}'")
        options[name] = value
    if options["device"] is not None:
        value = options["device"]
        if isinstance(value, int) and not isinstance(value, bool):
            value = device("cuda", value)  # torch: an int is a CUDA index
        elif not isinstance(value, (str, device)):
            raise TypeError("to() received an invalid combination of arguments: expected a "
                            f"device, dtype or Tensor, got {type(value).__name__}")
        options["device"] = device(value)
    if options["dtype"] is not None and not isinstance(options["dtype"], _dtype):
        raise TypeError(f"to(): dtype must be a tessera.dtype, not {type(options['dtype']).__name__}")
    return (options["device"], options["dtype"], bool(options["non_blocking"]), bool(options["copy"]),
            _memory_format(options["memory_format"]))


class CUDAUnavailableError(UnsupportedError, AssertionError):
    """No CUDA device to move to: no CUDA plugin, no driver or no GPU. An
    AssertionError too, which torch raises there ("Torch not compiled with
    CUDA enabled"), so code written for torch catches it."""


def move_to_device(tensor, target, non_blocking=False):
    """tsr_to_device; CUDAUnavailableError when the target is CUDA and no
    CUDA device is usable."""
    if target.type == "cuda" and not _core.cuda_is_available():
        raise CUDAUnavailableError(
            int(_core.ERR_UNSUPPORTED),
            f"cannot move a tensor to {target}: CUDA is not available (no CUDA plugin, "
            "driver or GPU; tessera.cuda.is_available() is False)")
    return _core.to_device(tensor, int(target.device_type), target.device_index, non_blocking)


_core._set_class(Tensor)
