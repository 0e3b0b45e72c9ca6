"""torch's function forms (tessera.matmul(a, b), tessera.relu(x), ...):
each calls the Tensor method of the same name; and the
torch.nn.functional ops (tessera.linear, gelu, layer_norm, embedding, conv2d,
max_pool2d, avg_pool2d, adaptive_avg_pool2d, batch_norm) and
torch.cat / stack / where, which take several tensors."""
from . import _core
from ._handles import TensorList
from ._tensor import Tensor, _check_open, _pieces, scalar_tensor, where_op
from .errors import InvalidArgumentError

_N = _core.Tensor

__all__ = ["is_tensor", "add", "sub", "mul", "div", "matmul", "relu", "exp", "log", "neg", "sum",
           "mean", "max", "argmax", "log_softmax", "softmax", "cross_entropy", "transpose", "t",
           "reshape", "permute", "narrow", "select", "squeeze", "unsqueeze", "flatten", "movedim",
           "as_strided", "split", "chunk", "clone", "detach", "numel", "tanh", "sigmoid", "sqrt",
           "pow", "clamp", "clip", "index_select", "gather", "linear", "gelu", "layer_norm",
           "embedding", "cat", "concat", "stack", "where", "eq", "ne", "lt", "le", "gt", "ge",
           "abs", "allclose", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
           "batch_norm"]


def is_tensor(obj):
    return isinstance(obj, _N)


def add(input, other, alpha=1):
    return input.add(other, alpha=alpha)


def sub(input, other, alpha=1):
    return input.sub(other, alpha=alpha)


def mul(input, other):
    return input * other


def div(input, other):
    return input / other


def eq(input, other):
    return input.eq(other)


def ne(input, other):
    return input.ne(other)


def lt(input, other):
    return input.lt(other)


def le(input, other):
    return input.le(other)


def gt(input, other):
    return input.gt(other)


def ge(input, other):
    return input.ge(other)


def abs(input):
    return _N.abs(input)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return input.allclose(other, rtol, atol, equal_nan)


def matmul(input, other):
    return _N.matmul(input, other)


def relu(input):
    return _N.relu(input)


def exp(input):
    return _N.exp(input)


def log(input):
    return _N.log(input)


def neg(input):
    return _N.neg(input)


def sum(input, dim=None, keepdim=False, dtype=None):
    return Tensor.sum(input, dim, keepdim, dtype)


def mean(input, dim=None, keepdim=False, dtype=None):
    return Tensor.mean(input, dim, keepdim, dtype)


