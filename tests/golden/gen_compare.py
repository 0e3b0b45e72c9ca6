"""Golden values for tests/test_compare.c from PyTorch 1.13: torch.eq/ne/lt/
le/gt/ge with broadcasting and type promotion (results and strides),
torch.abs with its gradient, torch.allclose."""
import math
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from golden_common import header_preamble, c_array  # noqa: E402

DT = {torch.bool: "TSR_BOOL", torch.uint8: "TSR_UINT8", torch.int8: "TSR_INT8",
      torch.int32: "TSR_INT32", torch.int64: "TSR_INT64", torch.float16: "TSR_FLOAT16",
      torch.float32: "TSR_FLOAT32", torch.float64: "TSR_FLOAT64"}
NAN, INF = math.nan, math.inf


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def c_doubles(vals):
    return "{" + ", ".join(c_double(v) for v in vals) + "}" if vals else "{0}"


def operand(values, sizes, dtype, transpose=False):
    t = torch.tensor(values, dtype=torch.float64).reshape(sizes).to(dtype)
    return t.t() if transpose else t


# (a values, a sizes, a dtype, a transposed, b values, b sizes, b dtype)
PAIRS = [
    ([1, 2, 3, 4], [4], torch.float32, False, [1, 0, 3, 5], [4], torch.float32),
    ([1, 2, 3], [3], torch.int64, False, [2.5], [1], torch.float32),
    ([1, 2, 3, 4, 5, 6], [2, 3], torch.float32, True, [2, 3, 4], [3, 1], torch.float32),
    ([NAN, 1, INF, -INF], [4], torch.float32, False, [NAN, 1, INF, 0], [4], torch.float32),
    ([0, 1, 1], [3], torch.bool, False, [1, 1, 0], [3], torch.bool),
    ([-128, 0, 127], [3], torch.int8, False, [0], [], torch.int64),
    ([250, 3], [2], torch.uint8, False, [-1, 3], [2], torch.int32),
    ([0.5, 1.5], [2, 1], torch.float16, False, [0.5, 1.0, 2.0], [3], torch.float64),
    ([], [0, 2], torch.float32, False, [1, 2], [2], torch.float32),
]
OPS = ["eq", "ne", "lt", "le", "gt", "ge"]

compare_rows = []
for av, asz, adt, at, bv, bsz, bdt in PAIRS:
    a, b = operand(av, asz, adt, at), operand(bv, bsz, bdt)
    for op in OPS:
        r = getattr(torch, op)(a, b)
        assert r.dtype == torch.bool
        compare_rows.append(
            f"  {{\"{op}\", {{{len(asz)}, {c_array(asz)}, {DT[adt]}, {int(at)}, {c_doubles(av)}}},\n"
            f"   {{{len(bsz)}, {c_array(bsz)}, {DT[bdt]}, 0, {c_doubles(bv)}}},\n"
            f"   {r.dim()}, {c_array(r.shape)}, {c_array(r.stride())}, "
            f"{c_array([int(v) for v in r.flatten().tolist()])}}},")

# abs: values, dtype, expected values; gradient of sum(abs(x)) for floats.
ABS = [([-1.5, 0.0, 2.0, -0.0], torch.float32), ([-3, 0, 5], torch.int64),
       ([-128, 127], torch.int8), ([-2.5, NAN, -INF], torch.float64)]
abs_rows = []
for vals, dt in ABS:
    x = torch.tensor(vals, dtype=torch.float64).to(dt)
    y = torch.abs(x)
    grad = [0.0] * len(vals)
    if dt.is_floating_point:
        xg = x.clone().requires_grad_(True)
        z = xg.abs()
        assert z.grad_fn.name() == "AbsBackward0"
        z.sum().backward()
        grad = xg.grad.tolist()
    abs_rows.append(f"  {{{len(vals)}, {DT[dt]}, {c_doubles(vals)}, "
                    f"{c_doubles([float(v) for v in y.tolist()])}, {c_doubles(grad)}}},")

# allclose: a, b (1-D float64 unless noted), rtol, atol, equal_nan.
ALLCLOSE = [([1.0, 2.0], [1.0, 2.0 + 1e-6], 1e-5, 1e-8, False),
            ([1.0, 2.0], [1.0, 2.1], 1e-5, 1e-8, False),
            ([1.0, 2.0], [1.0, 2.1], 0.1, 0.0, False),
            ([NAN, 1.0], [NAN, 1.0], 1e-5, 1e-8, False),
            ([NAN, 1.0], [NAN, 1.0], 1e-5, 1e-8, True),
            ([INF, 1.0], [INF, 1.0], 1e-5, 1e-8, False),
            ([INF], [-INF], 1e-5, 1e-8, False),
            ([0.0], [1e-9], 0.0, 1e-8, False),
            ([1e-3], [0.0], 1e-5, 1e-8, False)]
allclose_rows = []
for a, b, rtol, atol, en in ALLCLOSE:
    r = torch.allclose(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64),
                       rtol=rtol, atol=atol, equal_nan=en)
    allclose_rows.append(f"  {{{len(a)}, {c_doubles(a)}, {c_doubles(b)}, {rtol!r}, {atol!r}, "
                         f"{int(en)}, {int(r)}}},")

print(header_preamble(__file__, "torch.eq/ne/lt/le/gt/ge, abs, allclose."))
print("""#include <math.h>
#include <tessera/tessera.h>

typedef struct compare_operand {
  int64_t ndim;
  int64_t sizes[2];
  tsr_dtype dtype;
  int transpose; /* .t() of the tensor built from sizes */
  double values[6];
} compare_operand;
typedef struct compare_case {
  const char* op;
  compare_operand a, b;
  int64_t ndim, sizes[2], strides[2];
  int64_t expected[8]; /* 0/1 in C order */
} compare_case;
typedef struct abs_case {
  int64_t n;
  tsr_dtype dtype;
  double values[4], expected[4], grad[4]; /* grad of sum(abs(x)), floats only */
} abs_case;
typedef struct allclose_case {
  int64_t n;
  double a[2], b[2], rtol, atol;
  int equal_nan, expected;
} allclose_case;
""")
print("static const compare_case compare_cases[] = {\n" + "\n".join(compare_rows) + "\n};")
print("#define N_COMPARE_CASES (sizeof compare_cases / sizeof compare_cases[0])")
print("static const abs_case abs_cases[] = {\n" + "\n".join(abs_rows) + "\n};")
print("#define N_ABS_CASES (sizeof abs_cases / sizeof abs_cases[0])")
print("static const allclose_case allclose_cases[] = {\n" + "\n".join(allclose_rows) + "\n};")
print("#define N_ALLCLOSE_CASES (sizeof allclose_cases / sizeof allclose_cases[0])")
