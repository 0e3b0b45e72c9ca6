"""Scaled dot-product attention: torch.nn.functional.scaled_dot_product_attention
of torch 2.x (torch 1.13 has none), over include/tessera/attention.h."""
import math

from . import _core
from ._random import default_generator

# No top-level names (torch has none either).
__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = ["scaled_dot_product_attention"]
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None):
    """torch.nn.functional.scaled_dot_product_attention (torch 2.x):
    softmax(query @ key.transpose(-2, -1) * scale + mask) @ value, with
    dropout(dropout_p) on the probabilities.

    query (..., L, E), key (..., S, E), value (..., S, Ev), the batch dims
    broadcasting; attn_mask broadcastable to (..., L, S), bool (True takes
    part) or floating (added); is_causal: row i attends to keys j <= i (no
    attn_mask then); scale (keyword-only, as in torch's signature) None:
    1 / sqrt(E). Returns (..., L, Ev) in
    query's dtype (float32, float64, float16, bfloat16), computed by a fused
    kernel in O(L) extra memory; grad_fn
    ScaledDotProductFlashAttentionForCpuBackward0, gradients for query, key
    and value (none for the mask), no double backward. Dropout draws from
    tessera.default_generator (tessera.manual_seed makes it repeatable; a
    checkpoint replay draws the same mask). InvalidArgumentError for
    is_causal with attn_mask, dropout_p outside [0, 1]; ShapeMismatchError
    and DTypeMismatchError as torch 2.x's checks."""
    s = math.nan if scale is None else float(scale)
    return _core.scaled_dot_product_attention(query, key, value, attn_mask, float(dropout_p), bool(is_causal), s,
                                              default_generator)
