"""Pointwise math (silu, leaky_relu, elu, softplus, hardtanh, sin, cos,
rsqrt, reciprocal, floor, ceil, round, trunc, sign, clamp with tensor
bounds) from Python against PyTorch 1.13 itself: values, dtypes, strides,
grad_fn names, gradients; torch's names and defaults in tessera,
tessera.nn.functional and as Tensor methods."""
import unittest

import numpy as np
import torch
import torch.nn.functional as F

import tessera as ts
import tessera.nn.functional as TF


def tsr(t, requires_grad=False):
    """A tessera copy of a torch tensor, keeping its strides."""
    if t.dtype == torch.bool:  # torch 1.13 has no bool dlpack
        return tsr(t.to(torch.uint8)).bool()
    x = ts.from_dlpack(t.detach().clone(memory_format=torch.preserve_format))
    if requires_grad:
        x.requires_grad_(True)
    return x


def values(t):
    return np.array(t.tolist(), dtype=np.float64)


SPECIAL = torch.tensor([-2.5, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.5, 3.7, -3.7, 0.25], dtype=torch.float64)

# name -> (tessera function, torch function)
FUNCS = {
    "silu": (TF.silu, F.silu),
    "leaky_relu": (lambda x: TF.leaky_relu(x, 0.2), lambda x: F.leaky_relu(x, 0.2)),
    "leaky_relu default": (TF.leaky_relu, F.leaky_relu),
    "elu": (lambda x: TF.elu(x, alpha=0.5), lambda x: F.elu(x, alpha=0.5)),
    "softplus": (lambda x: TF.softplus(x, beta=2, threshold=1.5), lambda x: F.softplus(x, beta=2, threshold=1.5)),
    "softplus default": (TF.softplus, F.softplus),
    "hardtanh": (lambda x: TF.hardtanh(x, -0.5, 2.0), lambda x: F.hardtanh(x, -0.5, 2.0)),
    "hardtanh default": (TF.hardtanh, F.hardtanh),
    "sin": (ts.sin, torch.sin),
    "cos": (ts.cos, torch.cos),
    "rsqrt": (ts.rsqrt, torch.rsqrt),
    "reciprocal": (ts.reciprocal, torch.reciprocal),
    "floor": (ts.floor, torch.floor),
    "ceil": (ts.ceil, torch.ceil),
    "round": (ts.round, torch.round),
    "trunc": (ts.trunc, torch.trunc),
    "fix": (ts.fix, torch.fix),
    "sign": (ts.sign, torch.sign),
}


