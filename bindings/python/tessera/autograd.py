"""tessera.autograd: torch.autograd's namespace: grad, backward, the grad
modes, anomaly detection and the profiler (torch.autograd.profiler's
profile and record_function are tessera.profiler's), Function, custom
differentiable functions (_function), and Variable, whose
_execution_engine.queue_callback queues end-of-backward callbacks
(_engine)."""
import sys as _sys

from . import _core
from . import profiler
from . import _function as function
from ._function import Function, FunctionCtx, once_differentiable
from ._gradcheck import gradcheck, GradcheckError
from ._autograd import autograd_grad as grad
from ._grad import (no_grad, enable_grad, set_grad_enabled, inference_mode, detect_anomaly,
                    set_detect_anomaly)
from ._tensor import _check_open

from ._engine import Variable

__all__ = ["grad", "backward", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "detect_anomaly", "set_detect_anomaly", "profiler", "Function", "FunctionCtx",
           "function", "gradcheck", "GradcheckError", "Variable"]

_sys.modules[__name__ + ".profiler"] = profiler
_sys.modules[__name__ + ".function"] = function


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward: t.backward(g) for each tensor (grad_tensors
    one per tensor, None for a scalar's implicit 1); retain_graph None means
    create_graph. create_graph and inputs are not supported (use grad)."""
    if create_graph or inputs is not None:
        raise NotImplementedError("autograd.backward: create_graph and inputs are not supported; "
                                  "use tessera.autograd.grad")
    if isinstance(tensors, _core.Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    if grad_tensors is None or isinstance(grad_tensors, _core.Tensor):
        grad_tensors = [grad_tensors] * len(tensors) if grad_tensors is None else [grad_tensors]
    grad_tensors = list(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs: got "
                           f"{len(grad_tensors)} gradients for {len(tensors)} tensors")
    keep = bool(create_graph) if retain_graph is None else bool(retain_graph)
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        _check_open(g, "grad_tensors")
        # every call but the last keeps the graph, as one torch call over all of them would
        _core.Tensor.backward(t, g, keep or i + 1 < len(tensors))
