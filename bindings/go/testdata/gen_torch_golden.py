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

import torch

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
    return [{"name": name, "dtype": str(t.dtype).replace("torch.", ""), "sizes": list(t.shape),
             "values": [float(v) for v in t.detach().flatten().tolist()]}
            for name, t in nn_cases().items()]


def main():
    golden = {
        "torch_version": torch.__version__,
        "layout": [layout(*case) for case in LAYOUT_CASES],
        "view_error": view_error(),
        "autograd": autograd(),
        "nn": nn(),
        "nn_errors": nn_errors(),
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
