"""torch.linalg of PyTorch 1.13: the norms (vector_norm, matrix_norm,
norm) and matmul.

vector_norm is the library's (tsr_linalg_vector_norm: grad_fn
LinalgVectorNormBackward0, torch's messages); matrix_norm's 'fro', 1, -1,
inf and -inf are torch's compositions of it and of sum/amax/amin. The
spectral and nuclear norms (ord 2, -2, 'nuc') need a singular value
decomposition, which tessera does not have: they raise NotImplementedError."""
import math
import operator

from . import _core
from ._functions import matmul
from ._reductions import _dims

__all__ = ["vector_norm", "matrix_norm", "norm", "matmul"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm: (sum |x|^ord)^(1/ord) over dim (None: all
    dims); ord inf/-inf the largest/smallest |x|, 0 the count of non-zeros.
    dtype converts x first, as torch."""
    if dtype is not None:
        x = x.to(dtype)
    return _core.linalg_vector_norm(x, float(ord), list(_dims(dim)), bool(keepdim))


def _matrix_dims(A, dim):
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (operator.index(d) % A.dim() if -A.dim() <= d < A.dim() else d for d in dim)
    if not (0 <= d0 < A.dim() and 0 <= d1 < A.dim()):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-A.dim()}, {A.dim() - 1}], "
                         f"but got {dim[0] if not 0 <= d0 < A.dim() else dim[1]})")
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """torch.linalg.matrix_norm over the two dims in dim: 'fro' (the
    vector 2-norm of the matrix), 1/-1 (the largest/smallest column sum of
    |A|) and inf/-inf (row sums)."""
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _matrix_dims(A, tuple(dim))
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs a singular value decomposition, "
                                  "which tessera does not provide")
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if math.isinf(ord):
        d0, d1 = d1, d0  # row sums
    sums = A.abs().sum(d0, keepdim=keepdim)
    if not keepdim and d0 < d1:
        d1 -= 1
    return sums.amax(d1, keepdim=keepdim) if ord > 0 else sums.amin(d1, keepdim=keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm over an int dim (or of the whole
    tensor when ord and dim are None), a matrix norm over a 2-tuple dim (or
    of a 2-D A when only ord is given)."""
    if dim is not None and not hasattr(dim, "__len__"):
        dim = (dim,)
    if isinstance(ord, str) or dim is not None and len(dim) == 2 or (dim is None and ord is not None
                                                                      and A.dim() == 2):
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim,
                           dtype=dtype)
    if dim is None and ord is not None and A.dim() != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
