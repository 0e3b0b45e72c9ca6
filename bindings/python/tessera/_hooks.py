"""Tensor.register_hook (torch.Tensor.register_hook) over tsr_register_hook:
hook(grad) runs when the tensor's gradient is computed, and may return a
tensor that replaces it. Tensor.register_post_accumulate_grad_hook (torch
2.1's) over tsr_register_post_accumulate_grad_hook: hook(tensor) runs on a
leaf once backward has added its gradient to .grad. An exception raised by
either hook reaches the caller of backward as itself."""
import itertools

from . import _callback_errors, _core

__all__ = []
FUNCTIONAL = []


class _Hook:
    """What the library holds: calls the user's hook, keeping its exception
    (a callback must not raise through C)."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def _call(self, grad):
        try:
            result = self.fn(grad)
            if result is not None and not isinstance(result, _core.Tensor):
                raise TypeError(f"hook returned a {type(result).__name__}; expected a Tensor or None")
            return result
        except BaseException as error:
            _callback_errors.keep(error)
            return False


class _PostAccumulateHook:
    """What the library holds for register_post_accumulate_grad_hook: calls
    the user's hook with the tensor (True), or keeps its exception (False)."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def _call(self, tensor):
        try:
            self.fn(tensor)
            return True
        except BaseException as error:
            _callback_errors.keep(error)
            return False


class RemovableHandle:
    """What register_hook returns: remove() unregisters the hook."""
    _ids = itertools.count()

    def __init__(self, tensor, native_id):
        self._tensor = tensor
        self._native_id = native_id
        self.id = next(RemovableHandle._ids)

    def remove(self):
        if self._tensor is not None:
            _core._remove_hook(self._tensor, self._native_id)
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def register_hook(self, hook):
    """torch.Tensor.register_hook(hook): hook(grad) -> None or a Tensor of
    grad's sizes. AutogradError when the tensor does not require grad."""
    if not callable(hook):
        raise TypeError(f"register_hook expects a callable, not {type(hook).__name__}")
    return RemovableHandle(self, _core._register_hook(self, _Hook(hook)))


def register_post_accumulate_grad_hook(self, hook):
    """torch.Tensor.register_post_accumulate_grad_hook(hook) (torch 2.1; not
    in torch 1.13): hook(tensor) -> None runs each time backward has added
    this leaf's gradient to its .grad, once per backward (after all of it
    is summed), in registration order, with grad mode off; it gets a Tensor
    of the same data and .grad (another Python object than self).
    tessera.autograd.grad runs none. AutogradError when the tensor does not
    require grad or is not a leaf (torch's messages)."""
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook expects a callable, not {type(hook).__name__}")
    return RemovableHandle(self, _core._register_post_accumulate_grad_hook(self, _PostAccumulateHook(hook)))


TENSOR_METHODS = {"register_hook": register_hook,
                  "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook}
