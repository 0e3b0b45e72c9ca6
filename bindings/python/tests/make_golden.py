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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../support"))
from nn_golden_cases import nn_cases, nn_errors  # noqa: E402

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
