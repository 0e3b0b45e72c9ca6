"""Golden values for tests/test_elementwise_simd.c from PyTorch 1.13: the
elementwise ops with vectorized integer, bool, comparison, where and pow
loops (src/cpu/kernels/{integer,mask,pow}_simd.cpp), on [2, 37] operands
(37 elements a row: no vector length divides it) laid out contiguous,
transposed, every other column, or broadcast, in every dtype they take,
with wrapping extremes, NaN, -0.0 and infinities. Operands and results are
raw little-endian bytes in hex, so every bit is compared."""
import math
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from golden_common import header_preamble, c_array, c_string  # noqa: E402

DT = {torch.bool: "TSR_BOOL", torch.uint8: "TSR_UINT8", torch.int8: "TSR_INT8",
      torch.int16: "TSR_INT16", torch.int32: "TSR_INT32", torch.int64: "TSR_INT64",
      torch.float16: "TSR_FLOAT16", torch.bfloat16: "TSR_BFLOAT16",
      torch.float32: "TSR_FLOAT32", torch.float64: "TSR_FLOAT64"}
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
ROWS, COLS = 2, 37
gen = torch.Generator().manual_seed(12)


def values(dtype, n):
    if dtype == torch.bool:
        return torch.randint(0, 2, (n,), generator=gen).bool()
    if dtype in INTS:
        info = torch.iinfo(dtype)
        small = torch.randint(-3, 4, (n,), generator=gen)
        big = torch.randint(info.min, info.max, (n,), generator=gen, dtype=torch.int64)
        pick = torch.randint(0, 3, (n,), generator=gen)
        v = torch.where(pick == 0, small, big)
        v[::11] = info.min
        v[5::13] = info.max
        if dtype == torch.uint8:
            v = v % 256
        return v.to(dtype)
    v = torch.randn(n, generator=gen, dtype=torch.float64) * 3
    v[::4] = torch.randint(-3, 4, (len(v[::4]),), generator=gen).double()  # equal pairs
    v[1::17] = math.nan
    v[2::19] = -0.0
    v[3::23] = math.inf
    v[7::29] = -math.inf
    return v.to(dtype)


def base_sizes(layout, sizes):
    if layout == 1:
        return [sizes[1], sizes[0]]
    if layout == 2:
        return [sizes[0], 2 * sizes[1]]
    return list(sizes)


def view(base, layout):
    if layout == 1:
        return base.t()
    if layout == 2:
        return base[:, ::2]
    return base


def operand(dtype, sizes, layout, positive=False):
    bs = base_sizes(layout, sizes)
    n = 1
    for s in bs:
        n *= s
    base = values(dtype, n)
    if positive:
        base = base.abs()
    return base.reshape(bs), view(base.reshape(bs), layout)


def hexbytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        raw = t.view(torch.int16).numpy().tobytes()
    else:
        raw = t.numpy().tobytes()
    return raw.hex()


def c_operand(base, layout, dtype):
    if base is None:
        return "{0}"
    return ("{%s, %d, %s, %d, %s}" % (DT[dtype], base.dim(), c_array(base.shape), layout, c_string(hexbytes(base))))


ROWS_OUT = []


def case(op, result, a, b=None, c=None, exponent=0.0):
    # a, b, c: (base, layout, dtype)
    ROWS_OUT.append("  {%s, %r, %s, %s, %s, %s, %d, %s, %s}," % (
        c_string(op), float(exponent), c_operand(*a), c_operand(*b) if b else "{0}",
        c_operand(*c) if c else "{0}", DT[result.dtype], result.dim(), c_array(result.shape),
        c_string(hexbytes(result))))


S = [ROWS, COLS]
LAYOUTS = [(0, 0), (1, 0), (0, 2), (2, 1)]

# integer and bool arithmetic, every layout pair, then broadcasts
for dt in INTS + [torch.bool]:
    for la, lb in LAYOUTS:
        ba, a = operand(dt, S, la)
        bb, b = operand(dt, S, lb)
        ops = [("add", a + b), ("mul", a * b)] + ([("sub", a - b)] if dt != torch.bool else [])
        for name, r in ops:
            case(name, r, (ba, la, dt), (bb, lb, dt))
    for sb in ([COLS], [ROWS, 1], [1]):
        ba, a = operand(dt, S, 0)
        bb, b = operand(dt, sb, 0)
        case("add", a + b, (ba, 0, dt), (bb, 0, dt))
        case("mul", b * a, (bb, 0, dt), (ba, 0, dt))
    if dt != torch.bool:
        for la in (0, 1):
            ba, a = operand(dt, S, la)
            case("neg", -a, (ba, la, dt))
            case("relu", torch.relu(a), (ba, la, dt))

