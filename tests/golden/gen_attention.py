"""Goldens for scaled dot-product attention (tests/test_attention.c).

torch 1.13 has no F.scaled_dot_product_attention, so the oracle is torch 2.x's
math path written out in torch 1.13: softmax(q @ k^T * scale + mask) @ v,
is_causal = ones(L, S).tril() as a bool mask, a bool mask meaning True =
takes part (False -> -inf), a float mask added, scale None -> 1/sqrt(E),
batch dims broadcast by matmul. Each case runs in float64 (so the table is
the exact answer the float32 kernel is held to with a tolerance): output and
the gradients of q, k, v for a random grad_out.

Inputs laid out as "heads" are built as (B, L, H, E) tensors transposed to
(B, H, L, E), as in a transformer; their table holds the (B, L, H, E) storage.

Run from the repository root: /usr/bin/python3 tests/golden/gen_attention.py
"""
import math
import zlib
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_common import header_preamble  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention_golden.h")


def composed(q, k, v, mask, causal, scale):
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        mask = torch.ones(L, S, dtype=torch.bool).tril()
    if mask is not None:
        if mask.dtype == torch.bool:
            s = s + torch.zeros(mask.shape, dtype=s.dtype).masked_fill(~mask, float("-inf"))
        else:
            s = s + mask
    return torch.softmax(s, -1) @ v


def case(name, qs, ks, vs, mask=None, causal=False, scale=None, heads=False, all_false_row=False):
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    q = torch.randn(qs, generator=g, dtype=torch.float64)
    k = torch.randn(ks, generator=g, dtype=torch.float64)
    v = torch.randn(vs, generator=g, dtype=torch.float64)
    m = None
    kind = 0
    if mask is not None:
        mtype, mshape = mask
        if mtype == "bool":
            kind = 1
            m = torch.rand(mshape, generator=g) < 0.7
            if all_false_row:
                m[..., 1, :] = False
            else:
                m[..., 0] = True  # every row keeps a key
        else:
            kind = 2
            m = torch.randn(mshape, generator=g, dtype=torch.float64)
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    out = composed(*leaves, m, causal, scale)
    gout = torch.randn(out.shape, generator=g, dtype=torch.float64)
    out.backward(gout)

    def storage(t):  # what the C side builds before its transpose
        return t.transpose(1, 2).contiguous() if heads else t

    return dict(name=name, heads=heads, q=q, k=k, v=v, qst=storage(q), kst=storage(k), vst=storage(v),
                kind=kind, mask=m, causal=causal, scale=scale, gout=gout, out=out.detach(),
                dq=leaves[0].grad, dk=leaves[1].grad, dv=leaves[2].grad)


CASES = [
    case("no mask", (2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6)),
    case("bool mask broadcast (L, S)", (2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6), mask=("bool", (5, 7))),
    case("bool mask full", (2, 2, 5, 4), (2, 2, 7, 4), (2, 2, 7, 3), mask=("bool", (2, 2, 5, 7))),
    case("float mask (B, 1, L, S)", (2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6), mask=("float", (2, 1, 5, 7))),
    case("float mask row (S)", (2, 5, 4), (2, 7, 4), (2, 7, 6), mask=("float", (7,))),
    case("causal L < S", (2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6), causal=True),
    case("causal L > S", (2, 3, 7, 4), (2, 3, 5, 4), (2, 3, 5, 6), causal=True),
    case("broadcast batch dims", (2, 3, 5, 4), (3, 7, 4), (2, 1, 7, 6)),
    case("mask adds batch dims", (3, 5, 4), (3, 7, 4), (3, 7, 6), mask=("float", (2, 1, 5, 7))),
    case("transposed heads", (2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 4), heads=True),
    case("transposed heads causal", (2, 2, 6, 4), (2, 2, 6, 4), (2, 2, 6, 4), heads=True, causal=True),
    case("explicit scale 0.3", (2, 5, 4), (2, 7, 4), (2, 7, 6), scale=0.3),
    case("2-D", (5, 4), (7, 4), (7, 6)),
    case("all-false mask row gives NaN", (1, 4, 3), (1, 6, 3), (1, 6, 2), mask=("bool", (4, 6)),
         all_false_row=True),
    # Several key and query tiles (64 x 128): the online softmax's rescaling.
    case("many tiles causal", (1, 70, 8), (1, 300, 8), (1, 300, 8), causal=True),
    case("many tiles bool mask", (1, 70, 8), (1, 300, 8), (1, 300, 5), mask=("bool", (70, 300))),
]


def doubles(t):
    vals = t.reshape(-1).tolist() if t is not None else []
    if not vals:
        return "{0}"
    out = []
    for x in vals:
        x = float(x)
        out.append("NAN" if math.isnan(x) else ("INFINITY" if x == math.inf else
                                                   ("-INFINITY" if x == -math.inf else repr(x))))
    return "{" + ", ".join(out) + "}"


def shape(t):
    s = list(t.shape)
    return "{" + str(len(s)) + ", {" + ", ".join(str(x) for x in (s or [0])) + "}}"


def main():
    lines = [header_preamble(__file__, "Scaled dot-product attention, torch 2.x's math path in float64.")]
    lines.append("#include <math.h>\n#include <stdint.h>\n")
    lines.append("typedef struct { int ndim; int64_t sizes[5]; } at_shape;")
    lines.append("typedef struct {\n  const char* name;\n  int heads; /* q, k, v as (B, L, H, E) storage, "
                 "transposed (1, 2) */\n  at_shape q, k, v, mask;\n  int mask_kind; /* 0 none, 1 bool, "
                 "2 float */\n  int causal;\n  double scale; /* NAN: None */\n  const double *qv, *kv, *vv, "
                 "*maskv, *gout, *out, *dq, *dk, *dv;\n} at_case;\n")
    for i, c in enumerate(CASES):
        for key in ("qst", "kst", "vst", "gout", "out", "dq", "dk", "dv"):
            lines.append(f"static const double at_{i}_{key}[] = {doubles(c[key])};")
        m = c["mask"]
        lines.append(f"static const double at_{i}_mask[] = {doubles(m.double() if m is not None else None)};")
    lines.append("\nstatic const at_case AT_CASES[] = {")
    for i, c in enumerate(CASES):
        m = c["mask"]
        ms = shape(m) if m is not None else "{0, {0}}"
        sc = "NAN" if c["scale"] is None else repr(c["scale"])
        lines.append(
            f'  {{"{c["name"]}", {int(c["heads"])}, {shape(c["q"])}, {shape(c["k"])}, {shape(c["v"])}, {ms},'
            f' {c["kind"]}, {int(c["causal"])}, {sc}, at_{i}_qst, at_{i}_kst, at_{i}_vst, at_{i}_mask,'
            f' at_{i}_gout, at_{i}_out, at_{i}_dq, at_{i}_dk, at_{i}_dv}},')
    lines.append("};\n")
    with open(OUT, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
