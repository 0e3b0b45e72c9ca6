"""Gradient checkpointing (tessera.checkpoint as a with-block, the callable
form, checkpoint_sequential), dropout and generator state, autograd_grad."""
import functools
import threading
import unittest

import tessera as ts

D, N, CLASSES, BLOCKS = 16, 8, 4, 4
P_DROP = 0.25


def make_model(seed=7):
    """A residual MLP's parameters (w, b per block, then the head) and a batch."""
    g = ts.Generator(seed)
    params = []
    for _ in range(BLOCKS):
        w = ts.randn(D, D, generator=g)
        w.mul_(0.4)
        b = ts.randn(D, generator=g)
        b.mul_(0.1)
        params += [w.requires_grad_(), b.requires_grad_()]
    params.append(ts.randn(D, CLASSES, generator=g).requires_grad_())
    x = ts.randn(N, D, generator=g)
    target = ts.tensor([i % CLASSES for i in range(N)])
    return params, x, target


def block(params, generator, i, h):
    """h + dropout(relu(h @ w_i + b_i)): matmul, add, relu, dropout."""
    w, b = params[2 * i], params[2 * i + 1]
    return h + ts.dropout(ts.relu(h @ w + b), P_DROP, True, generator)


def train_step(mode, **options):
    """One SGD step of the residual MLP with each block run as `mode` says;
    returns the parameter gradients and the updated parameters as bytes."""
    params, x, target = make_model()
    generator = ts.Generator(1234)
    blocks = [functools.partial(block, params, generator, i) for i in range(BLOCKS)]
    h = x
    if mode == "sequential":
        h = ts.checkpoint_sequential(blocks, 2, h, **options)
    else:
        for f in blocks:
            if mode == "plain":
                h = f(h)
            elif mode == "with":
                with ts.checkpoint(**options):
                    h = f(h)
            elif mode == "callable":
                h = ts.checkpoint(f, h, **options)
    loss = ts.cross_entropy(h @ params[-1], target)
    loss.backward()
    grads = [p.grad.to_bytes() for p in params]
    with ts.no_grad():
        for p in params:
            p.add_(p.grad, alpha=-0.1)
    return grads, [p.to_bytes() for p in params], loss.item()


