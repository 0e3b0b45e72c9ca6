"""Scans and statistics: cumsum, cumprod, prod, var/std/var_mean, logsumexp, norm, any/all, min/argmin, minimum/maximum."""
import collections
import operator

from . import _core

__all__ = ["cumsum", "cumprod", "prod", "var", "std", "var_mean", "std_mean", "logsumexp", "any", "all", "min", "argmin",
           "maximum", "minimum", "amax", "amin", "norm"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []


def _dims(dim):
    """A reduction's dim argument as a tuple: None (all dims), an int, or a
    sequence of ints."""
    if dim is None:
        return ()
    if hasattr(dim, "__len__"):
        return tuple(operator.index(d) for d in dim)
    return (operator.index(dim),)


def _pair(tensor_list):
    """A native two-tensor list as a tuple; the list is closed."""
    with tensor_list:
        return tuple(tensor_list.get(i) for i in range(tensor_list.size()))


def _dtype_code(dtype):
    """The C layer's dtype argument: a tsr_dtype value, -1 for None."""
    return -1 if dtype is None else int(dtype)


def cumsum(input, dim, *, dtype=None):
    """torch.cumsum: running sums along dim. Integer and bool inputs give
    int64 unless dtype is given; input is converted to dtype first."""
    return _core.cumsum(input, operator.index(dim), _dtype_code(dtype))


def cumprod(input, dim, *, dtype=None):
    """torch.cumprod: running products along dim (dtype rules as cumsum)."""
    return _core.cumprod(input, operator.index(dim), _dtype_code(dtype))


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """torch.prod: the product of all elements (0-dim), or along dim."""
    if dim is None:
        if keepdim:
            raise TypeError("prod() received an invalid combination of arguments - got (keepdim=bool, )")
        return _core.prod(input, _dtype_code(dtype))
    return _core.prod_dim(input, operator.index(dim), bool(keepdim), _dtype_code(dtype))


def _correction(name, dim, unbiased, correction):
    """torch's var/std arguments: (dims, correction). var(x, True) passes
    unbiased positionally; unbiased and correction together are refused."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got unbiased and correction")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return _dims(dim), operator.index(correction)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """torch.var: sum((x - mean)^2) / (N - correction) over dim (None: all);
    unbiased=True is correction 1 (the default), False correction 0."""
    dims, c = _correction("var", dim, unbiased, correction)
    return _core.var(input, dims, c, bool(keepdim))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """torch.std: the square root of var (same arguments)."""
    dims, c = _correction("std", dim, unbiased, correction)
    return _core.std(input, dims, c, bool(keepdim))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """torch.var_mean: the tuple (var, mean)."""
    dims, c = _correction("var_mean", dim, unbiased, correction)
    return _pair(_core.var_mean_pair(input, dims, c, bool(keepdim), False))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """torch.std_mean: the tuple (std, mean)."""
    dims, c = _correction("std_mean", dim, unbiased, correction)
    return _pair(_core.var_mean_pair(input, dims, c, bool(keepdim), True))


def logsumexp(input, dim, keepdim=False):
    """torch.logsumexp: log(sum(exp(input))) over dim (an int or a tuple),
    max-shifted; integer and bool inputs give float32."""
    return _core.logsumexp(input, _dims(dim), bool(keepdim))


def _any_all(name, input, dim, keepdim, is_all):
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool, )")
        return _core.any_all(input, True, 0, False, is_all)
    return _core.any_all(input, False, operator.index(dim), bool(keepdim), is_all)


def any(input, dim=None, keepdim=False):
    """torch.any: whether any element is non-zero (over everything, or along
    one dim); bool result, uint8 for uint8 input."""
    return _any_all("any", input, dim, keepdim, False)


def all(input, dim=None, keepdim=False):
    """torch.all: whether every element is non-zero (rules as any)."""
    return _any_all("all", input, dim, keepdim, True)


# torch.return_types.min: (values, indices), as Tensor.max's result.
MinResult = collections.namedtuple("min", ["values", "indices"])


def min(input, dim=None, keepdim=False):
    """torch.min: the smallest element (0-dim), or (values, indices) of the
    first minimum along dim; NaN is the minimum. torch.min(a, b) is
    torch.minimum."""
    if dim is None:
        if keepdim:
            raise TypeError("min() received an invalid combination of arguments - got (keepdim=bool, )")
        return _core.min(input)
    if not isinstance(dim, int) and hasattr(dim, "shape"):  # torch.min(a, b): the elementwise minimum
        return minimum(input, dim)
    return MinResult(*_pair(_core.min_dim(input, operator.index(dim), bool(keepdim))))


def argmin(input, dim=None, keepdim=False):
    """torch.argmin: index of the first minimum along dim (of the flattened
    tensor when dim is None)."""
    if dim is None:
        return _core.argmin(input.reshape(-1), 0, False)
    return _core.argmin(input, operator.index(dim), bool(keepdim))


# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
def maximum(input, other):
    """torch.maximum: the larger of each broadcast pair; NaN wins."""
    return _core.maximum(input, other)


def minimum(input, other):
    """torch.minimum: the smaller of each broadcast pair; NaN wins."""
    return _core.minimum(input, other)


def amax(input, dim=(), keepdim=False):
    """torch.amax: the largest value over dim (an int or a sequence; all
    dims when empty)."""
    return _core.amax(input, list(_dims(dim)), bool(keepdim))


def amin(input, dim=(), keepdim=False):
    """torch.amin: the smallest value over dim."""
    return _core.amin(input, list(_dims(dim)), bool(keepdim))


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm for vector norms: p a number (inf, -inf, 0 included) or
    'fro' (2) over dim (None: all dims). Matrix norms ('nuc', 2-D p) are not
    provided."""
    if p == "fro" or p is None:
        p = 2.0
    elif isinstance(p, str):
        raise NotImplementedError(f"norm: p='{p}' (a matrix norm) is not provided by tessera")
    if dtype is not None:
        input = input.to(dtype)
    return _core.norm(input, float(p), list(_dims(dim)), bool(keepdim))


TENSOR_METHODS = {"maximum": maximum, "minimum": minimum, "amax": amax, "amin": amin, "norm": norm,
                  "cumsum": cumsum, "cumprod": cumprod, "prod": prod, "var": var, "std": std, "logsumexp": logsumexp, "any": any, "all": all, "min": min,
                  "argmin": argmin}
