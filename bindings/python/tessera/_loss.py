"""Loss functions (torch.nn.functional): mse, l1, smooth_l1, huber, kl_div, nll, cross_entropy, binary cross entropy."""

__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}
