"""tessera.cpu: torch.cpu's namespace, for torch.cpu.amp.autocast."""
import sys
import types

from ._autocast import cpu_autocast

amp = types.ModuleType("tessera.cpu.amp", "torch.cpu.amp's names")
amp.autocast = cpu_autocast
sys.modules[amp.__name__] = amp

__all__ = ["amp"]
