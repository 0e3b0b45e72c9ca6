"""Sorting and selection: sort, argsort, topk, kthvalue (torch 1.13's
signatures; results as torch.return_types-like named tuples)."""
import collections
import operator

from . import _core

__all__ = ["sort", "argsort", "topk", "kthvalue", "msort"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []

# torch.return_types.sort / topk / kthvalue: (values, indices).
SortResult = collections.namedtuple("sort", ["values", "indices"])
TopkResult = collections.namedtuple("topk", ["values", "indices"])
KthvalueResult = collections.namedtuple("kthvalue", ["values", "indices"])


def _pair(tensor_list):
    """A native (values, indices) list as a tuple; the list is closed."""
    with tensor_list:
        return tuple(tensor_list.get(i) for i in range(tensor_list.size()))


def _flag(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    return value


def sort(input, dim=-1, descending=False, stable=False):
    """torch.sort: values along dim in order and their positions. Always
    stable (with stable=False torch may order ties otherwise; stable picks
    torch's grad_fn, SortBackward1 or 0); NaN is the largest value."""
    return SortResult(*_pair(_core.sort(input, operator.index(dim), _flag(descending, "descending"),
                                        _flag(stable, "stable"))))


def argsort(input, dim=-1, descending=False, stable=False):
    """torch.argsort: sort's indices."""
    return _core.argsort(input, operator.index(dim), _flag(descending, "descending"))


def msort(input):
    """torch.msort: sorted along dim 0."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    """torch.topk: the k largest (or smallest) values along dim and their
    positions, in order (ties by position; sorted=False gives the same)."""
    _flag(sorted, "sorted")
    return TopkResult(*_pair(_core.topk(input, operator.index(k), operator.index(dim), _flag(largest, "largest"))))


def kthvalue(input, k, dim=-1, keepdim=False):
    """torch.kthvalue: the k-th smallest value along dim (k from 1) and its
    position."""
    return KthvalueResult(*_pair(_core.kthvalue(input, operator.index(k), operator.index(dim),
                                                _flag(keepdim, "keepdim"))))


TENSOR_METHODS = {"sort": sort, "argsort": argsort, "msort": msort, "topk": topk, "kthvalue": kthvalue}
