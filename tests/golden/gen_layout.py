"""Generates tests/golden/layout_golden.h: contiguity flags, memory-format
suggestion, and the strides PyTorch gives clone / contiguous / to(dtype)
over a generated set of layouts; dtype conversions as bit patterns; copy_
with broadcasting, conversion and overlapping views.

Layouts: every permutation of the physical dim order of 4-D and 5-D
tensors whose sizes include 1s, some of them expanded (stride 0) or sliced
(gaps), plus size-0, 2-D/3-D and odd-stride size-1 cases. Each is
x = arange(base_numel, float64).as_strided(sizes, strides, offset).
"""
import itertools
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import (c_array, c_int, c_string, c_table, flags,  # noqa: E402
                           header_preamble, write)

MAX_DIMS = 5


# ---- layouts -------------------------------------------------------------------

def permuted(sizes, order):
    """A tensor with logical `sizes` whose physical dim order (outermost
    first) is `order`: arange laid out in that order, then permuted back."""
    phys = [sizes[d] for d in order]
    inv = [order.index(d) for d in range(len(sizes))]
    n = 1
    for s in sizes:
        n *= s
    return torch.arange(n, dtype=torch.float64).view(phys).permute(inv)


LAYOUTS = []  # (description, base_numel, sizes, strides, offset)


def add(desc, x, base_numel):
    LAYOUTS.append((desc, base_numel, list(x.shape), list(x.stride()), x.storage_offset()))


SHAPES_4D = [[2, 3, 4, 5], [2, 1, 4, 5], [2, 3, 1, 1], [1, 3, 1, 5], [2, 1, 1, 1], [1, 1, 1, 1],
             [1, 3, 4, 1], [3, 1, 1, 4], [2, 3, 1, 4]]
SHAPES_5D = [[2, 3, 2, 4, 5], [2, 1, 2, 1, 5], [1, 3, 1, 1, 2], [2, 2, 1, 3, 1]]
for shapes in (SHAPES_4D, SHAPES_5D):
    for sizes in shapes:
        n = 1
        for s in sizes:
            n *= s
        for order in itertools.permutations(range(len(sizes))):
            x = permuted(sizes, list(order))
            add(f"{sizes} physical order {list(order)}", x, n)
            # expand every size-1 dim to 3: overlapping (stride 0)
            if 1 in sizes and (order[0] == 0 or len(sizes) == 4):
                target = [3 if s == 1 else s for s in sizes]
                add(f"{sizes} order {list(order)} expanded to {target}", x.expand(target), n)
            # slice the largest dim with step 2: gaps (not dense)
            if order[-1] in (1, len(sizes) - 1) or order == tuple(range(len(sizes))):
                d = max(range(len(sizes)), key=lambda i: sizes[i])
                if sizes[d] >= 3:
                    idx = [slice(None)] * len(sizes)
                    idx[d] = slice(None, None, 2)
                    add(f"{sizes} order {list(order)} [::2] on dim {d}", x[tuple(idx)], n)
                    idx[d] = slice(1, None)
                    add(f"{sizes} order {list(order)} [1:] on dim {d}", x[tuple(idx)], n)

b = torch.arange(240, dtype=torch.float64)
add("2-D contiguous", b[:12].view(3, 4), 240)
add("2-D transposed", b[:12].view(3, 4).t(), 240)
add("2-D column slice", b[:20].view(4, 5)[:, 1:4], 240)
add("3-D permuted (2,0,1)", b[:24].view(2, 3, 4).permute(2, 0, 1), 240)
add("3-D expanded middle", b[:8].view(2, 1, 4).expand(2, 3, 4), 240)
add("1-D step 3", b[:30][::3], 240)
add("0-dim", b[5], 240)
add("4-D size 0 contiguous", torch.empty(2, 0, 3, 4, dtype=torch.float64), 0)
add("4-D size 0 channels_last", torch.empty(2, 3, 0, 4, dtype=torch.float64,
                                            memory_format=torch.channels_last), 0)
add("5-D size 0 channels_last_3d", torch.empty(2, 3, 1, 0, 4, dtype=torch.float64,
                                               memory_format=torch.channels_last_3d), 0)
