"""bmm and outer from Python against PyTorch 1.13 itself: values, strides,
grad_fn names, gradients, errors; bfloat16 and float16 products (matmul, mm,
mv, bmm, baddbmm, linear) forward and backward."""
import unittest

import numpy as np
import torch

import tessera as ts


def tsr(t, requires_grad=False):
    """A tessera copy of a torch tensor, keeping its strides."""
    x = ts.from_dlpack(t.detach().clone(memory_format=torch.preserve_format))
    if requires_grad:
        x.requires_grad_(True)
    return x


def values(t):
    return np.array(t.tolist(), dtype=np.float64)


class Linalg(unittest.TestCase):
    def check(self, mine, ref, tol=1e-10):
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        self.assertEqual(tuple(mine.stride()), tuple(ref.stride()))
        np.testing.assert_allclose(values(mine), ref.detach().double().numpy(), rtol=tol, atol=tol)

    def test_bmm_matches_torch(self):
        a0 = torch.randn(2, 4, 3, dtype=torch.float64).transpose(1, 2)
        b0 = torch.randn(2, 4, 5, dtype=torch.float64)
        for fn in (lambda a, b: ts.bmm(a, b), lambda a, b: a.bmm(b)):
            a, b = a0.clone().requires_grad_(), b0.clone().requires_grad_()
            y = torch.bmm(a, b)
            at, bt = tsr(a0, True), tsr(b0, True)
            yt = fn(at, bt)
            self.check(yt, y)
            self.assertEqual(yt.grad_fn.name(), y.grad_fn.name())
            g = torch.randn(y.shape, dtype=torch.float64)
            y.backward(g)
            yt.backward(tsr(g))
            self.check(at.grad, a.grad)
            self.check(bt.grad, b.grad)

    def test_baddbmm_matches_torch(self):
        c0 = torch.randn(3, 1, dtype=torch.float64)
        a0 = torch.randn(2, 3, 4, dtype=torch.float64)
        b0 = torch.randn(2, 5, 4, dtype=torch.float64).transpose(1, 2)
        for fn in (lambda c, a, b: ts.baddbmm(c, a, b, beta=0.5, alpha=-2),
                   lambda c, a, b: c.baddbmm(a, b, 0.5, -2)):
            c, a, b = (t.clone().requires_grad_() for t in (c0, a0, b0))
            y = torch.baddbmm(c, a, b, beta=0.5, alpha=-2)
            ct, at, bt = tsr(c0, True), tsr(a0, True), tsr(b0, True)
            yt = fn(ct, at, bt)
            self.check(yt, y)
            self.assertEqual(yt.grad_fn.name(), y.grad_fn.name())
            g = torch.randn(y.shape, dtype=torch.float64)
            y.backward(g)
            yt.backward(tsr(g))
            for m, t in ((ct, c), (at, a), (bt, b)):
                self.check(m.grad, t.grad)

    def test_outer_matches_torch(self):
        a = torch.randn(3, dtype=torch.float64, requires_grad=True)
        b = torch.randn(4, dtype=torch.float32)
        y = torch.outer(a, b)
        at = tsr(a, True)
        yt = ts.outer(at, tsr(b))
        self.check(yt, y, 1e-6)
        self.assertEqual(yt.grad_fn.name(), y.grad_fn.name())
        self.check(tsr(a).outer(tsr(b)), a.outer(b), 1e-6)

    def test_errors(self):
        with self.assertRaisesRegex(Exception, "batch1 must be a 3D tensor"):
            ts.bmm(tsr(torch.ones(2, 3)), tsr(torch.ones(2, 3, 4)))
        with self.assertRaisesRegex(Exception, r"batch2 tensor to be: \[2, 3\] but got: \[2, 4\]"):
            ts.bmm(tsr(torch.ones(2, 3, 3)), tsr(torch.ones(2, 4, 4)))
        with self.assertRaisesRegex(Exception, "outer: Expected 1-D argument self, but got 2-D"):
            ts.outer(tsr(torch.ones(2, 3)), tsr(torch.ones(3)))


