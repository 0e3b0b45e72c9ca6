"""Factories and shape ops: linspace, eye, tril/triu (and in place), flip,
roll, repeat, tile, einsum (torch 1.13's signatures; shape_ops.h)."""
import operator

from . import _core
from ._dtypes import dtype as _dtype
from ._factories import _finish, _float_default
from ._handles import TensorList
from ._tensor import sizes_arg

_N = _core.Tensor

__all__ = ["linspace", "eye", "tril", "triu", "flip", "fliplr", "flipud", "roll", "tile", "einsum"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []


def _check_device(device):
    if device is not None and str(device) != "cpu":
        raise NotImplementedError(f"{device}: tessera's factories make CPU tensors")


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """torch.linspace: steps values from start to end (torch's two-sided
    formula; the default dtype float32)."""
    _check_device(device)
    t = _core.linspace(float(start), float(end), operator.index(steps), int(_float_default(dtype)))
    return _finish(t, requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """torch.eye: [n, m] (m defaults to n), ones on the diagonal."""
    _check_device(device)
    n = operator.index(n)
    t = _core.eye(n, n if m is None else operator.index(m), int(_float_default(dtype)))
    return _finish(t, requires_grad)


def tril(input, diagonal=0):
    """torch.tril: zeros above the diagonal-th diagonal."""
    return _core.tril(input, operator.index(diagonal))


def triu(input, diagonal=0):
    """torch.triu: zeros below the diagonal-th diagonal
    (triu(ones(T, T, dtype=bool), 1) is the causal mask)."""
    return _core.triu(input, operator.index(diagonal))


def tril_(input, diagonal=0):
    _core.tril_(input, operator.index(diagonal))
    return input


def triu_(input, diagonal=0):
    _core.triu_(input, operator.index(diagonal))
    return input


def _ints(value):
    if isinstance(value, int) or hasattr(value, "__index__"):
        return [operator.index(value)]
    return [operator.index(v) for v in value]


def flip(input, *dims):
    """torch.flip(input, dims): each of dims reversed."""
    return _core.flip(input, _ints(sizes_arg(dims)))


def fliplr(input):
    return flip(input, 1)


def flipud(input):
    return flip(input, 0)


def roll(input, shifts, dims=None):
    """torch.roll: dims rolled by shifts (no dims: flattened, rolled,
    viewed back)."""
    return _core.roll(input, _ints(shifts), [] if dims is None else _ints(dims))


def repeat(input, *sizes):
    """Tensor.repeat(*sizes): tiled sizes[i] times along dim i."""
    return _core.repeat(input, _ints(sizes_arg(sizes)))


def tile(input, dims):
    """torch.tile: repeat with dims padded with leading ones."""
    return _core.tile(input, _ints(dims))


def einsum(equation, *operands):
    """torch.einsum(equation, *operands) (or a single list of operands)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    native = TensorList()
    try:
        for t in operands:
            native.append(t)
        return _core.einsum(equation, native)
    finally:
        native.close()


TENSOR_METHODS = {"tril": tril, "triu": triu, "tril_": tril_, "triu_": triu_, "flip": flip, "fliplr": fliplr,
                  "flipud": flipud, "roll": roll, "repeat": repeat, "tile": tile}