add("4-D NC11 odd strides", b.as_strided([2, 3, 1, 1], [3, 1, 7, 9]), 240)
add("4-D N1HW, C stride 7", b.as_strided([2, 1, 4, 5], [20, 7, 5, 1]), 240)
add("4-D N1HW, C stride 1 (channels_last-like)", b.as_strided([2, 1, 4, 5], [20, 1, 5, 1]), 240)
add("4-D N111 all strides 1", b.as_strided([4, 1, 1, 1], [1, 1, 1, 1]), 240)
add("4-D N11W sliced on W", b.as_strided([2, 1, 1, 1], [6, 6, 6, 6]), 240)
add("4-D 1C1H transposed (PyTorch's own example)", b.as_strided([1, 4, 1, 3], [12, 3, 3, 1]), 240)
add("4-D 1H1C (transpose(1,3) of 1C1H)", b.as_strided([1, 3, 1, 4], [12, 1, 3, 3]), 240)
add("4-D channels_last with C stride 0 (expanded C)", b[:20].view(1, 1, 4, 5).expand(1, 3, 4, 5), 240)
add("4-D channels_last sliced in C", permuted([2, 6, 4, 5], [0, 2, 3, 1])[:, ::2], 240)
add("4-D channels_last offset", b[7:127].view(2, 4, 5, 3).permute(0, 3, 1, 2), 240)


def layout_row(desc, n, sizes, strides, offset):
    base = torch.arange(n, dtype=torch.float64)
    x = base.as_strided(sizes, strides, offset)
    fl = flags(x)
    clone = x.clone(memory_format=torch.preserve_format)
    cont = x.contiguous()
    cont_same = int(cont.data_ptr() == x.data_ptr() and cont.stride() == x.stride())
    to32 = x.to(torch.float32)
    if x.dim() == 4:
        fmt = torch.channels_last
    elif x.dim() == 5:
        fmt = torch.channels_last_3d
    else:
        fmt = None
    if fmt is not None:
        cl = x.contiguous(memory_format=fmt)
        cl_same = int(cl.data_ptr() == x.data_ptr() and cl.stride() == x.stride())
        cl_strides = cl.stride()
        clone_cl = x.clone(memory_format=fmt).stride()
    else:
        cl_same, cl_strides, clone_cl = 0, [], []
    assert clone.data_ptr() != x.data_ptr() or x.numel() == 0
    return (f"  {{{c_string(desc)}, {n}, {len(sizes)}, {c_array(sizes)}, {c_array(strides)}, "
            f"{offset}, {fl[0]}, {fl[1]}, {fl[2]}, {fl[3]}, {fl[4]}, "
            f"{c_array(clone.stride())}, {c_array(cont.stride())}, {cont_same}, "
            f"{c_array(cl_strides)}, {cl_same}, {c_array(clone_cl)}, {c_array(to32.stride())}}},")


# ---- dtype conversions as bit patterns -----------------------------------------

DTYPES = {  # torch dtype -> (C enum name, struct format of one element)
    torch.bool: ("TSR_BOOL", "?"), torch.uint8: ("TSR_UINT8", "B"), torch.int8: ("TSR_INT8", "b"),
    torch.int16: ("TSR_INT16", "h"), torch.int32: ("TSR_INT32", "i"),
    torch.int64: ("TSR_INT64", "q"), torch.float16: ("TSR_FLOAT16", "e"),
    torch.bfloat16: ("TSR_BFLOAT16", None), torch.float32: ("TSR_FLOAT32", "f"),
    torch.float64: ("TSR_FLOAT64", "d"),
}


def bits(t):
    """Bit pattern of each element of a 1-D tensor, as unsigned integers."""
    size = t.element_size()
    raw = t.contiguous().view(torch.uint8).view(-1, size) if size > 1 else \
        t.contiguous().view(torch.uint8).view(-1, 1)
    return [int.from_bytes(bytes(r.tolist()), "little") for r in raw]


H = 2.0 ** -11
B = 2.0 ** -8
FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 2.5, -2.7, 65504.0, 65519.0, 65520.0, 1e10,
                -65520.0, 6.1e-5, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26, 1e-8, 1 + H, 1 + 3 * H,
                1 + 2 * H, 2049.0, 2051.0, 1 + B, 1 + 3 * B, 3.0e38, 3.3961e38,
                float("inf"), float("-inf"), float("nan"), 1 + H + 2.0 ** -40, 1 + B + 2.0 ** -40]
INT_SAFE = [0.0, -0.0, 0.99, 2.7, -2.7, 100.5, -100.5, 127.9, -128.5, 255.9 - 128]  # fit int8
CONVERSIONS = []  # (src dtype, values, dst dtype)
for src in (torch.float32, torch.float64):
    for dst in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool):
        if src != dst:
            CONVERSIONS.append((src, FLOAT_VALUES, dst))
    for dst in (torch.int8, torch.int16, torch.int32, torch.int64):
        CONVERSIONS.append((src, INT_SAFE, dst))
    CONVERSIONS.append((src, [0.0, 0.99, 2.7, 100.5, 127.9, 255.9], torch.uint8))
