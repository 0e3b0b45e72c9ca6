"""tessera.nn.functional: torch.nn.functional's names for every functional
op tessera has (the core ops in _functions, and each area module's
FUNCTIONAL names)."""
from . import _areas
from . import _functions as _core_functions
from ._random import dropout

_CORE = ["linear", "gelu", "layer_norm", "embedding", "conv2d", "max_pool2d", "avg_pool2d",
         "adaptive_avg_pool2d", "batch_norm", "softmax", "log_softmax", "cross_entropy", "relu",
         "tanh", "sigmoid"]
globals().update({_name: getattr(_core_functions, _name) for _name in _CORE
                  if hasattr(_core_functions, _name)})
for _area in _areas.AREAS:
    globals().update({_name: getattr(_area, _name) for _name in _area.FUNCTIONAL})

__all__ = sorted({_name for _name in _CORE if hasattr(_core_functions, _name)}
                 | {_name for _area in _areas.AREAS for _name in _area.FUNCTIONAL} | {"dropout"})
del _area
