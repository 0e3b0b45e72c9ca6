"""The inplace=True forms of torch.nn.functional's activations: the result
is computed out of place and copied into input, whose storage, version and
history then hold it (grad_fn CopyBackwards where torch names the
activation's own backward; the values and gradients are torch's)."""
from . import _core

_N = _core.Tensor


def write_into(input, out):
    """input.copy_(out), returning input; out must not still read input's
    storage through a saved tensor, so callers compute it from a clone when
    input needs a gradient (see inplace)."""
    _N.copy_(input, out)
    return input


def inplace(op, input, *args):
    """op(input, *args) written into input, torch's F.op(..., inplace=True)."""
    source = _N.clone(input) if input.requires_grad else input
    return write_into(input, op(source, *args))
