"""Generates tests/golden/views_golden.h: view geometry (sizes, strides,
storage_offset), contiguity flags, storage sharing and C-order values of
many view chains, as PyTorch computes them.

Every case starts from x = base.as_strided(sizes, strides, offset) where base
is torch.arange(base_numel, dtype=float64), then applies up to MAX_STEPS view
ops in order. The C test (tests/test_views.c) rebuilds x the same way with
tsr_arange + tsr_as_strided, replays the steps through the C API and compares.
A case whose last step raises in PyTorch is recorded as an error case: the C
call must fail too and leave its out pointer alone.
"""
import itertools
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import (c_array, c_int, c_string, c_table, flags,  # noqa: E402
                           header_preamble, write)

MAX_DIMS = 8
MAX_ARGS = 24
MAX_STEPS = 4
MAX_VALUES = 96  # C-order values are recorded for results up to this numel

INT64_MAX = 2 ** 63 - 1

OPS = [
    # name, how to apply it in PyTorch to (x, args)
    ("VIEW", lambda x, a: x.view(list(a))),
    ("RESHAPE", lambda x, a: x.reshape(list(a))),
    ("TRANSPOSE", lambda x, a: x.transpose(a[0], a[1])),
    ("T", lambda x, a: x.t()),
    ("PERMUTE", lambda x, a: x.permute(list(a))),
    ("NARROW", lambda x, a: x.narrow(a[0], a[1], a[2])),
    ("SLICE", lambda x, a: torch.ops.aten.slice.Tensor(x, a[0], a[1], a[2], a[3])),
    ("SELECT", lambda x, a: x.select(a[0], a[1])),
    ("EXPAND", lambda x, a: x.expand(list(a))),
    ("SQUEEZE", lambda x, a: x.squeeze()),
    ("SQUEEZE_DIM", lambda x, a: x.squeeze(a[0])),
    ("UNSQUEEZE", lambda x, a: x.unsqueeze(a[0])),
    ("FLATTEN", lambda x, a: x.flatten(a[0], a[1])),
    ("UNFLATTEN", lambda x, a: x.unflatten(a[0], list(a[1:]))),
    ("MOVEDIM", lambda x, a: torch.movedim(x, list(a[1:1 + a[0]]), list(a[1 + a[0]:]))),
    ("AS_STRIDED", lambda x, a: x.as_strided(list(a[1:1 + a[0]]), list(a[1 + a[0]:1 + 2 * a[0]]),
                                             a[1 + 2 * a[0]])),
    ("UNFOLD", lambda x, a: x.unfold(a[0], a[1], a[2])),
    ("DIAGONAL", lambda x, a: x.diagonal(a[0], a[1], a[2])),
]
OP_INDEX = {name: i for i, (name, _) in enumerate(OPS)}


class Input:
    """A strided window on arange(base_numel), built from a torch expression."""

    def __init__(self, desc, base_numel, make):
        self.desc = desc
        self.base_numel = base_numel
        base = torch.arange(base_numel, dtype=torch.float64)
        x = make(base)
        assert x.storage().data_ptr() == base.storage().data_ptr(), desc
        self.sizes = list(x.shape)
        self.strides = list(x.stride())
        self.offset = x.storage_offset()

    def build(self):
        base = torch.arange(self.base_numel, dtype=torch.float64)
        return base, base.as_strided(self.sizes, self.strides, self.offset)


def inp(desc, n, make):
    return Input(desc, n, make)


