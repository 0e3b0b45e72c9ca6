"""Golden programs for the math and autograd tests (gen_ops.py, gen_autograd.py).

A program is a list of input tensors and a list of steps, each applying one
tessera op (by its C API name) to earlier registers; the last register is the
result. PyTorch 1.13 runs the program here, and tests/ops_program.h replays
the same program through the tessera C API, so both sides compute the same
function by construction. The header records, per case: every input (its base
storage values and as_strided geometry, so transposed/sliced/expanded and
channels_last inputs are exact), torch's result (dtype, sizes, strides,
values), each step's grad_fn name / requires_grad / is_leaf, and, for
autograd cases, the gradient given to backward and every input's .grad.

Values are written as decimal doubles that round-trip exactly; every input
value is exactly representable in its dtype (they are generated in it).
"""
import math
import os
import struct
import sys
import warnings

import torch

warnings.filterwarnings("ignore")

TORCH_VERSION = torch.__version__
INT64_MAX = 2 ** 63 - 1

DTYPES = {
    torch.uint8: "TSR_UINT8", torch.int8: "TSR_INT8", torch.int16: "TSR_INT16",
    torch.int32: "TSR_INT32", torch.int64: "TSR_INT64", torch.float16: "TSR_FLOAT16",
    torch.float32: "TSR_FLOAT32", torch.float64: "TSR_FLOAT64", torch.bool: "TSR_BOOL",
    torch.bfloat16: "TSR_BFLOAT16",
}
# tsr_dtype values (c10::ScalarType numbering) for TO_DTYPE's argument.
DTYPE_CODE = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
              torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11,
              torch.bfloat16: 15}
CODE_DTYPE = {v: k for k, v in DTYPE_CODE.items()}
MEMORY_FORMAT = {0: torch.contiguous_format, 1: torch.preserve_format,
                 2: torch.channels_last, 3: torch.channels_last_3d}

MAXDIM, MAXIN, MAXSTEP, MAXARGS = 6, 6, 16, 16

GEN = torch.Generator().manual_seed(20240611)


def _slice(x, dim, start, end, step):
    idx = [slice(None)] * x.dim()
    idx[dim] = slice(start, end, step)
    return x[tuple(idx)]


def _reduce(fn, x, a, keepdim):
    if not a:
        return fn(x, dim=tuple(range(x.dim())), keepdim=True) if keepdim else fn(x)
    return fn(x, dim=tuple(a), keepdim=keepdim)


def _var(fn, r, s):
    dims = tuple(s["args"][1:]) or None
    return fn(r[s["a"]], dims, correction=s["args"][0], keepdim=s["keepdim"])


def _as_strided(x, a):
    n = a[0]
    return x.as_strided(a[1:1 + n], a[1 + n:1 + 2 * n], a[1 + 2 * n])


