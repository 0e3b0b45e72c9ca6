"""Scans and products (cumsum, cumprod, prod) from Python against PyTorch
1.13 itself: values, result dtypes (int64 promotion, dtype=), strides,
gradients and grad_fn names, torch's signatures, and native errors."""
import unittest

import numpy as np
import torch

import tessera as ts


def tsr(t, requires_grad=False):
    """A tessera copy of a torch tensor, keeping its strides."""
    if t.dtype == torch.bool:  # torch's dlpack has no bool: go through uint8
        return tsr(t.to(torch.uint8), requires_grad).to(ts.bool)
    x = ts.from_dlpack(t.detach().clone(memory_format=torch.preserve_format))
    if requires_grad:
        x.requires_grad_(True)
    return x


def values(t):
    return np.array(t.tolist(), dtype=np.float64)


TS_DTYPE = {torch.bool: ts.bool, torch.uint8: ts.uint8, torch.int8: ts.int8, torch.int32: ts.int32,
            torch.int64: ts.int64, torch.bfloat16: ts.bfloat16, torch.float32: ts.float32,
            torch.float64: ts.float64}


class Scans(unittest.TestCase):
    def check(self, mine, ref, tol=1e-5):
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        self.assertEqual(tuple(mine.stride()), tuple(ref.stride()))
        self.assertEqual(str(mine.dtype).split(".")[-1], str(ref.dtype).split(".")[-1])
        np.testing.assert_allclose(values(mine), ref.detach().double().numpy(), rtol=tol, atol=tol)

    def test_dtypes_and_dims(self):
        for dt in TS_DTYPE:
            base = torch.randint(1, 4, (3, 4, 2)).to(dt)
            for dim in (0, 1, -1):
                with self.subTest(dtype=dt, dim=dim):
                    tol = 2e-2 if dt == torch.bfloat16 else 1e-5
                    self.check(ts.cumsum(tsr(base), dim), torch.cumsum(base, dim), tol)
                    self.check(tsr(base).cumprod(dim), base.cumprod(dim), tol)
                    if dt != torch.bfloat16:
                        self.check(tsr(base).prod(dim), base.prod(dim), tol)
                        self.check(ts.prod(tsr(base), dim, keepdim=True), torch.prod(base, dim, keepdim=True), tol)
                        self.check(tsr(base).prod(), base.prod(), tol)

    def test_dtype_keyword_and_views(self):
        x = torch.randn(4, 5)
        self.check(ts.cumsum(tsr(x), 1, dtype=ts.float64), torch.cumsum(x, 1, dtype=torch.float64))
        self.check(tsr(x).prod(0, dtype=ts.float64), x.prod(0, dtype=torch.float64))
        self.check(tsr(x).prod(dtype=ts.float64), x.prod(dtype=torch.float64))
        cl = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
        self.check(tsr(cl).cumsum(1), cl.cumsum(1))
        self.check(tsr(x.t()).cumprod(0), x.t().cumprod(0))
        self.check(tsr(torch.empty(0, 3)).prod(0), torch.empty(0, 3).prod(0))
        self.check(tsr(torch.tensor(2.5)).cumsum(0), torch.tensor(2.5).cumsum(0))

    def test_gradients(self):
        x = torch.tensor([[1.5, 0.0, 2.0, -1.0], [0.5, 3.0, 0.0, 0.0], [2.0, 1.0, -2.0, 1.5]],
                         dtype=torch.float64)
        for name, f, g in [("cumsum", lambda t: t.cumsum(1), lambda t: t.cumsum(1)),
                           ("cumprod", lambda t: t.cumprod(1), lambda t: t.cumprod(1)),
                           ("prod", lambda t: t.prod(), lambda t: t.prod()),
                           ("prod_dim", lambda t: t.prod(1, keepdim=True), lambda t: t.prod(1, keepdim=True))]:
            with self.subTest(op=name):
                a = x.clone().requires_grad_()
                b = tsr(x, requires_grad=True)
                ya, yb = f(a), g(b)
                self.assertEqual(yb.grad_fn.name(),
                                 type(ya.grad_fn).__name__)
                w = torch.randn(ya.shape, dtype=torch.float64)
                ya.backward(w)
                yb.backward(tsr(w))
                np.testing.assert_allclose(values(b.grad), a.grad.numpy(), rtol=1e-12, atol=1e-12)

    def test_errors(self):
        # torch 1.13 refuses these two; tessera follows torch 2.x (issue 31).
        self.assertEqual(ts.cumsum(ts.ones(2, dtype=ts.float16), 0).tolist(), [1.0, 2.0])
        self.assertEqual(ts.ones(2, dtype=ts.bfloat16).prod().item(), 1.0)
        with self.assertRaisesRegex(ValueError, "Dimension out of range"):
            ts.ones(2, 3).cumprod(2)
        with self.assertRaises(TypeError):
            ts.ones(2).cumsum()
        with self.assertRaises(TypeError):
            ts.ones(2).prod(keepdim=True)
        with self.assertRaises(TypeError):
            ts.ones(2).cumsum(0, ts.float64)  # dtype is keyword-only, as torch's


if __name__ == "__main__":
    unittest.main()