INPUTS = {
    "c234": inp("arange(24).view(2,3,4)", 24, lambda b: b.view(2, 3, 4)),
    "p234": inp("arange(24).view(4,3,2).permute(2,1,0)", 24,
                lambda b: b.view(4, 3, 2).permute(2, 1, 0)),
    "sl58": inp("arange(40).view(5,8)[1:4, ::2]", 40, lambda b: b.view(5, 8)[1:4, ::2]),
    "nchw": inp("arange(120).view(2,3,4,5)", 120, lambda b: b.view(2, 3, 4, 5)),
    "nhwc": inp("arange(120).view(2,4,5,3).permute(0,3,1,2)", 120,
                lambda b: b.view(2, 4, 5, 3).permute(0, 3, 1, 2)),
    "v10": inp("arange(10)", 10, lambda b: b),
    "m34": inp("arange(12).view(3,4)", 12, lambda b: b.view(3, 4)),
    "m44": inp("arange(16).view(4,4)", 16, lambda b: b.view(4, 4)),
    "m34t": inp("arange(12).view(4,3).t()", 12, lambda b: b.view(4, 3).t()),
    "scalar": inp("arange(1).view(())", 1, lambda b: b.view(())),
    "scalar_off": inp("arange(10)[7] (0-dim, offset 7)", 10, lambda b: b[7]),
    "ones": inp("arange(6).view(1,2,1,3)", 6, lambda b: b.view(1, 2, 1, 3)),
    "odd1": inp("size-1 dims with odd strides: as_strided([1,6],[100,1])", 6,
                lambda b: b.as_strided([1, 6], [100, 1])),
    "empty30": inp("arange(12).view(3,4)[:, 2:2] (size 0, offset 2)", 12,
                   lambda b: b.view(3, 4)[:, 2:2]),
    "empty0": inp("arange(0).view(0,3)", 0, lambda b: b.view(0, 3)),
    "exp34": inp("arange(3).view(3,1).expand(3,4)", 3, lambda b: b.view(3, 1).expand(3, 4)),
    "c2345": inp("arange(120).view(2,3,4,5) offset by narrow", 130,
                 lambda b: b[10:].view(2, 3, 4, 5)),
    "c5d": inp("arange(240).view(2,3,2,4,5)", 240, lambda b: b.view(2, 3, 2, 4, 5)),
    "cl3d": inp("arange(240).view(2,2,4,5,3).permute(0,4,1,2,3)", 240,
                lambda b: b.view(2, 2, 4, 5, 3).permute(0, 4, 1, 2, 3)),
    "step3": inp("arange(30)[2::3]", 30, lambda b: b[2::3]),
}

CASES = []  # (input key, [(op, args), ...])


def case(key, *steps):
    CASES.append((key, [(op, list(args)) for op, args in steps]))


def ndim_of(key):
    return len(INPUTS[key].sizes)


# ---- view / reshape, including -1, size-1 and size-0 shapes -----------------
for key, shapes in [
    ("c234", [[24], [6, 4], [2, 12], [-1], [4, -1], [2, 3, 2, 2], [1, 24], [24, 1],
              [2, 1, 3, 1, 4], [-1, 3, 4], [3, 8], [5, 5], [2, -1, -1], [0, -1], [25]]),
    ("p234", [[24], [2, 12], [2, 3, 4], [6, 4], [-1, 4], [1, 2, 3, 4], [2, 3, 2, 2]]),
    ("sl58", [[12], [3, 4], [3, 2, 2], [1, 3, 4], [4, 3]]),
    ("nhwc", [[2, 60], [2, 3, 20], [6, 20], [2, 3, 4, 5], [120]]),
    ("m34t", [[12], [4, 3], [2, 2, 3], [4, 1, 3], [2, 6]]),
    ("scalar", [[], [1], [1, 1], [-1], [2]]),
    ("scalar_off", [[], [1, 1, 1], [-1]]),
    ("ones", [[6], [2, 3], [1, 6], [2, 1, 3], [1, 1, 2, 1, 1, 3, 1]]),
    ("odd1", [[2, 3], [1, 2, 3], [6, 1], [6]]),
    ("empty30", [[0], [0, 3], [3, 0], [2, 0, 5], [-1, 0], [0, -1], [1, 0]]),
    ("empty0", [[0], [3, 0], [0, 1, 3], [0, -1]]),
    ("exp34", [[12], [3, 4], [3, 2, 2], [3, 4, 1], [1, 3, 4]]),
    ("step3", [[10], [2, 5], [5, 2], [10, 1]]),
    ("cl3d", [[2, 3, 40], [2, 120], [240]]),
]:
    for s in shapes:
        case(key, ("VIEW", s))
        case(key, ("RESHAPE", s))

# ---- transpose / t / permute ---------------------------------------------
for key in ["c234", "p234", "sl58", "nchw", "scalar", "ones", "empty30", "exp34", "v10"]:
    n = ndim_of(key)
    for d0 in range(-max(n, 1), max(n, 1)):
        for d1 in range(-max(n, 1), max(n, 1)):
            case(key, ("TRANSPOSE", [d0, d1]))
    case(key, ("TRANSPOSE", [n if n else 1, 0]))  # out of range
