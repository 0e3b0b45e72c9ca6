"""Generates tests/golden/factories_golden.h: what PyTorch's factories and
scalar writes give, for tests/test_factories.c and tests/test_elements.c.

Tables:
  arange     torch.arange(start, end, step, dtype=...): length and values, or
             the error (PyTorch truncates start/end/step for integer dtypes
             and rejects bool).
  full       torch.full((1,), value, dtype=...) with a Python float value:
             the element's bits, or the overflow error (c10::checked_convert).
  set_int    t[0] = value with a Python int value (what tsr_set_int64 does).
  empty      strides of torch.empty(sizes, memory_format=...), or the error.
  strided    storage bytes of torch.empty_strided(sizes, strides).
  dtypes     element_size of every dtype.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import (c_array, c_int, c_string, c_table, header_preamble,  # noqa: E402
                           write)

DT = {
    torch.bool: "TSR_BOOL", torch.uint8: "TSR_UINT8", torch.int8: "TSR_INT8",
    torch.int16: "TSR_INT16", torch.int32: "TSR_INT32", torch.int64: "TSR_INT64",
    torch.float16: "TSR_FLOAT16", torch.bfloat16: "TSR_BFLOAT16", torch.float32: "TSR_FLOAT32",
    torch.float64: "TSR_FLOAT64",
}
ALL = list(DT)
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
MAX_ARANGE = 64


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def err_of(f):
    try:
        return f(), None
    except (RuntimeError, ValueError, TypeError) as e:
        return None, str(e).split("\n")[0]


def bits(t):
    size = t.element_size()
    raw = t.contiguous().view(torch.uint8).view(-1, size)
    return [int.from_bytes(bytes(r.tolist()), "little") for r in raw]


# ---- arange -----------------------------------------------------------------
ARANGE = []
for dt in ALL:
    for args in [(0, 10, 1), (0, 10, 3), (10, 0, -3), (-5, 5, 2), (0, 1, 0.1), (1, 0, -0.1),
                 (0.5, 5, 1.5), (-2.5, 2.5, 0.5), (5, 5, 1), (0, 0, -1), (2.7, -3.2, -1.3),
                 (0, 5, 0.5), (0, 10, 0), (5, 0, 1), (0, float("inf"), 1), (0, 1e30, 1e29),
                 (-1e300, 0, 1e299), (0, float("nan"), 1), (1, 2, 0.3), (0, 3, 1.0 / 3.0),
                 (-3, 3, 0.25), (100, 0, -7.5)]:
        ARANGE.append((args, dt))


def arange_row(args, dt):
    t, err = err_of(lambda: torch.arange(*args, dtype=dt))
    head = f"{c_double(args[0])}, {c_double(args[1])}, {c_double(args[2])}, {DT[dt]}"
    if err:
        return f"  /* torch: {err} */\n  {{{head}, 1, 0, {{0}}}},"
    assert t.numel() <= MAX_ARANGE, (args, dt, t.numel())
    vals = ", ".join(c_double(v) for v in t.double().tolist()) or "0"
    return f"  {{{head}, 0, {t.numel()}, {{{vals}}}}},"


# ---- full / set with a float ------------------------------------------------
FULL_VALUES = [0.0, -0.0, 1.0, -1.0, 2.7, -2.7, 127.0, 127.5, 128.0, -128.0, -128.5, -129.0,
               255.0, 255.5, 256.0, -0.5, 32767.0, 32768.0, 2147483647.0, 2147483648.0,
               -2147483648.0, 9.0e18, 1.0e19, 65504.0, 65519.0, 65520.0, 1e10, 3.0e38, 3.5e38,
               1e300, float("inf"), float("-inf"), float("nan"), 0.1, 1e-8]


def full_row(v, dt):
    t, err = err_of(lambda: torch.full((1,), v, dtype=dt))
    head = f"{c_double(v)}, {DT[dt]}"
    if err:
        return f"  /* torch: {err} */\n  {{{head}, 1, 0, 0}},"
    any_nan = int(dt in FLOATS and math.isnan(v))
    return f"  {{{head}, 0, {any_nan}, UINT64_C({bits(t)[0]:#x})}},"


# ---- t[0] = python int ------------------------------------------------------
INT_VALUES = [0, 1, -1, 127, 128, -128, -129, 255, 256, -255, -256, 32767, 32768, -32769,
              2 ** 31 - 1, 2 ** 31, -2 ** 31 - 1, 65504, 65519, 65520, 70000,
              2 ** 62, 2 ** 63 - 1, -2 ** 63]


def set_int_row(v, dt):
    def run():
        t = torch.zeros(2, dtype=dt)
        t[0] = v
        return t
    t, err = err_of(run)
    head = f"{c_int(v)}, {DT[dt]}"
    if err:
        return f"  /* torch: {err} */\n  {{{head}, 1, 0}},"
    return f"  {{{head}, 0, UINT64_C({bits(t)[0]:#x})}},"


# ---- empty(memory_format) ---------------------------------------------------
EMPTY_SIZES = [[], [5], [2, 3], [2, 3, 4], [10, 3, 32, 32], [2, 1, 4, 5], [2, 3, 1, 1],
               [1, 1, 1, 1], [0, 3, 0, 2], [2, 0, 3, 4], [2, 3, 0, 4], [2, 3, 4, 5, 6],
               [2, 1, 1, 3, 1], [2, 0, 2, 3, 4], [1, 2, 3, 4, 5, 6], [32, 3, 224, 224]]
FORMATS = [("TSR_CONTIGUOUS_FORMAT", torch.contiguous_format),
           ("TSR_CHANNELS_LAST", torch.channels_last),
           ("TSR_CHANNELS_LAST_3D", torch.channels_last_3d)]


def empty_row(sizes, fmt):
    t, err = err_of(lambda: torch.empty(sizes, memory_format=fmt[1]))
    head = f"{len(sizes)}, {c_array(sizes)}, {fmt[0]}"
    if err:
        return f"  /* torch: {err} */\n  {{{head}, 1, {{0}}}},"
    return f"  {{{head}, 0, {c_array(t.stride())}}},"


# ---- empty_strided storage size ---------------------------------------------
STRIDED = [([2, 3], [1, 2]), ([2, 3], [3, 1]), ([2, 3], [0, 1]), ([2, 3], [0, 0]),
           ([2, 0], [1, 2]), ([4], [5]), ([], []), ([3, 3], [1, 1]), ([2, 2, 2], [100, 10, 1]),
           ([1, 5], [1000, 1]), ([0], [7])]


def strided_row(sizes, strides, dt):
    t = torch.empty_strided(sizes, strides, dtype=dt)
    return (f"  {{{len(sizes)}, {c_array(sizes)}, {c_array(strides)}, {DT[dt]}, "
            f"{t.storage().nbytes()}}},")


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "factories_golden.h")
    arange = [arange_row(a, d) for a, d in ARANGE]
    full = [full_row(v, d) for d in ALL for v in FULL_VALUES]
    seti = [set_int_row(v, d) for d in ALL for v in INT_VALUES]
    empty = [empty_row(s, f) for s in EMPTY_SIZES for f in FORMATS]
    strided = [strided_row(s, st, d) for s, st in STRIDED for d in (torch.float32, torch.int16)]
    esz = [f"  {{{DT[d]}, {torch.empty(0, dtype=d).element_size()}}}," for d in ALL]
    text = header_preamble(__file__, "Factories, scalar conversion rules, element sizes.") + f"""