class IdenticalGradients(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plain = train_step("plain")

    def assert_identical(self, other):
        grads, updated, loss = other
        self.assertEqual(loss, self.plain[2])
        self.assertEqual(len(grads), 2 * BLOCKS + 1)
        for i, (a, b) in enumerate(zip(self.plain[0], grads)):
            self.assertEqual(a, b, f"gradient of parameter {i} differs")
        self.assertEqual(self.plain[1], updated, "updated parameters differ")

    def test_with_block_per_block(self):
        self.assert_identical(train_step("with"))
        self.assertEqual(ts.checkpoint_depth(), 0)

    def test_callable_form(self):
        self.assert_identical(train_step("callable"))

    def test_checkpoint_sequential(self):
        self.assert_identical(train_step("sequential"))
        self.assertEqual(ts.checkpoint_depth(), 0)

    def test_options(self):
        self.assert_identical(train_step("with", early_stop=False, determinism_check="none"))
        self.assert_identical(train_step("with", keep_ops=["matmul", "add"]))
        self.assert_identical(train_step("callable", keep_ops="matmul, relu"))

    def test_fresh_rng_on_replay_changes_the_masks(self):
        # preserve_rng_state=False: the recomputation draws new dropout masks,
        # so the gradients are not those of the forward that ran.
        grads, _, _ = train_step("with", preserve_rng_state=False)
        self.assertNotEqual(grads[:2 * BLOCKS], self.plain[0][:2 * BLOCKS])


class Regions(unittest.TestCase):
    def test_depth_and_nesting(self):
        self.assertEqual(ts.checkpoint_depth(), 0)
        region = ts.checkpoint()
        with region:
            self.assertEqual(ts.checkpoint_depth(), 1)
            with ts.checkpoint(keep_ops=[]), region:
                self.assertEqual(ts.checkpoint_depth(), 3)
            self.assertEqual(ts.checkpoint_depth(), 1)
        self.assertEqual(ts.checkpoint_depth(), 0)
        self.assertIn("not entered", repr(region))

    def test_closes_when_the_body_raises(self):
        x = ts.ones(3, requires_grad=True)
        with self.assertRaises(KeyError):
            with ts.checkpoint():
                y = ts.relu(x * 2)
                raise KeyError("in the region")
        self.assertEqual(ts.checkpoint_depth(), 0)
        y.sum().backward()  # tensors made inside stay valid
        self.assertEqual(x.grad.tolist(), [2.0] * 3)

        def failing(t):
            t * 3
            raise ValueError("in fn")
        with self.assertRaises(ValueError):
            ts.checkpoint(failing, x)
        self.assertEqual(ts.checkpoint_depth(), 0)
        with self.assertRaises(ZeroDivisionError):
            ts.checkpoint_sequential([lambda t: t * 2, lambda t: 1 / 0, lambda t: t], 3, x)
        self.assertEqual(ts.checkpoint_depth(), 0)

    def test_end_without_begin_is_an_autograd_error(self):
        with self.assertRaises(ts.AutogradError) as caught:
            ts.checkpoint_end()
        self.assertEqual(caught.exception.status, ts.Status.AUTOGRAD)
        self.assertIn("no checkpoint region is open", str(caught.exception))
        ts.checkpoint_begin()
        ts.checkpoint_end()
        self.assertEqual(ts.checkpoint_depth(), 0)

    def test_backward_inside_an_open_region_raises(self):
        w = ts.ones(3, requires_grad=True)
        loss = (w * w).sum()
        with ts.checkpoint():
            with self.assertRaises(ts.AutogradError):
                loss.backward()
            with self.assertRaises(ts.AutogradError):
                ts.autograd_grad(loss, w)
        self.assertIsNone(w.grad)
        loss.backward()  # the graph is intact once the region is closed
        self.assertEqual(w.grad.tolist(), [2.0] * 3)

    def test_unknown_keep_ops_name(self):
        for keep_ops in (["matmul", "no_such_op"], "matmul,no_such_op"):
            with self.assertRaises(ts.InvalidArgumentError) as caught:
                with ts.checkpoint(keep_ops=keep_ops):
                    self.fail("the body must not run")
            self.assertEqual(caught.exception.status, ts.Status.INVALID_ARGUMENT)
            self.assertIn("'no_such_op'", str(caught.exception))
            self.assertEqual(ts.checkpoint_depth(), 0)
        with self.assertRaises(ts.InvalidArgumentError):
            ts.checkpoint(lambda: None, keep_ops=["bogus"])
        with self.assertRaises(TypeError):
            ts.checkpoint(keep_ops=[1])
        self.assertEqual(ts.checkpoint_depth(), 0)

    def test_argument_checks(self):
        x = ts.ones(2)
        with self.assertRaises(ValueError):
            ts.checkpoint(lambda t: t, x, use_reentrant=True)
        self.assertEqual(ts.checkpoint(lambda t, k: t * k, x, k=3, use_reentrant=False).tolist(),
                         [3.0, 3.0])
        with self.assertRaises(TypeError):
            ts.checkpoint(None, x)
        with self.assertRaises(TypeError):
            ts.checkpoint(42)
        with self.assertRaises(ValueError):
            ts.checkpoint(determinism_check="sometimes")
        for segments in (0, 4, 1.5):
            with self.assertRaises(ts.InvalidArgumentError):
                ts.checkpoint_sequential([lambda t: t] * 3, segments, x)
        with self.assertRaises(ts.InvalidArgumentError):
            ts.checkpoint_sequential([], 1, x)
        with self.assertRaises(TypeError):
            ts.checkpoint_sequential([lambda t: t], 1, x, keep_op="matmul")
        self.assertEqual(ts.checkpoint_sequential([lambda t: t + 1] * 3, 3, x).tolist(), [4.0, 4.0])

    def test_regions_are_per_thread(self):
        seen = []
        with ts.checkpoint():
            thread = threading.Thread(target=lambda: seen.append(ts.checkpoint_depth()))
            thread.start()
            thread.join()
            self.assertEqual(ts.checkpoint_depth(), 1)
        self.assertEqual(seen, [0])

    def test_region_must_end_on_its_thread(self):
        region = ts.checkpoint()
        region.__enter__()
        errors = []

        def end_elsewhere():
            try:
                region.__exit__(None, None, None)
            except ts.AutogradError as e:
                errors.append(e)
        thread = threading.Thread(target=end_elsewhere)
        thread.start()
        thread.join()
        self.assertEqual(len(errors), 1)
        self.assertEqual(ts.checkpoint_depth(), 1)
        region.__exit__(None, None, None)
        self.assertEqual(ts.checkpoint_depth(), 0)
        with self.assertRaises(ts.AutogradError):
            region.__exit__(None, None, None)  # exited more often than entered
        self.assertEqual(ts.checkpoint_depth(), 0)


class DropoutAndGeneratorState(unittest.TestCase):
    def test_state_round_trip(self):
        g = ts.Generator(2024)
        self.assertEqual(g.get_state(), (2024, 0))
        x = ts.ones(5, 7)
        first = ts.dropout(x, 0.5, True, g)
        self.assertEqual(g.get_state(), (2024, 35))  # one 32-bit word per element
        self.assertIs(g.set_state(2024, 0), g)
        self.assertEqual(ts.dropout(x, 0.5, True, g).to_bytes(), first.to_bytes())
        g.set_state((2024, 35))
        self.assertEqual(g.get_state(), (2024, 35))
        big = (1 << 64) - 1
        g.set_state(big, big - 1)
        self.assertEqual(g.get_state(), (big, big - 1))  # unsigned both ways
        for v in first.tolist()[0]:
            self.assertIn(v, (0.0, 2.0))

    def test_dropout_semantics(self):
        g = ts.Generator(1)
        x = ts.arange(1, 7, dtype=ts.float32).view(2, 3).requires_grad_()
        self.assertEqual(ts.dropout(x, 0.5, False, g).tolist(), x.tolist())
        self.assertEqual(ts.dropout(x, 0.0, True, g).tolist(), x.tolist())
        self.assertEqual(g.get_state()[1], 0)  # neither drew anything
        self.assertEqual(ts.dropout(x, 1.0, True, g).tolist(), [[0.0] * 3] * 2)
        y = ts.dropout(x, 0.5, True, g)
        self.assertEqual(y.grad_fn.name(), "MulBackward0")
        y.sum().backward()
        kept = [[v != 0 for v in row] for row in y.tolist()]
        self.assertEqual(x.grad.tolist(), [[2.0 if k else 0.0 for k in row] for row in kept])
        self.assertEqual(ts.dropout(ts.ones(4)).numel(), 4)  # default p, generator
        with self.assertRaises(ts.InvalidArgumentError):
            ts.dropout(x, 1.5, True, g)
        with self.assertRaises(ts.DTypeMismatchError):
            ts.dropout(ts.arange(3), 0.5, True, g)
        g.close()
        with self.assertRaises(ts.InvalidArgumentError):
            ts.dropout(x, 0.5, True, g)
        with self.assertRaises(ts.InvalidArgumentError):
            g.get_state()
        with self.assertRaises(ts.InvalidArgumentError):
            g.set_state(1, 2)


class AutogradGrad(unittest.TestCase):
    def test_second_derivative_of_a_cube(self):
        x = ts.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = (x * x * x).sum()
        (dy,) = ts.autograd_grad(y, x, create_graph=True)  # 3x^2
        self.assertEqual(dy.tolist(), [3.0, 12.0, 27.0])
        self.assertTrue(dy.requires_grad)
        (d2y,) = ts.autograd_grad(dy.sum(), [x])          # 6x
        self.assertEqual(d2y.tolist(), [6.0, -12.0, 18.0])
        self.assertIsNone(x.grad)                          # no .grad written

    def test_grad_outputs_unused_and_errors(self):
        x = ts.tensor([1.0, 2.0], requires_grad=True)
        unused = ts.tensor([5.0], requires_grad=True)
        y = x * 3
        s = (x * x).sum()
        gx, gu = ts.autograd_grad([y, s], (x, unused), grad_outputs=[ts.tensor([1.0, 10.0]), None],
                                  retain_graph=True, allow_unused=True)
        self.assertEqual(gx.tolist(), [3.0 + 2.0, 30.0 + 4.0])
        self.assertIsNone(gu)
        with self.assertRaises(ts.AutogradError):
            ts.autograd_grad(s, [x, unused], retain_graph=True)  # unused without allow_unused
        with self.assertRaises(ts.AutogradError):
            ts.autograd_grad(s, ts.ones(2), retain_graph=True)  # input without requires_grad
        with self.assertRaises(ts.ShapeMismatchError):
            ts.autograd_grad(y, x, grad_outputs=ts.ones(3), retain_graph=True)
        with self.assertRaises(ts.AutogradError):
            ts.autograd_grad(y, x, retain_graph=True)  # ones only for one-element outputs
        with self.assertRaises(ts.InvalidArgumentError):
            ts.autograd_grad([y, s], x, grad_outputs=[None])  # one per output
        with self.assertRaises(ts.InvalidArgumentError):
            ts.autograd_grad([], x)
        with self.assertRaises(TypeError):
            ts.autograd_grad(s, [x, 3])
        closed = ts.tensor([1.0], requires_grad=True)
        closed.close()
        with self.assertRaises(ts.InvalidArgumentError):
            ts.autograd_grad(s, closed)
        (gx,) = ts.autograd_grad(s, x)
        self.assertEqual(gx.tolist(), [2.0, 4.0])
        with self.assertRaises(ts.AutogradError):
            ts.autograd_grad(s, x)  # the graph was freed


if __name__ == "__main__":
    unittest.main()
