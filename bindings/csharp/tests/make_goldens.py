#!/usr/bin/python3
"""Writes goldens.txt for the C# tests from PyTorch 1.13 (run with the system
/usr/bin/python3, which has Debian's python3-torch):

    /usr/bin/python3 bindings/csharp/tests/make_goldens.py > bindings/csharp/tests/goldens.txt

Lines are `kind name | field | field ...`:
  layout NAME | sizes | strides | contiguous | channels_last | storage_offset
      for views of x = arange(120, float32).view(2, 3, 4, 5), built in
      tests/LayoutTests.cs under the same NAME;
  value NAME | v0 v1 ...      float32 values in C order;
  message NAME | text         an error message torch raises;
  tensor NAME | dtype | sizes | v0 v1 ...
      each tensor of nn_cases() below (the nn ops' inputs, values and
      gradients; tests/NnTests.cs replays each torch expression), and
  message nn_error_NAME | text for each message of nn_errors().
"""
import torch

x = torch.arange(120, dtype=torch.float32).view(2, 3, 4, 5)
col = torch.arange(3, dtype=torch.float32).view(3, 1)

views = {
    "x": x,
    "transpose_1_2": x.transpose(1, 2),
    "permute_0_2_3_1": x.permute(0, 2, 3, 1),
    "narrow_3_1_2": x.narrow(3, 1, 2),
    "select_1_2": x.select(1, 2),
    "slice_2_0_4_2": x[:, :, 0:4:2],
    "unsqueeze_0": x.unsqueeze(0),
    "flatten_1": x.flatten(1),
    "diagonal_0_2_3": x.diagonal(0, 2, 3),
    "unfold_3_2_1": x.unfold(3, 2, 1),
    "as_strided_22_12_3": x.as_strided((2, 2), (1, 2), 3),
    "channels_last": x.contiguous(memory_format=torch.channels_last),
    "channels_last_narrow": x.contiguous(memory_format=torch.channels_last).narrow(0, 1, 1),
    "expand_col_3_4": col.expand(3, 4),
    "t_of_view_6_20": x.view(6, 20).t(),
}


def ints(values):
    return " ".join(str(v) for v in values)


def floats(t):
    return " ".join(repr(float(v)) for v in t.detach().reshape(-1).tolist())


for name, v in views.items():
    cl = v.dim() == 4 and v.is_contiguous(memory_format=torch.channels_last)
    print(f"layout {name} | {ints(v.shape)} | {ints(v.stride())} | "
          f"{int(v.is_contiguous())} | {int(cl)} | {v.storage_offset()}")

# Autograd: loss = cross_entropy(relu(a @ w) * 0.5 + exp(a @ w).mean(), target),
# as tests/AutogradTests.cs builds it.
a = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float32, requires_grad=True)
w = torch.tensor([[0.2, -0.4], [0.7, 0.1], [-0.3, 0.6]], dtype=torch.float32, requires_grad=True)
target = torch.tensor([1, 0])
z = a.matmul(w)
h = z.relu() * 0.5 + z.exp().mean()
loss = torch.nn.functional.cross_entropy(h, target)
loss.backward()
print(f"value autograd_loss | {floats(loss)}")
print(f"value autograd_a_grad | {floats(a.grad)}")
print(f"value autograd_w_grad | {floats(w.grad)}")

try:
    x.transpose(1, 2).view(120)
except RuntimeError as e:
    print(f"message view_of_transpose | {e}")


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


for name, t in nn_cases().items():
    print(f"tensor {name} | {str(t.dtype).replace('torch.', '')} | {ints(t.shape)} | "
          + " ".join(repr(float(v)) for v in t.detach().reshape(-1).tolist()))
for name, message in nn_errors().items():
    print(f"message nn_error_{name} | {message}")
