"""tessera.utils: torch.utils' checkpoint (tessera.utils.checkpoint) and
data (tessera.utils.data) modules."""
import sys as _sys

from . import _checkpoint as checkpoint
from . import _data as data

_sys.modules[__name__ + ".checkpoint"] = checkpoint
_sys.modules[__name__ + ".data"] = data

__all__ = ["checkpoint", "data"]
