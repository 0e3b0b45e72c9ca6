"""Golden strings for tests/test_print.c: repr(torch.Tensor) of PyTorch 1.13
for tensors of each dtype and formatter mode, summarised ones, views,
autograd suffixes and non-default print options.

Each case builds its tensor as the C test does: float64 values (listed, or
arange(n) * step + start) reshaped to sizes, converted to dtype, optionally
transposed (dims 0 and 1), then requires_grad and optionally multiplied by 2
(grad_fn MulBackward0). torch writes dtype=torch.float64 where tessera
writes dtype=tessera.float64 (the name of the dtype in every binding).
"""
import math
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from golden_common import header_preamble, c_array  # noqa: E402

DTYPES = {
    torch.bool: "TSR_BOOL", torch.uint8: "TSR_UINT8", torch.int8: "TSR_INT8",
    torch.int16: "TSR_INT16", torch.int32: "TSR_INT32", torch.int64: "TSR_INT64",
    torch.float16: "TSR_FLOAT16", torch.bfloat16: "TSR_BFLOAT16",
    torch.float32: "TSR_FLOAT32", torch.float64: "TSR_FLOAT64",
}
DEFAULT_OPTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)

cases = []


def case(name, sizes, dtype, values=None, arange=None, transpose=False, requires_grad=False,
         times_two=False, **opts):
    cases.append(dict(name=name, sizes=list(sizes), dtype=dtype, values=values, arange=arange,
                      transpose=transpose, requires_grad=requires_grad, times_two=times_two,
                      opts={**DEFAULT_OPTS, **opts}))


case("int_mode_2d", [2, 2], torch.float32, [1, 2, 3, 4])
case("fixed_mode", [4], torch.float32, [0.1, 2.5, -3.25, 100])
case("sci_small", [3], torch.float32, [1e-5, 1, 2])
case("sci_int_wide", [3], torch.float32, [1, 1e9, 3])
case("sci_ratio", [2], torch.float64, [0.5, 700.25])
case("float64_suffix", [2], torch.float64, [1.5, -2])
case("int64", [3], torch.int64, [1, -20, 300])
case("int64_huge", [2], torch.int64, [2 ** 62, -(2 ** 40)])
case("int32_2d", [2, 3], torch.int32, [1, 2, 3, -4, 5, 66])
case("int8", [3], torch.int8, [-128, 0, 127])
case("int16", [2], torch.int16, [-300, 7])
case("uint8", [3], torch.uint8, [0, 17, 255])
case("bool", [3], torch.bool, [1, 0, 1])
case("float16", [3], torch.float16, [0.5, 1.5, 2.25])
case("bfloat16", [2], torch.bfloat16, [0.125, -3])
case("scalar", [], torch.float32, [3.5])
case("scalar_int", [], torch.int64, [-7])
case("empty_1d", [0], torch.float32, [])
case("empty_2d_int", [2, 0], torch.int64, [])
case("empty_float64", [0], torch.float64, [])
case("nonfinite", [4], torch.float32, [math.nan, math.inf, -math.inf, 1.0])
case("nonfinite_fixed", [3], torch.float32, [math.nan, -math.inf, 0.5])
case("all_nan", [2], torch.float32, [math.nan, math.nan])
case("zeros", [2], torch.float32, [0, 0])
case("negative_zero", [2], torch.float32, [-0.0, 1.0])
case("summarized_1d", [2000], torch.float32, arange=(0.0, 1.0))
case("summarized_2d", [40, 50], torch.float32, arange=(0.0, 0.5))
case("summarized_3d", [12, 10, 10], torch.int64, arange=(0.0, 1.0))
case("wrap_rows", [3, 100], torch.float32, arange=(0.0, 1.0))
case("wrap_fixed", [30], torch.float64, arange=(0.25, 0.125))
case("three_d", [2, 3, 4], torch.float32, arange=(0.0, 1.0))
case("four_d", [2, 2, 1, 2], torch.int32, arange=(-4.0, 1.0))
case("transposed", [2, 3], torch.float32, [1, 2, 3, 4, 5, 6.5], transpose=True)
case("requires_grad", [2], torch.float32, [1, 2], requires_grad=True)
case("grad_fn", [2], torch.float32, [1, 2], requires_grad=True, times_two=True)
case("grad_fn_float64", [2, 2], torch.float64, [1, 2, 3, 4.5], requires_grad=True, times_two=True)
case("suffix_wraps", [3, 20], torch.float64, arange=(0.0, 0.75), requires_grad=True)
case("precision_2", [3], torch.float32, [0.125, 2.5, 3.0625], precision=2)
case("precision_0", [2], torch.float32, [0.5, 2.25], precision=0)
case("sci_on", [2], torch.float32, [1, 2], sci_mode=True)
case("sci_off", [3], torch.float32, [1e-6, 1, 2], sci_mode=False)
case("sci_off_int", [3], torch.float32, [1, 1e9, 3], sci_mode=False)
case("threshold_5", [3, 4], torch.float32, arange=(0.0, 1.0), threshold=5, edgeitems=1)
case("linewidth_20", [8], torch.float32, arange=(0.0, 1.5), linewidth=20)
case("linewidth_1", [3], torch.int64, [1, 2, 3], linewidth=1)


