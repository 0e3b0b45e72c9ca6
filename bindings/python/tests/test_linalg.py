"""bmm and outer from Python against PyTorch 1.13 itself: values, strides,
grad_fn names, gradients, errors."""
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
            self.assertEqual(yt.grad_fn, y.grad_fn.name())
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
            self.assertEqual(yt.grad_fn, y.grad_fn.name())
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
        self.assertEqual(yt.grad_fn, y.grad_fn.name())
        self.check(tsr(a).outer(tsr(b)), a.outer(b), 1e-6)

    def test_errors(self):
        with self.assertRaisesRegex(Exception, "batch1 must be a 3D tensor"):
            ts.bmm(tsr(torch.ones(2, 3)), tsr(torch.ones(2, 3, 4)))
        with self.assertRaisesRegex(Exception, r"batch2 tensor to be: \[2, 3\] but got: \[2, 4\]"):
            ts.bmm(tsr(torch.ones(2, 3, 3)), tsr(torch.ones(2, 4, 4)))
        with self.assertRaisesRegex(Exception, "outer: Expected 1-D argument self, but got 2-D"):
            ts.outer(tsr(torch.ones(2, 3)), tsr(torch.ones(3)))


if __name__ == "__main__":
    unittest.main()
