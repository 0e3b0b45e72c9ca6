"""tessera.nn.functional: torch.nn.functional's names for every functional
op tessera has (the core ops in _functions, and each area module's
FUNCTIONAL names)."""
from . import _areas
from . import _functions as _core_functions
from . import _random
from ._inplace import write_into

_CORE = ["linear", "gelu", "layer_norm", "embedding", "conv2d", "max_pool2d", "avg_pool2d",
         "adaptive_avg_pool2d", "batch_norm", "softmax", "log_softmax", "cross_entropy", "relu",
         "tanh", "sigmoid"]
globals().update({_name: getattr(_core_functions, _name) for _name in _CORE
                  if hasattr(_core_functions, _name)})
for _area in _areas.AREAS:
    globals().update({_name: getattr(_area, _name) for _name in _area.FUNCTIONAL})



def relu(input, inplace=False):
    """torch.nn.functional.relu: max(x, 0); inplace writes input (relu_)."""
    if inplace:
        input.relu_()
        return input
    return _core_functions.relu(input)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """torch.nn.functional.embedding: the rows of weight at the indices
    input; the padding_idx row gets no gradient (its entries of the result
    come from a detached copy, the same values)."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise ValueError("embedding: max_norm, scale_grad_by_freq and sparse are not supported")
    out = _core_functions.embedding(input, weight)
    if padding_idx is None:
        return out
    rows = weight.shape[0]
    if not -rows <= padding_idx < rows:
        raise ValueError("Padding_idx must be within num_embeddings")
    padding_idx %= rows
    if not weight.requires_grad:
        return out
    at_padding = (input == padding_idx).unsqueeze(-1)
    return _core_functions.where(at_padding, out.detach(), out)


def dropout(input, p=0.5, training=True, inplace=False):
    """torch.nn.functional.dropout: torch.dropout(input, p, training) from
    the default generator; inplace writes the result into input."""
    out = _random.dropout(input, p, training)
    return write_into(input, out) if inplace else out


__all__ = sorted({_name for _name in _CORE if hasattr(_core_functions, _name)}
                 | {_name for _area in _areas.AREAS for _name in _area.FUNCTIONAL}
                 | {"dropout", "embedding"})
del _area
