"""Writes torch_golden.json: what PyTorch 1.13 says for the Go binding's tests
(layouts of views, a view error, a small autograd problem, and the nn ops'
values, gradients and error messages: "nn" holds each tensor of nn_cases()
as {name, dtype, sizes, values}, "nn_errors" each message of nn_errors()).

Run from anywhere with the system interpreter (Debian's python3-torch):
    /usr/bin/python3 bindings/go/testdata/gen_torch_golden.py
The Go tests replay the same operations through tessera and compare.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../support"))
from nn_golden_cases import nn_cases, nn_errors  # noqa: E402
from training_ops_golden_cases import training_ops_cases, training_ops_errors  # noqa: E402

# Each layout case: a contiguous float32 arange of `base` sizes, then `ops`
# applied in order. Op names are those of applyOp in golden_test.go.
LAYOUT_CASES = [
    ("contiguous", [2, 3, 4, 5], []),
    ("transpose", [2, 3, 4, 5], [["transpose", 1, 2]]),
    ("permute_to_nhwc", [2, 3, 4, 5], [["permute", 0, 2, 3, 1]]),
    ("clone_channels_last", [2, 3, 4, 5], [["clone_channels_last"]]),
    ("channels_last_narrow_w", [2, 3, 4, 5], [["clone_channels_last"], ["narrow", 3, 1, 3]]),
    ("narrow", [2, 3, 4, 5], [["narrow", 2, 1, 2]]),
    ("select", [2, 3, 4, 5], [["select", 1, 2]]),
    ("slice_step", [2, 3, 4, 5], [["slice", 3, 0, 5, 2]]),
    ("expand", [3, 1], [["expand", 3, 4]]),
    ("unsqueeze", [3, 4], [["unsqueeze", 1]]),
    ("t", [3, 5], [["t"]]),
    ("diagonal", [4, 4], [["diagonal", 1, 0, 1]]),
    ("unfold", [10], [["unfold", 0, 3, 2]]),
    ("movedim", [2, 3, 4], [["movedim", 0, 2]]),
    ("flatten_view", [2, 3, 4], [["flatten", 1, 2]]),
    ("view_of_narrow", [4, 6], [["narrow", 0, 1, 2], ["view", 2, 2, 3]]),
    ("as_strided", [12], [["as_strided", [3, 2], [1, 3], 1]]),
    ("size_one_channel", [2, 1, 3, 3], []),
]


def apply(t, op):
    name, args = op[0], op[1:]
    if name == "clone_channels_last":
        return t.clone(memory_format=torch.channels_last)
    if name == "slice":
        dim, start, end, step = args
        index = [slice(None)] * t.dim()
        index[dim] = slice(start, end, step)
        return t[tuple(index)]
    # Every other op is the torch.Tensor method of that name.
    return getattr(t, name)(*args)


def layout(name, base, ops):
    t = torch.arange(float(torch.tensor(base).prod()), dtype=torch.float32).view(base)
    for op in ops:
        t = apply(t, op)
    return {
        "name": name,
        "base": base,
        "ops": ops,
        "sizes": list(t.size()),
        "strides": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "is_contiguous": t.is_contiguous(),
        "is_channels_last": t.is_contiguous(memory_format=torch.channels_last),
        "values": t.flatten().tolist(),
    }


def view_error():
    t = torch.arange(12.0).view(3, 4).t()
    try:
        t.view(12)
    except RuntimeError as e:
        return {"base": [3, 4], "view": [12], "message": str(e)}
    raise AssertionError("view of a transpose should need a copy")


def autograd():
    # loss = cross_entropy(h, target) + 0.1 * sum(h * h), h = relu(x @ w + b)
    x = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]
    w = [[0.1, 0.2], [0.3, -0.4], [-0.5, 0.6]]
    b = [0.05, -0.1]
    target = [1, 0]
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    h = torch.relu(tx @ tw + tb)
    loss = torch.nn.functional.cross_entropy(h, torch.tensor(target)) + (h * h).sum() * 0.1
    loss.backward()
    return {
        "x": x, "w": w, "b": b, "target": target,
        "loss": loss.item(),
        "grad_x": tx.grad.tolist(), "grad_w": tw.grad.tolist(), "grad_b": tb.grad.tolist(),
    }


def nn():
    return [{"name": name, "dtype": str(t.dtype).replace("torch.", ""), "sizes": list(t.shape),
             "values": [float(v) for v in t.detach().flatten().tolist()]}
            for name, t in {**nn_cases(), **training_ops_cases()}.items()]


def main():
    golden = {
        "torch_version": torch.__version__,
        "layout": [layout(*case) for case in LAYOUT_CASES],
        "view_error": view_error(),
        "autograd": autograd(),
        "nn": nn(),
        "nn_errors": {**nn_errors(), **training_ops_errors()},
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_golden.json")
    # One case per line: small diffs when torch or a case changes.
    with open(path, "w") as f:
        f.write("{\n")
        items = list(golden.items())
        for i, (key, value) in enumerate(items):
            f.write(f" {json.dumps(key)}: ")
            if isinstance(value, list):
                f.write("[\n" + ",\n".join("  " + json.dumps(v) for v in value) + "\n ]")
            else:
                f.write(json.dumps(value))
            f.write(",\n" if i + 1 < len(items) else "\n")
        f.write("}\n")


if __name__ == "__main__":
    main()
