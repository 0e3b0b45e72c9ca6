"""tessera.nn: torch.nn's namespace. tessera.nn.init holds the initializers
(torch.nn.init); torch.nn.functional's ops are module functions of tessera
(tessera.linear, ...)."""
import sys as _sys

from . import _init as init

_sys.modules[__name__ + ".init"] = init
