"""tessera.autograd.Function: torch.autograd.Function over the C ABI's
custom functions (include/tessera/function.h).

    class Exp(tessera.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)            # y.grad_fn.name() == "ExpBackward"

forward runs with grad mode off; non-tensor arguments pass through to it
(their gradient must be None). forward returns a tensor, or a tuple;
non-tensor outputs pass through to the caller, and backward gets None for
them, as in torch. Exceptions raised in forward or backward
reach the caller of apply / backward / autograd.grad as themselves, with
their tracebacks. Inside a checkpoint region the function is recomputed by
calling forward again (so forward's side effects happen again). ctx keeps
any attributes forward sets on it for backward.
"""
import functools

from . import _callback_errors, _core
from ._grad import is_grad_enabled, no_grad
from .errors import Error

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

_N = _core.Tensor
_requires_grad = _N.requires_grad


class FunctionCtx:
    """torch's ctx: save_for_backward, saved_tensors, needs_input_grad,
    mark_dirty, mark_non_differentiable, set_materialize_grads, and any
    attribute forward stores for backward."""

    def __init__(self, needs_input_grad):
        self._capsule = None
        self._dirty = ()
        self._non_differentiable = ()
        self.needs_input_grad = needs_input_grad

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _N):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        _core._function_ctx_save(self._live(), list(tensors))

    @property
    def saved_tensors(self):
        """The tensors save_for_backward kept (in backward), version-checked."""
        return _core._function_ctx_saved(self._live())

    def mark_dirty(self, *tensors):
        _core._function_ctx_mark(self._live(), "dirty", list(tensors))
        self._dirty = tensors  # apply returns the caller's own objects for these

    def mark_non_differentiable(self, *tensors):
        _core._function_ctx_mark(self._live(), "non_differentiable", list(tensors))
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        _core._function_ctx_set_materialize_grads(self._live(), bool(value))

    def _live(self):
        if self._capsule is None:
            raise RuntimeError("ctx methods can only be called inside forward or backward")
        return self._capsule


class _Apply:
    """One apply's state, which the library holds (user_data) until the
    node and checkpoint tape that need it are gone."""

    __slots__ = ("function", "args", "ctx", "positions", "single", "dirty_outputs", "outputs",
                 "tensor_outputs")

    def __init__(self, function, args, ctx, positions):
        self.function = function
        self.args = args
        self.ctx = ctx
        self.positions = positions  # where the tensors are among args
        self.single = True
        self.outputs, self.tensor_outputs = (), []
        self.dirty_outputs = None  # output number -> argument position, for mark_dirty

    def _keep_error(self, type_, value, traceback):
        _callback_errors.keep(value if value is not None else RuntimeError("unknown error in a callback"))

    def _forward(self, capsule, tensors):
        try:
            if len(tensors) == len(self.args):  # all tensors: the library's own handles, in order
                args = tensors
            else:
                args = list(self.args)
                for position, tensor in zip(self.positions, tensors):
                    args[position] = tensor
            self.ctx._capsule = capsule
            result = self.function.forward(self.ctx, *args)
            self.single = not isinstance(result, (tuple, list))
            outputs = (result,) if self.single else tuple(result)
            if self.ctx._dirty:  # torch returns the caller's object for an input modified in place
                self.dirty_outputs = {i: position for i, out in enumerate(outputs)
                                      for position, t in zip(self.positions, tensors)
                                      if out is t and any(out is d for d in self.ctx._dirty)}
            # Non-tensor outputs pass through as torch's do (backward gets
            # None for them); the library sees the tensors only, and one
            # non-differentiable placeholder when there is none.
            self.tensor_outputs = [i for i, out in enumerate(outputs) if isinstance(out, _N)]
            # The record must not hold the output tensors: the library holds
            # the record from their node, a cycle Python cannot see.
            self.outputs = tuple(None if isinstance(out, _N) else out for out in outputs)
            if len(self.tensor_outputs) == len(outputs):
                return outputs
            native = [outputs[i] for i in self.tensor_outputs]
            if not native:
                from ._factories import zeros
                native = [zeros(())]
                self.ctx.mark_non_differentiable(*(tuple(self.ctx._non_differentiable) + (native[0],)))
            return native
        except BaseException as error:
            _callback_errors.keep(error)
            return None
        finally:
            self.ctx._capsule = None

    def _backward(self, capsule, grads):
        try:
            self.ctx._capsule = capsule
            if len(self.tensor_outputs) != len(self.outputs):  # None for the non-tensor outputs
                full = [None] * len(self.outputs)
                for i, g in zip(self.tensor_outputs, grads):
                    full[i] = g
                grads = full
            result = self.function.backward(self.ctx, *grads)
            if not isinstance(result, tuple):
                result = (result,)
            name = self.function.__name__ + "Backward"
            if len(result) < len(self.args):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {len(self.args)}, got {len(result)})")
            for i, grad in enumerate(result[:len(self.args)]):
                if i not in self.positions and grad is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None at "
                                       f"position {i + 1}, but the corresponding forward input was "
                                       "not a Variable")
                if grad is not None and not isinstance(grad, _N):
                    raise TypeError(f"function {name} returned a {type(grad).__name__} as the "
                                    f"gradient at position {i + 1} (expected a Tensor or None)")
            return [result[p] for p in self.positions]
        except BaseException as error:
            _callback_errors.keep(error)
            return None
        finally:
            self.ctx._capsule = None


class _FunctionMeta(type):
    """Gives each subclass torch's class-level apply."""


class Function(metaclass=_FunctionMeta):
    """torch.autograd.Function: subclass it with static forward(ctx, *args)
    and backward(ctx, *grad_outputs), then call apply(*args). The grad_fn
    of its outputs is named "<ClassName>Backward"."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{cls.__name__}.apply takes positional arguments only (as torch's)")
        grad_on = is_grad_enabled()
        positions, tensors, needs = [], [], []
        for i, a in enumerate(args):
            if isinstance(a, _N):
                positions.append(i)
                tensors.append(a)
                needs.append(grad_on and _requires_grad(a))
            else:
                needs.append(False)
        record = _Apply(cls, args, FunctionCtx(tuple(needs)), positions)
        _callback_errors.clear()
        try:
            outputs = _core._function_apply(record, cls.__name__, tensors,
                                            cls.backward is not Function.backward)
        except Error as error:
            _callback_errors.reraise(error)
        if len(record.tensor_outputs) != len(record.outputs):  # the non-tensor outputs back in place
            full = list(record.outputs)
            for i, out in zip(record.tensor_outputs, outputs):
                full[i] = out
            outputs = tuple(full)
        if record.dirty_outputs:
            outputs = tuple(args[record.dirty_outputs[i]] if i in record.dirty_outputs else out
                            for i, out in enumerate(outputs))
        return outputs[0] if record.single else outputs


def once_differentiable(backward):
    """torch.autograd.function.once_differentiable: backward runs without
    recording history (its result cannot be differentiated again)."""
    @functools.wraps(backward)
    def wrapped(ctx, *grads):
        with no_grad():
            return backward(ctx, *grads)
    return wrapped
