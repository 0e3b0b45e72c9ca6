"""tessera.autograd.gradcheck: torch.autograd.gradcheck's test of a
function's gradients (custom Functions' backwards above all): the
Jacobian from autograd against central finite differences, for every
input that requires grad and every output.

    gradcheck(Swish.apply, (x,), eps=1e-6, atol=1e-4)   # float64 inputs

Raises GradcheckError (a RuntimeError) naming the output, the input and
both Jacobians, or returns False with raise_exception=False."""
import warnings

from . import _core
from ._autograd import autograd_grad
from ._grad import no_grad

__all__ = ["gradcheck", "GradcheckError"]

_N = _core.Tensor


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError."""


def _outputs(result):
    return (result,) if isinstance(result, _N) else tuple(o for o in result if isinstance(o, _N))


def _numerical(func, inputs, k, n_out_elems, eps):
    """Columns d out / d inputs[k][i] by central differences: a list over
    outputs of [numel(input)][numel(output)] nested lists."""
    x = inputs[k].detach()
    flat = x.reshape(-1)
    columns = [[] for _ in range(len(n_out_elems))]
    with no_grad():
        for i in range(flat.numel()):
            orig = flat[i].item()
            flat[i] = orig + eps
            plus = [o.reshape(-1).tolist() for o in _outputs(func(*inputs))]
            flat[i] = orig - eps
            minus = [o.reshape(-1).tolist() for o in _outputs(func(*inputs))]
            flat[i] = orig
            for j, (p, m) in enumerate(zip(plus, minus)):
                columns[j].append([(a - b) / (2 * eps) for a, b in zip(p, m)])
    return columns


def _analytical(outputs, inputs, k):
    """[numel(input)][numel(output)] for each output, from autograd.grad
    with one-hot grad_outputs."""
    from ._factories import zeros_like
    result = []
    for out in outputs:
        rows = [[0.0] * out.numel() for _ in range(inputs[k].numel())]
        for j in range(out.numel()):
            g = zeros_like(out)
            g.reshape(-1)[j] = 1.0
            (grad,) = autograd_grad([out], [inputs[k]], [g], retain_graph=True, allow_unused=True)
            if grad is not None:
                for i, v in enumerate(grad.reshape(-1).tolist()):
                    rows[i][j] = v
        result.append(rows)
    return result


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_torch_options):
    """True when every analytical Jacobian entry is within atol + rtol *
    |numerical| of the finite-difference one. torch's other options
    (check_undefined_grad, fast_mode, ...) are accepted and ignored."""
    if isinstance(inputs, _N):
        inputs = (inputs,)
    inputs = tuple(inputs)
    differentiable = [k for k, t in enumerate(inputs) if isinstance(t, _N) and t.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none "
                         "of the them have requires_grad=True.")
    for k in differentiable:
        if inputs[k].dtype.name != "float64":
            warnings.warn(f"Input #{k} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision "
                          "floating point. ")
    outputs = _outputs(func(*inputs))
    # every analytical Jacobian before any input is perturbed: the
    # perturbations write the inputs in place, which the graph would refuse
    analyticals = {k: _analytical(outputs, inputs, k) for k in differentiable}
    for k in differentiable:
        numerical = _numerical(func, inputs, k, [o.numel() for o in outputs], eps)
        analytical = analyticals[k]
        for j in range(len(outputs)):
            for num_row, ana_row in zip(numerical[j], analytical[j]):
                if any(abs(a - n) > atol + rtol * abs(n) for a, n in zip(ana_row, num_row)):
                    if not raise_exception:
                        return False
                    raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input {k},\n"
                                         f"numerical:{numerical[j]}\nanalytical:{analytical[j]}\n")
    return True