# op name -> fn(regs, step). The C replay (tests/ops_program.h) has one case
# per name, calling the tsr_ function of the same name.
OPS = {
    "ADD": lambda r, s: torch.add(r[s["a"]], r[s["b"]]),
    "SUB": lambda r, s: torch.sub(r[s["a"]], r[s["b"]]),
    "MUL": lambda r, s: torch.mul(r[s["a"]], r[s["b"]]),
    "DIV": lambda r, s: torch.div(r[s["a"]], r[s["b"]]),
    "MUL_SCALAR": lambda r, s: r[s["a"]] * s["scalar"],
    "ADD_SCALAR": lambda r, s: r[s["a"]] + s["scalar"],
    "NEG": lambda r, s: torch.neg(r[s["a"]]),
    "RELU": lambda r, s: torch.relu(r[s["a"]]),
    "EXP": lambda r, s: torch.exp(r[s["a"]]),
    "LOG": lambda r, s: torch.log(r[s["a"]]),
    "MATMUL": lambda r, s: torch.matmul(r[s["a"]], r[s["b"]]),
    "SUM": lambda r, s: _reduce(torch.sum, r[s["a"]], s["args"], s["keepdim"]),
    "MEAN": lambda r, s: _reduce(torch.mean, r[s["a"]], s["args"], s["keepdim"]),
    "MAX_DIM_VALUES": lambda r, s: torch.max(r[s["a"]], s["args"][0], s["keepdim"])[0],
    "MAX_DIM_INDICES": lambda r, s: torch.max(r[s["a"]], s["args"][0], s["keepdim"])[1],
    "ARGMAX": lambda r, s: torch.argmax(r[s["a"]], s["args"][0], s["keepdim"]),
    "MAX": lambda r, s: torch.max(r[s["a"]]),
    "LOG_SOFTMAX": lambda r, s: torch.log_softmax(r[s["a"]], s["args"][0]),
    "CROSS_ENTROPY": lambda r, s: torch.nn.functional.cross_entropy(r[s["a"]], r[s["b"]]),
    "TRANSPOSE": lambda r, s: r[s["a"]].transpose(*s["args"]),
    "T": lambda r, s: r[s["a"]].t(),
    "PERMUTE": lambda r, s: r[s["a"]].permute(*s["args"]),
    "NARROW": lambda r, s: r[s["a"]].narrow(*s["args"]),
    "SLICE": lambda r, s: _slice(r[s["a"]], *s["args"]),
    "SELECT": lambda r, s: r[s["a"]].select(*s["args"]),
    "EXPAND": lambda r, s: r[s["a"]].expand(*s["args"]),
    "SQUEEZE": lambda r, s: r[s["a"]].squeeze(),
    "SQUEEZE_DIM": lambda r, s: r[s["a"]].squeeze(s["args"][0]),
    "UNSQUEEZE": lambda r, s: r[s["a"]].unsqueeze(s["args"][0]),
    "VIEW": lambda r, s: r[s["a"]].view(*s["args"]),
    "RESHAPE": lambda r, s: r[s["a"]].reshape(*s["args"]),
    "FLATTEN": lambda r, s: r[s["a"]].flatten(*s["args"]),
    "AS_STRIDED": lambda r, s: _as_strided(r[s["a"]], s["args"]),
    "UNFOLD": lambda r, s: r[s["a"]].unfold(*s["args"]),
    "DIAGONAL": lambda r, s: r[s["a"]].diagonal(*s["args"]),
    "CLONE": lambda r, s: r[s["a"]].clone(memory_format=MEMORY_FORMAT[s["args"][0]]),
    "CONTIGUOUS": lambda r, s: r[s["a"]].contiguous(memory_format=MEMORY_FORMAT[s["args"][0]]),
    "TO_DTYPE": lambda r, s: r[s["a"]].to(CODE_DTYPE[s["args"][0]]),
    # torch.nn.functional-style ops (gen_nn.py). Extra tensor operands are
    # registers named in args; clamp's bounds travel as the bits of doubles.
    "LINEAR": lambda r, s: torch.nn.functional.linear(
        r[s["a"]], r[s["b"]], r[s["args"][0]] if s["args"] and s["args"][0] >= 0 else None),
    "GELU": lambda r, s: torch.nn.functional.gelu(
        r[s["a"]], approximate="tanh" if s["args"] and s["args"][0] else "none"),
    "TANH": lambda r, s: torch.tanh(r[s["a"]]),
    "SIGMOID": lambda r, s: torch.sigmoid(r[s["a"]]),
    "SQRT": lambda r, s: torch.sqrt(r[s["a"]]),
    "POW_SCALAR": lambda r, s: torch.pow(r[s["a"]], s["scalar"]),
    "POW": lambda r, s: torch.pow(r[s["a"]], r[s["b"]]),
    "CLAMP": lambda r, s: torch.clamp(r[s["a"]], *_clamp_bounds(s["args"])),
    "SOFTMAX": lambda r, s: torch.softmax(r[s["a"]], s["args"][0]),
    "LAYER_NORM": lambda r, s: _layer_norm(r, s),
    "CAT": lambda r, s: torch.cat([r[i] for i in s["args"][2:2 + s["args"][1]]], s["args"][0]),
    "STACK": lambda r, s: torch.stack([r[i] for i in s["args"][2:2 + s["args"][1]]], s["args"][0]),
    "WHERE": lambda r, s: torch.where(r[s["a"]], r[s["b"]], r[s["args"][0]]),
    "INDEX_SELECT": lambda r, s: torch.index_select(r[s["a"]], s["args"][0], r[s["b"]]),
    "GATHER": lambda r, s: torch.gather(r[s["a"]], s["args"][0], r[s["b"]]),
    "EMBEDDING": lambda r, s: torch.nn.functional.embedding(r[s["b"]], r[s["a"]]),
    # convolutional layers (gen_cnn.py); argument layouts in _conv2d etc.
    "CONV2D": lambda r, s: _conv2d(r, s),
    "MAX_POOL2D": lambda r, s: _max_pool2d(r, s)[0],
    "MAX_POOL2D_INDICES": lambda r, s: _max_pool2d(r, s)[1],
    "AVG_POOL2D": lambda r, s: _avg_pool2d(r, s),
    "ADAPTIVE_AVG_POOL2D": lambda r, s: torch.nn.functional.adaptive_avg_pool2d(r[s["a"]], s["args"][:2]),
    "BATCH_NORM": lambda r, s: _batch_norm(r, s),
    # scans and products (gen_reductions_more.py); a dtype code of -1 is None.
    "CUMSUM": lambda r, s: torch.cumsum(r[s["a"]], s["args"][0], dtype=CODE_DTYPE.get(s["args"][1])),
    "CUMPROD": lambda r, s: torch.cumprod(r[s["a"]], s["args"][0], dtype=CODE_DTYPE.get(s["args"][1])),
    "PROD": lambda r, s: torch.prod(r[s["a"]], dtype=CODE_DTYPE.get(s["args"][0])),
    "PROD_DIM": lambda r, s: torch.prod(r[s["a"]], s["args"][0], s["keepdim"], dtype=CODE_DTYPE.get(s["args"][1])),
    # var/std family: args = [correction, dims...] (no dims: all).
    "VAR": lambda r, s: _var(torch.var, r, s),
    "STD": lambda r, s: _var(torch.std, r, s),
    "VAR_MEAN_VAR": lambda r, s: _var(torch.var_mean, r, s)[0],
    "VAR_MEAN_MEAN": lambda r, s: _var(torch.var_mean, r, s)[1],
    "STD_MEAN_STD": lambda r, s: _var(torch.std_mean, r, s)[0],
    "STD_MEAN_MEAN": lambda r, s: _var(torch.std_mean, r, s)[1],
    "LOGSUMEXP": lambda r, s: torch.logsumexp(r[s["a"]], tuple(s["args"]), s["keepdim"]),
    "ANY": lambda r, s: torch.any(r[s["a"]]),
    "ALL": lambda r, s: torch.all(r[s["a"]]),
    "ANY_DIM": lambda r, s: torch.any(r[s["a"]], s["args"][0], s["keepdim"]),
    "ALL_DIM": lambda r, s: torch.all(r[s["a"]], s["args"][0], s["keepdim"]),
    "MIN": lambda r, s: torch.min(r[s["a"]]),
    "MIN_DIM_VALUES": lambda r, s: torch.min(r[s["a"]], s["args"][0], s["keepdim"])[0],
    "MIN_DIM_INDICES": lambda r, s: torch.min(r[s["a"]], s["args"][0], s["keepdim"])[1],
    "ARGMIN": lambda r, s: torch.argmin(r[s["a"]], s["args"][0], s["keepdim"]),
    # pointwise math (gen_pointwise.py); parameters travel as the bits of doubles.
    "SILU": lambda r, s: torch.nn.functional.silu(r[s["a"]]),
    "LEAKY_RELU": lambda r, s: torch.nn.functional.leaky_relu(r[s["a"]], *_doubles(s["args"])),
    "ELU": lambda r, s: torch.nn.functional.elu(r[s["a"]], *_doubles(s["args"])),
    "SOFTPLUS": lambda r, s: torch.nn.functional.softplus(r[s["a"]], *_doubles(s["args"])),
    "HARDTANH": lambda r, s: torch.nn.functional.hardtanh(r[s["a"]], *_doubles(s["args"])),
    "SIN": lambda r, s: torch.sin(r[s["a"]]),
    "COS": lambda r, s: torch.cos(r[s["a"]]),
    "RSQRT": lambda r, s: torch.rsqrt(r[s["a"]]),
    "RECIPROCAL": lambda r, s: torch.reciprocal(r[s["a"]]),
    "FLOOR": lambda r, s: torch.floor(r[s["a"]]),
    "CEIL": lambda r, s: torch.ceil(r[s["a"]]),
    "ROUND": lambda r, s: torch.round(r[s["a"]]),
    "TRUNC": lambda r, s: torch.trunc(r[s["a"]]),
    "SIGN": lambda r, s: torch.sign(r[s["a"]]),
    "CLAMP_TENSOR": lambda r, s: torch.clamp(r[s["a"]], *[_reg(r, i) for i in s["args"][:2]]),
    "BMM": lambda r, s: torch.bmm(r[s["a"]], r[s["b"]]),
    "OUTER": lambda r, s: torch.outer(r[s["a"]], r[s["b"]]),
    "MSE_LOSS": lambda r, s: torch.nn.functional.mse_loss(r[s["a"]], r[s["b"]]),
    "L1_LOSS": lambda r, s: torch.nn.functional.l1_loss(r[s["a"]], r[s["b"]]),
    "NLL_LOSS": lambda r, s: torch.nn.functional.nll_loss(r[s["a"]], r[s["b"]]),
    "BADDBMM": lambda r, s: torch.baddbmm(r[s["a"]], r[s["b"]], r[s["args"][0]], beta=_doubles(s["args"][1:])[0],
                                          alpha=_doubles(s["args"][1:])[1]),
}


