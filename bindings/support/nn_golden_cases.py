"""The nn ops' golden cases, shared by the four bindings' golden generators
(bindings/python/tests/make_golden.py, bindings/java/tests/make_goldens.py,
bindings/csharp/tests/make_goldens.py, bindings/go/testdata/gen_torch_golden.py):
the inputs, PyTorch's results and gradients, and one error message per op
family. Each generator writes them in its own language's golden format.
Run the generators with Debian's /usr/bin/python3 (python3-torch 1.13).
"""
import warnings

import torch


# nn ops (linear, gelu, ..., embedding): inputs and PyTorch's results, name
# -> tensor in a fixed order. The tests rebuild the inputs (x, p, e, ...)
# from here and replay each torch expression written beside its result.
def nn_cases():
    F = torch.nn.functional
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    p = torch.tensor([[0.25, 1.0, 2.0], [4.0, 0.5, 9.0]])
    e = torch.tensor([[2.0, 0.5, -1.0], [1.5, 3.0, 0.0]])
    w = torch.tensor([[0.2, -0.4, 0.1], [0.7, 0.1, -0.3], [-0.5, 0.6, 0.9], [0.3, -0.2, 0.4]])
    b = torch.tensor([0.1, -0.2, 0.3, 0.0])
    g = torch.tensor([1.0, 0.5, -2.0])
    beta = torch.tensor([0.1, 0.0, -0.1])
    y = torch.tensor([[3.0, -2.0, 1.0]])
    cond = torch.tensor([[True, False, True], [False, True, False]])
    index = torch.tensor([2, 0, 2])
    gather_index = torch.tensor([[2, 0], [1, 1]])
    ids = torch.tensor([[1, 0], [3, 1]])

    def grads(fn, *inputs):
        """The gradients of (fn(*inputs) ** 2).sum() for each input."""
        leaves = [t.clone().requires_grad_(True) for t in inputs]
        out = fn(*leaves)
        (out * out).sum().backward()
        return [leaf.grad for leaf in leaves]

    cases = {
        "x": x, "p": p, "e": e, "w": w, "b": b, "g": g, "beta": beta, "y": y, "cond": cond,
        "index": index, "gather_index": gather_index, "ids": ids,
        "linear": F.linear(x, w, b),
        "linear_no_bias": F.linear(x, w),
        "gelu": F.gelu(x),
        "gelu_tanh": F.gelu(x, approximate="tanh"),
        "tanh": torch.tanh(x),
        "sigmoid": torch.sigmoid(x),
        "sqrt": torch.sqrt(p),
        "pow_scalar": torch.pow(x, 3.0),
        "pow_half": torch.pow(p, 0.5),
        "pow_tensor": torch.pow(p, e),
        "clamp": torch.clamp(x, min=-0.5, max=1.0),
        "clamp_min": torch.clamp(x, min=-0.5),
        "clamp_max": torch.clamp(x, max=1.0),
        "softmax": torch.softmax(x, 1),
        "softmax_dim0": torch.softmax(x, 0),
        "layer_norm": F.layer_norm(x, [3], g, beta, 1e-5),
        "layer_norm_plain": F.layer_norm(x, [3]),
        "cat": torch.cat([x, y], 0),
        "cat_dim1": torch.cat([x, p], 1),
        "stack": torch.stack([x, p], 0),
        "stack_dim2": torch.stack([x, p], 2),
        "where": torch.where(cond, x, p),
        "index_select": torch.index_select(x, 1, index),
        "gather": torch.gather(x, 1, gather_index),
        "embedding": F.embedding(ids, w),
        "relu_": x.clone().relu_(),
    }
    cases["linear_grad_x"], cases["linear_grad_w"], cases["linear_grad_b"] = grads(F.linear, x, w, b)
    (cases["gelu_grad_x"],) = grads(F.gelu, x)
    (cases["layer_norm_grad_x"], cases["layer_norm_grad_g"],
     cases["layer_norm_grad_beta"]) = grads(lambda a, gg, bb: F.layer_norm(a, [3], gg, bb, 1e-5),
                                            x, g, beta)
    cases["cat_grad_x"], cases["cat_grad_y"] = grads(lambda a, c: torch.cat([a, c], 0), x, y)
    (cases["gather_grad_x"],) = grads(lambda a: torch.gather(a, 1, gather_index), x)
    (cases["embedding_grad_w"],) = grads(lambda ww: F.embedding(ids, ww), w)
    return cases


# One error per family, with the inputs of nn_cases: name -> torch's message
# (tessera's message contains it).
def nn_errors():
    F = torch.nn.functional
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    w = torch.ones(4, 3)
    attempts = {
        "linear": lambda: F.linear(x, torch.ones(4, 2)),
        "gelu": lambda: F.gelu(torch.tensor([1, 2])),
        "layer_norm": lambda: F.layer_norm(x, [4]),
        "cat": lambda: torch.cat([x, w], 1),
        "gather": lambda: torch.gather(x, 1, torch.tensor([[3]])),
        "embedding": lambda: F.embedding(torch.tensor([4]), w),
        "clamp": lambda: torch.clamp(x),
        "where": lambda: torch.where(x, x, x),
        "anomaly": _anomaly,
    }
    messages = {}
    for name, attempt in attempts.items():
        try:
            attempt()
        except (RuntimeError, IndexError) as error:
            messages[name] = str(error).splitlines()[0]
        else:
            raise AssertionError(f"torch accepted the {name} case")
    return messages


def _anomaly():
    """(x / x).sum().backward() at x = 0 under detect_anomaly."""
    x = torch.zeros(1, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            (x / x).sum().backward()