class Pointwise(unittest.TestCase):
    def check(self, mine, ref, tol=1e-6):
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        # Strides of size-1 dims are free (dlpack may normalise them).
        self.assertEqual([st for st, n in zip(mine.stride(), mine.shape) if n > 1],
                         [st for st, n in zip(ref.stride(), ref.shape) if n > 1])
        self.assertEqual(str(mine.dtype).split(".")[-1], str(ref.dtype).split(".")[-1])
        np.testing.assert_allclose(values(mine), ref.detach().double().numpy(), rtol=tol, atol=tol)

    def test_values_and_gradients_match_torch(self):
        for name, (mine, ref) in FUNCS.items():
            with self.subTest(op=name):
                base = SPECIAL.reshape(3, 4).t() if "rsqrt" not in name else SPECIAL.abs().reshape(3, 4).t() + 0.1
                x = base.clone().requires_grad_()
                y = ref(x)
                xt = tsr(base, requires_grad=True)
                yt = mine(xt)
                self.check(yt, y, 1e-12)
                self.assertEqual(yt.grad_fn.name(), y.grad_fn.name())
                g = torch.randn(y.shape, dtype=torch.float64)
                y.backward(g)
                yt.backward(tsr(g))
                self.check(xt.grad, x.grad, 1e-12)

    def test_dtypes_match_torch(self):
        dtypes = [torch.int32, torch.int64, torch.uint8, torch.bool, torch.bfloat16, torch.float32]
        for name, (mine, ref) in FUNCS.items():
            for dt in dtypes:
                with self.subTest(op=name, dtype=dt):
                    x = torch.tensor([[1, 0, 3], [2, 1, 0]]).to(dt)
                    try:
                        want = ref(x)
                    except (RuntimeError, TypeError):
                        with self.assertRaises(Exception):
                            mine(tsr(x))
                        continue
                    self.check(mine(tsr(x)), want, 1e-2)

    def test_tensor_methods(self):
        x = torch.randn(3, 4, dtype=torch.float64)
        for name in ("sin", "cos", "reciprocal", "floor", "ceil", "round", "trunc", "sign", "fix"):
            with self.subTest(method=name):
                self.check(getattr(tsr(x), name)(), getattr(x, name)())
        self.check(tsr(x.abs()).rsqrt(), x.abs().rsqrt())

    def test_double_backward(self):
        for name in ("silu", "elu", "softplus", "sin", "cos", "reciprocal"):
            with self.subTest(op=name):
                mine, ref = FUNCS[name]
                base = torch.tensor([0.3, -0.7, 1.2, -1.9], dtype=torch.float64)
                x = base.clone().requires_grad_()
                (gx,) = torch.autograd.grad(ref(x).sum(), x, create_graph=True)
                gx.sum().backward()
                xt = tsr(base, requires_grad=True)
                (gt,) = ts.autograd_grad(mine(xt).sum(), xt, create_graph=True)
                gt.sum().backward()
                self.check(gt, gx, 1e-12)
                self.check(xt.grad, x.grad, 1e-12)

    def test_inplace_forms_write_input(self):
        for name, args in [("silu", ()), ("leaky_relu", (0.2,)), ("elu", (0.5,)), ("hardtanh", (-0.5, 0.5)),
                           ("relu", ())]:
            base = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
            mine = tsr(base.detach(), requires_grad=True)
            y, z = base * 2, mine * 2
            ry = getattr(F, name)(y, *args, inplace=True)
            rz = getattr(TF, name)(z, *args, inplace=True)
            self.assertIs(rz, z)
            self.check(z, y)
            (ry * ry).sum().backward()
            (rz * rz).sum().backward()
            self.check(mine.grad, base.grad, 1e-12)
            with self.assertRaises(RuntimeError):  # a leaf that requires grad, as torch
                getattr(TF, name)(mine, *args, inplace=True)
        x = ts.ones(1000)
        self.assertIs(TF.dropout(x, 0.5, True, inplace=True), x)
        self.assertEqual(sorted(set(x.tolist())), [0.0, 2.0])
        self.assertEqual(TF.dropout(x, p=0.5, training=False).data_ptr(), x.data_ptr())

    def test_round_decimals(self):
        self.check(ts.round(tsr(SPECIAL), decimals=0), torch.round(SPECIAL, decimals=0))
        g = torch.Generator().manual_seed(5)
        for dt in (torch.float32, torch.float64, torch.bfloat16):
            x = (torch.randn(4096, generator=g) * 1000).to(dt)
            for d in (1, 2, 3, 5, -1, -2):
                mine = tsr(x).round(decimals=d)
                np.testing.assert_array_equal(values(mine), x.round(decimals=d).double().numpy())
        for dt in (ts.float16, ts.int64):
            with self.assertRaises(RuntimeError):
                ts.ones(2, dtype=dt).round(decimals=1)

    def test_clamp_tensor_bounds(self):
        x = torch.randn(3, 4, dtype=torch.float64).t()
        lo = torch.randn(3, dtype=torch.float64) - 0.5
        hi = torch.randn(4, 1, dtype=torch.float64) + 0.5
        cases = [(lo, hi), (lo, None), (None, hi), (torch.tensor(0.2, dtype=torch.float64), hi)]
        for a, b in cases:
            with self.subTest(min=a is not None, max=b is not None):
                xs = [t.clone().requires_grad_() if t is not None else None for t in (x, a, b)]
                y = torch.clamp(*xs)
                ms = [tsr(t, requires_grad=True) if t is not None else None for t in (x, a, b)]
                yt = ts.clamp(*ms)
                self.check(yt, y, 1e-12)
                self.assertEqual(yt.grad_fn.name(), y.grad_fn.name())
                g = torch.randn(y.shape, dtype=torch.float64)
                y.backward(g)
                yt.backward(tsr(g))
                for t, m in zip(xs, ms):
                    if t is not None:
                        self.check(m.grad, t.grad, 1e-12)
        # Tensor method, promotion
        xi = torch.tensor([[1, -2, 3]], dtype=torch.int32)
        self.check(tsr(xi).clamp(tsr(torch.tensor([0.5, 0.0, 1.0]))),
                   xi.clamp(torch.tensor([0.5, 0.0, 1.0])))

    def test_clamp_tensor_errors(self):
        x = tsr(torch.randn(2))
        with self.assertRaises(TypeError):
            x.clamp(tsr(torch.zeros(2)), 0.5)
        with self.assertRaisesRegex(Exception, "must match the size"):
            x.clamp(tsr(torch.zeros(3)))


if __name__ == "__main__":
    unittest.main()