for key in ["m34", "m34t", "v10", "scalar", "sl58", "c234", "empty30", "exp34"]:
    case(key, ("T", []))
for key in ["c234", "p234", "sl58", "ones", "scalar"]:
    n = ndim_of(key)
    for perm in itertools.permutations(range(n)):
        case(key, ("PERMUTE", list(perm)))
case("c234", ("PERMUTE", [-1, 0, 1]))
case("c234", ("PERMUTE", [0, 0, 1]))
case("c234", ("PERMUTE", [0, 1]))
case("c234", ("PERMUTE", [0, 1, 3]))
case("nchw", ("PERMUTE", [0, 2, 3, 1]))
case("nhwc", ("PERMUTE", [0, 2, 3, 1]))

# ---- narrow (negative start, start == size, out of range) ----------------
for key, dims in [("c234", [0, -1]), ("p234", [1]), ("v10", [0]), ("sl58", [-1]),
                  ("empty30", [1, 0]), ("nhwc", [1])]:
    for d in dims:
        size = INPUTS[key].sizes[d]
        for start in sorted({0, 1, size - 1, size, -1, -size, size + 1, -size - 1}):
            for length in sorted({0, 1, size, size - start if 0 <= start <= size else 2}):
                case(key, ("NARROW", [d, start, length]))
case("scalar", ("NARROW", [0, 0, 1]))
case("v10", ("NARROW", [0, 2, -1]))
case("v10", ("NARROW", [1, 0, 1]))

# ---- slice: steps, negative and clamped bounds ---------------------------
for key, dims in [("v10", [0]), ("c234", [2, -2]), ("sl58", [-1]), ("m34t", [0]),
                  ("empty30", [1]), ("step3", [0])]:
    for d in dims:
        size = INPUTS[key].sizes[d]
        bounds = sorted({0, 2, size - 1, size, size + 5, -2, -size, -size - 5, INT64_MAX})
        for start in bounds:
            for end in bounds:
                case(key, ("SLICE", [d, start, end, 1]))
        for step in (2, 3, 7):
            for start in (0, 1, -3):
                for end in (size, -1, INT64_MAX):
                    case(key, ("SLICE", [d, start, end, step]))
        case(key, ("SLICE", [d, 0, INT64_MAX, 0]))
        case(key, ("SLICE", [d, 0, INT64_MAX, -1]))
case("c234", ("SLICE", [3, 0, 1, 1]))
case("scalar", ("SLICE", [0, 0, 1, 1]))

# ---- select, negative index and out of range -----------------------------
for key in ["c234", "p234", "v10", "sl58", "nhwc", "exp34", "ones", "empty30"]:
    n = ndim_of(key)
    for d in range(-n, n):
        size = INPUTS[key].sizes[d]
        for i in sorted({0, 1, size - 1, -1, -size, size, -size - 1}):
            case(key, ("SELECT", [d, i]))
case("scalar", ("SELECT", [0, 0]))
case("c234", ("SELECT", [3, 0]))

# ---- expand, including new leading dims ----------------------------------
for key, targets in [
    ("ones", [[4, 2, 5, 3], [-1, -1, 2, -1], [2, 1, 2, 1, 3], [3, 4, 2, 5, 3], [1, 2, 1, 3],
              [4, 3, 2, 1, 3], [2, 3, 1, 3], [1, 2, 1], [-1, 1, 2, 1, 3]]),
    ("v10", [[3, 10], [1, 10], [2, 1, 10], [-1], [10], [3, -1], [10, 10], [0, 10], [-1, 10]]),
    ("scalar", [[], [3], [1], [2, 3], [1, 1], [2, 1, 3], [-1]]),
    ("scalar_off", [[4], [2, 2]]),
    ("exp34", [[2, 3, 4], [3, 4], [1, 1, 3, 4], [3, 5]]),
    ("m34t", [[2, 4, 3], [4, 3], [4]]),
    ("odd1", [[3, 6], [2, 1, 6], [0, 6]]),
    ("empty0", [[2, 0, 3], [0, 3], [1, 3]]),
    ("sl58", [[2, 3, 4], [3, 4, 1]]),
]:
    for t in targets:
        case(key, ("EXPAND", t))

