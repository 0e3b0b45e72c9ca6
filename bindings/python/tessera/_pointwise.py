"""Elementwise math and activations beyond ops.h: silu, leaky_relu, elu, softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc, sign."""
from . import _core, _inplace

__all__ = ["sin", "cos", "rsqrt", "reciprocal", "floor", "ceil", "round", "trunc", "sign"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = ["silu", "leaky_relu", "elu", "softplus", "hardtanh"]


def silu(input, inplace=False):
    """torch.nn.functional.silu: x * sigmoid(x) (inplace: written into input)."""
    if inplace:
        return _inplace.inplace(_core.pointwise_silu, input)
    return _core.pointwise_silu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """torch.nn.functional.leaky_relu: x > 0 ? x : negative_slope * x."""
    if inplace:
        return _inplace.inplace(_core.pointwise_leaky_relu, input, float(negative_slope))
    return _core.pointwise_leaky_relu(input, float(negative_slope))


def elu(input, alpha=1.0, inplace=False):
    """torch.nn.functional.elu: x > 0 ? x : alpha * (exp(x) - 1)."""
    if inplace:
        return _inplace.inplace(_core.pointwise_elu, input, float(alpha))
    return _core.pointwise_elu(input, float(alpha))


def softplus(input, beta=1, threshold=20):
    """torch.nn.functional.softplus: log(1 + exp(beta x)) / beta, x where beta x > threshold."""
    return _core.pointwise_softplus(input, float(beta), float(threshold))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """torch.nn.functional.hardtanh: x clamped to [min_val, max_val]."""
    if inplace:
        return _inplace.inplace(_core.pointwise_hardtanh, input, float(min_val), float(max_val))
    return _core.pointwise_hardtanh(input, float(min_val), float(max_val))


def sin(input):
    return _core.pointwise_sin(input)


def cos(input):
    return _core.pointwise_cos(input)


def rsqrt(input):
    return _core.pointwise_rsqrt(input)


def reciprocal(input):
    return _core.pointwise_reciprocal(input)


def floor(input):
    return _core.pointwise_floor(input)


def ceil(input):
    return _core.pointwise_ceil(input)


_SCALAR_TYPE_NAMES = {"float16": "Half", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool"}


def round(input, *, decimals=0):
    """torch.round, halves to even; with decimals, torch 1.13's
    round_decimals in the input's own dtype: round(x * 10^d) / 10^d
    (round(x / 10^-d) * 10^-d for d < 0), bfloat16 products rounded to
    bfloat16 before the rounding to an integer, as its scalar_t kernel."""
    decimals = int(decimals)
    if decimals == 0:
        return _core.pointwise_round(input)
    dtype = input.dtype
    name = str(dtype).split(".")[-1]
    if name not in ("float32", "float64", "bfloat16"):  # torch's dispatch, and its names
        raise RuntimeError('"round_cpu" not implemented for \'' + _SCALAR_TYPE_NAMES.get(name, name) + "'")
    scale = 10.0 ** abs(decimals)
    if dtype.itemsize != 2:  # float32 / float64: the arithmetic is the dtype's
        if decimals > 0:
            return _core.pointwise_round(input * scale) / scale
        return _core.pointwise_round(input / scale) * scale
    # bfloat16: 10^d and each product rounded to bfloat16, the rest in float
    from ._factories import tensor
    scale = tensor(scale, dtype=dtype).item()
    x = input.float()
    step = (x * scale) if decimals > 0 else (x / scale)
    r = _core.pointwise_round(step.to(dtype).float())
    return ((r / scale) if decimals > 0 else (r * scale)).to(dtype)


def trunc(input):
    return _core.pointwise_trunc(input)


def sign(input):
    return _core.pointwise_sign(input)


fix = trunc
__all__.append("fix")

# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
# Empty on purpose: the SWIG -builtin type refuses setattr for new and
# existing names alike, so Tensor.sin, .cos, .rsqrt, .reciprocal, .floor,
# .ceil, .round, .trunc, .fix and .sign are %extend methods in
# bindings/pointwise.i (Tensor.round without decimals).
TENSOR_METHODS = {"round": round}
