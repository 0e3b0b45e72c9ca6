"""Learning-rate schedulers (torch.optim.lr_scheduler)."""

__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}