# ---- squeeze / squeeze(dim) / unsqueeze at every position ----------------
for key in ["ones", "c234", "scalar", "odd1", "empty30", "exp34", "sl58"]:
    n = ndim_of(key)
    case(key, ("SQUEEZE", []))
    for d in range(-max(n, 1) - 1, max(n, 1) + 1):
        case(key, ("SQUEEZE_DIM", [d]))
    for d in range(-n - 2, n + 2):
        case(key, ("UNSQUEEZE", [d]))
case("p234", ("UNSQUEEZE", [1]), ("UNSQUEEZE", [0]), ("SQUEEZE", []))
case("nhwc", ("UNSQUEEZE", [4]), ("UNSQUEEZE", [2]))

# ---- flatten / unflatten ---------------------------------------------------
for key in ["c234", "nhwc", "sl58", "ones", "scalar", "empty30", "exp34"]:
    n = max(ndim_of(key), 1)
    for s in range(-n - 1, n + 1):
        for e in range(-n - 1, n + 1):
            if abs(s) <= n and abs(e) <= n:
                case(key, ("FLATTEN", [s, e]))
    case(key, ("FLATTEN", [0, -1]))
for key, specs in [
    ("c234", [[0, 1, 2], [0, 2, 1], [1, 3, 1], [2, 2, 2], [2, -1, 2], [2, 4, 1], [-1, 2, -1],
              [1, 1, 1, 3], [2, 3, 2], [0, -1, -1], [2, 3], [1, 3, 3], [0], [3, 4]]),
    ("p234", [[2, 2, 2], [1, 3, 1], [0, 1, 2, 1]]),
    ("sl58", [[1, 2, 2], [0, 3, 1], [1, 4, 1]]),
    ("odd1", [[1, 2, 3], [1, 6, 1], [0, 1, 1], [1, 3, -1]]),
    ("empty30", [[1, 0, 5], [0, 3, 1], [1, 0, -1], [1, -1, 0]]),
    ("exp34", [[1, 2, 2], [0, 3, 1]]),
    ("scalar", [[0, 1]]),
]:
    for spec in specs:
        case(key, ("UNFLATTEN", spec))

# ---- movedim -------------------------------------------------------------
for key in ["c234", "nchw", "sl58"]:
    n = ndim_of(key)
    for s in range(-n, n):
        for d in range(-n, n):
            case(key, ("MOVEDIM", [1, s, d]))
case("nchw", ("MOVEDIM", [2, 1, 2, 3, 0]))
case("nchw", ("MOVEDIM", [2, 0, 1, 1, 0]))
case("nchw", ("MOVEDIM", [3, 1, 2, 3, 3, 1, 2]))
case("nchw", ("MOVEDIM", [2, 1, 1, 2, 3]))    # repeated source
case("nchw", ("MOVEDIM", [2, 1, 2, 3, 3]))    # repeated destination
case("nchw", ("MOVEDIM", [1, 4, 0]))          # out of range
case("scalar", ("MOVEDIM", [1, 0, 0]))
case("scalar", ("MOVEDIM", [1, -1, 0]))

# ---- as_strided (absolute storage offset, bounds) --------------------------
for key, specs in [
    ("c234", [([2, 2], [1, 2], 0), ([3, 3], [0, 1], 5), ([4], [6], 0), ([24], [1], 0),
              ([2, 12], [12, 1], 0), ([5, 5], [5, 1], 0), ([2, 2], [1, 1], 22),
              ([2, 2], [1, 1], 23), ([0, 7], [1, 1], 100), ([], [], 23), ([], [], 24),
              ([2], [-1], 3), ([2], [1], -1), ([3, 4, 2], [1, 3, 12], 0)]),
    ("sl58", [([2, 2], [8, 2], 9), ([3], [1], 0), ([6, 6], [6, 1], 4), ([40], [1], 0),
              ([41], [1], 0)]),
    ("scalar_off", [([3], [1], 7), ([3], [1], 8)]),
]:
    for sizes, strides, off in specs:
        case(key, ("AS_STRIDED", [len(sizes)] + sizes + strides + [off]))

