"""torch.autograd.Variable and its _execution_engine: queue_callback(cb)
queues cb to run once the backward pass running on this thread has
finished (tsr_queue_backward_callback), as DistributedDataParallel uses it
to wait for its all-reduces. Variable itself is torch's deprecated
wrapper: Variable(t) is t.detach(), and every Tensor is an instance."""
from . import _callback_errors, _core


class _Callback:
    """What the library holds: calls the user's callback (True), or keeps
    its exception for the caller of backward (False)."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def _call(self):
        try:
            self.fn()
            return True
        except BaseException as error:
            _callback_errors.keep(error)
            return False


class _ExecutionEngine:
    """torch's Variable._execution_engine (the C++ autograd engine)."""

    def queue_callback(self, callback):
        """Runs callback() once, on this thread, after the backward pass
        now running here (backward or autograd.grad) has finished and every
        gradient is accumulated; callbacks run in queue order, those queued
        by a callback too. Call it from a hook or a Function's backward.
        AutogradError ("Final callbacks can only be installed during
        backward pass.") outside one. An exception the callback raises
        reaches the caller of backward, and the callbacks after it do not
        run."""
        if not callable(callback):
            raise TypeError(f"queue_callback expects a callable, not {type(callback).__name__}")
        _core._queue_backward_callback(_Callback(callback))


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _core.Tensor)


class Variable(metaclass=_VariableMeta):
    """torch.autograd.Variable: deprecated; Variable(t, requires_grad)
    returns t.detach() (a new leaf sharing t's data) with requires_grad
    set, and isinstance(t, Variable) is true for every Tensor."""
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False):
        alias = data.detach()
        if requires_grad:
            alias.requires_grad_(True)
        return alias