for src in (torch.float16, torch.bfloat16):
    vals = [0.0, -0.0, 1.0, 0.1, 2.5, -2.7, 100.5, float("inf"), float("-inf"), float("nan")]
    for dst in (torch.float32, torch.float64, torch.bool, torch.float16, torch.bfloat16):
        if src != dst:
            CONVERSIONS.append((src, vals, dst))
    CONVERSIONS.append((src, [0.0, 2.5, -2.7, 100.5, 127.0], torch.int32))
big = [0, 1, -1, 127, -128, 255, 256, 65519, 65520, 2 ** 24 + 1, 2 ** 31 - 1, -2 ** 31,
       2 ** 53 + 1, 2 ** 62 + 2 ** 40 + 1]
for dst in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool):
    CONVERSIONS.append((torch.int64, big, dst))
CONVERSIONS.append((torch.int64, [0, 1, -1, 127, -128, 255, 256, 300, -300], torch.uint8))
CONVERSIONS.append((torch.int64, [0, 1, -1, 127, -128, 255, 256, 300, -300], torch.int8))
CONVERSIONS.append((torch.int32, [0, 1, -1, 2 ** 31 - 1, -2 ** 31, 65536 + 7], torch.int16))
CONVERSIONS.append((torch.uint8, [0, 1, 127, 128, 255], torch.int8))
CONVERSIONS.append((torch.uint8, [0, 1, 127, 128, 255], torch.float32))
CONVERSIONS.append((torch.int8, [0, 1, -1, 127, -128], torch.uint8))
CONVERSIONS.append((torch.bool, [0, 1], torch.float32))
CONVERSIONS.append((torch.bool, [0, 1], torch.int64))
CONVERSIONS.append((torch.bool, [0, 1], torch.bfloat16))


def conversion_row(src, values, dst):
    s = torch.tensor(values, dtype=src)
    d = s.to(dst)
    assert len(values) <= 32
    return (f"  {{{DTYPES[src][0]}, {DTYPES[dst][0]}, {len(values)}, "
            f"{{{', '.join(f'UINT64_C({v:#x})' for v in bits(s))}}}, "
            f"{{{', '.join(f'UINT64_C({v:#x})' for v in bits(d))}}}}},")


# ---- copy_ -----------------------------------------------------------------------
# dst = Dbase.as_strided(...), Dbase = arange(dn) of ddtype; src is either its
# own base Sbase = arange(sn) * 0.75 - 2.5 (integer dtypes: arange(sn) - 3) of
# sdtype, or (same_storage) a window on Dbase. Expected: every element of Dbase
# afterwards, as float64, or an error.

def src_base(n, dtype):
    if dtype.is_floating_point:
        return (torch.arange(n, dtype=torch.float64) * 0.75 - 2.5).to(dtype)
    if dtype == torch.bool:
        return (torch.arange(n) % 3 == 0)
    return (torch.arange(n) - 3).to(dtype)


COPIES = []  # (desc, dn, ddtype, dgeom, same, sn, sdtype, sgeom, order_dependent)


def copy_case(desc, dn, dd, dgeom, sn, sd, sgeom, same=False, order_dependent=False):
    COPIES.append((desc, dn, dd, dgeom, same, sn, sd, sgeom, order_dependent))


f32, f64, i64, i32, u8, bl = (torch.float32, torch.float64, torch.int64, torch.int32,
                              torch.uint8, torch.bool)
f16, bf16 = torch.float16, torch.bfloat16
copy_case("contiguous <- broadcast row, int64 -> float32", 6, f32, ([2, 3], [3, 1], 0),
          3, i64, ([3], [1], 0))
copy_case("transposed <- broadcast column, float32 -> float64", 24, f64, ([4, 3, 2], [1, 4, 12], 0),
          3, f32, ([3, 1], [1, 1], 0))
copy_case("new leading dims broadcast", 24, f32, ([2, 3, 4], [12, 4, 1], 0), 4, f64,
          ([4], [1], 0))
copy_case("0-dim source broadcast everywhere", 12, i32, ([3, 4], [4, 1], 0), 5, f64,
          ([], [], 4))