def max(input, dim=None, keepdim=False):
    return Tensor.max(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return Tensor.argmax(input, dim, keepdim)


def log_softmax(input, dim):
    return _N.log_softmax(input, dim)


def softmax(input, dim):
    return Tensor.softmax(input, dim)


def cross_entropy(input, target):
    """torch.nn.functional.cross_entropy(logits [N, C], target [N] int64),
    mean over the batch."""
    return _N.cross_entropy(input, target)


def transpose(input, dim0, dim1):
    return _N.transpose(input, dim0, dim1)


def t(input):
    return _N.t(input)


def reshape(input, shape):
    return _N.reshape(input, shape)


def permute(input, dims):
    return _N.permute(input, dims)


def narrow(input, dim, start, length):
    return _N.narrow(input, dim, start, length)


def select(input, dim, index):
    return _N.select(input, dim, index)


def squeeze(input, dim=None):
    return Tensor.squeeze(input, dim)


def unsqueeze(input, dim):
    return _N.unsqueeze(input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    return _N.flatten(input, start_dim, end_dim)


def movedim(input, source, destination):
    return Tensor.movedim(input, source, destination)


def as_strided(input, size, stride, storage_offset=None):
    return Tensor.as_strided(input, size, stride, storage_offset)


def split(input, split_size, dim=0):
    return Tensor.split(input, split_size, dim)


def chunk(input, chunks, dim=0):
    return Tensor.chunk(input, chunks, dim)


def clone(input, memory_format=_core.PRESERVE_FORMAT):
    return _N.clone(input, memory_format)


def detach(input):
    return _N.detach(input)


def numel(input):
    return _N.numel(input)


def tanh(input):
    return _N.tanh(input)


def sigmoid(input):
    return _N.sigmoid(input)


def sqrt(input):
    return _N.sqrt(input)


def pow(input, exponent):
    """torch.pow: input a tensor, exponent a number or a tensor; or input a
    number and exponent a tensor."""
    if not isinstance(input, _N):
        return Tensor.__rpow__(exponent, input)
    return Tensor.pow(input, exponent)


def clamp(input, min=None, max=None):
    return Tensor.clamp(input, min, max)


clip = clamp


def index_select(input, dim, index):
    return _N.index_select(input, dim, index)


def gather(input, dim, index):
    return _N.gather(input, dim, index)


# ---- torch.nn.functional ---------------------------------------------------------

def linear(input, weight, bias=None):
    """torch.nn.functional.linear: input @ weight.T + bias; input [*, in],
    weight [out, in], bias None or [out]."""
    _check_open(bias, "linear: bias")
    return _core.linear(input, weight, bias)


_GELU_APPROXIMATE = {"none": _core.GELU_NONE, "tanh": _core.GELU_TANH}


def gelu(input, approximate="none"):
    """torch.nn.functional.gelu: x * Phi(x) ("none", erf), or its tanh
    approximation ("tanh")."""
    code = _GELU_APPROXIMATE.get(approximate) if isinstance(approximate, str) else None
    if code is None:
        raise InvalidArgumentError(int(_core.ERR_INVALID_ARGUMENT),
                                   "approximate argument must be either none or tanh.")
    return _core.gelu(input, code)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm over the trailing dims normalized_shape
    (an int or a sequence), with optional elementwise weight and bias of
    those sizes."""
    _check_open(weight, "layer_norm: weight")
    _check_open(bias, "layer_norm: bias")
    if not hasattr(normalized_shape, "__len__"):
        normalized_shape = (normalized_shape,)
    return _core.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(input, weight):
    """torch.nn.functional.embedding(input, weight): the rows of weight [V, D]
    at the int32/int64 indices input (any shape); result input's sizes + [D]."""
    return _core.embedding(input, weight)


# ---- convolutional layers (cnn.h) ---------------------------------------------------

def _pair(v):
    """torch's _pair: an int stands for (v, v)."""
    return tuple(v) if hasattr(v, "__len__") else (v, v)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv2d: input [N, C_in, H, W], weight
    [C_out, C_in / groups, kH, kW], bias None or [C_out]; channels_last out
    when input or weight is channels_last."""
    _check_open(bias, "conv2d: bias")
    return _core.conv2d(input, weight, bias, _pair(stride), _pair(padding), _pair(dilation), groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """torch.nn.functional.max_pool2d; stride None means kernel_size. With
    return_indices, (values, int64 indices into each H*W plane)."""
    args = (input, _pair(kernel_size), () if stride is None else _pair(stride), _pair(padding),
            _pair(dilation), ceil_mode)
    if return_indices:
        return _pieces(_core.max_pool2d_with_indices(*args))
    return _core.max_pool2d(*args)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """torch.nn.functional.avg_pool2d (divisor_override not supported)."""
    return _core.avg_pool2d(input, _pair(kernel_size), () if stride is None else _pair(stride),
                            _pair(padding), ceil_mode, count_include_pad)


def adaptive_avg_pool2d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool2d; output_size an int or (H, W)."""
    return _core.adaptive_avg_pool2d(input, _pair(output_size))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """torch.nn.functional.batch_norm: running stats (None only when training)
    are updated in place when training."""
    for t, what in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"),
                    (bias, "bias")):
        _check_open(t, "batch_norm: " + what)
    return _core.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


# ---- several tensors ---------------------------------------------------------------

def _tensor_list(tensors, what):
    """A sequence of tensors as a native TensorList (closed by the caller)."""
    if isinstance(tensors, _N):
        raise TypeError(f"{what}(): argument 'tensors' must be a sequence of Tensors, not Tensor")
    native = TensorList()
    try:
        for t in tensors:
            if not isinstance(t, _N):
                raise TypeError(f"{what}(): expected a sequence of Tensors, got an element of type "
                                f"{type(t).__name__}")
            native.append(t)
    except BaseException:
        native.close()
        raise
    return native


def cat(tensors, dim=0):
    """torch.cat: the tensors joined along dim (the other sizes must agree;
    the dtype is their promotion)."""
    with _tensor_list(tensors, "cat") as native:
        return _core.cat(native, dim)


concat = cat


def stack(tensors, dim=0):
    """torch.stack: tensors of one size joined along a new dim."""
    with _tensor_list(tensors, "stack") as native:
        return _core.stack(native, dim)


def where(condition, input, other):
    """torch.where(condition, input, other): input where condition (bool) is
    true, else other; all three broadcast. input or other may be a number,
    typed as a binary op types it."""
    return where_op(condition, input, other)
