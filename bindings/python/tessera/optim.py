"""tessera.optim: torch.optim's SGD, Adam and AdamW (one parameter group,
PyTorch 1.13's single-tensor algorithms, include/tessera/optim.h).

    opt = tessera.optim.SGD(model_params, lr=0.1, momentum=0.9)
    for x, y in batches:
        opt.zero_grad()
        loss = ...; loss.backward()
        opt.step()

The optimizer keeps its own reference to every parameter tensor, so the
parameters live as long as it does. close() (or a with block) releases it
at once; otherwise it is released when collected.
"""
from . import _core
from ._handles import TensorList
from ._grad import enable_grad
from ._tensor import Closable

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


def _param_list(params, what):
    if isinstance(params, _core.Tensor):
        raise TypeError(f"{what}: params argument given to the optimizer should be an iterable of "
                        f"Tensors or dicts, but got {type(params).__name__}")
    params = list(params)
    for p in params:
        if not isinstance(p, _core.Tensor):
            raise TypeError(f"{what} can only optimize Tensors, but one of the params is "
                            f"{type(p).__name__}")
    return params


class _ParamGroup(dict):
    """param_groups[0]: reads and writes of "lr" go to the optimizer."""

    def __init__(self, optimizer, hyper):
        super().__init__(hyper)
        self._optimizer = optimizer

    def __getitem__(self, key):
        if key == "lr":
            return self._optimizer.lr
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        if key == "lr":
            self._optimizer.lr = value
            return
        if key in self:
            raise KeyError(f"{key} is fixed at construction in tessera; only 'lr' can change")
        super().__setitem__(key, value)


class _State:
    """optimizer.state[p]: a dict of p's state tensors (torch's keys),
    empty before p's first step."""

    def __init__(self, optimizer):
        self._optimizer = optimizer

    def __getitem__(self, param):
        return self._optimizer._state_of(param)

    def __contains__(self, param):
        return bool(self._optimizer._state_of(param))

    def __len__(self):
        return sum(1 for p in self._optimizer._params if self._optimizer._state_of(p))


class Optimizer(Closable):
    """The base of SGD, Adam and AdamW: step(), zero_grad(), lr,
    param_groups[0], state[p] / state_tensor(i, key), close()."""
    _keys = ()

    def __init__(self, handle, params, hyper):
        self._handle = handle
        self._params = params
        self.param_groups = [_ParamGroup(self, dict(hyper, params=params))]
        self.state = _State(self)

    def step(self, closure=None):
        """One update of every parameter with a .grad (torch's step);
        closure, if given, is called first (under enable_grad in torch) and its
        loss returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        _core.Optimizer.step(self._handle)
        return loss

    def zero_grad(self, set_to_none=False):
        """zero_grad(set_to_none): set_to_none drops every .grad (None);
        otherwise the gradients are zeroed in place. The default is torch
        1.13's False (torch 2.x's is True)."""
        _core.Optimizer.zero_grad(self._handle, set_to_none)

    @property
    def lr(self):
        """param_groups[0]["lr"]; setting it takes effect at the next step."""
        return _core.Optimizer.get_lr(self._handle)

    @lr.setter
    def lr(self, value):
        _core.Optimizer.set_lr(self._handle, float(value))

    def state_tensor(self, param_index, key):
        """state[params[param_index]][key] itself (writing it changes the
        optimizer's state), or None before that parameter's first step."""
        return _core.Optimizer.state(self._handle, param_index, key)

    def _state_of(self, param):
        for i, p in enumerate(self._params):
            if p is param:
                out = {}
                for key in self._keys:
                    t = self.state_tensor(i, key)
                    if t is not None:
                        out[key] = t
                return out
        raise KeyError("not a parameter of this optimizer")

    def close(self):
        """Releases the native optimizer now (its state and its references to
        the parameters); later calls raise InvalidArgumentError."""
        _core._release(self._handle)

    def __repr__(self):
        lines = [type(self).__name__ + " (", "Parameter Group 0"]
        for k, v in self.param_groups[0].items():
            if k != "params":
                lines.append(f"    {k}: {v}")
        lines.append(")")
        return "\n".join(lines)


class SGD(Optimizer):
    """torch.optim.SGD(params, lr, momentum=0, dampening=0, weight_decay=0,
    nesterov=False). State: "momentum_buffer" (with momentum)."""
    _keys = ("momentum_buffer",)

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False):
        params = _param_list(params, "SGD")
        with _native_list(params) as native:
            handle = _core.Optimizer.sgd(native, float(lr), float(momentum), float(dampening),
                                         float(weight_decay), bool(nesterov))
        super().__init__(handle, params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                              weight_decay=weight_decay, nesterov=nesterov))


class Adam(Optimizer):
    """torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
    weight_decay=0, amsgrad=False). State: "step", "exp_avg", "exp_avg_sq",
    "max_exp_avg_sq" (with amsgrad)."""
    _keys = ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _create = staticmethod(_core.Optimizer.adam)
    _name = "Adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False):
        params = _param_list(params, self._name)
        beta1, beta2 = betas
        with _native_list(params) as native:
            handle = self._create(native, float(lr), float(beta1), float(beta2), float(eps),
                                  float(weight_decay), bool(amsgrad))
        super().__init__(handle, params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                              weight_decay=weight_decay, amsgrad=amsgrad))


class AdamW(Adam):
    """torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
    weight_decay=1e-2, amsgrad=False): decoupled weight decay."""
    _create = staticmethod(_core.Optimizer.adamw)
    _name = "AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)


def _native_list(params):
    native = TensorList()
    try:
        for p in params:
            native.append(p)
    except BaseException:
        native.close()
        raise
    return native