#ifndef TSR_TESTS_GOLDEN_FACTORIES_GOLDEN_H
#define TSR_TESTS_GOLDEN_FACTORIES_GOLDEN_H

#include <math.h>
#include <stdint.h>

#include <tessera/types.h>

/* torch.arange(start, end, step, dtype=dtype) */
typedef struct {{
  double start, end, step;
  tsr_dtype dtype;
  int error;
  int64_t length;
  double values[{MAX_ARANGE}];
}} tsr_gf_arange;
{c_table("tsr_gf_arange", "tsr_gf_aranges", "TSR_GF_NARANGE", arange)}

/* torch.full((1,), value, dtype=dtype), value a Python float: the element's
 * bits, or error when c10::checked_convert overflows. any_nan: the result is
 * NaN and any NaN bit pattern will do (PyTorch's payload depends on its
 * loop). */
typedef struct {{
  double value;
  tsr_dtype dtype;
  int error;
  int any_nan;
  uint64_t bits;
}} tsr_gf_full;
{c_table("tsr_gf_full", "tsr_gf_fulls", "TSR_GF_NFULL", full)}

/* t = torch.zeros(2, dtype=dtype); t[0] = value (a Python int). */
typedef struct {{
  int64_t value;
  tsr_dtype dtype;
  int error;
  uint64_t bits;
}} tsr_gf_set_int;
{c_table("tsr_gf_set_int", "tsr_gf_set_ints", "TSR_GF_NSET_INT", seti)}

/* torch.empty(sizes, memory_format=format).stride() */
typedef struct {{
  int64_t ndim, sizes[6];
  tsr_memory_format format;
  int error;
  int64_t strides[6];
}} tsr_gf_empty;
{c_table("tsr_gf_empty", "tsr_gf_empties", "TSR_GF_NEMPTY", empty)}

/* torch.empty_strided(sizes, strides, dtype=dtype).storage().nbytes() */
typedef struct {{
  int64_t ndim, sizes[3], strides[3];
  tsr_dtype dtype;
  int64_t storage_nbytes;
}} tsr_gf_strided;
{c_table("tsr_gf_strided", "tsr_gf_strideds", "TSR_GF_NSTRIDED", strided)}

/* torch.empty(0, dtype=dtype).element_size() */
typedef struct {{
  tsr_dtype dtype;
  int64_t element_size;
}} tsr_gf_dtype;
{c_table("tsr_gf_dtype", "tsr_gf_dtypes", "TSR_GF_NDTYPES", esz)}

#endif
"""
    write(out, text)


if __name__ == "__main__":
    main()
