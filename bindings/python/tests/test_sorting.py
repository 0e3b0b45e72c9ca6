"""sort / argsort / msort / topk / kthvalue from Python against PyTorch 1.13
itself: values and indices (stable sorts of inputs full of ties, NaN and
-0), every dtype, torch's signatures and named-tuple results, grad_fn
names, float64 gradients with double backward, and torch's errors."""
import unittest

import numpy as np
import torch

import tessera as ts


def values(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def mine(t):
    return ts.tensor(t.tolist(), dtype=getattr(ts, str(t.dtype).split(".")[-1]))


class Sorting(unittest.TestCase):
    def same(self, m, r):
        self.assertEqual(tuple(m.shape), tuple(r.shape))
        np.testing.assert_array_equal(values(m), r.double().numpy())

    def test_sort_matches_torch_stable(self):
        g = torch.Generator().manual_seed(3)
        x = torch.randint(-4, 4, (5, 40), generator=g).float()
        x[0, 3], x[1, 5], x[2, 7] = float("nan"), -0.0, 0.0
        for dt in (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64, torch.int8,
                   torch.uint8, torch.bool):
            xs = x.nan_to_num(0).to(dt) if not dt.is_floating_point else x.to(dt)
            for dim in (0, 1, -1):
                for desc in (False, True):
                    r = xs.sort(dim=dim, descending=desc, stable=True)
                    m = mine(xs).sort(dim=dim, descending=desc, stable=True)
                    self.same(m.indices, r.indices)
                    np.testing.assert_array_equal(values(m.values), r.values.double().numpy())
                    self.same(mine(xs).argsort(dim=dim, descending=desc), r.indices)
        self.same(ts.msort(mine(x)), torch.msort(x))
        self.assertEqual(type(ts.sort(mine(x))).__name__, "sort")

    def test_topk_and_kthvalue(self):
        x = torch.randperm(300, generator=torch.Generator().manual_seed(1)).reshape(6, 50).double()
        for dim in (0, 1):
            for largest in (True, False):
                r = x.topk(4, dim=dim, largest=largest)
                m = ts.topk(mine(x), 4, dim=dim, largest=largest)
                self.same(m.values, r.values)
                self.same(m.indices, r.indices)
            for keepdim in (False, True):
                r = x.kthvalue(3, dim, keepdim)
                m = mine(x).kthvalue(3, dim, keepdim)
                self.same(m.values, r.values)
                self.same(m.indices, r.indices)
        self.assertEqual(type(mine(x).topk(2)).__name__, "topk")
        self.assertEqual(type(mine(x).kthvalue(2)).__name__, "kthvalue")

    def test_gradients(self):
        x = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
        y = mine(x.detach()).requires_grad_()
        for f, name in [(lambda v: v.sort(dim=1, descending=True).values, "SortBackward0"),
                        (lambda v: v.sort(dim=0, stable=True).values, "SortBackward1"),
                        (lambda v: v.topk(3, dim=1).values, "TopkBackward0"),
                        (lambda v: v.kthvalue(2, dim=0).values, "KthvalueBackward0")]:
            rx, ry = f(x), f(y)
            self.assertEqual(ry.grad_fn.name(), name)
            self.assertEqual(type(rx.grad_fn).__name__, name)
            gx, = torch.autograd.grad((rx ** 2).sum(), x, create_graph=True)
            gy, = ts.autograd_grad((ry ** 2).sum(), y, create_graph=True)
            np.testing.assert_allclose(values(gy), gx.detach().numpy(), rtol=1e-12)
            ggx, = torch.autograd.grad((gx ** 2).sum(), x)
            ggy, = ts.autograd_grad((gy ** 2).sum(), y)
            np.testing.assert_allclose(values(ggy), ggx.numpy(), rtol=1e-12)

    def test_errors(self):
        for f, exc in [(lambda t, x: x.topk(5), RuntimeError), (lambda t, x: x.kthvalue(0), RuntimeError),
                       (lambda t, x: t.zeros(3, dtype=t.bool).topk(1), RuntimeError),
                       (lambda t, x: t.zeros(3, dtype=t.float16).kthvalue(1), RuntimeError),
                       (lambda t, x: t.zeros(0).kthvalue(1), IndexError)]:
            with self.assertRaises(exc):
                f(torch, torch.zeros(4))
            with self.assertRaises(exc):
                f(ts, ts.zeros(4))


if __name__ == "__main__":
    unittest.main()