def _reg(r, i):
    return r[i] if i >= 0 else None


def _conv2d(r, s):
    """args [bias register or -1, stride h, w, padding h, w, dilation h, w, groups]."""
    a = s["args"]
    return torch.nn.functional.conv2d(r[s["a"]], r[s["b"]], _reg(r, a[0]), a[1:3], a[3:5], a[5:7], a[7])


def _max_pool2d(r, s):
    """args [kh, kw, has_stride, sh, sw, ph, pw, dh, dw, ceil_mode] -> (values, indices)."""
    a = s["args"]
    return torch.nn.functional.max_pool2d(r[s["a"]], a[0:2], a[3:5] if a[2] else None, a[5:7], a[7:9],
                                          bool(a[9]), return_indices=True)


def _avg_pool2d(r, s):
    """args [kh, kw, has_stride, sh, sw, ph, pw, ceil_mode, count_include_pad]."""
    a = s["args"]
    return torch.nn.functional.avg_pool2d(r[s["a"]], a[0:2], a[3:5] if a[2] else None, a[5:7], bool(a[7]),
                                          bool(a[8]))


def _batch_norm(r, s):
    """args [running_mean, running_var, weight, bias registers or -1, training, bits(momentum)];
    eps in scalar. The running stats are cloned: the program's inputs stay as
    generated (tests/test_cnn.c checks the in-place update separately)."""
    a = s["args"]
    rm, rv = _reg(r, a[0]), _reg(r, a[1])
    momentum = struct.unpack("<d", struct.pack("<q", a[5]))[0]
    return torch.nn.functional.batch_norm(r[s["a"]], rm.detach().clone() if rm is not None else None,
                                          rv.detach().clone() if rv is not None else None, _reg(r, a[2]),
                                          _reg(r, a[3]), bool(a[4]), momentum, s["scalar"])


