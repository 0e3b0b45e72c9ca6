"""tessera.amp: torch.amp's mixed precision tools. GradScaler (torch 1.13's
torch.cuda.amp.GradScaler, torch 2.x's torch.amp.GradScaler) scales the loss
so that float16/bfloat16 gradients keep their small values, and skips the
optimizer's step when a gradient overflows; tessera.cuda.amp.GradScaler is
the same class. tessera.amp.autocast is tessera.autocast (torch 2.x's
torch.amp.autocast).
"""
from ._autocast import autocast
from ._grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast"]
