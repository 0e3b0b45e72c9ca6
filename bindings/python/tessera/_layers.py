"""torch.nn's layers over tessera.nn.functional: Linear, Conv2d,
BatchNorm2d, LayerNorm, Embedding, Dropout, the activations, the poolings,
Flatten and Identity. Each has torch's constructor signature, default
initialisation (through tessera.nn.init: the same distributions, not
torch's numbers) and extra_repr."""
import math

from . import _core, _init as init
from ._dtypes import dtype as dtype_
from . import _nn_functional as F
from ._factories import empty, ones, zeros
from ._grad import no_grad
from ._module import Module, Parameter

__all__ = ["Linear", "Conv2d", "BatchNorm2d", "LayerNorm", "Embedding", "Dropout", "ReLU", "GELU",
           "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softplus", "Hardtanh", "Softmax",
           "LogSoftmax", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "Identity"]


def _factory(device, dtype):
    return {"device": device, "dtype": dtype}


def _fan_in_bias_(bias, weight):
    """torch's bias init of Linear and Conv: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    fan_in = weight.numel() // weight.shape[0] if weight.dim() > 1 else weight.shape[0]
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Linear(Module):
    """y = x @ weight.T + bias; weight [out_features, in_features]."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, **_factory(device, dtype)))
        if bias:
            self.bias = Parameter(empty(out_features, **_factory(device, dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _fan_in_bias_(self.bias, self.weight)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def _pair(v):
    return tuple(v) if hasattr(v, "__len__") else (v, v)


class Conv2d(Module):
    """torch.nn.Conv2d: weight [out_channels, in_channels / groups, kH, kW].
    padding: ints, "valid" (0) or "same" (stride 1; odd total padding is
    not supported)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise ValueError(f"padding_mode {padding_mode!r} is not supported (only 'zeros')")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.dilation = _pair(kernel_size), _pair(stride), _pair(dilation)
        self.groups, self.padding_mode = groups, padding_mode
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            if padding == "same":
                totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
                if any(t % 2 for t in totals):
                    raise ValueError("padding='same' with an even kernel extent needs asymmetric "
                                     "padding, which tessera's conv2d does not have")
                self._padding = tuple(t // 2 for t in totals)
            else:
                self._padding = (0, 0)
            self.padding = padding
        else:
            self.padding = self._padding = _pair(padding)
        kh, kw = self.kernel_size
        self.weight = Parameter(empty(out_channels, in_channels // groups, kh, kw,
                                      **_factory(device, dtype)))
        if bias:
            self.bias = Parameter(empty(out_channels, **_factory(device, dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _fan_in_bias_(self.bias, self.weight)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self._padding, self.dilation,
                        self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            s += f", padding={self.padding!r}" if isinstance(self.padding, str) else f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class BatchNorm2d(Module):
    """torch.nn.BatchNorm2d over [N, C, H, W]: batch statistics in training
    (updating running_mean / running_var, momentum None: a cumulative
    average), the running ones in eval."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = _factory(device, dtype)
        if affine:
            self.weight = Parameter(ones(num_features, **kw))
            self.bias = Parameter(zeros(num_features, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **kw))
            self.register_buffer("running_var", ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", zeros((), dtype=dtype_.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")



class LayerNorm(Module):
    """torch.nn.LayerNorm over the trailing dims normalized_shape."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if not hasattr(normalized_shape, "__len__"):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(*self.normalized_shape, **_factory(device, dtype)))
            self.bias = Parameter(zeros(*self.normalized_shape, **_factory(device, dtype)))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class Embedding(Module):
    """torch.nn.Embedding: weight [num_embeddings, embedding_dim] ~ N(0, 1);
    the padding_idx row starts at zero and gets no gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise ValueError("Embedding: max_norm, scale_grad_by_freq and sparse are not supported")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, **_factory(device, dtype)))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, **kwargs):
        rows, cols = embeddings.shape
        module = cls(rows, cols, padding_idx=padding_idx, _weight=embeddings, **kwargs)
        module.weight.requires_grad = not freeze
        return module

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class Dropout(Module):
    """Zeroes each element with probability p in training (scaling the rest
    by 1 / (1 - p)); the identity in eval."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


def _activation(name, fn, doc, params=(), inplace_param=False):
    """A parameterless layer applying F.<fn>(input, **its arguments)."""
    names = [k for k, _ in params] + (["inplace"] if inplace_param else [])
    defaults = dict(params) if params else {}
    if inplace_param:
        defaults["inplace"] = False

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments ({len(args)} given)")
        values = dict(defaults)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            values[key] = value
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def forward(self, input):
        return getattr(F, fn)(input, **{k: getattr(self, k) for k in names})

    def extra_repr(self):  # torch's: the options, then "inplace=True" only when set
        parts = [f"{k}={getattr(self, k)!r}" if isinstance(getattr(self, k), str)
                 else f"{k}={getattr(self, k)}" for k, _ in params]
        if inplace_param and self.inplace:
            parts.append("inplace=True")
        return ", ".join(parts)

    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__doc__": doc,
                                  "__module__": __name__})


ReLU = _activation("ReLU", "relu", "max(x, 0).", inplace_param=True)
GELU = _activation("GELU", "gelu", "x * Phi(x) (approximate='none' or 'tanh').", [("approximate", "none")])
SiLU = _activation("SiLU", "silu", "x * sigmoid(x).", inplace_param=True)
Tanh = _activation("Tanh", "tanh", "tanh(x).")
Sigmoid = _activation("Sigmoid", "sigmoid", "1 / (1 + exp(-x)).")
LeakyReLU = _activation("LeakyReLU", "leaky_relu", "max(x, 0) + negative_slope * min(x, 0).",
                        [("negative_slope", 0.01)], inplace_param=True)
ELU = _activation("ELU", "elu", "x, or alpha * (exp(x) - 1) below 0.", [("alpha", 1.0)], inplace_param=True)
Softplus = _activation("Softplus", "softplus", "log(1 + exp(beta * x)) / beta.",
                       [("beta", 1), ("threshold", 20)])
Hardtanh = _activation("Hardtanh", "hardtanh", "x clamped to [min_val, max_val].",
                       [("min_val", -1.0), ("max_val", 1.0)], inplace_param=True)
Softmax = _activation("Softmax", "softmax", "softmax along dim.", [("dim", None)])
LogSoftmax = _activation("LogSoftmax", "log_softmax", "log of softmax along dim.", [("dim", None)])


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        if divisor_override is not None:
            raise ValueError("AvgPool2d: divisor_override is not supported")
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    """Returns its input (arguments are accepted and ignored, as torch's)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input
