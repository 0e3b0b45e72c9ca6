"""Indexing by tensors and masks: masked_fill, masked_select, nonzero, scatter family, index_put_, index_add_, index_copy_, take_along_dim."""

__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}
