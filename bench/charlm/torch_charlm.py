#!/usr/bin/python3
"""torch_charlm — examples/charlm/charlm.py (and its gpt.py model) run by
PyTorch 1.13: the same file, untouched, with sys.modules["tessera"] set to
torch, so `import tessera as torch` there imports PyTorch. Same model
definition, NumPy-drawn initial weights, batches, schedule and output.

    torch_charlm.py [charlm.py's options]

PyTorch 1.13 has no F.scaled_dot_product_attention (the model composes
attention from matmul, masked_fill and softmax instead) and its CPU
autocast has bfloat16 only (--autocast f16 exits 2).
"""
import os
import runpy
import sys

import torch
import torch.utils.checkpoint  # noqa: F401  (`import torch` leaves the submodule out)

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "charlm", "charlm.py")

if __name__ == "__main__":
    sys.modules["tessera"] = torch
    sys.argv = [SCRIPT] + sys.argv[1:]
    runpy.run_path(SCRIPT, run_name="__main__")
