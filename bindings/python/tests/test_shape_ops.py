"""Factories and shape ops from Python against PyTorch 1.13 itself:
linspace, eye, tril/triu (in place too), flip, roll, repeat, tile, einsum —
values, dtypes, torch's signatures, gradients with double backward, and
errors."""
import unittest

import numpy as np
import torch

import tessera as ts


def values(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def mine(t, requires_grad=False):
    m = ts.tensor(t.detach().tolist(), dtype=getattr(ts, str(t.dtype).split(".")[-1]))
    return m.requires_grad_() if requires_grad else m


class ShapeOps(unittest.TestCase):
    def same(self, m, r, tol=0.0):
        self.assertEqual(tuple(m.shape), tuple(r.shape))
        self.assertEqual(str(m.dtype).split(".")[-1], str(r.dtype).split(".")[-1])
        np.testing.assert_allclose(values(m), r.detach().double().numpy(), rtol=tol, atol=tol)

    def test_factories(self):
        self.same(ts.linspace(0, 1, steps=7), torch.linspace(0, 1, steps=7), 1e-7)
        self.same(ts.linspace(-3, 3, 6, dtype=ts.float64), torch.linspace(-3, 3, 6, dtype=torch.float64), 1e-15)
        self.same(ts.linspace(0, 10, 5, dtype=ts.int64), torch.linspace(0, 10, 5, dtype=torch.int64))
        self.same(ts.linspace(1, 2, 0), torch.linspace(1, 2, 0))
        self.same(ts.eye(3), torch.eye(3))
        self.same(ts.eye(2, 4, dtype=ts.bool), torch.eye(2, 4, dtype=torch.bool))
        self.assertTrue(ts.eye(2, requires_grad=True).requires_grad)

    def test_shape_ops(self):
        x = torch.randn(2, 3, 4)
        m = mine(x)
        for k in (-2, 0, 1, 4):
            self.same(m.tril(k), x.tril(k))
            self.same(ts.triu(m, diagonal=k), torch.triu(x, diagonal=k))
        self.same(ts.triu(ts.ones(5, 5, dtype=ts.bool), diagonal=1), torch.triu(torch.ones(5, 5, dtype=torch.bool), 1))
        y, n = x.clone(), m.clone()
        y.tril_(1), n.tril_(1)
        self.same(n, y)
        self.same(m.flip(0, 2), x.flip(0, 2))
        self.same(ts.flip(m, [1]), torch.flip(x, [1]))
        self.same(m.transpose(0, 2).fliplr(), x.transpose(0, 2).fliplr())
        self.same(m.roll(2), x.roll(2))
        self.same(m.roll((1, -7), (0, 2)), x.roll((1, -7), (0, 2)))
        self.same(m.repeat(2, 1, 1, 3), x.repeat(2, 1, 1, 3))
        self.same(m.repeat((1, 2, 1)), x.repeat((1, 2, 1)))
        self.same(ts.tile(m, (2,)), torch.tile(x, (2,)))
        self.same(m.tile((2, 1, 1, 1)), x.tile((2, 1, 1, 1)))

    def test_einsum(self):
        g = torch.Generator().manual_seed(4)
        a, b, c = (torch.randn(*s, generator=g, dtype=torch.float64) for s in ((3, 4), (4, 5), (2, 3, 4)))
        for eq, ops in [("ij,jk->ik", (a, b)), ("ij,jk", (a, b)), ("ij->ji", (a,)), ("ii->i", (a[:, :3],)),
                        ("ii", (a[:, :3],)), ("bij,jk->bik", (c, b)), ("...ij,jk->...ik", (c, b)),
                        ("bij,bij->b", (c, c)), ("i,j->ij", (a[0], b[0])), ("ij,kj,lj->ikl", (a, a, a)),
                        ("ij->", (a,)), ("...j,j", (c, a[0])), ("Ab,bc->Ac", (a, b)), (" i j , j k -> i k ", (a, b))]:
            self.same(ts.einsum(eq, *[mine(o) for o in ops]), torch.einsum(eq, *ops), 1e-12)
        self.same(ts.einsum("ij,jk", [mine(a), mine(b)]), torch.einsum("ij,jk", [a, b]), 1e-12)

    def test_gradients(self):
        a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
        b = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
        ma, mb = mine(a, True), mine(b, True)
        for f in [lambda t, x, y: t.einsum("ij,jk->ik", x, y), lambda t, x, y: x.tril(1) * 2,
                  lambda t, x, y: x.flip(1).roll(1, 0), lambda t, x, y: x.repeat(2, 1, 2),
                  lambda t, x, y: t.einsum("ij,jk,ik->k", x, y, x @ y)]:
            r, m = f(torch, a, b), f(ts, ma, mb)
            gr = torch.autograd.grad((r ** 2).sum(), (a, b), create_graph=True, allow_unused=True)
            gm = ts.autograd_grad((m ** 2).sum(), (ma, mb), create_graph=True, allow_unused=True)
            for x, y in zip(gm, gr):
                if y is None:
                    self.assertIsNone(x)
                    continue
                np.testing.assert_allclose(values(x), y.detach().numpy(), rtol=1e-10, atol=1e-12)
            ggr = torch.autograd.grad(sum((g ** 2).sum() for g in gr if g is not None), a)
            ggm = ts.autograd_grad(sum((g ** 2).sum() for g in gm if g is not None), ma)
            np.testing.assert_allclose(values(ggm[0]), ggr[0].numpy(), rtol=1e-10, atol=1e-12)

    def test_errors(self):
        for f in [lambda t: t.zeros(3).tril(), lambda t: t.zeros(2, 3).repeat(2), lambda t: t.zeros(2, 3).roll(1, (0, 1)),
                  lambda t: t.zeros(2, 3).flip(0, 0), lambda t: t.eye(-1), lambda t: t.linspace(0, 1, -1),
                  lambda t: t.einsum("ij->", t.zeros(2, 3), t.zeros(2, 3)), lambda t: t.einsum("ijk", t.zeros(2, 3)),
                  lambda t: t.einsum("ij,jk", t.zeros(3, 4), t.zeros(3, 4)), lambda t: t.einsum("i!", t.zeros(2)),
                  lambda t: t.einsum("ii->i", t.zeros(3, 4))]:
            with self.assertRaises(Exception) as ref:
                f(torch)
            with self.assertRaises(type(ref.exception) if type(ref.exception) is not IndexError else Exception):
                f(ts)


if __name__ == "__main__":
    unittest.main()
