"""Grad mode (no_grad, enable_grad, set_grad_enabled, is_grad_enabled),
inference mode (inference_mode, is_inference_mode_enabled) and anomaly
detection (detect_anomaly, set_detect_anomaly, is_anomaly_enabled), as in
torch. Grad and inference mode are per thread (the C library keeps them
thread-locally), anomaly detection is process-wide; each scope restores the
setting it found, also when it exits by an exception."""
import functools

from . import _core

is_grad_enabled = _core.is_grad_enabled
is_inference_mode_enabled = _core.is_inference_mode_enabled
is_anomaly_enabled = _core.is_anomaly_enabled


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


class _Scope:
    """A with-block (and decorator) that sets a mode with `setter` (which
    returns the previous setting) and restores it on exit."""

    def __init__(self, setter, mode):
        self._setter = setter
        self._mode = bool(mode)
        self._previous = []  # a stack: the same object may be entered twice

    def __enter__(self):
        self._previous.append(self._setter(self._mode))
        return self

    def __exit__(self, *exc_info):
        self._setter(self._previous.pop())

    def __call__(self, function):
        @functools.wraps(function)
        def scoped(*args, **kwargs):
            with _Scope(self._setter, self._mode):
                return function(*args, **kwargs)
        return scoped


class inference_mode(_Scope):
    """with tessera.inference_mode(): torch.inference_mode for this thread.
    Inside, grad mode is off and new tensors are inference tensors
    (t.is_inference()), which record no history and skip version counting;
    outside, autograd refuses to save them for backward. mode=False turns it
    off inside an enclosing inference_mode. Also a decorator."""

    def __init__(self, mode=True):
        super().__init__(_core.set_inference_mode, mode)


class detect_anomaly(_Scope):
    """with tessera.detect_anomaly(): torch.autograd.detect_anomaly. While
    on (process-wide), backward checks every gradient a node returns and
    raises AutogradError naming the node ("Function 'DivBackward0' returned
    nan values in its 0th output. ...") at the cost of one pass over each
    gradient. Also a decorator."""

    def __init__(self):
        super().__init__(_core.set_detect_anomaly, True)


class set_detect_anomaly(_Scope):
    """set_detect_anomaly(mode) (torch.autograd.set_detect_anomaly) turns
    anomaly detection on or off at once, process-wide; used as a with-block
    it restores the previous setting on exit."""

    def __init__(self, mode):
        super().__init__(_core.set_detect_anomaly, mode)
        self._previous.append(_core.set_detect_anomaly(self._mode))

    def __enter__(self):
        return self

    def __call__(self, function):
        raise TypeError("set_detect_anomaly is not a decorator; use detect_anomaly")
