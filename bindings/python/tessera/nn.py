"""tessera.nn: torch.nn's namespace. tessera.nn.init holds the initializers
(torch.nn.init), tessera.nn.functional torch.nn.functional's ops (also
module functions of tessera: tessera.linear, ...) and tessera.nn.utils
gradient clipping."""
import sys as _sys

from . import _init as init
from . import _nn_functional as functional
from . import _nn_utils as utils

_sys.modules[__name__ + ".init"] = init
_sys.modules[__name__ + ".functional"] = functional
_sys.modules[__name__ + ".utils"] = utils