copy_case("float64 -> int32 truncates toward zero", 8, i32, ([8], [1], 0), 8, f64, ([8], [1], 0))
copy_case("float32 -> uint8 (non-negative values)", 8, u8, ([4], [1], 0), 12, f32, ([4], [1], 4))
copy_case("float32 -> bool", 8, bl, ([8], [1], 0), 8, f32, ([8], [1], 0))
copy_case("float64 -> float16 rounding", 8, f16, ([8], [1], 0), 8, f64, ([8], [1], 0))
copy_case("float32 -> bfloat16 rounding", 8, bf16, ([8], [1], 0), 8, f32, ([8], [1], 0))
copy_case("bool -> float32", 6, f32, ([6], [1], 0), 6, bl, ([6], [1], 0))
copy_case("channels_last dst <- contiguous src", 24, f32, ([1, 2, 3, 4], [24, 1, 8, 2], 0),
          24, f32, ([1, 2, 3, 4], [24, 12, 4, 1], 0))
copy_case("strided dst (every other) <- sliced src", 20, f64, ([5], [4], 1), 30, f64,
          ([5], [3], 2))
copy_case("dst with size-0 dim", 4, f32, ([0, 3], [3, 1], 0), 3, f32, ([3], [1], 0))
copy_case("source does not broadcast", 6, f32, ([2, 3], [3, 1], 0), 2, f32, ([2], [1], 0))
copy_case("source has more dims than dst", 6, f32, ([2, 3], [3, 1], 0), 12, f32,
          ([2, 2, 3], [6, 3, 1], 0))
copy_case("dst expanded (stride 0): internal overlap", 5, f32, ([3, 5], [0, 1], 0), 15, f32,
          ([3, 5], [5, 1], 0))
copy_case("dst as_strided overlapping windows (torch: TOO_HARD, copies in order)", 6, f32,
          ([3, 3], [1, 1], 0), 9, f32, ([3, 3], [3, 1], 0), order_dependent=True)
# same storage
copy_case("x.copy_(x): same view", 10, f64, ([10], [1], 0), 0, f64, ([10], [1], 0), same=True)
copy_case("x.view(2, 5).copy_(x.view(2, 5)): same memory, same strides", 10, f64,
          ([2, 5], [5, 1], 0), 0, f64, ([2, 5], [5, 1], 0), same=True)
copy_case("x.view(2, 5).copy_(x[:5]): broadcast source inside dst", 10, f64, ([2, 5], [5, 1], 0),
          0, f64, ([5], [1], 0), same=True)
copy_case("b[2:8].copy_(b[0:6]): dense partial overlap", 10, f64, ([6], [1], 2), 0, f64,
          ([6], [1], 0), same=True)
copy_case("b[0:6].copy_(b[2:8]): dense partial overlap", 10, f64, ([6], [1], 0), 0, f64,
          ([6], [1], 2), same=True)
copy_case("x.copy_(x.t()) square: same range, other strides", 16, f64, ([4, 4], [4, 1], 0), 0,
          f64, ([4, 4], [1, 4], 0), same=True)
copy_case("disjoint halves of one storage", 10, f64, ([5], [1], 5), 0, f64, ([5], [1], 0),
          same=True)
copy_case("interleaved, disjoint: b[0::2].copy_(b[1::2])", 10, f64, ([5], [2], 0), 0, f64,
          ([5], [2], 1), same=True)
copy_case("columns shifted left: x[:, :3].copy_(x[:, 1:])", 16, f64, ([4, 3], [4, 1], 0), 0, f64,
          ([4, 3], [4, 1], 1), same=True)
copy_case("b[0:4].copy_(b[2].expand(4)): expanded source inside dst", 10, f64, ([4], [1], 0), 0,
          f64, ([4], [0], 2), same=True)
copy_case("rows shifted: x[:, :8].copy_(y) with y 2 elements ahead", 100, f64,
          ([4, 8], [10, 1], 0), 0, f64, ([4, 8], [10, 1], 2), same=True)
copy_case("b[2:8:2].copy_(b[0:6:2]): non-dense overlap, reads behind writes", 10, f64,
          ([3], [2], 2), 0, f64, ([3], [2], 0), same=True, order_dependent=True)
copy_case("b[0:6:2].copy_(b[2:8:2]): non-dense overlap, reads ahead of writes", 10, f64,
          ([3], [2], 0), 0, f64, ([3], [2], 2), same=True)


