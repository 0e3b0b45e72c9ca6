"""Indexing by tensors and masks: advanced getitem/setitem, index_put_,
masked_fill, masked_select, nonzero, the scatter family, index_add_,
index_copy_, index_fill_, take_along_dim (torch 1.13's semantics; the C API's
indexing.h)."""
import numbers
import operator

from . import _core, _tensor
from ._dtypes import dtype as _dtype
from ._factories import full, tensor as _as_tensor
from ._handles import TensorList

_N = _core.Tensor

__all__ = ["masked_fill", "masked_select", "nonzero", "scatter", "scatter_add", "scatter_reduce", "index_add",
           "index_copy", "index_fill", "index_put", "index_put_", "take_along_dim"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []

_REDUCTIONS = {"sum": _core.SCATTER_SUM, "prod": _core.SCATTER_PROD, "mean": _core.SCATTER_MEAN,
               "amax": _core.SCATTER_AMAX, "amin": _core.SCATTER_AMIN}
_LEGACY_REDUCTIONS = {"add": "sum", "multiply": "prod"}


def _index_list(indices):
    """A sequence of index tensors (None: a full slice) as a native
    TensorList, closed by the caller."""
    native = TensorList()
    try:
        for t in indices:
            if t is None:
                native.append_none()
            else:
                native.append(t if isinstance(t, _N) else _as_tensor(t))
    except BaseException:
        native.close()
        raise
    return native


def _scalar_like(value, like):
    """value as a 0-dim tensor of like's dtype (torch converts numbers)."""
    return full((), value, dtype=like.dtype)


# ---- getitem / setitem ---------------------------------------------------------

def _is_mask(t):
    return t.dtype in (_dtype.bool, _dtype.uint8)


def _key_items(key):
    """key as a tuple whose sequences became tensors (torch turns lists of
    ints or bools into index tensors)."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if isinstance(k, (list, tuple)) or (hasattr(k, "__array__") and not isinstance(k, _N)
                                           and not hasattr(k, "__index__")):
            k = _as_tensor(k)
        items.append(k)
    return items


def _consumes(k):
    """How many of self's dims an index item takes."""
    if k is None or k is Ellipsis or isinstance(k, bool):
        return 0
    if isinstance(k, _N):
        return _N.ndim(k) if _is_mask(k) else 1
    return 1


def _split_key(tensor, key):
    """Applies key's basic parts (ints, slices, None, ...) as views and
    returns (view, indices): the advanced index list over view's dims, None
    for a dim taken whole, or None when key has no advanced part."""
    items = _key_items(key)
    if sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    ndim = _N.ndim(tensor)
    consumed = sum(_consumes(k) for k in items)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim = tensor, 0
    advanced = []  # (dim of result, index tensor)
    for k in items:
        if k is None or isinstance(k, slice):
            result, dim = _tensor.view_step(result, dim, k)
        elif k is Ellipsis:
            dim += ndim - consumed
        elif isinstance(k, bool) or (isinstance(k, _N) and _is_mask(k) and _N.ndim(k) == 0):
            # x[True] adds a dim of 1, x[False] one of 0 (torch's rule).
            result = _N.unsqueeze(result, dim)
            advanced.append((dim, _as_tensor([0] if bool(k) else [], dtype=_dtype.int64)))
            dim += 1
        elif isinstance(k, _N):
            if not _is_mask(k) and k.dtype != _dtype.int64:  # torch's IndexError
                raise IndexError("tensors used as indices must be long, byte or bool tensors")
            advanced.append((dim, k))
            dim += _N.ndim(k) if _is_mask(k) else 1
        elif hasattr(k, "__index__"):
            result = _N.select(result, dim, operator.index(k))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             "Variables are valid indices (got " + type(k).__name__ + ")")
    if not advanced:
        return result, None
    indices, at = [], 0
    for d, t in advanced:
        indices.extend([None] * (d - at))
        indices.append(t)
        at = d + (_N.ndim(t) if _is_mask(t) else 1)
    return result, indices


def getitem(tensor, key):
    """Tensor.__getitem__ for keys with tensors, masks or sequences."""
    view, indices = _split_key(tensor, key)
    if indices is None:
        return view
    with _index_list(indices) as native:
        return _core.index(view, native)


def setitem(tensor, key, value):
    """Tensor.__setitem__ for keys with tensors, masks or sequences: an
    index_put_ of value (a number is converted to the tensor's dtype)."""
    view, indices = _split_key(tensor, key)
    if indices is None:
        return _tensor.basic_setitem(view, value)
    values = value if isinstance(value, _N) else _scalar_like(value, view)
    with _index_list(indices) as native:
        _core.index_put_(view, native, values, False)


def index_put(input, indices, values, accumulate=False):
    """torch.index_put: a copy of input with values at input[indices]."""
    with _index_list(indices) as native:
        return _core.index_put(input, native, values, bool(accumulate))


def index_put_(input, indices, values, accumulate=False):
    """Tensor.index_put_: values written (or added) at input[indices]."""
    with _index_list(indices) as native:
        _core.index_put_(input, native, values, bool(accumulate))
    return input


def nonzero(input, *, as_tuple=False):
    """torch.nonzero: [n, ndim] int64 coordinates, or one tensor per dim."""
    out = _core.nonzero(input)
    if not as_tuple:
        return out
    if _N.ndim(input) == 0:  # torch: one coordinate tensor, as for [x]
        return (_N.select(_core.nonzero(_N.reshape(input, [1])), 1, 0),)
    return tuple(_N.select(out, 1, d) for d in range(_N.ndim(input)))


