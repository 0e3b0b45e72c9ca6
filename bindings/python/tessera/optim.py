"""tessera.optim: torch.optim's SGD, Adam and AdamW with parameter groups
(PyTorch 1.13's single-tensor algorithms, include/tessera/optim.h), and
tessera.optim.lr_scheduler (torch.optim.lr_scheduler).

    opt = tessera.optim.SGD([{"params": body}, {"params": head, "lr": 0.01}],
                            lr=0.1, momentum=0.9)
    for x, y in batches:
        opt.zero_grad()
        loss = ...; loss.backward()
        opt.step()

param_groups[g] is a dict-like view of the native group: reads and writes
of its numeric options ("lr", "momentum", "betas", ...) go to the optimizer,
so the next step uses them (what schedulers rely on). state_dict() and
load_state_dict() have torch's structure. The optimizer keeps its own
reference to every parameter tensor, so the parameters live as long as it
does. close() (or a with block) releases it at once; otherwise it is
released when collected.
"""
import sys as _sys
from collections.abc import MutableMapping

from . import _core
from ._handles import TensorList
from ._grad import enable_grad
from ._tensor import Closable

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


class _RequiredParameter:
    """torch.optim.optimizer.required: an option without a default."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# Options kept by the library as numbers but shown as bools, as torch's.
_BOOL_OPTIONS = ("nesterov", "amsgrad", "maximize", "differentiable", "capturable", "fused")


def _as_list(params, what):
    if isinstance(params, _core.Tensor):
        return [params]
    if isinstance(params, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                        "of tensors in sets will change between runs. Please use a list instead.")
    params = list(params)
    for p in params:
        if not isinstance(p, _core.Tensor):
            raise TypeError(f"{what} can only optimize Tensors, but one of the params is "
                            f"{type(p).__module__}.{type(p).__name__}")
    return params


def _native_options(options):
    """(keys, values) the library takes: numbers (bools as 0/1), "betas" as
    beta1/beta2; the rest stays in Python."""
    keys, values, rest = [], [], {}
    for key, value in options.items():
        if key == "betas":
            keys += ["beta1", "beta2"]
            values += [float(value[0]), float(value[1])]
        elif isinstance(value, (bool, int, float)) and "," not in key:
            keys.append(key)
            values.append(float(value))
        else:
            rest[key] = value
    return keys, values, rest


class _ParamGroup(MutableMapping):
    """optimizer.param_groups[g]: "params", the group's options read from and
    written to the optimizer (numbers; "betas" as a pair; nesterov/amsgrad as
    bools), and any other value a caller stores, kept here."""

    def __init__(self, optimizer, index, params, rest):
        self._optimizer, self._index = optimizer, index
        self._params = params
        self._rest = dict(rest)

    def _native_keys(self):
        h, g = self._optimizer._handle, self._index
        return [_core.Optimizer.group_option_key(h, g, i) for i in range(_core.Optimizer.group_option_count(h, g))]

    def _keys(self):
        native = self._native_keys()
        keys = ["params"]
        for k in native:
            if k == "beta1":
                keys.append("betas")
            elif k != "beta2":
                keys.append(k)
        return keys + [k for k in self._rest if k not in keys]

    def __getitem__(self, key):
        if key == "params":
            return self._params
        h, g = self._optimizer._handle, self._index
        native = self._native_keys()
        if key == "betas" and "beta1" in native:
            return (_core.Optimizer.get_group_option(h, g, "beta1"), _core.Optimizer.get_group_option(h, g, "beta2"))
        if key in native:
            value = _core.Optimizer.get_group_option(h, g, key)
            return bool(value) if key in _BOOL_OPTIONS else value
        return self._rest[key]

    def __setitem__(self, key, value):
        h, g = self._optimizer._handle, self._index
        if key == "params":
            raise ValueError("tessera: a parameter group's params are fixed once added (use add_param_group)")
        if key == "betas":
            b1, b2 = value
            if b2 != self["betas"][1]:
                _core.Optimizer.set_group_option(h, g, "beta2", float(b2))
            _core.Optimizer.set_group_option(h, g, "beta1", float(b1))
        elif isinstance(value, (bool, int, float)) and "," not in key:
            _core.Optimizer.set_group_option(h, g, key, float(value))
            self._rest.pop(key, None)
        else:
            if key in self._native_keys():
                raise TypeError(f"param_groups[{g}][{key!r}] must be a number, not {type(value).__name__}")
            self._rest[key] = value

    def __delitem__(self, key):
        if key in self._rest:
            del self._rest[key]
            return
        raise KeyError(f"tessera cannot remove the option {key!r} of a parameter group")

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())

    def __repr__(self):
        return repr(dict(self.items()))


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
    param_groups, add_param_group(), state[p] / state_tensor(i, key),
    state_dict(), load_state_dict(), close()."""
    _keys = ()
    _name = "Optimizer"

    def __init__(self, params, defaults):
        self.defaults = defaults
        groups = list(params) if not isinstance(params, _core.Tensor) else params
        if isinstance(groups, _core.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(groups).__module__}.{type(groups).__name__}")
        if groups and not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self._handle = None
        self._params = []
        self.param_groups = []
        self.state = _State(self)
        if not groups:  # the library's "optimizer got an empty parameter list"
            groups = [{"params": []}]
        for group in groups:
            self.add_param_group(group)

    def _create(self, params, options):
        """The native optimizer with its first group (subclasses)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """torch's add_param_group: a new group with the defaults for the
        options it does not give."""
        if not isinstance(param_group, dict):
            raise TypeError("param group must be a dict")
        params = _as_list(param_group["params"], self._name)
        options = {}
        for name, default in self.defaults.items():
            if name in param_group:
                options[name] = param_group[name]
            elif default is required:
                raise ValueError("parameter group didn't specify a value of required optimization parameter "
                                 + name)
            else:
                options[name] = default
        options.update({k: v for k, v in param_group.items() if k != "params" and k not in options})
        keys, values, rest = _native_options(options)
        with _native_list(params) as native:
            if self._handle is None:
                self._handle = self._create(native, dict(zip(keys, values)))
                extra = [(k, v) for k, v in zip(keys, values) if k not in self._native_defaults]
                for k, v in extra:
                    _core.Optimizer.set_group_option(self._handle, 0, k, v)
            else:
                _core.Optimizer.add_param_group(self._handle, native, ",".join(keys), values)
        self._params.extend(params)
        self.param_groups.append(_ParamGroup(self, len(self.param_groups), params, rest))

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

    def state_dict(self):
        """torch's {"state": {i: {key: tensor}}, "param_groups": [{options...,
        "params": [i, ...]}]}: parameters numbered across groups in order, the
        state tensors themselves (not copies), as torch's."""
        state = {}
        for i in range(len(self._params)):
            entry = {}
            for key in self._keys:
                t = self.state_tensor(i, key)
                if t is not None:
                    entry[key] = t
            if entry:
                state[i] = entry
        groups, first = [], 0
        for group in self.param_groups:
            d = {k: v for k, v in group.items() if k != "params"}
            d["params"] = list(range(first, first + len(group["params"])))
            first += len(group["params"])
            groups.append(d)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """torch's load_state_dict: the groups' options replaced by the loaded
        ones, the state by copies of the loaded tensors (cast to each
        parameter's dtype and device); nothing changes on error."""
        from ._factories import tensor
        from . import _dtypes
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")
        rests = []
        with TensorList() as flat:
            for g, saved in enumerate(groups):
                options = {k: v for k, v in saved.items() if k != "params"}
                keys, values, rest = _native_options(options)
                rests.append(rest)
                for k, v in zip(keys, values):
                    flat.append(tensor(v, dtype=_dtypes.dtype.float64), f"param_groups.{g}.{k}")
                flat.append(tensor(list(saved["params"]), dtype=_dtypes.dtype.int64), f"param_groups.{g}.params")
            for i, entry in state_dict["state"].items():
                for key, value in entry.items():
                    if not isinstance(value, _core.Tensor):
                        value = tensor(float(value))
                    flat.append(value, f"state.{int(i)}.{key}")
            _core.Optimizer.load_state_dict(self._handle, flat)
        for group, rest in zip(self.param_groups, rests):
            group._rest = dict(rest)

    def close(self):
        """Releases the native optimizer now (its state and its references to
        the parameters); later calls raise InvalidArgumentError."""
        _core._release(self._handle)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(group.keys()):
                if k != "params":
                    lines.append(f"    {k}: {group[k]}")
        lines.append(")")
        return "\n".join(lines)


