"""Autograd against PyTorch 1.13's numbers (golden.json), and grad mode
scopes."""
import json
import os
import threading
import unittest

import tessera as ts

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden.json")))["autograd"]


def assert_close(test, got, want, tol=1e-5):
    if isinstance(want, list):
        test.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            assert_close(test, g, w, tol)
    else:
        test.assertAlmostEqual(got, want, delta=tol * max(1.0, abs(want)))


class Gradients(unittest.TestCase):
    def test_small_network_matches_torch(self):
        x = ts.tensor(GOLDEN["x"], requires_grad=True)
        w1 = ts.tensor(GOLDEN["w1"], requires_grad=True)
        b1 = ts.tensor(GOLDEN["b1"], requires_grad=True)
        w2 = ts.tensor(GOLDEN["w2"], requires_grad=True)
        target = ts.tensor(GOLDEN["target"])
        hidden = ts.relu(x @ w1 + b1)
        loss = (ts.cross_entropy(hidden @ w2, target) + (ts.exp(x) * 0.5).mean()
                - ts.log(w1 * w1 + 1).sum() / 10)
        self.assertEqual(loss.grad_fn.name(), GOLDEN["grad_fn"])
        self.assertFalse(loss.is_leaf)
        loss.backward()
        assert_close(self, loss.item(), GOLDEN["loss"])
        assert_close(self, x.grad.tolist(), GOLDEN["grad_x"])
        assert_close(self, w1.grad.tolist(), GOLDEN["grad_w1"])
        assert_close(self, b1.grad.tolist(), GOLDEN["grad_b1"])
        assert_close(self, w2.grad.tolist(), GOLDEN["grad_w2"])
        self.assertIsNone(target.grad)

    def test_grad_accumulates_and_clears(self):
        w = ts.ones(3, requires_grad=True)
        (w * 2).sum().backward()
        (w * 3).sum().backward()
        self.assertEqual(w.grad.tolist(), [5.0] * 3)
        w.zero_grad()
        self.assertEqual(w.grad.tolist(), [0.0] * 3)
        w.grad = None
        self.assertIsNone(w.grad)
        w.grad = ts.full((3,), 0.5)
        self.assertEqual(w.grad.tolist(), [0.5] * 3)
        with self.assertRaises(ts.ShapeMismatchError):
            w.grad = ts.zeros(2)

    def test_second_backward_needs_retain_graph(self):
        w = ts.ones(2, requires_grad=True)
        loss = (w * w).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        self.assertEqual(w.grad.tolist(), [4.0, 4.0])
        with self.assertRaises(ts.AutogradError):
            loss.backward()

    def test_detach_and_requires_grad(self):
        w = ts.ones(2).requires_grad_()
        self.assertTrue(w.requires_grad and w.is_leaf)
        d = (w * 2).detach()
        self.assertFalse(d.requires_grad)
        with self.assertRaises(ts.DTypeMismatchError):
            ts.arange(3).requires_grad = True


class GradMode(unittest.TestCase):
    def test_no_grad_scope(self):
        w = ts.ones(2, requires_grad=True)
        with ts.no_grad():
            self.assertFalse(ts.is_grad_enabled())
            y = w * 2
            w -= 0.5  # the SGD step pattern: in place on a leaf, allowed here
            with ts.enable_grad():
                self.assertTrue((w * 2).requires_grad)
            self.assertFalse(ts.is_grad_enabled())
        self.assertTrue(ts.is_grad_enabled())
        self.assertFalse(y.requires_grad)
        self.assertIsNone(y.grad_fn)
        self.assertEqual(w.tolist(), [0.5, 0.5])

    def test_restores_on_exception_and_as_decorator(self):
        try:
            with ts.no_grad():
                raise KeyError
        except KeyError:
            pass
        self.assertTrue(ts.is_grad_enabled())

        @ts.no_grad()
        def step():
            return ts.is_grad_enabled()
        self.assertFalse(step())
        self.assertTrue(ts.is_grad_enabled())

    def test_set_grad_enabled(self):
        ts.set_grad_enabled(False)
        self.assertFalse(ts.is_grad_enabled())
        ts.set_grad_enabled(True)
        with ts.set_grad_enabled(False):
            self.assertFalse(ts.is_grad_enabled())
        self.assertTrue(ts.is_grad_enabled())

    def test_mode_is_per_thread(self):
        seen = []
        with ts.no_grad():
            thread = threading.Thread(target=lambda: seen.append(ts.is_grad_enabled()))
            thread.start()
            thread.join()
        self.assertEqual(seen, [True])


if __name__ == "__main__":
    unittest.main()
