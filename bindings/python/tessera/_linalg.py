"""Batched matrix products and the outer product: bmm, baddbmm, outer."""
from . import _core

__all__ = ["bmm", "baddbmm", "outer"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
# Empty on purpose: the SWIG -builtin type refuses setattr, so Tensor.bmm,
# Tensor.baddbmm (beta, alpha positional only) and Tensor.outer are %extend methods in bindings/linalg.i.
TENSOR_METHODS = {}


def bmm(input, mat2):
    """torch.bmm: [b, n, m] @ [b, m, p] -> [b, n, p] (float32/float64)."""
    return _core.linalg_bmm(input, mat2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """torch.baddbmm: beta * input + alpha * bmm(batch1, batch2)."""
    return _core.linalg_baddbmm(input, batch1, batch2, float(beta), float(alpha))


def outer(input, vec2):
    """torch.outer: input[:, None] * vec2 for 1-D operands."""
    return _core.linalg_outer(input, vec2)
