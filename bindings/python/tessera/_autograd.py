"""autograd_grad: torch.autograd.grad over tsr_autograd_grad."""
from . import _callback_errors, _core
from .errors import Error
from ._handles import TensorList
from ._tensor import _check_open

__all__ = ["autograd_grad"]


def _tensors(value, what, allow_none=False):
    """One tensor or a sequence of them -> a list (None entries only where
    allowed)."""
    if isinstance(value, _core.Tensor):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"autograd_grad: {what} must be a Tensor or a sequence of Tensors, "
                        f"got {type(value).__name__}") from None
    for item in items:
        if item is None and allow_none:
            continue
        if not isinstance(item, _core.Tensor):
            raise TypeError(f"autograd_grad: {what} must hold Tensors, got {type(item).__name__}")
        _check_open(item, f"autograd_grad: {what}")
    return items


def _native_list(tensors):
    native = TensorList()
    for t in tensors:
        if t is None:
            native.append_none()
        else:
            native.append(t)
    return native


def autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                  allow_unused=False):
    """torch.autograd.grad: the gradients of outputs (weighted by
    grad_outputs) with respect to each of inputs, as a tuple with one entry
    per input. No .grad is read or written.

    outputs, inputs: a Tensor or a sequence of Tensors; each must require
    grad. grad_outputs: None, or one entry per output, each None (ones: only
    for one-element outputs) or a tensor of that output's sizes.
    retain_graph: keep the graph for another backward; None (torch's
    default) means create_graph. create_graph: record the backward itself,
    so the gradients require grad and can be differentiated again (higher
    order). allow_unused: an input no output depends on gets None instead of
    raising.

    Raises AutogradError (an output or input that does not require grad, an
    unused input without allow_unused, a checkpoint region open on this
    thread, a freed graph), ShapeMismatchError (a grad_output of the wrong
    sizes), InvalidArgumentError (no outputs or inputs, grad_outputs of the
    wrong length, a closed tensor).
    """
    outputs = _tensors(outputs, "outputs")
    inputs = _tensors(inputs, "inputs")
    if grad_outputs is not None:
        grad_outputs = _tensors(grad_outputs, "grad_outputs", allow_none=True)
    if retain_graph is None:
        retain_graph = create_graph
    with _native_list(outputs) as outs, _native_list(inputs) as ins:
        gouts = None if grad_outputs is None else _native_list(grad_outputs)
        _callback_errors.clear()
        try:
            grads = _core.autograd_grad(outs, ins, gouts, bool(retain_graph), bool(create_graph),
                                        bool(allow_unused))
        except Error as error:  # a custom Function's backward raised: that exception
            _callback_errors.reraise(error)
        finally:
            if gouts is not None:
                gouts.close()
    with grads:
        return tuple(grads.get(i) for i in range(grads.size()))
