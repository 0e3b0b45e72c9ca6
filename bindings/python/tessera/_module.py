"""tessera.nn.Module and tessera.nn.Parameter: torch.nn.Module's model of
a network as a tree of modules owning parameters and buffers.

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)                       # a child module
            self.register_buffer("steps", tessera.zeros((), dtype=tessera.int64))
        def forward(self, x):
            return self.fc(x)

Attribute assignment registers Parameters, Modules and (assigned to a
registered name) buffers, as torch's __setattr__ does; state_dict keys are
dotted paths in torch's order (own parameters, own persistent buffers, then
each child's). load_state_dict checks everything before copying anything:
a failing load leaves the module as it was (torch may have copied part of
it before raising).
"""
import collections
import itertools

from . import _core
from ._dtypes import device as _device, dtype as _dtype, memory_format as _memory_format
from ._grad import no_grad
from ._tensor import Tensor, Size, _to_arguments

__all__ = ["Module", "Parameter"]

_N = _core.Tensor


class Parameter(Tensor):
    """torch.nn.Parameter(data=None, requires_grad=True): a tensor a Module
    registers as a parameter when assigned to it. It shares data's memory
    (data detached: a leaf)."""
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ._factories import empty
            data = empty(0)
        if not isinstance(data, _N):
            raise TypeError(f"Parameter: data must be a Tensor, not {type(data).__name__}")
        param = _N.detach(data)
        param.__class__ = cls  # same native layout: Tensor adds no fields
        _N.set_requires_grad(param, bool(requires_grad))
        return param

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __reduce__(self):
        base = Tensor.__reduce__(self)
        return (_rebuild_parameter, (base, _N.requires_grad(self)))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(_N.clone(self), _N.requires_grad(self))
        return memo[id(self)]


def _rebuild_parameter(base, requires_grad):
    fn, args = base
    return Parameter(fn(*args), requires_grad)


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns (torch's namedtuple)."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """What register_forward_hook returns: remove() unregisters the hook."""
    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def _check_name(kind, name):
    """torch's checks of a parameter/buffer/module name."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")


def _type_name(value):
    """torch's name of a value's type in messages ('torch.FloatTensor' for
    tensors: here tessera.float32 tensor)."""
    if isinstance(value, _N):
        return f"{value.dtype} tensor"
    return type(value).__name__


class Module:
    """torch.nn.Module: subclass it, call super().__init__() first, assign
    parameters and submodules as attributes, define forward()."""

    training: bool
    _version = 1

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "_forward_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- calling ----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(self, hook):
        """hook(module, args) before forward; a non-None result replaces
        args (a single value becomes a 1-tuple)."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        """hook(module, args, output) after forward; a non-None result
        replaces output."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    # ---- registration -----------------------------------------------------------
    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(tessera.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             "must be created explicitly. To express '{name}' as a function of "
                             "another Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor that is part of the module's state but not a parameter
        (running statistics). persistent=False keeps it out of state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _N):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(tessera Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        module = self
        for item in target.split(".") if target else ():
            if item not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def forget(*stores):
            for store in stores:
                if store in d:
                    d[store].pop(name, None)
            d.pop(name, None)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget("_buffers", "_modules")
            d["_non_persistent_buffers_set"].discard(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(tessera.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if "_modules" not in d:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget("_parameters", "_buffers")
            d["_modules"][name] = value
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(tessera.nn.Module or None expected)")
            d["_modules"][name] = value
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, _N):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(tessera.Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # ---- traversal --------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                            remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # ---- modes ------------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        """Zeroes every parameter's gradient (torch 1.13's default), or drops
        it with set_to_none=True."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def apply(self, fn):
        """fn(module) on every submodule (children first), then self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversions ------------------------------------------------------------------
    def _apply(self, fn):
        """fn on every parameter, its gradient and every buffer, parameters
        keeping their identity (param.data = fn(param), as torch 1.13)."""
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for name, param in self._parameters.items():
                if param is None:
                    continue
                grad = param.grad
                converted = fn(param)
                if converted is not param:
                    param.data = converted
                if grad is not None:
                    new_grad = fn(grad)
                    if new_grad is not grad or param.grad is None:
                        param.grad = new_grad
            for name, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[name] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """torch.nn.Module.to(device=None, dtype=None, non_blocking=False,
        memory_format=...): floating parameters and buffers take dtype,
        everything moves to device, 4-d ones take memory_format (the
        tensors themselves change; the Parameter objects stay)."""
        target_device, target_dtype, non_blocking, _, memory_format = _to_arguments(args, kwargs)
        if target_dtype is not None and not target_dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={target_dtype}")
        keep_format = memory_format == _memory_format.preserve_format

        def convert(t):
            dtype = target_dtype if t.is_floating_point() else None
            fmt = memory_format if (not keep_format and t.dim() in (4, 5)) else \
                _memory_format.preserve_format
            return t.to(target_device, dtype, non_blocking, memory_format=fmt)
        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ---- state_dict -------------------------------------------------------------------
    def _local_state(self):
        """Own parameters, then own persistent buffers: name -> tensor."""
        state = collections.OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                state[name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                state[name] = buf
        return state

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of dotted name -> tensor: parameters and persistent
        buffers, detached (keep_vars=True: the tensors themselves)."""
        if args:  # torch's deprecated positional form (destination, prefix, keep_vars)
            names = ["destination", "prefix", "keep_vars"]
            given = dict(zip(names, args))
            destination = given.get("destination", destination)
            prefix = given.get("prefix", prefix)
            keep_vars = given.get("keep_vars", keep_vars)
        if destination is None:
            destination = collections.OrderedDict()
        for name, value in self._local_state().items():
            destination[prefix + name] = value if keep_vars else _N.detach(value)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copies state_dict's tensors into the parameters and buffers
        (torch's rules and messages). Missing and unexpected keys are errors
        with strict=True, else returned; a shape mismatch is always an
        error. On error nothing has been copied."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        missing, unexpected, errors, copies = [], [], [], []
        for prefix, module in self.named_modules():
            prefix = prefix + "." if prefix else ""
            local = module._local_state()
            for name, target in local.items():
                key = prefix + name
                if key not in state_dict:
                    missing.append(key)
                    continue
                value = state_dict[key]
                if not isinstance(value, _N):
                    errors.append(f'While copying the parameter named "{key}", expected '
                                  "tessera.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                    continue
                if value.shape != target.shape:
                    errors.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {target.shape}.")
                    continue
                copies.append((target, value))
            for key in state_dict.keys():
                # torch's rule: a key under this module's prefix whose next
                # name is neither a child nor a local entry is unexpected
                if isinstance(key, str) and key.startswith(prefix):
                    head = key[len(prefix):].split(".", 1)[0]
                    if head not in module._modules and head not in local:
                        unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        with no_grad():
            for target, value in copies:
                target.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

    # ---- printing -----------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, module in self._modules.items():
            text = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        head = self._get_name() + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

