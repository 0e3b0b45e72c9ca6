"""Sorting and selection: sort, argsort, topk, kthvalue."""

__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}
