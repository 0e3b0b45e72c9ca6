"""Matrix products and the outer product: mm, mv, bmm, baddbmm, outer."""
from . import _core

__all__ = ["mm", "mv", "bmm", "baddbmm", "outer"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
# Empty on purpose: the SWIG -builtin type refuses setattr, so Tensor.bmm,
# Tensor.baddbmm (beta, alpha positional only) and Tensor.outer are %extend methods in bindings/linalg.i.
TENSOR_METHODS = {}  # mm and mv are added below (plain Python over matmul)


def mm(input, mat2):
    """torch.mm: [n, m] @ [m, p] -> [n, p]; both operands must be 2-D
    (torch's messages), unlike matmul."""
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _core.Tensor.matmul(input, mat2)


def mv(input, vec):
    """torch.mv: [n, m] @ [m] -> [n]."""
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {vec.dim()}, {input.dim()}, {vec.dim()}")
    return _core.Tensor.matmul(input, vec)


TENSOR_METHODS.update({"mm": mm, "mv": mv})


def bmm(input, mat2):
    """torch.bmm: [b, n, m] @ [b, m, p] -> [b, n, p] (bfloat16, float16,
    float32, float64)."""
    return _core.linalg_bmm(input, mat2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """torch.baddbmm: beta * input + alpha * bmm(batch1, batch2)."""
    return _core.linalg_baddbmm(input, batch1, batch2, float(beta), float(alpha))


def outer(input, vec2):
    """torch.outer: input[:, None] * vec2 for 1-D operands."""
    return _core.linalg_outer(input, vec2)