def copy_row(desc, dn, dd, dgeom, same, sn, sd, sgeom, order_dependent):
    dbase = torch.arange(dn).to(dd) if dd != bl else (torch.arange(dn) % 2 == 1)
    dst = dbase.as_strided(*dgeom)
    if same:
        sbase = dbase
        src = dbase.as_strided(*sgeom)
    else:
        sbase = src_base(sn, sd)
        src = sbase.as_strided(*sgeom)
    err = None
    try:
        dst.copy_(src)
    except RuntimeError as e:
        err = str(e).split("\n")[0]
    after = dbase.to(torch.float64).tolist()
    assert dn <= 100
    geo = lambda g: f"{len(g[0])}, {c_array(g[0])}, {c_array(g[1])}, {g[2]}"  # noqa: E731
    body = (f"{c_string(desc)}, {dn}, {DTYPES[dd][0]}, {geo(dgeom)}, {int(same)}, {sn}, "
            f"{DTYPES[sd][0]}, {geo(sgeom)}, {int(order_dependent)}")
    if err:
        return f"  /* torch: {err} */\n  {{{body}, 1, {{0}}}},"
    vals = ", ".join(repr(v) if v == v else "NAN" for v in after)
    return f"  {{{body}, 0, {{{vals}}}}},"


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layout_golden.h")
    lrows = [layout_row(*l) for l in LAYOUTS]
    crows = [conversion_row(*c) for c in CONVERSIONS]
    prows = [copy_row(*c) for c in COPIES]
    text = header_preamble(__file__, "Layout flags, copy strides, dtype conversions, copy_.") + f"""
#ifndef TSR_TESTS_GOLDEN_LAYOUT_GOLDEN_H
#define TSR_TESTS_GOLDEN_LAYOUT_GOLDEN_H

#include <math.h>
#include <stdint.h>

#include <tessera/types.h>

#define TSR_GL_MAX_DIMS {MAX_DIMS}

/* x = arange(base_numel, float64).as_strided(sizes, strides, offset) and what
 * PyTorch says about it. Stride lists of results have ndim entries;
 * cl_* are for contiguous/clone in channels_last (4-D) or channels_last_3d
 * (5-D) and unused otherwise. *_same: the result is x itself (no copy). */
typedef struct {{
  const char* name;
  int64_t base_numel;
  int64_t ndim, sizes[TSR_GL_MAX_DIMS], strides[TSR_GL_MAX_DIMS], offset;
  int contiguous, channels_last, channels_last_3d, non_overlapping_and_dense;
  int suggest_memory_format;                 /* c10::MemoryFormat value */
  int64_t clone_preserve_strides[TSR_GL_MAX_DIMS];
  int64_t contiguous_strides[TSR_GL_MAX_DIMS];
  int contiguous_same;
  int64_t cl_contiguous_strides[TSR_GL_MAX_DIMS];
  int cl_contiguous_same;
  int64_t cl_clone_strides[TSR_GL_MAX_DIMS];
  int64_t to_float32_strides[TSR_GL_MAX_DIMS];
}} tsr_gl_layout;

{c_table("tsr_gl_layout", "tsr_gl_layouts", "TSR_GL_NLAYOUTS", lrows)}

/* torch.tensor(values, dtype=src).to(dst), element bit patterns (little
 * endian integers of the element's bytes; bool is 0/1). */
typedef struct {{
  tsr_dtype src, dst;
  int n;
  uint64_t src_bits[32];
  uint64_t dst_bits[32];
}} tsr_gl_conversion;

{c_table("tsr_gl_conversion", "tsr_gl_conversions", "TSR_GL_NCONVERSIONS", crows)}

/* dst.copy_(src). dst = arange(dst_base_numel) in dst_dtype (bool: odd
 * elements true) viewed with dst_{{ndim,sizes,strides,offset}}. src is a view of
 * the same storage when same_storage, else of its own base: arange(n) * 0.75
 * - 2.5 for floating dtypes, arange(n) - 3 for integers, arange(n) % 3 == 0
 * for bool. dst_after: every element of dst's storage afterwards (float64).
 * order_dependent: torch's result comes from overwriting elements it reads
 * later (it copies in place, no temporary). */
typedef struct {{
  const char* name;
  int64_t dst_base_numel;
  tsr_dtype dst_dtype;
  int64_t dst_ndim, dst_sizes[TSR_GL_MAX_DIMS], dst_strides[TSR_GL_MAX_DIMS], dst_offset;
  int same_storage;
  int64_t src_base_numel;
  tsr_dtype src_dtype;
  int64_t src_ndim, src_sizes[TSR_GL_MAX_DIMS], src_strides[TSR_GL_MAX_DIMS], src_offset;
  int order_dependent;
  int error;
  double dst_after[100];
}} tsr_gl_copy;

{c_table("tsr_gl_copy", "tsr_gl_copies", "TSR_GL_NCOPIES", prows)}

#endif
"""
    write(out, text)
    print(f"{len(lrows)} layouts, {len(crows)} conversions, {len(prows)} copies", file=sys.stderr)


if __name__ == "__main__":
    main()