# ---- unfold -----------------------------------------------------------------
for key in ["v10", "c234", "sl58", "m34t", "scalar", "empty30"]:
    n = ndim_of(key)
    for d in sorted({0, -1, n - 1} if n else {0, -1}):
        size = INPUTS[key].sizes[d] if n else 1
        for sz in sorted({0, 1, 2, size, size + 1}):
            for step in (1, 2, 3, 0):
                case(key, ("UNFOLD", [d, sz, step]))

# ---- diagonal with offsets ---------------------------------------------------
for key in ["m34", "m44", "m34t", "c234", "p234", "sl58", "empty30", "nchw"]:
    n = ndim_of(key)
    pairs = [(0, 1), (1, 0), (-1, -2)] + ([(0, 2), (2, 0), (1, 2), (0, -1)] if n >= 3 else [])
    for d1, d2 in pairs:
        for off in range(-4, 5):
            case(key, ("DIAGONAL", [off, d1, d2]))
    case(key, ("DIAGONAL", [0, 1, 1]))
case("v10", ("DIAGONAL", [0, 0, 1]))

# ---- views of views ----------------------------------------------------------
case("nchw", ("PERMUTE", [0, 2, 3, 1]), ("NARROW", [1, 1, 2]), ("VIEW", [2, 2, 15]))
case("nchw", ("PERMUTE", [0, 2, 3, 1]), ("NARROW", [1, 1, 2]), ("VIEW", [2, 30]))
case("nchw", ("PERMUTE", [0, 2, 3, 1]), ("NARROW", [1, 1, 2]), ("RESHAPE", [2, 30]))
case("nchw", ("PERMUTE", [0, 2, 3, 1]), ("NARROW", [1, 1, 2]), ("VIEW", [-1, 3]))
case("nchw", ("PERMUTE", [0, 2, 3, 1]), ("NARROW", [1, 1, 2]), ("VIEW", [-1]))
case("nchw", ("TRANSPOSE", [1, 3]), ("SELECT", [2, -1]), ("UNSQUEEZE", [0]), ("EXPAND", [2, 2, 5, 3]))
case("c234", ("TRANSPOSE", [0, 1]), ("VIEW", [-1]))
case("c234", ("TRANSPOSE", [0, 1]), ("RESHAPE", [-1]))
case("c234", ("SLICE", [2, 1, INT64_MAX, 2]), ("VIEW", [6, 2]))
case("c234", ("SLICE", [2, 1, INT64_MAX, 2]), ("VIEW", [2, 3, 2, 1]))
case("c234", ("SLICE", [2, 1, INT64_MAX, 2]), ("TRANSPOSE", [0, 2]), ("FLATTEN", [0, 1]))
case("c234", ("SELECT", [1, 1]), ("NARROW", [1, -2, 2]), ("DIAGONAL", [0, 0, 1]))
case("c234", ("UNFOLD", [2, 2, 1]), ("SELECT", [-1, 1]), ("VIEW", [2, 9]))
case("c234", ("UNFOLD", [2, 2, 2]), ("FLATTEN", [2, 3]))
case("c234", ("EXPAND", [2, 2, 3, 4]), ("VIEW", [4, 12]))
case("c234", ("EXPAND", [2, 2, 3, 4]), ("VIEW", [2, 24]))
case("c234", ("EXPAND", [2, 2, 3, 4]), ("RESHAPE", [4, 12]))
case("c234", ("MOVEDIM", [1, 0, 2]), ("DIAGONAL", [1, 0, 2]), ("AS_STRIDED", [2, 2, 2, 1, 4, 3]))
case("sl58", ("T", []), ("UNSQUEEZE", [1]), ("EXPAND", [4, 2, 3]), ("SELECT", [1, 1]))
case("ones", ("SQUEEZE", []), ("T", []), ("VIEW", [6]))
case("ones", ("SQUEEZE", []), ("T", []), ("RESHAPE", [6]))
case("empty30", ("T", []), ("VIEW", [-1]), ("UNSQUEEZE", [0]))
case("exp34", ("T", []), ("NARROW", [0, 1, 2]), ("FLATTEN", [0, -1]))
case("nhwc", ("NARROW", [1, 0, 1]), ("VIEW", [2, 20]))
case("nhwc", ("SLICE", [3, 0, INT64_MAX, 2]), ("PERMUTE", [0, 2, 3, 1]), ("VIEW", [2, 4, 9]))