class LowPrecision(unittest.TestCase):
    """bfloat16 against torch 1.13's own bfloat16 (its oneDNN kernel, taken
    at these sizes, sums in float32 and rounds once, as tessera; the order
    of the sums may differ: one bfloat16 ulp of the result, 2^-7 relative,
    plus 2^-7 of the largest magnitude for sums that cancel). float16
    (torch 1.13 has none on the CPU; torch 2.x sums in float32): torch's
    float32 product of the same float16 values rounded once, within one
    float16 ulp."""

    def close(self, mine, ref, dtype, ulps=1):
        self.assertEqual(mine.dtype, {torch.bfloat16: ts.bfloat16, torch.float16: ts.float16}[dtype])
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        rel = ulps * (2.0 ** -7 if dtype == torch.bfloat16 else 2.0 ** -10)
        want = ref.detach().to(dtype).double().numpy()
        got = values(mine)
        bound = rel * np.abs(want) + rel * np.abs(want).max(initial=0.0) / 16
        self.assertTrue(np.all(np.abs(got - want) <= bound), f"max error {np.abs(got - want).max()}")

    def reference(self, fn, dtype, *xs, widen=False):
        """fn on torch tensors of dtype (bfloat16: torch's own; float16, or
        with widen: on float32 copies), result and gradients for a random
        output gradient."""
        if dtype == torch.bfloat16 and not widen:
            leaves = [x.detach().clone().requires_grad_() for x in xs]
            y = fn(*leaves)
        else:
            leaves = [x.detach().float().requires_grad_() for x in xs]
            y = fn(*leaves)
        g = torch.randn(y.shape).to(dtype)
        y.backward(g.to(y.dtype))
        return y.detach().to(dtype), g, [x.grad.to(dtype) for x in leaves]

    def run_case(self, fn, tfn, dtype, *shapes, transpose_last=False, widen=False, grad_ulps=1):
        xs = [torch.randn(*s).to(dtype) for s in shapes]
        if transpose_last:  # the last operand given transposed (strides swapped)
            xs[-1] = xs[-1].transpose(-2, -1).contiguous().transpose(-2, -1)
        y, g, grads = self.reference(fn, dtype, *xs, widen=widen)
        mine = [tsr(x, True) for x in xs]
        yt = tfn(*mine)
        self.close(yt, y, dtype)
        yt.backward(tsr(g))
        for m, r in zip(mine, grads):
            self.close(m.grad, r, dtype, grad_ulps)
        return yt

    def test_products_match_torch(self):
        F = torch.nn.functional
        cases = [
            (torch.matmul, ts.matmul, [(48, 96), (96, 40)], {}),
            (torch.matmul, ts.matmul, [(48, 96), (96, 40)], {"transpose_last": True}),
            # A broadcast operand's gradient sums the batches' products, each
            # rounded to the dtype first (as torch's bmm-then-sum): the
            # float32 reference rounds once, hence more than one ulp.
            (torch.matmul, ts.matmul, [(2, 1, 24, 64), (3, 64, 20)], {"grad_ulps": 4}),
            (torch.mm, ts.mm, [(40, 64), (64, 33)], {}),
            # torch 1.13's bfloat16 mv rounds partial sums: its float32 sums instead.
            (torch.mv, ts.mv, [(40, 64), (64,)], {"widen": True}),
            (torch.bmm, ts.bmm, [(3, 32, 64), (3, 64, 24)], {"transpose_last": True}),
            (lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2),
             lambda c, a, b: ts.baddbmm(c, a, b, beta=0.5, alpha=2), [(24,), (3, 32, 64), (3, 64, 24)], {}),
            (F.linear, ts.nn.functional.linear, [(2, 20, 64), (48, 64), (48,)], {}),
            (F.linear, ts.nn.functional.linear, [(40, 64), (48, 64)], {}),
        ]
        torch.manual_seed(31)
        for dtype in (torch.bfloat16, torch.float16):
            for fn, tfn, shapes, kw in cases:
                with self.subTest(dtype=dtype, fn=getattr(fn, "__name__", "lambda"), shapes=shapes):
                    self.run_case(fn, tfn, dtype, *shapes, **kw)

    def test_grad_fn_names_as_float32(self):
        a, b = torch.randn(8, 16, requires_grad=True), torch.randn(16, 4)
        for dtype in (torch.bfloat16, torch.float16):
            at = tsr(a.to(dtype), True)
            self.assertEqual(ts.matmul(at, tsr(b.to(dtype))).grad_fn.name(), (a @ b).grad_fn.name())

    def test_mixed_dtypes_refused(self):
        bf, f = tsr(torch.ones(2, 2, dtype=torch.bfloat16)), tsr(torch.ones(2, 2))
        h = tsr(torch.ones(2, 2, dtype=torch.float16))
        with self.assertRaisesRegex(Exception, "expected scalar type BFloat16 but found Float"):
            ts.matmul(bf, f)
        with self.assertRaisesRegex(Exception, "expected scalar type Half but found BFloat16"):
            ts.mm(h, bf)
        with self.assertRaisesRegex(Exception, "expected scalar type BFloat16 but found Half"):
            ts.bmm(bf.unsqueeze(0), h.unsqueeze(0))
        with self.assertRaisesRegex(Exception, "self and mat2 must have the same dtype"):
            ts.nn.functional.linear(bf, h)


if __name__ == "__main__":
    unittest.main()
