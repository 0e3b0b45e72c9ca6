"""Scans and statistics: cumsum, cumprod, prod, var/std/var_mean, logsumexp, norm, any/all, min/argmin, minimum/maximum."""

__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}