# ---- masks -------------------------------------------------------------------------

def masked_fill(input, mask, value):
    """torch.masked_fill: value (a number or a 0-dim tensor) where mask is
    true."""
    if isinstance(value, _N):
        return _core.masked_fill_tensor(input, mask, value)
    return _core.masked_fill(input, mask, float(value))


def masked_fill_(input, mask, value):
    """Tensor.masked_fill_: masked_fill writing input."""
    if isinstance(value, _N):
        _core.masked_fill_tensor_(input, mask, value)
    else:
        _core.masked_fill_(input, mask, float(value))
    return input


def masked_select(input, mask):
    """torch.masked_select: the elements where mask is true, 1-D."""
    return _core.masked_select(input, mask)


# ---- scatter ---------------------------------------------------------------------

def _scatter_src(input, index, src, value):
    if src is not None and value is not None:
        raise TypeError("scatter() received an invalid combination of arguments - got both src and value")
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    return src


def _legacy_reduce(reduce):
    if reduce not in _LEGACY_REDUCTIONS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    return _REDUCTIONS[_LEGACY_REDUCTIONS[reduce]]


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """torch.scatter: src's values (or a number) at index's positions along
    dim; reduce "add" / "multiply" combines instead (torch's legacy form)."""
    src = _scatter_src(input, index, src, value)
    dim = operator.index(dim)
    if reduce is not None:
        code = _legacy_reduce(reduce)
        if not isinstance(src, _N):
            src = full(index.shape, src, dtype=input.dtype)
        return _core.scatter_reduce(input, dim, index, src, code, True)
    if isinstance(src, _N):
        return _core.scatter(input, dim, index, src)
    return _core.scatter_value(input, dim, index, float(src))


def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    """Tensor.scatter_: scatter writing input."""
    src = _scatter_src(input, index, src, value)
    dim = operator.index(dim)
    if reduce is not None:
        code = _legacy_reduce(reduce)
        if not isinstance(src, _N):
            src = full(index.shape, src, dtype=input.dtype)
        _core.scatter_reduce_(input, dim, index, src, code, True)
    elif isinstance(src, _N):
        _core.scatter_(input, dim, index, src)
    else:
        _core.scatter_value_(input, dim, index, float(src))
    return input


def scatter_add(input, dim, index, src):
    """torch.scatter_add: src added at index's positions along dim."""
    return _core.scatter_add(input, operator.index(dim), index, src)


def scatter_add_(input, dim, index, src):
    """Tensor.scatter_add_: scatter_add writing input."""
    _core.scatter_add_(input, operator.index(dim), index, src)
    return input


def _reduction(reduce):
    if reduce not in _REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got " + str(reduce))
    return _REDUCTIONS[reduce]


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """torch.scatter_reduce: src combined at index's positions by reduce
    ("sum", "prod", "mean", "amax", "amin"), with input's own values when
    include_self."""
    return _core.scatter_reduce(input, operator.index(dim), index, src, _reduction(reduce), bool(include_self))


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """Tensor.scatter_reduce_: scatter_reduce writing input."""
    _core.scatter_reduce_(input, operator.index(dim), index, src, _reduction(reduce), bool(include_self))
    return input


# ---- updates along one dim ---------------------------------------------------------

def index_add(input, dim, index, source, *, alpha=1):
    """torch.index_add: alpha * source's slices added at index along dim."""
    return _core.index_add(input, operator.index(dim), index, source, float(alpha))


def index_add_(input, dim, index, source, *, alpha=1):
    """Tensor.index_add_: index_add writing input."""
    _core.index_add_(input, operator.index(dim), index, source, float(alpha))
    return input


def index_copy(input, dim, index, source):
    """torch.index_copy: source's slices copied to index along dim."""
    return _core.index_copy(input, operator.index(dim), index, source)


def index_copy_(input, dim, index, source):
    """Tensor.index_copy_: index_copy writing input."""
    _core.index_copy_(input, operator.index(dim), index, source)
    return input


def _fill_value(value):
    if isinstance(value, _N):
        if _N.ndim(value) != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{_N.ndim(value)} dimension(s).")
        return float(value.item())
    return float(value)


def index_fill(input, dim, index, value):
    """torch.index_fill: value in the slices index names along dim."""
    return _core.index_fill(input, operator.index(dim), index, _fill_value(value))


def index_fill_(input, dim, index, value):
    """Tensor.index_fill_: index_fill writing input."""
    _core.index_fill_(input, operator.index(dim), index, _fill_value(value))
    return input


def take_along_dim(input, indices, dim=None):
    """torch.take_along_dim: input's values at indices along dim (both
    flattened when dim is None)."""
    if dim is None:
        return _core.take_along_dim(input, indices, 0, False)
    return _core.take_along_dim(input, indices, operator.index(dim), True)


TENSOR_METHODS = {
    "masked_fill": masked_fill, "masked_fill_": masked_fill_, "masked_select": masked_select, "nonzero": nonzero,
    "scatter": scatter, "scatter_": scatter_, "scatter_add": scatter_add, "scatter_add_": scatter_add_,
    "scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_, "index_add": index_add,
    "index_add_": index_add_, "index_copy": index_copy, "index_copy_": index_copy_, "index_fill": index_fill,
    "index_fill_": index_fill_, "index_put": index_put, "index_put_": index_put_, "take_along_dim": take_along_dim,
}

_tensor.install_advanced_indexing(getitem, setitem)
