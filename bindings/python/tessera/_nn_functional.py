"""tessera.nn.functional: torch.nn.functional's names for every functional
op tessera has (the core ops in _functions, and each area module's
FUNCTIONAL names)."""
from . import _areas
from . import _functions as _core_functions
from . import _random
from ._inplace import write_into

_CORE = ["linear", "gelu", "layer_norm", "embedding", "conv2d", "max_pool2d", "avg_pool2d",
         "adaptive_avg_pool2d", "batch_norm", "softmax", "log_softmax", "cross_entropy", "relu",
         "tanh", "sigmoid"]
globals().update({_name: getattr(_core_functions, _name) for _name in _CORE
                  if hasattr(_core_functions, _name)})
for _area in _areas.AREAS:
    globals().update({_name: getattr(_area, _name) for _name in _area.FUNCTIONAL})



def relu(input, inplace=False):
    """torch.nn.functional.relu: max(x, 0); inplace writes input (relu_)."""
    if inplace:
        input.relu_()
        return input
    return _core_functions.relu(input)


def dropout(input, p=0.5, training=True, inplace=False):
    """torch.nn.functional.dropout: torch.dropout(input, p, training) from
    the default generator; inplace writes the result into input."""
    out = _random.dropout(input, p, training)
    return write_into(input, out) if inplace else out


__all__ = sorted({_name for _name in _CORE if hasattr(_core_functions, _name)}
                 | {_name for _area in _areas.AREAS for _name in _area.FUNCTIONAL} | {"dropout"})
del _area
