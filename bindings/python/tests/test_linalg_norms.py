"""torch.linalg's norms (vector_norm, matrix_norm, norm) against PyTorch
1.13 in the same process: values, gradients, grad_fn names, dims and
keepdim, dtype=, and torch's errors."""
import math
import unittest

import torch as real_torch

import tessera

VALUES = [[0.0, 1.0, -2.0, 0.5], [3.0, 0.0, 4.0, -1.5], [-0.25, 2.0, 1.0, 0.0]]


def run(torch, fn):
    """fn(torch, x) with x requiring grad: (value, gradient of its sum, grad_fn name)."""
    x = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    y = fn(torch, x)
    (g,) = torch.autograd.grad(y.sum(), x, allow_unused=True)
    return y.tolist(), g.tolist() if g is not None else None, y.grad_fn.name()


def close(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(p, q) for p, q in zip(a, b))
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


class Norms(unittest.TestCase):
    def same(self, fn):
        mine, ref = run(tessera, fn), run(real_torch, fn)
        self.assertTrue(close(mine[0], ref[0]), (mine[0], ref[0]))
        self.assertTrue(mine[1] is None and ref[1] is None or close(mine[1], ref[1]), (mine[1], ref[1]))
        self.assertEqual(mine[2], ref[2])

    def test_vector_norm(self):
        for ord in (2, 1, 3, 0.5, math.inf, -math.inf, -1):
            for dim, keepdim in ((None, False), (1, False), (0, True), ((0, 1), False), (-1, True)):
                with self.subTest(ord=ord, dim=dim, keepdim=keepdim):
                    self.same(lambda t, x: t.linalg.vector_norm(x, ord, dim, keepdim))

    def test_matrix_norm(self):
        for ord in ("fro", 1, -1, math.inf, -math.inf):
            for dim, keepdim in (((-2, -1), False), ((1, 0), False), ((0, 1), True)):
                with self.subTest(ord=ord, dim=dim, keepdim=keepdim):
                    self.same(lambda t, x: t.linalg.matrix_norm(x, ord, dim, keepdim))

    def test_norm_dispatch(self):
        for args in ((), (None, 1), (2, 0), ("fro",), (1,), (math.inf, (1, 0)), (None, (0, 1), True)):
            with self.subTest(args=args):
                self.same(lambda t, x: t.linalg.norm(x, *args))
        self.same(lambda t, x: t.linalg.norm(x.reshape(-1), 3))

    def test_dtype_converts_first(self):
        for torch in (tessera, real_torch):
            y = torch.linalg.vector_norm(torch.tensor([3.0, 4.0]), dtype=torch.float64)
            self.assertEqual(y.dtype, torch.float64)
            self.assertEqual(y.item(), 5.0)
            self.assertEqual(torch.linalg.vector_norm(torch.tensor([1.0, 2.0], dtype=torch.float16)).dtype,
                             torch.float16)

    def test_errors_are_torchs(self):
        cases = [
            lambda t: t.linalg.vector_norm(t.tensor([1, 2])),
            lambda t: t.linalg.vector_norm(t.empty(0), math.inf),
            lambda t: t.linalg.vector_norm(t.empty(0), -math.inf),
            lambda t: t.linalg.vector_norm(t.empty(2, 0), math.inf, 1),
            lambda t: t.linalg.matrix_norm(t.ones(2, 2), 3),
            lambda t: t.linalg.matrix_norm(t.ones(2), 1),
            lambda t: t.linalg.matrix_norm(t.ones(2, 2), 1, (0, 0)),
            lambda t: t.linalg.norm(t.ones(2, 2, 2), "fro", 1),
            lambda t: t.linalg.norm(t.ones(2, 2, 2), 2),
        ]
        for i, case in enumerate(cases):
            with self.subTest(case=i):
                with self.assertRaises(RuntimeError) as ref:
                    case(real_torch)
                with self.assertRaises(RuntimeError) as mine:
                    case(tessera)
                self.assertEqual(str(mine.exception), str(ref.exception))

    def test_empty_dims_that_are_not_reduced_are_fine(self):
        for torch in (tessera, real_torch):
            self.assertEqual(torch.linalg.vector_norm(torch.empty(2, 0), math.inf, 0).shape, (0,))
            self.assertEqual(torch.linalg.vector_norm(torch.empty(0)).item(), 0.0)

    def test_spectral_and_nuclear_norms_are_refused(self):
        for ord in ("nuc", 2, -2):
            with self.assertRaises(NotImplementedError):
                tessera.linalg.matrix_norm(tessera.ones(2, 2), ord)


if __name__ == "__main__":
    unittest.main()