# ---- split / chunk: piece sizes, including uneven, oversize and zero-size ----
MAX_PIECES = 12
SPLITS = []  # (input key, "split"|"chunk", arg, dim)
for key, dims in [("v10", [0, -1]), ("c234", [0, 1, 2, -1]), ("sl58", [0, 1]),
                  ("empty30", [0, 1]), ("empty0", [0]), ("m34t", [0])]:
    for d in dims:
        for arg in (1, 2, 3, 4, 5, 11, 0, -1):
            SPLITS.append((key, "split", arg, d))
            SPLITS.append((key, "chunk", arg, d))
SPLITS.append(("c234", "split", 2, 3))
SPLITS.append(("scalar", "split", 1, 0))
SPLITS.append(("scalar", "chunk", 1, 0))


def run_split(key, kind, arg, dim):
    _, x = INPUTS[key].build()
    try:
        return (x.split(arg, dim) if kind == "split" else x.chunk(arg, dim)), None
    except (RuntimeError, IndexError, ValueError) as e:
        return None, str(e).split("\n")[0]


def split_rows():
    rows = []
    for key, kind, arg, dim in SPLITS:
        I = INPUTS[key]
        pieces, err = run_split(key, kind, arg, dim)
        head = (f"{c_string(f'{key}.{kind}({arg}, {dim})')}, {c_int(I.base_numel)}, {len(I.sizes)}, "
                f"{c_array(I.sizes)}, {c_array(I.strides)}, {c_int(I.offset)}, "
                f"{int(kind == 'chunk')}, {arg}, {dim}")
        if err is not None:
            rows.append(f"  /* torch: {err.replace('*/', '* /')} */\n"
                        f"  {{{head}, 1, 0, {{{{0}}}}, {{{{0}}}}, {{0}}}},")
            continue
        assert len(pieces) <= MAX_PIECES
        sz = ", ".join(c_array(p.shape) for p in pieces)
        st = ", ".join(c_array(p.stride()) for p in pieces)
        off = c_array(p.storage_offset() for p in pieces)
        rows.append(f"  {{{head}, 0, {len(pieces)}, {{{sz}}}, {{{st}}}, {off}}},")
    return rows


def apply(x, op, args):
    return OPS[OP_INDEX[op]][1](x, args)


def storage_ptr(t):
    return t.storage().data_ptr()


def run_case(key, steps):
    base, x = INPUTS[key].build()
    err = None
    for i, (op, args) in enumerate(steps):
        try:
            x = apply(x, op, args)
        except (RuntimeError, IndexError, ValueError, TypeError) as e:
            assert i == len(steps) - 1, f"only the last step may fail: {key} {steps}: {e}"
            err = str(e).split("\n")[0]
    return base, x, err


