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
      each tensor of nn_cases() (bindings/support/nn_golden_cases.py: the nn ops' inputs, values and
      gradients; tests/NnTests.cs replays each torch expression), and
  message nn_error_NAME | text for each message of nn_errors().
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../support"))
from nn_golden_cases import nn_cases, nn_errors  # noqa: E402
from training_ops_golden_cases import training_ops_cases, training_ops_errors  # noqa: E402

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


for name, t in {**nn_cases(), **training_ops_cases()}.items():
    print(f"tensor {name} | {str(t.dtype).replace('torch.', '')} | {ints(t.shape)} | "
          + " ".join(repr(float(v)) for v in t.detach().reshape(-1).tolist()))
for name, message in {**nn_errors(), **training_ops_errors()}.items():
    print(f"message nn_error_{name} | {message}")