def _flag(name, value, allowed):
    if value != allowed:
        raise NotImplementedError(f"tessera's optimizers run torch's single-tensor algorithm only: "
                                  f"{name}={value!r} is not supported")
    return value


class SGD(Optimizer):
    """torch.optim.SGD(params, lr, momentum=0, dampening=0, weight_decay=0,
    nesterov=False, maximize=False, foreach=None, differentiable=False).
    State: "momentum_buffer" (with momentum)."""
    _keys = ("momentum_buffer",)
    _name = "SGD"
    _native_defaults = ("lr", "momentum", "dampening", "weight_decay", "nesterov")

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        _flag("maximize", maximize, False)
        _flag("differentiable", differentiable, False)
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable))

    def _create(self, native, o):
        return _core.Optimizer.sgd(native, o["lr"], o["momentum"], o["dampening"], o["weight_decay"],
                                   bool(o["nesterov"]))


class Adam(Optimizer):
    """torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
    weight_decay=0, amsgrad=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False, fused=False). State: "step",
    "exp_avg", "exp_avg_sq", "max_exp_avg_sq" (with amsgrad)."""
    _keys = ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _native = staticmethod(_core.Optimizer.adam)
    _name = "Adam"
    _native_defaults = ("lr", "beta1", "beta2", "eps", "weight_decay", "amsgrad")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        for name, value in (("maximize", maximize), ("capturable", capturable),
                            ("differentiable", differentiable), ("fused", fused)):
            _flag(name, value, False)
        super().__init__(params, self._defaults(lr, tuple(betas), eps, weight_decay, amsgrad, foreach, maximize,
                                                capturable, differentiable, fused))

    @staticmethod
    def _defaults(lr, betas, eps, weight_decay, amsgrad, foreach, maximize, capturable, differentiable, fused):
        return dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                    foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused)

    def _create(self, native, o):
        return self._native(native, o["lr"], o["beta1"], o["beta2"], o["eps"], o["weight_decay"],
                            bool(o["amsgrad"]))


class AdamW(Adam):
    """torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
    weight_decay=1e-2, amsgrad=False, *, maximize=False, foreach=None,
    capturable=False): decoupled weight decay."""
    _native = staticmethod(_core.Optimizer.adamw)
    _name = "AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _flag("maximize", maximize, False)
        _flag("capturable", capturable, False)
        Optimizer.__init__(self, params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                              amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                                              capturable=capturable))


def _native_list(params):
    native = TensorList()
    try:
        for p in params:
            native.append(p)
    except BaseException:
        native.close()
        raise
    return native


# tessera.optim.lr_scheduler (imported last: it uses Optimizer).
from . import _lr_scheduler as lr_scheduler  # noqa: E402

_sys.modules[__name__ + ".lr_scheduler"] = lr_scheduler