def describe(key, steps):
    def arg(v):
        return "INT64_MAX" if v == INT64_MAX else str(v)
    parts = [key]
    for op, args in steps:
        parts.append(f"{op.lower()}({', '.join(arg(a) for a in args)})")
    return ".".join(parts)


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "views_golden.h")
    rows, values = [], []
    n_err = 0
    for key, steps in CASES:
        assert len(steps) <= MAX_STEPS
        base, y, err = run_case(key, steps)
        I = INPUTS[key]
        step_txt = ", ".join(
            "{" + f"TSR_GV_{op}, {len(args)}, " + c_array(args) + "}" for op, args in steps)
        head = (f"{c_string(describe(key, steps))}, {c_int(I.base_numel)}, {len(I.sizes)}, "
                f"{c_array(I.sizes)}, {c_array(I.strides)}, {c_int(I.offset)}, "
                f"{len(steps)}, {{{step_txt}}}")
        if err is not None:
            n_err += 1
            rows.append(f"  /* torch: {err.replace('*/', '* /')} */\n"
                        f"  {{{head}, 1, 0, {{0}}, {{0}}, 0, 0, 0, 0, 0, 0, 0, 0, -1}},")
            continue
        assert y.dim() <= MAX_DIMS
        shares = int(storage_ptr(y) == storage_ptr(base))
        fl = flags(y)
        vstart = -1
        if y.numel() <= MAX_VALUES:
            vstart = len(values)
            values.extend(int(v) for v in y.contiguous().view(-1).tolist())
        rows.append(
            f"  {{{head}, 0, {y.dim()}, {c_array(y.shape)}, {c_array(y.stride())}, "
            f"{c_int(y.storage_offset())}, {y.numel()}, {shares}, {fl[0]}, {fl[1]}, {fl[2]}, {fl[3]}, "
            f"{fl[4]}, {vstart}}},")
    enum = "\n".join(f"  TSR_GV_{name} = {i}," for i, (name, _) in enumerate(OPS))
    text = header_preamble(__file__, "View geometry of view chains over arange inputs.") + f"""
#ifndef TSR_TESTS_GOLDEN_VIEWS_GOLDEN_H
#define TSR_TESTS_GOLDEN_VIEWS_GOLDEN_H

#include <stdint.h>

#define TSR_GV_MAX_DIMS {MAX_DIMS}
#define TSR_GV_MAX_ARGS {MAX_ARGS}
#define TSR_GV_MAX_STEPS {MAX_STEPS}
#define TSR_GV_MAX_VALUES {MAX_VALUES}

/* The view ops a step can apply; args as in the tsr_* call:
 *   VIEW/RESHAPE/EXPAND/PERMUTE: the list;  TRANSPOSE: d0, d1;  T, SQUEEZE: none;
 *   NARROW: dim, start, length;  SLICE: dim, start, end, step;  SELECT: dim, index;
 *   SQUEEZE_DIM/UNSQUEEZE: dim;  FLATTEN: start, end;  UNFLATTEN: dim, sizes...;
 *   MOVEDIM: n, source[n], destination[n];  AS_STRIDED: n, sizes[n], strides[n], offset;
 *   UNFOLD: dim, size, step;  DIAGONAL: offset, dim1, dim2. */
enum tsr_gv_op {{
{enum}
}};

typedef struct {{
  int op;
  int nargs;
  int64_t args[TSR_GV_MAX_ARGS];
}} tsr_gv_step;

typedef struct {{
  const char* name;          /* input key and steps, for messages */
  int64_t base_numel;        /* base = arange(base_numel), float64 */
  int64_t in_ndim, in_sizes[TSR_GV_MAX_DIMS], in_strides[TSR_GV_MAX_DIMS], in_offset;
  int nsteps;
  tsr_gv_step steps[TSR_GV_MAX_STEPS];
  int error;                 /* 1: PyTorch raised on the last step */
  int64_t ndim, sizes[TSR_GV_MAX_DIMS], strides[TSR_GV_MAX_DIMS], offset, numel;
  int shares_storage;        /* result uses base's storage (a view, not a copy) */
  int contiguous, channels_last, channels_last_3d, non_overlapping_and_dense;
  int suggest_memory_format; /* c10::MemoryFormat value */
  int64_t values_start;      /* index into tsr_gv_values of numel C-order values, -1: not kept */
}} tsr_gv_case;

{c_table("tsr_gv_case", "tsr_gv_cases", "TSR_GV_NCASES", rows)}

/* torch.split(split_size, dim) / torch.chunk(chunks, dim) of one input. */
#define TSR_GS_MAX_PIECES {MAX_PIECES}
typedef struct {{
  const char* name;
  int64_t base_numel;
  int64_t in_ndim, in_sizes[TSR_GV_MAX_DIMS], in_strides[TSR_GV_MAX_DIMS], in_offset;
  int chunk;                 /* 0: split(arg, dim), 1: chunk(arg, dim) */
  int64_t arg, dim;
  int error;                 /* 1: PyTorch raised */
  int64_t count;             /* number of pieces */
  int64_t sizes[TSR_GS_MAX_PIECES][TSR_GV_MAX_DIMS];
  int64_t strides[TSR_GS_MAX_PIECES][TSR_GV_MAX_DIMS];
  int64_t offsets[TSR_GS_MAX_PIECES];
}} tsr_gs_case;

{c_table("tsr_gs_case", "tsr_gs_cases", "TSR_GS_NCASES", split_rows())}

static const int64_t tsr_gv_values[] = {c_array(values) if values else "{0}"};

#endif
"""
    write(out, text)
    print(f"{len(rows)} cases ({n_err} errors), {len(values)} values", file=sys.stderr)


if __name__ == "__main__":
    main()
