"""Elementwise math and activations beyond ops.h: silu, leaky_relu, elu, softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc, sign."""
from . import _core

__all__ = ["sin", "cos", "rsqrt", "reciprocal", "floor", "ceil", "round", "trunc", "sign"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = ["silu", "leaky_relu", "elu", "softplus", "hardtanh"]


def _no_inplace(name, inplace):
    # The in-place forms are not implemented: refuse rather than copy
    # silently (torch's in-place result shares self's storage).
    if inplace:
        raise NotImplementedError("{}: inplace=True is not supported by tessera; use the out-of-place form"
                                  .format(name))


def silu(input, inplace=False):
    """torch.nn.functional.silu: x * sigmoid(x)."""
    _no_inplace("silu", inplace)
    return _core.pointwise_silu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """torch.nn.functional.leaky_relu: x > 0 ? x : negative_slope * x."""
    _no_inplace("leaky_relu", inplace)
    return _core.pointwise_leaky_relu(input, float(negative_slope))


def elu(input, alpha=1.0, inplace=False):
    """torch.nn.functional.elu: x > 0 ? x : alpha * (exp(x) - 1)."""
    _no_inplace("elu", inplace)
    return _core.pointwise_elu(input, float(alpha))


def softplus(input, beta=1, threshold=20):
    """torch.nn.functional.softplus: log(1 + exp(beta x)) / beta, x where beta x > threshold."""
    return _core.pointwise_softplus(input, float(beta), float(threshold))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """torch.nn.functional.hardtanh: x clamped to [min_val, max_val]."""
    _no_inplace("hardtanh", inplace)
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


def round(input, decimals=0):
    """torch.round, halves to even; decimals other than 0 are not supported."""
    if decimals != 0:
        raise NotImplementedError("round: decimals != 0 is not supported by tessera")
    return _core.pointwise_round(input)


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
TENSOR_METHODS = {}
