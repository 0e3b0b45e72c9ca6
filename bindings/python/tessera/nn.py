"""tessera.nn: torch.nn's namespace. Module and Parameter (_module), the
layers (_layers), containers (_containers) and loss modules
(_loss_modules); tessera.nn.init holds the initializers (torch.nn.init),
tessera.nn.functional torch.nn.functional's ops (also module functions of
tessera: tessera.linear, ...), tessera.nn.utils gradient clipping and
tessera.nn.parallel DistributedDataParallel."""
import sys as _sys

from . import _init as init
from . import _nn_functional as functional
from . import _nn_utils as utils
from . import _parallel as parallel
from ._module import Module, Parameter
from ._layers import *  # noqa: F401,F403
from ._containers import *  # noqa: F401,F403
from ._loss_modules import *  # noqa: F401,F403
from . import _containers, _layers, _loss_modules

_sys.modules[__name__ + ".init"] = init
_sys.modules[__name__ + ".functional"] = functional
_sys.modules[__name__ + ".utils"] = utils
_sys.modules[__name__ + ".parallel"] = parallel
_sys.modules[__name__ + ".modules"] = _sys.modules[__name__]  # torch.nn.modules.X

__all__ = (["Module", "Parameter", "init", "functional", "utils", "parallel"] + _layers.__all__
           + _containers.__all__ + _loss_modules.__all__)
