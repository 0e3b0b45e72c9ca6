#!/usr/bin/python3
"""Writes golden.json: what PyTorch 1.13 answers for the cases the binding
tests replay on tessera (layouts of views, dtype inference and promotion
with Python numbers, a small autograd problem, reprs, a view error message,
the nn ops' values, gradients and errors).

    /usr/bin/python3 bindings/python/tests/make_golden.py

Run it with Debian's python3-torch; commit the regenerated golden.json.
Each case is described by data (ops as [name, args...]) that
golden_ops.py replays identically on torch and on tessera.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_ops import LAYOUT_CASES, PROMOTION_CASES, REPR_CASES, INFERENCE_CASES, replay  # noqa: E402


def layout(t):
    return {
        "sizes": list(t.size()),
        "strides": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "contiguous": t.is_contiguous(),
        "channels_last": t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last),
        "values": t.flatten().tolist(),
    }


def layouts():
    out = []
    for case in LAYOUT_CASES:
        base = torch.arange(case["numel"], dtype=torch.float32).view(*case["sizes"])
        out.append(dict(case, expected=layout(replay(torch, base, case["ops"]))))
    return out


def promotions():
    out = []
    for case in PROMOTION_CASES:
        t = torch.tensor(case["values"], dtype=getattr(torch, case["dtype"]))
        scalar = case["scalar"]
        op = case["op"]
        result = {"add": lambda: t + scalar, "radd": lambda: scalar + t,
                  "sub": lambda: t - scalar, "rsub": lambda: scalar - t,
                  "mul": lambda: t * scalar, "div": lambda: t / scalar,
                  "rdiv": lambda: scalar / t}[op]()
        out.append(dict(case, expected={"dtype": str(result.dtype).replace("torch.", ""),
                                        "values": result.tolist()}))
    return out


def inferences():
    return [{"data": data, "dtype": str(torch.tensor(data).dtype).replace("torch.", "")}
            for data in INFERENCE_CASES]


def reprs():
    out = []
    for case in REPR_CASES:
        t = torch.tensor(case["data"], dtype=getattr(torch, case["dtype"]))
        if case.get("requires_grad"):
            t.requires_grad_(True)
        out.append(dict(case, expected=repr(t).replace("torch.", "tessera.")))
    return out


def autograd():
    """loss = cross_entropy(relu(x @ w1 + b1) @ w2, target) + mean(exp(x) * 0.5)
    - sum(log(w1 * w1 + 1)) / 10, its value and the gradients of x, w1, b1,
    w2."""
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
    w1 = torch.tensor([[0.1, -0.2, 0.3, 0.4], [0.5, 0.6, -0.7, 0.8], [-0.9, 1.0, 1.1, -1.2]],
                      requires_grad=True)
    b1 = torch.tensor([0.01, -0.02, 0.03, 0.04], requires_grad=True)
    w2 = torch.tensor([[1.0, -1.0, 0.5], [0.25, 0.75, -0.5], [-1.5, 0.5, 1.0], [0.3, 0.2, 0.1]],
                      requires_grad=True)
    target = torch.tensor([2, 0])
    hidden = torch.relu(x @ w1 + b1)
    loss = (torch.nn.functional.cross_entropy(hidden @ w2, target)
            + (torch.exp(x) * 0.5).mean() - torch.log(w1 * w1 + 1).sum() / 10)
    loss.backward()
    return {
        "x": x.tolist(), "w1": w1.tolist(), "b1": b1.tolist(), "w2": w2.tolist(),
        "target": target.tolist(), "loss": loss.item(), "grad_fn": loss.grad_fn.name(),
        "grad_x": x.grad.tolist(), "grad_w1": w1.grad.tolist(), "grad_b1": b1.grad.tolist(),
        "grad_w2": w2.grad.tolist(),
    }


def view_error():
    try:
        torch.arange(6.0).view(2, 3).t().view(6)
    except RuntimeError as e:
        return str(e)
    raise AssertionError("torch accepted the view")


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
    import warnings
    x = torch.zeros(1, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            (x / x).sum().backward()


def nn():
    """nn_cases as a list of {name, dtype, sizes, values} (values flat, as
    floats)."""
    return [{"name": name, "dtype": str(t.dtype).replace("torch.", ""), "sizes": list(t.shape),
             "values": [float(v) for v in t.detach().flatten().tolist()]}
            for name, t in nn_cases().items()]


def _one_case_per_line(golden):
    """JSON with each top-level entry, and each case of a list, on one line
    (diffs of a regenerated file then show which cases changed)."""
    lines = []
    for key, value in golden.items():
        if isinstance(value, list):
            cases = ",\n  ".join(json.dumps(case) for case in value)
            lines.append(f" {json.dumps(key)}: [\n  {cases}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    golden = {
        "torch_version": torch.__version__,
        "layouts": layouts(),
        "promotions": promotions(),
        "inferences": inferences(),
        "reprs": reprs(),
        "autograd": autograd(),
        "view_error": view_error(),
        "nn": nn(),
        "nn_errors": nn_errors(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as f:
        f.write(_one_case_per_line(golden))
    print("wrote", path)


if __name__ == "__main__":
    main()