def double_bits(v):
    """The int64 whose bits are the double v (clamp's bounds in args)."""
    return struct.unpack("<q", struct.pack("<d", float(v)))[0]


def _doubles(a):
    """args holding bits(double) each -> the doubles (pointwise parameters)."""
    return [struct.unpack("<d", struct.pack("<q", v))[0] for v in a]


def _clamp_bounds(a):
    """args [has_min, has_max, bits(min), bits(max)] -> (min, max)."""
    val = lambda b: struct.unpack("<d", struct.pack("<q", b))[0]  # noqa: E731
    return (val(a[2]) if a[0] else None, val(a[3]) if a[1] else None)


def clamp_args(lo, hi):
    return [int(lo is not None), int(hi is not None), double_bits(lo if lo is not None else 0),
            double_bits(hi if hi is not None else 0)]


def _layer_norm(r, s):
    """args [n, shape..., weight register or -1, bias register or -1]; eps in scalar."""
    a = s["args"]
    n = a[0]
    w, b = a[1 + n], a[2 + n]
    return torch.nn.functional.layer_norm(r[s["a"]], a[1:1 + n], r[w] if w >= 0 else None,
                                          r[b] if b >= 0 else None, s["scalar"])


def c_double(v):
    v = float(v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(v)


def c_ints(vals):
    vals = [int(v) for v in vals]
    return "{" + ", ".join(str(v) if abs(v) < 2 ** 31 else f"INT64_C({v})" for v in vals) + "}" \
        if vals else "{0}"


def c_doubles(vals):
    out, line = [], []
    for v in vals:
        line.append(c_double(v))
        if len(line) == 8:
            out.append(", ".join(line))
            line = []
    if line:
        out.append(", ".join(line))
    return "{" + ",\n    ".join(out) + "}" if out else "{0}"


def c_str(s):
    return "NULL" if s is None else '"' + s + '"'


class Input:
    """A tensor x = base.as_strided(sizes, strides, offset), base a 1-D
    contiguous tensor of `dtype` holding `storage`."""

    def __init__(self, dtype, sizes, strides=None, offset=0, values=None, kind="randn",
                 requires_grad=False, storage_numel=None):
        sizes = list(sizes)
        if strides is None:
            strides, acc = [0] * len(sizes), 1
            for i in reversed(range(len(sizes))):
                strides[i] = acc
                acc *= max(sizes[i], 1)
        strides = list(strides)
        extent = 0 if 0 in sizes else offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
        n = storage_numel if storage_numel is not None else max(extent, offset)
        if values is not None:
            base = torch.tensor(values, dtype=torch.float64).to(dtype)
            assert base.numel() >= extent, (values, sizes, strides)
        else:
            base = make_values(kind, n, dtype)
        self.dtype, self.sizes, self.strides, self.offset = dtype, sizes, strides, offset
        self.base, self.requires_grad = base, requires_grad

    def build(self):
        x = self.base.as_strided(self.sizes, self.strides, self.offset)
        if self.requires_grad:
            x.requires_grad_()
        return x


def make_values(kind, n, dtype):
    if kind == "randn":
        v = torch.randn(n, generator=GEN, dtype=torch.float64)
    elif kind == "pos":  # for log and div denominators: [0.5, 2)
        v = torch.rand(n, generator=GEN, dtype=torch.float64) * 1.5 + 0.5
    elif kind == "int":
        lo, hi = (0, 200) if dtype == torch.uint8 else (-60, 60)
        if dtype == torch.bool:
            lo, hi = 0, 2
        v = torch.randint(lo, hi, (n,), generator=GEN).double()
    elif kind == "nonzero_int":
        v = torch.randint(1, 9, (n,), generator=GEN).double()
        v = v * (torch.randint(0, 2, (n,), generator=GEN).double() * 2 - 1)
        if dtype in (torch.uint8, torch.bool):
            v = v.abs()
    elif kind == "arange":
        v = torch.arange(n, dtype=torch.float64)
    else:
        raise ValueError(kind)
    return v.to(dtype)


def step(op, a, b=-1, args=(), scalar=0.0, keepdim=False):
    assert op in OPS, op
    return {"op": op, "a": a, "b": b, "args": list(args), "scalar": scalar, "keepdim": keepdim}


def as_strided_args(sizes, strides, offset):
    return [len(sizes)] + list(sizes) + list(strides) + [offset]


def default_tol(dtype):
    return {torch.float64: (1e-12, 1e-12), torch.float32: (1e-5, 1e-6),
            torch.float16: (2e-3, 1e-3), torch.bfloat16: (1e-2, 1e-2)}.get(dtype, (0.0, 0.0))


def grad_fn_name(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


class Case:
    def __init__(self, name, inputs, steps, check_strides=True, tol=None, backward=False,
                 note=None):
        assert len(inputs) <= MAXIN and len(steps) <= MAXSTEP
        self.name, self.inputs, self.steps = name, inputs, steps
        self.check_strides, self.tol, self.backward, self.note = check_strides, tol, backward, note

    def run(self):
        regs = [i.build() for i in self.inputs]
        self.step_meta = []
        for s in self.steps:
            y = OPS[s["op"]](regs, s)
            regs.append(y)
            self.step_meta.append((grad_fn_name(y), y.requires_grad, y.is_leaf))
        out = regs[-1]
        self.out = out
        self.grad_out = None
        self.grads = [None] * len(self.inputs)
        if self.backward:
            if out.numel() == 1 and out.dim() == 0:
                out.backward()
            else:
                self.grad_out = make_values("randn", out.numel(), out.dtype).reshape(out.shape)
                out.backward(self.grad_out)
            for k, x in enumerate(regs[:len(self.inputs)]):
                if self.inputs[k].requires_grad:
                    assert x.grad is not None, (self.name, k)
                    self.grads[k] = x.grad
        return self


def c_value(prefix, t):
    """(definitions, initializer) of a tg_value for tensor t."""
    vals = t.detach().to(torch.float64).flatten().tolist()
    assert t.dim() <= MAXDIM
    defs = f"static const double {prefix}[] = {c_doubles(vals)};\n"
    init = (f"{{{DTYPES[t.dtype]}, {t.dim()}, {c_ints(t.shape)}, {c_ints(t.stride())}, "
            f"{t.numel()}, {prefix}}}")
    return defs, init


def emit_case(c, ident):
    defs, lines = [], []
    ins = []
    for k, i in enumerate(c.inputs):
        arr = f"{ident}_in{k}"
        defs.append(f"static const double {arr}[] = "
                    f"{c_doubles(i.base.to(torch.float64).tolist())};\n")
        ins.append(f"{{{DTYPES[i.dtype]}, {len(i.sizes)}, {c_ints(i.sizes)}, {c_ints(i.strides)}, "
                   f"{i.offset}, {i.base.numel()}, {arr}, {'true' if i.requires_grad else 'false'}}}")
    steps = []
    for s, (gf, rg, leaf) in zip(c.steps, c.step_meta):
        assert len(s["args"]) <= MAXARGS
        steps.append(f"{{TG_{s['op']}, {s['a']}, {s['b']}, {len(s['args'])}, {c_ints(s['args'])}, "
                     f"{c_double(s['scalar'])}, {'true' if s['keepdim'] else 'false'}, {c_str(gf)}, "
                     f"{'true' if rg else 'false'}, {'true' if leaf else 'false'}}}")
    d, out_init = c_value(f"{ident}_out", c.out)
    defs.append(d)
    rtol, atol = c.tol if c.tol else default_tol(c.out.dtype)
    grad_out = "NULL"
    if c.grad_out is not None:
        defs.append(f"static const double {ident}_gout[] = "
                    f"{c_doubles(c.grad_out.to(torch.float64).flatten().tolist())};\n")
        grad_out = f"{ident}_gout"
    grads = []
    for k, g in enumerate(c.grads):
        if g is None:
            grads.append("{0}")
        else:
            d, gi = c_value(f"{ident}_grad{k}", g)
            defs.append(d)
            grads.append(gi)
    lines.append("  {" + c_str(c.name) + ",\n"
                 f"   {len(c.inputs)}, {{{', '.join(ins)}}},\n"
                 f"   {len(c.steps)}, {{{', '.join(steps)}}},\n"
                 f"   {out_init},\n"
                 f"   {'true' if c.check_strides else 'false'}, {c_double(rtol)}, {c_double(atol)},\n"
                 f"   {grad_out}, {{{', '.join(grads) if grads else '{0}'}}}}}")
    return "".join(defs), lines[0]


def header(script, guard, what, cases, table, extra=""):
    out = [
        "/* GENERATED FILE - do not edit.\n"
        f" * Produced by tests/golden/{os.path.basename(script)} with PyTorch {TORCH_VERSION}\n"
        f" * (/usr/bin/python3). {what}\n"
        f" * Regenerate: /usr/bin/python3 tests/golden/{os.path.basename(script)} */\n",
        f"#ifndef {guard}\n#define {guard}\n\n#include <math.h>\n#include <stdint.h>\n\n"
        '#include "ops_program.h"\n\n',
    ]
    inits = []
    for n, c in enumerate(cases):
        d, init = emit_case(c.run(), f"{table}_{n}")
        out.append(f"/* {c.name}{': ' + c.note if c.note else ''} */\n{d}\n")
        inits.append(init)
    out.append(f"static const tg_case {table}[] = {{\n" + ",\n".join(inits) + "\n};\n")
    out.append(f"#define {table.upper()}_N ((size_t)(sizeof {table} / sizeof {table}[0]))\n\n")
    out.append(extra)
    out.append(f"#endif /* {guard} */\n")
    return "".join(out)


def c_table(name, ctype, vals, fmt):
    return f"static const {ctype} {name}[] = {{{', '.join(fmt(v) for v in vals)}}};\n"


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}", file=sys.stderr)