# comparisons in every dtype (NaN among the floats), layouts and broadcasts
for dt in INTS + [torch.bool] + FLOATS:
    for (la, lb), sb in zip(LAYOUTS + [(0, 0), (0, 0)], [S, S, S, S, [COLS], [ROWS, 1]]):
        ba, a = operand(dt, S, la)
        bb, b = operand(dt, sb, lb)
        # every op on the first layout, ne and lt (ordered, unordered) on the rest
        ops = ((("eq", torch.eq), ("ne", torch.ne), ("lt", torch.lt), ("le", torch.le), ("gt", torch.gt),
                ("ge", torch.ge)) if (la, lb, sb) == (0, 0, S) else (("ne", torch.ne), ("lt", torch.lt)))
        for name, fn in ops:
            case(name, fn(a, b), (ba, la, dt), (bb, lb, dt))
    ba, a = operand(dt, [COLS], 0)
    bb, b = operand(dt, S, 0)
    case("lt", torch.lt(a, b), (ba, 0, dt), (bb, 0, dt))

# where: every dtype, layouts, the condition and the values broadcast
for dt in INTS + [torch.bool] + FLOATS:
    for lc, la, lb, sc, sa, sb in ((0, 0, 0, S, S, S), (1, 2, 0, S, S, S), (0, 0, 1, [COLS], S, S),
                                   (0, 0, 0, [ROWS, 1], [COLS], S), (0, 0, 0, S, [1], S)):
        bc, cnd = operand(torch.bool, sc, lc)
        ba, a = operand(dt, sa, la)
        bb, b = operand(dt, sb, lb)
        case("where", torch.where(cnd, a, b), (bc, lc, torch.bool), (ba, la, dt), (bb, lb, dt))

# pow: float32/float64 with the special and general exponents (negative
# bases among them), integer pow of two tensors (negative exponents too),
# float pow of two tensors with broadcasting
for dt in (torch.float32, torch.float64):
    for e in (2.0, 3.0, -2.0, 0.5, -0.5, -1.0, 2.5, -1.3, 0.0):
        for la in (0, 1):
            ba, a = operand(dt, S, la)
            case("pow_scalar", torch.pow(a, e), (ba, la, dt), exponent=e)
    for (la, lb), sb in zip([(0, 0), (1, 0), (0, 0)], [S, S, [COLS]]):
        ba, a = operand(dt, S, la)
        bb, b = operand(dt, sb, lb)
        case("pow", torch.pow(a, b), (ba, la, dt), (bb, lb, dt))
for dt in INTS:
    ba, a = operand(dt, S, 0)
    bb, b = operand(dt, S, 0)
    b = b % 9 - 2 if dt != torch.uint8 else b % 9  # small exponents, negatives among them
    bb = b
    case("pow", torch.pow(a, b), (ba, 0, dt), (bb, 0, dt))
# one long row per dtype for the SLEEF body against torch's (ATen's
# vectorized loop over blocks of 64 bytes, the rest scalar)
for dt in (torch.float32, torch.float64):
    for e in (2.5, -1.3):
        ba = torch.rand(1, 213, generator=gen, dtype=torch.float64).to(dt) * 10
        case("pow_scalar", torch.pow(ba, e), (ba, 0, dt), exponent=e)

out = [header_preamble(__file__, "Elementwise ops on their vectorized paths, bit for bit."),
       "#pragma once\n#include <stdint.h>\n#include \"tessera/tessera.h\"\n",
       "typedef struct {\n  tsr_dtype dtype;\n  int64_t ndim;\n  int64_t sizes[2];\n"
       "  int layout; /* 0 as given, 1 transposed, 2 every other column */\n  const char* hex;\n} esimd_operand;\n",
       "typedef struct {\n  const char* op;\n  double exponent;\n  esimd_operand a, b, c;\n"
       "  tsr_dtype dtype;\n  int64_t ndim;\n  int64_t sizes[2];\n  const char* hex;\n} esimd_case;\n",
       "static const esimd_case esimd_cases[] = {", *ROWS_OUT, "};",
       "#define N_ESIMD_CASES (sizeof esimd_cases / sizeof esimd_cases[0])\n"]
with open(__file__.rsplit("/", 1)[0] + "/elementwise_simd_golden.h", "w") as f:
    f.write("\n".join(out))
print(len(ROWS_OUT), "cases")
