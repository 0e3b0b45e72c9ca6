"""Helpers shared by the golden-table generators in tests/golden/.

Each generator runs PyTorch (the reference implementation of the semantics
tessera copies) and writes a C header of static tables that the Criterion
tests compare against. Run from the repository root:

    /usr/bin/python3 tests/golden/gen_views.py

The observations here read PyTorch's own C++ flags (c10::TensorImpl), not the
Python re-implementations in torch._prims_common, wherever Python exposes a
way to observe them.
"""
import os
import sys
import warnings

import torch

warnings.filterwarnings("ignore")  # TypedStorage deprecation noise

TORCH_VERSION = torch.__version__


def header_preamble(script, what):
    return (
        "/* GENERATED FILE - do not edit.\n"
        f" * Produced by tests/golden/{os.path.basename(script)} with PyTorch {TORCH_VERSION}\n"
        f" * (/usr/bin/python3). {what}\n"
        " * Regenerate: /usr/bin/python3 tests/golden/"
        f"{os.path.basename(script)} */\n"
    )


def c_array(vals, width=None):
    """'{a, b, c}' with int64 literals ({0} when empty: C zero-fills the rest
    of a fixed-size member). width, if given, is checked, not padded."""
    vals = list(vals)
    if width is not None:
        assert len(vals) <= width, (vals, width)
    if not vals:
        return "{0}"
    return "{" + ", ".join(c_int(v) for v in vals) + "}"


def c_int(v):
    v = int(v)
    if v == -(2 ** 63):
        return "INT64_MIN"
    if v == 2 ** 63 - 1:
        return "INT64_MAX"
    if -(2 ** 31) < v < 2 ** 31:
        return str(v)  # an int literal converts exactly
    return f"INT64_C({v})"


def c_table(ctype, name, count, rows):
    """A static const array of ctype, one row (an initializer line) a line,
    and a macro `count` for its length."""
    return (f"static const {ctype} {name}[] = {{\n" + "\n".join(rows) + "\n};\n"
            f"#define {count} (sizeof {name} / sizeof {name}[0])")


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def is_non_overlapping_and_dense(x):
    """c10's flag, observed through empty_like(preserve_format): ATen keeps the
    input's strides exactly when the input is non-overlapping and dense, and
    otherwise computes dense strides (which can never equal the input's)."""
    if x.numel() == 0 or x.dim() == 0:
        return torch._prims_common.is_non_overlapping_and_dense(x)
    return torch.empty_like(x).stride() == x.stride()


def suggest_memory_format(x):
    """c10's TensorBase::suggest_memory_format, observed through the output of
    upsample_nearest{2,3}d, whose meta function allocates its output in
    input.suggest_memory_format(). Falls back to the _prims_common port where
    the upsample cannot run (no spatial elements) or cannot tell the formats
    apart (both give the same strides). Returns 0/2/3 (c10::MemoryFormat)."""
    py = torch._prims_common.suggest_memory_format(x)
    py_code = {torch.contiguous_format: 0, torch.channels_last: 2, torch.channels_last_3d: 3}[py]
    if x.dim() not in (4, 5) or x.numel() == 0:
        return py_code
    # upsample must see x itself: a dtype conversion first would re-lay-out a
    # non-dense x (to() keeps only the dim order), changing the answer.
    assert x.dtype in (torch.float32, torch.float64), x.dtype
    xf = x
    if x.dim() == 4:
        out = torch._C._nn.upsample_nearest2d(xf, list(x.shape[2:]))
        cl = torch.empty(x.shape, memory_format=torch.channels_last).stride()
        code = 2
    else:
        out = torch._C._nn.upsample_nearest3d(xf, list(x.shape[2:]))
        cl = torch.empty(x.shape, memory_format=torch.channels_last_3d).stride()
        code = 3
    cont = torch.empty(x.shape).stride()
    if cl == cont:
        return py_code
    if out.stride() == cl:
        c = code
    elif out.stride() == cont:
        c = 0
    else:
        raise AssertionError(f"upsample gave strides {out.stride()} for {x.shape}")
    if c != py_code:
        print(f"note: _prims_common.suggest_memory_format disagrees with c10 for "
              f"sizes {tuple(x.shape)} strides {x.stride()}", file=sys.stderr)
    return c


def flags(x):
    """(contiguous, channels_last, channels_last_3d, non_overlapping_dense,
    suggest) of x as c10 computes them."""
    return (
        int(x.is_contiguous()),
        int(x.is_contiguous(memory_format=torch.channels_last)),
        int(x.is_contiguous(memory_format=torch.channels_last_3d)),
        int(is_non_overlapping_and_dense(x)),
        suggest_memory_format(x),
    )


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}", file=sys.stderr)
