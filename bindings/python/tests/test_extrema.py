"""maximum / minimum, amax / amin, norm from Python against PyTorch 1.13
itself: values (NaN, broadcasting, dtypes), grad_fn names and float64
gradients with ties (torch's half-split and even-sharing rules)."""
import unittest

import numpy as np
import torch

import tessera as ts


def values(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def mine(t, requires_grad=False):
    m = ts.tensor(t.detach().tolist(), dtype=getattr(ts, str(t.dtype).split(".")[-1]))
    return m.requires_grad_() if requires_grad else m


CASES = [(lambda t, x, y: t.maximum(x, y), "MaximumBackward0"), (lambda t, x, y: t.minimum(x, y), "MinimumBackward0"),
         (lambda t, x, y: t.min(x, y), "MinimumBackward0"), (lambda t, x, y: x.amax(1), "AmaxBackward0"),
         (lambda t, x, y: x.amin(), "AminBackward0"), (lambda t, x, y: t.amax(x, (0, 1), keepdim=True), "AmaxBackward0"),
         (lambda t, x, y: x.norm(), "NormBackward1"), (lambda t, x, y: x.norm(1, 1), "NormBackward1"),
         (lambda t, x, y: x.norm(float("inf")), "NormBackward1"), (lambda t, x, y: x.norm(3, 0), "NormBackward1"),
         (lambda t, x, y: t.norm(x, p="fro", dim=1, keepdim=True), "NormBackward1"),
         (lambda t, x, y: x.norm(0.5, 0), "NormBackward1")]


class Extrema(unittest.TestCase):
    def test_values_and_gradients_with_ties(self):
        g = torch.Generator().manual_seed(2)
        a = torch.randn(3, 4, dtype=torch.float64, generator=g)
        b = torch.randn(4, dtype=torch.float64, generator=g)
        a[0, 1] = b[1]  # a tie for maximum / minimum
        a[1, 2] = a[1, 3] = a[1].max() + 1  # a tie for amax and the inf-norm
        a = a.requires_grad_()
        b = b.requires_grad_()
        ma, mb = mine(a, True), mine(b, True)
        for f, name in CASES:
            r, m = f(torch, a, b), f(ts, ma, mb)
            self.assertEqual(m.grad_fn.name(), name)
            self.assertEqual(type(r.grad_fn).__name__, name)
            np.testing.assert_allclose(values(m), r.detach().numpy(), rtol=1e-12)
            gr = torch.autograd.grad((r ** 2).sum(), (a, b), allow_unused=True)
            gm = ts.autograd_grad((m ** 2).sum(), (ma, mb), allow_unused=True)
            for x, y in zip(gm, gr):
                if y is None:
                    self.assertIsNone(x)
                else:
                    np.testing.assert_allclose(values(x), y.numpy(), rtol=1e-10, atol=1e-14)

    def test_nan_and_dtypes(self):
        x = torch.tensor([[1.0, float("nan")], [2.0, 3.0]])
        y = torch.tensor([float("nan"), 0.5])
        for f in [lambda t, p, q: t.maximum(p, q), lambda t, p, q: t.minimum(p, q), lambda t, p, q: p.amax(1),
                  lambda t, p, q: p.amin(0), lambda t, p, q: p.norm(dim=1)]:
            np.testing.assert_array_equal(values(f(ts, mine(x), mine(y))), f(torch, x, y).numpy())
        self.assertEqual(ts.maximum(ts.tensor([1, 2]), ts.tensor([1.5, 0.5])).dtype, ts.float32)
        self.assertEqual(ts.minimum(ts.tensor([True]), ts.tensor([False])).dtype, ts.bool)
        self.assertEqual(ts.tensor([[1, 5], [3, 2]]).amax(0).tolist(), [3, 5])

    def test_errors(self):
        for f in [lambda t: t.zeros(2, 0).amax(1), lambda t: t.zeros(3, dtype=t.int64).norm(),
                  lambda t: t.maximum(t.zeros(2), t.zeros(3))]:
            with self.assertRaises(Exception) as ref:
                f(torch)
            with self.assertRaises(type(ref.exception)):  # tessera's errors are RuntimeErrors and IndexErrors alike
                f(ts)


if __name__ == "__main__":
    unittest.main()