def build(c):
    n = 1
    for s in c["sizes"]:
        n *= s
    if c["arange"] is not None:
        start, step = c["arange"]
        vals = torch.arange(n, dtype=torch.float64) * step + start
    else:
        vals = torch.tensor(c["values"], dtype=torch.float64)
    t = vals.reshape(c["sizes"]).to(c["dtype"])
    if c["transpose"]:
        t = t.t()
    if c["requires_grad"]:
        t.requires_grad_(True)
        if c["times_two"]:
            t = t * 2
    return t


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


rows = []
for c in cases:
    torch.set_printoptions(**c["opts"])
    text = repr(build(c)).replace("torch.", "tessera.")
    torch.set_printoptions(profile="default")
    torch.set_printoptions(sci_mode=None)
    o = c["opts"]
    sci = -1 if o["sci_mode"] is None else int(o["sci_mode"])
    vals = c["values"] or []
    values = "{" + ", ".join(c_double(v) for v in vals) + "}" if vals else "{0}"
    start, step = c["arange"] if c["arange"] is not None else (0.0, 0.0)
    rows.append(
        f"  {{{c_string(c['name'])}, {len(c['sizes'])}, {c_array(c['sizes'])}, {DTYPES[c['dtype']]},\n"
        f"   {len(vals)}, {values}, {int(c['arange'] is not None)}, {c_double(start)}, {c_double(step)},\n"
        f"   {int(c['transpose'])}, {int(c['requires_grad'])}, {int(c['times_two'])},\n"
        f"   {{sizeof(tsr_print_options), {o['precision']}, {o['threshold']}, {o['edgeitems']}, "
        f"{o['linewidth']}, {sci}}},\n"
        f"   {c_string(text)}}},")

print(header_preamble(__file__, "repr(tensor) for test_print.c."))
print("""#include <math.h>
#include <tessera/tessera.h>

typedef struct print_case {
  const char* name;
  int64_t ndim;
  int64_t sizes[4];
  tsr_dtype dtype;
  int64_t n_values;
  double values[8];
  int arange;           /* values = arange(numel) * step + start */
  double start, step;
  int transpose;        /* .t() after the conversion */
  int requires_grad;
  int times_two;        /* then * 2: grad_fn=<MulBackward0> */
  tsr_print_options options;
  const char* expected; /* repr(tensor) with those print options */
} print_case;
""")
print("static const print_case print_cases[] = {")
print("\n".join(rows))
print("};")
print("#define N_PRINT_CASES (sizeof print_cases / sizeof print_cases[0])")
