"""Grad mode: no_grad, enable_grad, set_grad_enabled, is_grad_enabled, as in
torch. The mode is per thread (the C library keeps it thread-locally); each
scope restores the setting it found, also when it exits by an exception."""
import functools

from . import _core

is_grad_enabled = _core.is_grad_enabled


class _GradMode:
    """A with-block (and decorator) that sets grad mode to `enabled`."""
    enabled = None

    def __init__(self):
        self._previous = []  # a stack: the same object may be entered twice

    def __enter__(self):
        self._previous.append(_core.set_grad_enabled(self.enabled))
        return self

    def __exit__(self, *exc_info):
        _core.set_grad_enabled(self._previous.pop())

    def __call__(self, function):
        @functools.wraps(function)
        def scoped(*args, **kwargs):
            with type(self)():
                return function(*args, **kwargs)
        return scoped


class no_grad(_GradMode):
    """with tessera.no_grad(): operations inside record no autograd history
    (parameter updates, evaluation)."""
    enabled = False


class enable_grad(_GradMode):
    """with tessera.enable_grad(): records history even inside no_grad."""
    enabled = True


class set_grad_enabled(_GradMode):
    """set_grad_enabled(mode) sets grad mode at once; used as a with-block it
    restores the previous mode on exit (as torch.set_grad_enabled)."""

    def __init__(self, mode):
        super().__init__()
        self.enabled = bool(mode)
        self._previous.append(_core.set_grad_enabled(self.enabled))

    def __enter__(self):
        return self

    def __call__(self, function):
        raise TypeError("set_grad_enabled is not a decorator; use no_grad or enable_grad")
