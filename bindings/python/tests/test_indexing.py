"""Indexing by tensors and masks from Python against PyTorch 1.13 itself:
getitem/setitem with index tensors, masks, lists, mixed with slices, None
and ...; index_put_, masked_fill, masked_select, nonzero, the scatter family,
index_add/index_copy/index_fill, take_along_dim — values, shapes, grad_fn
names, float64 gradients (create_graph too), torch's exception types."""
import unittest
import warnings

import numpy as np
import torch

import tessera as ts

warnings.simplefilter("ignore")  # torch's "scatter_reduce() is in beta"


def values(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def X(lib, dtype=None):
    return lib.arange(24).reshape(2, 3, 4).to(lib.float32 if dtype is None else dtype)


IDX = [[0, 1, 2, 0], [2, 0, 0, 1]]
XS = [0.1, 0.9, 0.3, 0.7, 0.5, 0.2, 0.8, 0.4, 0.6, 0.0, 0.35, 0.95]


class Values(unittest.TestCase):
    def both(self, f):
        ref, mine = f(torch), f(ts)
        if isinstance(ref, tuple):
            for r, m in zip(ref, mine):
                self.same(m, r)
        else:
            self.same(mine, ref)

    def same(self, mine, ref):
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        self.assertEqual(str(mine.dtype).split(".")[-1], str(ref.dtype).split(".")[-1])
        np.testing.assert_allclose(values(mine), ref.detach().double().numpy(), rtol=1e-6, atol=1e-6)

    def test_getitem(self):
        for key in [lambda t: t.tensor([1, 0]), lambda t: (slice(None), t.tensor([2, 0, 2])),
                    lambda t: (t.tensor([1, 0]), slice(None), t.tensor([3, 1])),
                    lambda t: (slice(None), t.tensor([[0], [2]]), t.tensor([3, 1])),
                    lambda t: ([0, 1], slice(1, None), None, [-1, 0]), lambda t: (1, [2, 0]),
                    lambda t: (Ellipsis, t.tensor([True, False, True, True])), lambda t: True, lambda t: False,
                    lambda t: (0, t.tensor(2)), lambda t: [True, False]]:
            self.both(lambda t: X(t)[key(t)])
        self.both(lambda t: X(t)[X(t) > 5])
        self.both(lambda t: X(t)[X(t)[:, :, 0] > 5])
        self.both(lambda t: X(t).transpose(0, 2)[t.tensor([3, 0])])
        self.both(lambda t: X(t, t.int64)[t.tensor([1])])
        self.both(lambda t: X(t, t.bool)[:, t.tensor([0, 0])])
        self.both(lambda t: X(t)[t.tensor([], dtype=t.int64)])

    def test_setitem(self):
        def put(t):
            x = X(t)
            x[x > 10] = 0
            x[t.tensor([0]), t.tensor([1])] = t.tensor([7., 8., 9., 10.])
            x[:, [0, 2], 1] = -1
            x[1, t.tensor([True, False, True])] = t.ones(4)
            return x
        self.both(put)

    def test_functions(self):
        self.both(lambda t: X(t).index_put((t.tensor([0, 0, 1]),), t.ones(3, 4), accumulate=True))
        self.both(lambda t: X(t).index_put_((t.tensor([1]), t.tensor([2])), t.tensor(-3.)))
        self.both(lambda t: t.nonzero(X(t) > 20))
        self.both(lambda t: t.nonzero(X(t) > 20, as_tuple=True))
        self.both(lambda t: t.nonzero(t.tensor(2.0), as_tuple=True))
        self.both(lambda t: X(t).masked_fill(X(t) > 3, -1.5))
        self.both(lambda t: X(t, t.int32).masked_fill(X(t) > 3, t.tensor(7)))
        self.both(lambda t: X(t).masked_fill_(t.tensor([True, False, False, False]), 2))
        self.both(lambda t: X(t).masked_select(X(t) > 3))
        self.both(lambda t: t.masked_select(X(t), t.tensor([[True], [False], [True]])))
        self.both(lambda t: t.zeros(3, 4).scatter(0, t.tensor(IDX), t.ones(2, 4) * 3))
        self.both(lambda t: t.zeros(3, 4).scatter(0, t.tensor(IDX), 2.5))
        self.both(lambda t: t.zeros(3, 4).scatter_(0, t.tensor(IDX), 2.5, reduce="add"))
        self.both(lambda t: t.ones(3, 4).scatter(0, t.tensor(IDX), t.full((2, 4), 3.), reduce="multiply"))
        self.both(lambda t: t.zeros(3, 4).scatter_add(0, t.tensor(IDX), t.ones(2, 4)))
        self.both(lambda t: t.zeros(3, 4, dtype=t.int64).scatter_add_(1, t.tensor(IDX).t()[:3], t.ones(3, 2).long()))
        for r in ["sum", "prod", "mean", "amax", "amin"]:
            for inc in [True, False]:
                for dt in ["float32", "int64"]:
                    self.both(lambda t: (t.arange(12).reshape(3, 4) + 1).to(getattr(t, dt)).scatter_reduce(
                        0, t.tensor(IDX), (t.arange(8).reshape(2, 4) - 3).to(getattr(t, dt)), r, include_self=inc))
        self.both(lambda t: t.zeros(3, 4).index_add(0, t.tensor([0, 2, 0]), t.ones(3, 4), alpha=2))
        self.both(lambda t: t.zeros(3, 4).index_add_(1, t.tensor([0, 0], dtype=t.int32), t.ones(3, 2)))
        self.both(lambda t: t.zeros(3, 4).index_copy(1, t.tensor([3, 0]), t.ones(3, 2)))
        self.both(lambda t: t.zeros(3, 4).index_fill(1, t.tensor([3, -4]), 2.0))
        self.both(lambda t: t.zeros(3, 4).index_fill_(0, t.tensor([1]), t.tensor(-2.0)))
        self.both(lambda t: t.take_along_dim(X(t), t.tensor([[[0], [3], [1]]]), 2))
        self.both(lambda t: t.take_along_dim(X(t), t.tensor([5, 0])))
        self.both(lambda t: X(t).take_along_dim(X(t).argmax(2, keepdim=True), dim=2))


class Gradients(unittest.TestCase):
    CASES = [
        ("IndexBackward0", lambda t, x: x[t.tensor([1, 0, 1])]),
        ("IndexBackward0", lambda t, x: x[x > 0.2]),
        ("IndexBackward0", lambda t, x: x[:, [0, 3]]),
        ("MaskedFillBackward0", lambda t, x: x.masked_fill(x > 0.5, 0)),
        ("MaskedSelectBackward0", lambda t, x: x.masked_select(x > 0.3)),
        ("ScatterBackward0", lambda t, x: x.scatter(0, t.tensor(IDX), x[:2] * 3)),
        ("ScatterBackward1", lambda t, x: x.scatter(0, t.tensor(IDX), 1.0)),
        ("ScatterAddBackward0", lambda t, x: x.scatter_add(0, t.tensor(IDX), x[1:] * 3)),
        ("IndexAddBackward0", lambda t, x: x.index_add(0, t.tensor([0, 2, 0]), x * 2, alpha=3)),
        ("IndexCopyBackward0", lambda t, x: x.index_copy(0, t.tensor([1]), x[:1] * 2)),
        ("IndexFillBackward0", lambda t, x: x.index_fill(1, t.tensor([1]), 2.0)),
        ("IndexPutBackward0", lambda t, x: x.index_put((t.tensor([0, 0]),), x[1] * 2, accumulate=True)),
        ("IndexPutBackward0", lambda t, x: x.index_put((t.tensor([0, 2]),), x[1] * 2)),
        ("GatherBackward0", lambda t, x: t.take_along_dim(x, t.tensor([[0], [3], [1]]), 1)),
    ] + [("ScatterReduceBackward0", (lambda r, inc: lambda t, x: x.scatter_reduce(
        0, t.tensor(IDX), x[1:] * 3, r, include_self=inc))(r, inc))
         for r in ["sum", "mean", "amax", "amin", "prod"] for inc in [True, False]]

    def test_gradients_and_names(self):
        for name, f in self.CASES:
            a = torch.tensor(XS, dtype=torch.float64).reshape(3, 4).requires_grad_()
            b = ts.tensor(XS, dtype=ts.float64).reshape(3, 4).requires_grad_()
            ya, yb = f(torch, a), f(ts, b)
            self.assertEqual(type(ya.grad_fn).__name__, name)
            self.assertEqual(yb.grad_fn.name(), name)
            ga, = torch.autograd.grad(ya.pow(2).sum(), a, create_graph=True)
            gb, = ts.autograd_grad(yb.pow(2).sum(), b, create_graph=True)
            np.testing.assert_allclose(values(gb), ga.detach().numpy(), rtol=1e-9, atol=1e-12)
            # double backward: the gradient of the gradient's norm
            gga, = torch.autograd.grad(ga.pow(2).sum(), a)
            ggb, = ts.autograd_grad(gb.pow(2).sum(), b)
            np.testing.assert_allclose(values(ggb), gga.numpy(), rtol=1e-9, atol=1e-12)

    def test_setitem_on_a_non_leaf_records_history(self):
        a = torch.tensor(XS, dtype=torch.float64).reshape(3, 4).requires_grad_()
        b = ts.tensor(XS, dtype=ts.float64).reshape(3, 4).requires_grad_()
        outs = []
        for lib, x in ((torch, a), (ts, b)):
            y = x * 2
            y[y > 1] = 0
            y[lib.tensor([0])] = x[2] * 3
            y.sum().backward()
            outs.append(x.grad)
        np.testing.assert_allclose(values(outs[1]), outs[0].numpy())


class Errors(unittest.TestCase):
    def raises(self, exc, needle, f):
        with self.assertRaises(exc) as ref:
            f(torch)
        with self.assertRaises(exc) as mine:
            f(ts)
        self.assertIn(needle, str(mine.exception))
        return ref

    def test_index_errors(self):
        self.raises(IndexError, "index 3 is out of bounds for dimension 0 with size 3", lambda t: t.zeros(3, 4)[t.tensor([3])])
        self.raises(IndexError, "too many indices", lambda t: t.zeros(3, 4)[[0], [0], [0]])
        self.raises(IndexError, "could not be broadcast together", lambda t: t.zeros(3, 4)[[0, 1], [0, 1, 2]])
        self.raises(IndexError, "does not match the shape of the indexed tensor",
                    lambda t: t.zeros(3, 4)[t.zeros(2, dtype=t.bool)])
        self.raises(IndexError, "tensors used as indices must be long, byte or bool tensors",
                    lambda t: t.zeros(3, 4)[t.tensor([0.0])])

    def test_nothing_written_on_failure(self):
        x = ts.zeros(3, 4)
        with self.assertRaises(IndexError):
            x[ts.tensor([0, 5])] = 1.0
        with self.assertRaises(RuntimeError):
            x.index_put_((ts.tensor([0]),), ts.ones(4, dtype=ts.float64))
        with self.assertRaises(IndexError):
            x.scatter_(0, ts.tensor([[0, 9]]), 1.0)
        with self.assertRaises(IndexError):
            x.index_add_(0, ts.tensor([0, 3]), ts.ones(2, 4))
        self.assertEqual(x.sum().item(), 0.0)
        self.assertEqual(x._version, 0)

    def test_argument_errors(self):
        self.raises(RuntimeError, "reduce argument must be either add or multiply",
                    lambda t: t.zeros(3).scatter(0, t.tensor([0]), 1.0, reduce="max"))
        self.raises(RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin",
                    lambda t: t.zeros(3).scatter_reduce(0, t.tensor([0]), t.ones(1), "max"))
        self.raises(RuntimeError, "Index put requires the source and destination dtypes match",
                    lambda t: t.zeros(3).index_put_((t.tensor([0]),), t.ones(1, dtype=t.float64)))
        self.raises(RuntimeError, "a leaf Variable that requires grad",
                    lambda t: t.zeros(3, requires_grad=True).scatter_(0, t.tensor([0]), 1.0))
        self.raises(RuntimeError, "dtype of indices should be Long",
                    lambda t: t.take_along_dim(t.zeros(3, 4), t.zeros(2, 2, dtype=t.int32), 1))


if __name__ == "__main__":
    unittest.main()
