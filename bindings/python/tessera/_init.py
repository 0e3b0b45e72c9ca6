"""tessera.nn.init: torch.nn.init's initializers, in place under no_grad.
Random ones draw from generator (tessera.default_generator when None): the
same distributions as torch, not torch's numbers."""
from . import _core
from ._random import default_generator

__all__ = ["calculate_gain", "kaiming_uniform_", "xavier_uniform_", "zeros_", "normal_",
           "uniform_"]


def _g(generator):
    return default_generator if generator is None else generator


def calculate_gain(nonlinearity, param=None):
    """torch.nn.init.calculate_gain: 1 for linear/conv/sigmoid, 5/3 tanh,
    sqrt(2) relu, sqrt(2 / (1 + slope^2)) leaky_relu (slope param, 0.01 when
    None), 3/4 selu."""
    return _core.init_calculate_gain(nonlinearity, param is not None,
                                     0.0 if param is None else float(param))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Uniform in [-bound, bound), bound = gain * sqrt(3 / fan)."""
    _core.init_kaiming_uniform(tensor, float(a), mode, nonlinearity, _g(generator))
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Uniform in [-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""
    _core.init_xavier_uniform(tensor, float(gain), _g(generator))
    return tensor


def zeros_(tensor):
    _core.init_zeros(tensor)
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    _core.init_normal(tensor, float(mean), float(std), _g(generator))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    _core.init_uniform(tensor, float(a), float(b), _g(generator))
    return tensor
