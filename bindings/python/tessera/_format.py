"""repr of a tensor, in torch's style:

    tensor([[0.0000, 0.5000],
            [1.0000, 1.5000]], dtype=tessera.float64, requires_grad=True)

Floating values print with 4 decimals, as "1." when every value is whole,
and in scientific notation when they span large ranges (torch's rules, in
short). Tensors of more than 1000 elements show the first and last 3 entries
of each long dim around "...".
"""
import math

from ._dtypes import dtype as _dtype

_THRESHOLD = 1000
_EDGE = 3
_DEFAULT_DTYPES = (_dtype.float32, _dtype.int64, _dtype.bool)


def format_tensor(tensor):
    dtype = tensor.dtype
    summarize = tensor.numel() > _THRESHOLD
    values = _values(tensor, summarize)
    formatter = _formatter(_flatten(values), dtype)
    prefix = "tensor("
    body = _layout(values, formatter, len(prefix), tensor.ndim)
    suffix = []
    if tensor.numel() == 0 and tensor.ndim != 1:
        suffix.append(f"size={tensor.shape}")
    if dtype not in _DEFAULT_DTYPES:
        suffix.append(f"dtype={dtype!r}")
    grad_fn = tensor.grad_fn
    if grad_fn is not None:
        suffix.append(f"grad_fn=<{grad_fn}>")
    elif tensor.requires_grad:
        suffix.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffix) + ")"


def _values(tensor, summarize):
    """Nested lists of the values to print; Ellipsis where rows are left out."""
    if tensor.ndim == 0:
        return tensor.item()
    n = tensor.shape[0]
    if summarize and n > 2 * _EDGE:
        head = [_values(tensor[i], summarize) for i in range(_EDGE)]
        tail = [_values(tensor[i], summarize) for i in range(n - _EDGE, n)]
        return head + [Ellipsis] + tail
    if tensor.ndim == 1:
        return tensor.tolist()
    return [_values(tensor[i], summarize) for i in range(n)]


def _flatten(values):
    if isinstance(values, list):
        for v in values:
            yield from _flatten(v)
    elif values is not Ellipsis:
        yield values


def _formatter(values, dtype):
    values = list(values)
    if dtype == _dtype.bool:
        strings = ["True" if v else "False" for v in values]
    elif not dtype.is_floating_point:
        strings = [str(v) for v in values]
    else:
        finite = [abs(v) for v in values if math.isfinite(v)]
        nonzero = [v for v in finite if v != 0]
        if all(float(v).is_integer() for v in finite) and (not finite or max(finite) < 1e8):
            pattern = "{:.0f}."
        elif nonzero and (max(nonzero) / min(nonzero) > 1000 or max(nonzero) > 1e8
                          or min(nonzero) < 1e-4):
            pattern = "{:.4e}"
        else:
            pattern = "{:.4f}"
        strings = [_float_string(v, pattern) for v in values]
    width = max((len(s) for s in strings), default=0)

    def format_one(value):
        if isinstance(value, bool):
            text = "True" if value else "False"
        elif isinstance(value, float):
            text = _float_string(value, pattern)
        else:
            text = str(value)
        return text.rjust(width)
    return format_one


def _float_string(value, pattern):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return pattern.format(value)


def _layout(values, format_one, indent, ndim):
    if not isinstance(values, list):
        return format_one(values)
    if ndim == 1:
        return "[" + ", ".join("..." if v is Ellipsis else format_one(v) for v in values) + "]"
    separator = "," + "\n" * (ndim - 1) + " " * (indent + 1)
    rows = ["..." if v is Ellipsis else _layout(v, format_one, indent + 1, ndim - 1)
            for v in values]
    return "[" + separator.join(rows) + "]"
