"""Loss functions (torch.nn.functional): mse, l1, smooth_l1, huber, kl_div, nll, cross_entropy, binary cross entropy."""
import warnings

from . import _core
from ._tensor import _check_open

# torch 1.13's top-level names among the losses (torch.kl_div, ...).
__all__ = ["kl_div", "binary_cross_entropy_with_logits"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "nll_loss", "cross_entropy",
              "binary_cross_entropy", "binary_cross_entropy_with_logits"]
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction):
    """torch's _Reduction.get_enum: the tsr_loss_reduction value of a
    reduction string (torch's ValueError for anything else)."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated, please use reduction='mean' instead.")
        return 1
    if reduction not in _REDUCTIONS:
        raise ValueError("{} is not a valid value for reduction".format(reduction))
    return _REDUCTIONS[reduction]


def _legacy_reduction(size_average, reduce, reduction):
    """torch's _Reduction.legacy_get_string: the deprecated size_average and
    reduce arguments, when given, override reduction."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead."
                  .format("none" if reduce is False else ("sum" if size_average is False else "mean")))
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.mse_loss: (input - target)^2, reduced; the
    operands broadcast (torch's size warning is not given)."""
    r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.mse_loss(input, target, r)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.l1_loss: |input - target|, reduced."""
    r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.l1_loss(input, target, r)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """torch.nn.functional.smooth_l1_loss: 0.5 d^2 / beta where |d| < beta,
    else |d| - 0.5 beta; d = input - target."""
    r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.smooth_l1_loss(input, target, r, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0):
    """torch.nn.functional.huber_loss: 0.5 d^2 where |d| < delta, else
    delta (|d| - 0.5 delta); the result has input's dtype."""
    return _core.huber_loss(input, target, _reduction_enum(reduction), float(delta))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """torch.nn.functional.kl_div: input holds log-probabilities; "batchmean"
    is the sum divided by input.size(0) (0-dim input: the sum).

    Also torch.kl_div(input, target, reduction=1, log_target=False), whose
    reduction is an int (0 none, 1 mean, 2 sum): an int (not bool) third
    argument or reduction selects that form."""
    if isinstance(size_average, int) and not isinstance(size_average, bool):
        reduction, log_target = size_average, (log_target if reduce is None else reduce)
        size_average, reduce = None, None
    if isinstance(reduction, int):
        return _core.kl_div(input, target, int(reduction), bool(log_target))
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if reduction == "batchmean":
        reduced = _core.kl_div(input, target, 2, bool(log_target))
        return reduced / input.size(0) if input.dim() != 0 else reduced
    return _core.kl_div(input, target, _reduction_enum(reduction), bool(log_target))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """torch.nn.functional.nll_loss: input log-probabilities [C], [N, C] or
    [N, C, d1, ...], target int64 class indices, weight None or [C]."""
    _check_open(weight, "nll_loss: weight")
    r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.nll_loss(input, target, weight, r, int(ignore_index))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """torch.nn.functional.cross_entropy: logits [C], [N, C] or
    [N, C, d1, ...]; target int64 class indices or class probabilities of
    input's shape; weight None or [C]."""
    _check_open(weight, "cross_entropy: weight")
    r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.cross_entropy_loss(input, target, weight, r, int(ignore_index), float(label_smoothing))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.binary_cross_entropy: input probabilities in
    [0, 1], target of input's size, weight None or broadcastable."""
    _check_open(weight, "binary_cross_entropy: weight")
    r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.binary_cross_entropy(input, target, weight, r)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """torch.nn.functional.binary_cross_entropy_with_logits (weight and
    pos_weight None or broadcastable to input).

    Also torch.binary_cross_entropy_with_logits(input, target, weight=None,
    pos_weight=None, reduction=1), whose reduction is an int: an int
    reduction, or a tensor as fourth argument, selects that form."""
    if size_average is not None and not isinstance(size_average, bool):  # torch's (.., pos_weight, reduction)
        pos_weight, size_average = size_average, None
    if reduce is not None and not isinstance(reduce, bool):
        reduction, reduce = reduce, None
    _check_open(weight, "binary_cross_entropy_with_logits: weight")
    _check_open(pos_weight, "binary_cross_entropy_with_logits: pos_weight")
    if isinstance(reduction, int):
        r = int(reduction)
    else:
        r = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    return _core.binary_cross_entropy_with_logits(input, target, weight, pos_weight, r)
