"""torch's function forms (tessera.matmul(a, b), tessera.relu(x), ...):
each calls the Tensor method of the same name."""
from . import _core
from ._tensor import Tensor

_N = _core.Tensor

__all__ = ["is_tensor", "add", "sub", "mul", "div", "matmul", "relu", "exp", "log", "neg", "sum",
           "mean", "max", "argmax", "log_softmax", "softmax", "cross_entropy", "transpose", "t",
           "reshape", "permute", "narrow", "select", "squeeze", "unsqueeze", "flatten", "movedim",
           "as_strided", "split", "chunk", "clone", "detach", "numel"]


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