class Statistics(unittest.TestCase):
    check = Scans.check

    def test_var_std_forms(self):
        x = torch.randn(3, 4, 5, dtype=torch.float64)
        a = tsr(x)
        forms = [((), {}), ((1,), {}), (((0, 2),), {"keepdim": True}), ((1, False), {}), ((False,), {}),
                 ((-1,), {"correction": 0}), ((None,), {"correction": 2, "keepdim": True}),
                 ((), {"dim": 1, "unbiased": False, "keepdim": True})]
        for args, kw in forms:
            with self.subTest(args=args, kw=kw):
                self.check(ts.var(a, *args, **kw), torch.var(x, *args, **kw), 1e-12)
                self.check(a.std(*args, **kw), x.std(*args, **kw), 1e-12)
                for mine, ref in zip(ts.var_mean(a, *args, **kw), torch.var_mean(x, *args, **kw)):
                    self.check(mine, ref, 1e-12)
                for mine, ref in zip(ts.std_mean(a, *args, **kw), torch.std_mean(x, *args, **kw)):
                    self.check(mine, ref, 1e-12)

    def test_var_grad(self):
        x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
        b = tsr(x, requires_grad=True)
        s, m = torch.std_mean(x, 1)
        ms, mm = ts.std_mean(b, 1)
        self.assertEqual(ms.grad_fn.name(), "StdMeanBackward0")
        (s * 2 + m).sum().backward()
        (ms * 2 + mm).sum().backward()
        np.testing.assert_allclose(values(b.grad), x.grad.numpy(), rtol=1e-12, atol=1e-12)

    def test_var_errors(self):
        with self.assertRaisesRegex(ts.errors.DTypeMismatchError, "std and var only support floating point"):
            ts.var(ts.ones(2, dtype=ts.int64))
        with self.assertRaisesRegex(ValueError, "dim 0 appears multiple times"):
            ts.std(ts.ones(2, 3), (0, 0))
        with self.assertRaises(TypeError):
            ts.var(ts.ones(2, 3), 1, True, correction=1)


class LogSumExp(unittest.TestCase):
    check = Scans.check

    def test_logsumexp(self):
        x = torch.randn(3, 4, 5) * 50
        self.check(ts.logsumexp(tsr(x), 1), torch.logsumexp(x, 1), 1e-4)
        self.check(tsr(x).logsumexp((0, 2), keepdim=True), x.logsumexp((0, 2), keepdim=True), 1e-4)
        i = torch.randint(-5, 5, (3, 4))
        self.check(ts.logsumexp(tsr(i), 0), torch.logsumexp(i, 0))
        inf = torch.tensor([[-float("inf")] * 3, [float("inf"), 1.0, 2.0]])
        self.check(ts.logsumexp(tsr(inf), 1), torch.logsumexp(inf, 1))

    def test_logsumexp_grad_and_errors(self):
        x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
        b = tsr(x, requires_grad=True)
        y = ts.logsumexp(b, 1)
        self.assertEqual(y.grad_fn.name(), "LogsumexpBackward0")
        y.sum().backward()
        torch.logsumexp(x, 1).sum().backward()
        np.testing.assert_allclose(values(b.grad), x.grad.numpy(), rtol=1e-12, atol=1e-12)
        # float16: torch 1.13 refuses it ("exp_vml_cpu"); tessera follows torch 2.x.
        h = ts.logsumexp(ts.ones(2, dtype=ts.float16), 0)
        self.assertEqual(h.dtype, ts.float16)
        self.assertEqual(h.item(), torch.tensor(1 + np.log(2)).half().item())
        with self.assertRaises(TypeError):
            ts.logsumexp(ts.ones(2))  # dim is required, as torch's


class AnyAll(unittest.TestCase):
    check = Scans.check

    def test_any_all(self):
        x = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
        for dt in TS_DTYPE:
            t = x.to(dt)
            with self.subTest(dtype=dt):
                self.check(ts.any(tsr(t)), torch.any(t))
                self.check(tsr(t).all(), t.all())
                self.check(tsr(t).any(1), t.any(1))
                self.check(ts.all(tsr(t), 0, keepdim=True), torch.all(t, 0, keepdim=True))
        self.check(ts.all(tsr(torch.empty(0, 2))), torch.all(torch.empty(0, 2)))
        with self.assertRaisesRegex(ValueError, "Dimension out of range"):
            ts.ones(2).any(1)


class Min(unittest.TestCase):
    check = Scans.check

    def test_min_forms(self):
        x = torch.tensor([[3.0, 1.0, 1.0], [float("nan"), 2.0, -1.0]])
        a = tsr(x)
        self.check(ts.min(a), torch.min(x))
        r = a.min(1)
        self.assertEqual(type(r).__name__, "min")
        self.check(r.values, x.min(1).values)
        self.check(r.indices, x.min(1).indices)
        v, i = ts.min(a, 0, keepdim=True)
        self.check(i, torch.min(x, 0, keepdim=True)[1])
        self.check(a.argmin(), x.argmin())
        self.check(ts.argmin(a, 1, keepdim=True), torch.argmin(x, 1, keepdim=True))

    def test_min_grad_and_errors(self):
        x = torch.tensor([[3.0, 1.0, 1.0], [2.0, 2.0, 5.0]], dtype=torch.float64, requires_grad=True)
        b = tsr(x, requires_grad=True)
        y = ts.min(b)
        self.assertEqual(y.grad_fn.name(), "MinBackward1")
        y.backward()
        x.min().backward()
        np.testing.assert_allclose(values(b.grad), x.grad.numpy())
        with self.assertRaisesRegex(ValueError, "Expected reduction dim to be specified"):
            ts.min(ts.ones(0))
        with self.assertRaisesRegex(ts.errors.DTypeMismatchError, "argmin_cpu"):
            ts.argmin(ts.ones(2, dtype=ts.bool), 0)
