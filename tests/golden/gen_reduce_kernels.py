"""Goldens for tests/test_reduce_kernels.c: sum, mean, max(dim) and softmax through
the vectorized and threaded reduction loops (outer and inner dims, odd sizes
with vector and column-block tails, rows long enough to be chunked,
transposed, channels_last and step-sliced inputs, keepdim, every dtype,
NaN/inf and ties). Inputs are formulas of the element's C-order index in the
base tensor, so the C test rebuilds them without a table:

  VALUES   floats: ((i*7919) % 2003) / 64 - 15 (exact in float16)
           signed ints: (i*7919) % 251 - 125; uint8: (i*7919) % 251;
           bool: (i*7919) % 3 == 0
  TIES     floor(((i*7919) % 2003) / 400): values 0..5, many ties
  SPECIAL  TIES with nan where i % 97 == 13, inf where i % 89 == 5 and
           -inf where i % 83 == 7
  EDGES    (rows of EDGES_ROW = 4396) TIES with -0.0 for the zeros at odd
           i, nan in row 0 where col % 31 == 3, nan in row 5 where
           col >= 4100 and col % 37 == 3 (the last column block only), and
           in columns < 2048 inf where i % 101 == 7 and -inf where
           i % 101 == 60 (the element below each inf: (7 + 4396) % 101 ==
           60); later rules win

built in float64, converted to the dtype, then laid out (LAYOUT_*).
Run: /usr/bin/python3 tests/golden/gen_reduce_kernels.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from golden_common import c_int, header_preamble  # noqa: E402
from opsprog import c_double  # noqa: E402

D = {
    "TSR_FLOAT16": torch.float16, "TSR_BFLOAT16": torch.bfloat16, "TSR_FLOAT32": torch.float32,
    "TSR_FLOAT64": torch.float64, "TSR_INT8": torch.int8, "TSR_INT16": torch.int16,
    "TSR_INT32": torch.int32, "TSR_INT64": torch.int64, "TSR_UINT8": torch.uint8,
    "TSR_BOOL": torch.bool,
}


EDGES_ROW = 4396  # the EDGES formula's row length (tests/test_reduce_kernels.c)


def base(formula, dtype, sizes):
    n = math.prod(sizes)
    i = torch.arange(n, dtype=torch.int64)
    h = (i * 7919)
    if formula == "VALUES":
        if dtype.is_floating_point:
            v = (h % 2003).double() / 64 - 15
        elif dtype == torch.bool:
            v = (h % 3 == 0).double()
        elif dtype == torch.uint8:
            v = (h % 251).double()
        else:
            v = (h % 251 - 125).double()
    elif formula == "EDGES":
        v = torch.floor((h % 2003).double() / 400)
        v[(v == 0) & (i % 2 == 1)] = -0.0
        row, col = i // EDGES_ROW, i % EDGES_ROW
        v[(row == 0) & (col % 31 == 3)] = float("nan")
        v[(row == 5) & (col >= 4100) & (col % 37 == 3)] = float("nan")
        v[(col < 2048) & (i % 101 == 7)] = float("inf")
        v[(col < 2048) & (i % 101 == (7 + EDGES_ROW) % 101)] = float("-inf")
    elif formula == "ZEROS":
        v = -torch.floor((h % 2003).double() / 400)
        v[v == 0] = 0.0  # -floor(0.0) is -0.0
        v[(v == 0) & (i % 2 == 1)] = -0.0
        v[i % 211 == 17] = float("nan")
    else:
        v = torch.floor((h % 2003).double() / 400)
        if formula == "SPECIAL":
            v[i % 97 == 13] = float("nan")
            v[i % 89 == 5] = float("inf")
            v[i % 83 == 7] = float("-inf")
    return v.reshape(sizes).to(dtype)


def layout(x, kind):
    if kind == "CONTIG":
        return x
    if kind == "TRANSPOSED":
        return x.t()
    if kind == "CHANNELS_LAST":
        return x.contiguous(memory_format=torch.channels_last)
    if kind == "STEP3":
        return x[:, ::3]
    raise ValueError(kind)


def tol(dtype, op):
    if op == "MAX" or not dtype.is_floating_point:
        return (0.0, 0.0)
    if op in ("SOFTMAX", "LOG_SOFTMAX"):
        return {torch.float64: (1e-12, 1e-12), torch.float32: (1e-5, 1e-6)}[dtype]
    return {torch.float64: (1e-12, 1e-9), torch.float32: (1e-5, 1e-3),
            torch.float16: (2e-3, 1e-2), torch.bfloat16: (1e-2, 1e-1)}[dtype]


cases = []


def case(name, dtype, sizes, op, dims, keepdim=False, formula="VALUES", lay="CONTIG"):
    x = layout(base(formula, D[dtype], sizes), lay)
    if op == "SUM":
        y, idx = x.sum(dims, keepdim=keepdim), None
    elif op == "MEAN":
        y, idx = x.mean(dims, keepdim=keepdim), None
    elif op == "SOFTMAX":
        y, idx = x.softmax(dims[0]), None
    elif op == "LOG_SOFTMAX":
        y, idx = x.log_softmax(dims[0]), None
    else:
        y, idx = torch.max(x, dims[0], keepdim=keepdim)
    cases.append((name, dtype, formula, sizes, lay, op, dims, keepdim, tol(D[dtype], op), y, idx))


# float32 through every loop: odd sizes (vector tails, more than one
# 1024-column block), a row longer than the 65536-element chunk.
for d in ([0], [1], [], [-1]):
    case(f"f32 [67,1029] sum {d}", "TSR_FLOAT32", [67, 1029], "SUM", d)
case("f32 [67,1029] mean dim 0 keepdim", "TSR_FLOAT32", [67, 1029], "MEAN", [0], True)
case("f32 [67,1029] mean dim 1", "TSR_FLOAT32", [67, 1029], "MEAN", [1])
case("f32 [3,100003] sum dim 1 (chunked rows)", "TSR_FLOAT32", [3, 100003], "SUM", [1])
case("f32 [3,100003] sum all", "TSR_FLOAT32", [3, 100003], "SUM", [])
case("f32 [100003,2] sum dim 0 (narrow columns)", "TSR_FLOAT32", [100003, 2], "SUM", [0])
case("f32 [1029,67] transposed sum dim 0", "TSR_FLOAT32", [1029, 67], "SUM", [0], lay="TRANSPOSED")
case("f32 [1029,67] transposed sum dim 1", "TSR_FLOAT32", [1029, 67], "SUM", [1], lay="TRANSPOSED")
case("f32 [40,301] step 3 sum dim 0", "TSR_FLOAT32", [40, 301], "SUM", [0], lay="STEP3")
case("f32 [40,301] step 3 sum dim 1 keepdim", "TSR_FLOAT32", [40, 301], "SUM", [1], True, lay="STEP3")
case("f32 [40,301] step 3 sum all", "TSR_FLOAT32", [40, 301], "SUM", [], lay="STEP3")
for d in ([0], [1], [2], [3], [2, 3], [0, 2], [1, 3]):
    case(f"f32 [3,37,5,7] channels_last sum {d}", "TSR_FLOAT32", [3, 37, 5, 7], "SUM", d,
         lay="CHANNELS_LAST")
    case(f"f32 [3,37,5,7] sum {d} keepdim", "TSR_FLOAT32", [3, 37, 5, 7], "SUM", d, True)
case("f32 [3,37,5,7] channels_last mean (2,3) keepdim", "TSR_FLOAT32", [3, 37, 5, 7], "MEAN", [2, 3],
     True, lay="CHANNELS_LAST")
for dim in range(4):
    case(f"f32 [3,37,5,7] channels_last max dim {dim}", "TSR_FLOAT32", [3, 37, 5, 7], "MAX", [dim],
         formula="TIES", lay="CHANNELS_LAST")
for dim in (0, 1):
    for f in ("VALUES", "TIES", "SPECIAL"):
        case(f"f32 [67,1029] max dim {dim} {f}", "TSR_FLOAT32", [67, 1029], "MAX", [dim], formula=f)
        case(f"f64 [67,1029] max dim {dim} {f}", "TSR_FLOAT64", [67, 1029], "MAX", [dim], formula=f)
    case(f"f32 [1029,67] transposed max dim {dim} SPECIAL", "TSR_FLOAT32", [1029, 67], "MAX", [dim],
         True, formula="SPECIAL", lay="TRANSPOSED")
    case(f"f32 [40,301] step 3 max dim {dim} SPECIAL", "TSR_FLOAT32", [40, 301], "MAX", [dim],
         formula="SPECIAL", lay="STEP3")
case("f32 [2,100003] max dim 1 SPECIAL (chunked rows)", "TSR_FLOAT32", [2, 100003], "MAX", [1],
     formula="SPECIAL")
case("f32 [2,100003] max dim 1 TIES (chunked rows)", "TSR_FLOAT32", [2, 100003], "MAX", [1],
     formula="TIES")
case("f32 [100003] max dim 0 VALUES (chunked)", "TSR_FLOAT32", [100003], "MAX", [0])
# Column max past one 16 KiB block (4096 float32 / 2048 float64 columns),
# after the first row 13 and 16 rows (passes of 8, 4 and 1 rows; two
# passes of 8; the [67,1029] cases end with a pass of 2): inf above -inf in
# the first block, NaN in the first row only (float64's second block), NaN
# in row 5 of the last block only, signed-zero ties.
for dt in ("TSR_FLOAT32", "TSR_FLOAT64"):
    for rows in (14, 17):
        case(f"{dt} [{rows},{EDGES_ROW}] max dim 0 EDGES", dt, [rows, EDGES_ROW], "MAX", [0],
             formula="EDGES")

# Short rows (more than one vector, at most 8: ShortArgmaxRows, the last
# vector overlapping the one before when the row is not a whole number of
# vectors; NaN rows go to the exact chains) and narrow column blocks (at
# most 1 KiB of columns: groups of 4 vectors in registers, the vectors
# left, scalar columns).
for f in ("TIES", "SPECIAL", "ZEROS"):
    for n in (9, 56, 61, 64):
        case(f"f32 [67,{n}] max dim 1 {f} (short rows)", "TSR_FLOAT32", [67, n], "MAX", [1], formula=f)
    for n in (5, 30, 32):
        case(f"f64 [67,{n}] max dim 1 {f} (short rows)", "TSR_FLOAT64", [67, n], "MAX", [1], formula=f)
    for n in (5, 61, 256):
        case(f"f32 [41,{n}] max dim 0 {f} (narrow columns)", "TSR_FLOAT32", [41, n], "MAX", [0], formula=f)
    for n in (3, 30, 128):
        case(f"f64 [41,{n}] max dim 0 {f} (narrow columns)", "TSR_FLOAT64", [41, n], "MAX", [0], formula=f)
    case(f"f32 [3,37,5,7] max dim 1 {f} (narrow columns, two blocks)", "TSR_FLOAT32", [3, 37, 5, 7],
         "MAX", [1], formula=f)

# channels_last results laid out in C order by the outer reductions
# themselves (result_scatter.h): a column block of 4096 float32 (2048
# float64) columns that ends and starts inside a row of the 37 channels
# (dim 0: 37 * 11 * 13 = 5291 columns), blocks of whole rows (dim 2), one
# narrow block per output row (dim 3); then as results go, torch's strides.
for d in ([0], [2], [3], [0, 2]):
    case(f"f32 [2,37,11,13] channels_last sum {d}", "TSR_FLOAT32", [2, 37, 11, 13], "SUM", d,
         lay="CHANNELS_LAST")
    case(f"f64 [2,37,11,13] channels_last sum {d} keepdim", "TSR_FLOAT64", [2, 37, 11, 13], "SUM", d, True,
         lay="CHANNELS_LAST")
case("f16 [2,37,11,13] channels_last sum [0]", "TSR_FLOAT16", [2, 37, 11, 13], "SUM", [0], lay="CHANNELS_LAST")
case("i32 [2,37,11,13] channels_last sum [0]", "TSR_INT32", [2, 37, 11, 13], "SUM", [0], lay="CHANNELS_LAST")
case("f32 [2,37,11,13] channels_last mean [0]", "TSR_FLOAT32", [2, 37, 11, 13], "MEAN", [0],
     lay="CHANNELS_LAST")
for dim in (0, 2, 3):
    for f in ("TIES", "SPECIAL"):
        case(f"f32 [2,37,11,13] channels_last max dim {dim} {f}", "TSR_FLOAT32", [2, 37, 11, 13], "MAX",
             [dim], formula=f, lay="CHANNELS_LAST")
    case(f"f64 [2,37,11,13] channels_last max dim {dim} keepdim", "TSR_FLOAT64", [2, 37, 11, 13], "MAX",
         [dim], True, formula="SPECIAL", lay="CHANNELS_LAST")
    case(f"bf16 [2,37,11,13] channels_last max dim {dim}", "TSR_BFLOAT16", [2, 37, 11, 13], "MAX",
         [dim], formula="TIES", lay="CHANNELS_LAST")
case("u8 [2,37,11,13] channels_last max dim 0", "TSR_UINT8", [2, 37, 11, 13], "MAX", [0],
     lay="CHANNELS_LAST")
# The same with the C-ordered result's rows 32-byte aligned (8 x 8 spatial:
# 256 bytes apart for dim 0, 32 for dim 2), where the scatter's transposes
# take streaming stores.
for d in ([0], [2]):
    case(f"f32 [2,37,8,8] channels_last sum {d}", "TSR_FLOAT32", [2, 37, 8, 8], "SUM", d, lay="CHANNELS_LAST")
for dim in (0, 2):
    case(f"f32 [2,37,8,8] channels_last max dim {dim} SPECIAL", "TSR_FLOAT32", [2, 37, 8, 8], "MAX",
         [dim], formula="SPECIAL", lay="CHANNELS_LAST")
    case(f"f64 [2,37,8,8] channels_last max dim {dim} keepdim", "TSR_FLOAT64", [2, 37, 8, 8], "MAX",
         [dim], True, formula="TIES", lay="CHANNELS_LAST")

# softmax/log_softmax over contiguous rows (vectorized: rows longer than a
# vector, with tails; rows holding NaN, inf or -inf) and over another dim.
for op in ("SOFTMAX", "LOG_SOFTMAX"):
    for dt in ("TSR_FLOAT32", "TSR_FLOAT64"):
        for f in ("VALUES", "SPECIAL"):
            case(f"{dt} [29,37] {op} dim 1 {f}", dt, [29, 37], op, [1], formula=f)
        case(f"{dt} [3,37,5,7] {op} dim 3", dt, [3, 37, 5, 7], op, [3])
        case(f"{dt} [3,37,5,7] {op} dim 1", dt, [3, 37, 5, 7], op, [1])

# Every dtype, both loops.
for dt in D:
    for d in ([0], [1], []):
        case(f"{dt} [33,70] sum {d}", dt, [33, 70], "SUM", d)
    case(f"{dt} [33,70] transposed sum dim 1 keepdim", dt, [33, 70], "SUM", [1], True, lay="TRANSPOSED")
    for dim in (0, 1):
        f = "SPECIAL" if D[dt].is_floating_point else "VALUES"
        case(f"{dt} [33,70] max dim {dim}", dt, [33, 70], "MAX", [dim], formula=f)
    if D[dt].is_floating_point:
        case(f"{dt} [33,70] mean dim 0", dt, [33, 70], "MEAN", [0])


def emit(path):
    out = [header_preamble(__file__, "sum, mean, max(dim) through the reduction loops."),
           "#ifndef TSR_TESTS_GOLDEN_REDUCE_KERNELS_GOLDEN_H",
           "#define TSR_TESTS_GOLDEN_REDUCE_KERNELS_GOLDEN_H",
           "#include <math.h>", "#include <stdbool.h>", "#include <stdint.h>",
           '#include "reduce_kernels_case.h"', ""]
    rows = []
    for k, (name, dt, f, sizes, lay, op, dims, keepdim, (rt, at), y, idx) in enumerate(cases):
        vals = y.double().flatten().tolist()
        out.append(f"static const double rk_values_{k}[] = {{{', '.join(c_double(v) for v in vals) or '0'}}};")
        if idx is not None:
            out.append(f"static const int64_t rk_indices_{k}[] = {{"
                       f"{', '.join(c_int(v) for v in idx.flatten().tolist()) or '0'}}};")
        ys = list(y.shape) or [0]
        rows.append(
            f'  {{"{name}", {dt}, RK_{f}, {len(sizes)}, {{{", ".join(map(str, sizes))}}}, RK_{lay}, RK_{op}, '
            f'{len(dims)}, {{{", ".join(map(str, dims)) or "0"}}}, {"true" if keepdim else "false"}, '
            f'{rt!r}, {at!r}, {y.dim()}, {{{", ".join(map(str, ys))}}}, '
            f'{{{", ".join(map(str, list(y.stride()) or [0]))}}}, {y.numel()}, rk_values_{k}, '
            f'{f"rk_indices_{k}" if idx is not None else "NULL"}}},')
    out.append("static const rk_case rk_cases[] = {")
    out += rows
    out += ["};", "#define RK_CASES_N (sizeof rk_cases / sizeof rk_cases[0])", "#endif", ""]
    with open(path, "w") as fh:
        fh.write("\n".join(out))


emit(os.path.join(os.path.dirname(__file__), "reduce_kernels_golden.h"))
