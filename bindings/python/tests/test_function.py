"""tessera.autograd.Function against torch.autograd.Function of PyTorch
1.13: each snippet is written once against a module named `torch` and run
with both; values, gradients, grad_fn names, errors and ctx behaviour must
agree."""
import gc
import sys
import unittest

import numpy as np
import torch as real_torch
import torch.utils.checkpoint

import tessera


def data(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).tolist()


def functions(torch):
    """The test functions, defined against `torch`."""
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            y = x.exp() * scale
            ctx.save_for_backward(y)
            ctx.scale = scale
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y, None

    class MulAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.seen = ctx.needs_input_grad
            return a * b, a + b

        @staticmethod
        def backward(ctx, g_mul, g_add):
            a, b = ctx.saved_tensors
            return g_mul * b + g_add, g_mul * a + g_add

    class AddOne_(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class WithIndex(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax(0)
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, grad, grad_idx):
            return grad * 2

    class Unmaterialized(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 3, x * 4

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.got = (g1 is None, g2 is None)
            return g1 * 3 if g2 is None else g1 * 3 + g2 * 4

    class Cube(torch.autograd.Function):  # backward made of ops: double backward
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    return Exp, MulAdd, AddOne_, WithIndex, Unmaterialized, Cube


def values(t):
    return np.array(t.tolist(), dtype=np.float64)


class Snippets(unittest.TestCase):
    def both(self, snippet, rtol=1e-6):
        ours, theirs = snippet(tessera), snippet(real_torch)
        for a, b in zip(ours, theirs):
            if isinstance(b, (str, bool, int, tuple)) or b is None:
                self.assertEqual(a, b)
            else:
                np.testing.assert_allclose(values(a), values(b), rtol=rtol, atol=1e-12)
        return ours

    def test_saved_outputs_and_non_tensor_arguments(self):
        def snippet(torch):
            Exp = functions(torch)[0]
            x = torch.tensor(data(4), dtype=torch.float64, requires_grad=True)
            y = Exp.apply(x, 2.5)
            y.sum().backward()
            return y.detach(), x.grad, type(y.grad_fn).__name__
        self.both(snippet)

    def test_two_outputs_and_needs_input_grad(self):
        def snippet(torch):
            MulAdd = functions(torch)[1]
            a = torch.tensor(data(3, seed=1), dtype=torch.float64, requires_grad=True)
            b = torch.tensor(data(3, seed=2), dtype=torch.float64)
            p, s = MulAdd.apply(a, b)
            (p.sum() + (s * s).sum()).backward()
            return p.detach(), s.detach(), a.grad, b.grad
        self.both(snippet)

    def test_mark_dirty_in_place(self):
        def snippet(torch):
            AddOne_ = functions(torch)[2]
            leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            h = leaf * 2
            v = h._version
            y = AddOne_.apply(h)
            name = type(h.grad_fn).__name__
            (y * y).sum().backward()
            with self.assertRaisesRegex(RuntimeError, "leaf Variable that requires grad"):
                AddOne_.apply(torch.tensor([1.0], requires_grad=True))
            view = (leaf * 1)[1:]
            AddOne_.apply(view)
            return h.detach(), leaf.grad, h._version - v, name, y is h
        self.both(snippet)

    def test_non_differentiable_and_materialize(self):
        def snippet(torch):
            _, _, _, WithIndex, Unmaterialized, _ = functions(torch)
            x = torch.tensor(data(5, seed=3), dtype=torch.float64, requires_grad=True)
            out, idx = WithIndex.apply(x)
            out.sum().backward()
            g1 = x.grad.clone()
            x.grad = None
            a, b = Unmaterialized.apply(x)
            a.sum().backward()
            return out.detach(), idx, idx.requires_grad, g1, x.grad, a.grad_fn is not None
        self.both(snippet)

    def test_double_backward_and_gradcheck(self):
        def snippet(torch):
            Cube = functions(torch)[5]
            x = torch.tensor(data(4, seed=4), dtype=torch.float64, requires_grad=True)
            (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
            g.sum().backward()
            return g.detach(), x.grad
        ours = self.both(snippet)
        x = np.array(data(4, seed=4))
        np.testing.assert_allclose(values(ours[1]), 6 * x, rtol=1e-12)
        # finite differences of the custom backward (float64)
        Exp = functions(tessera)[0]
        for i in range(4):
            h = 1e-6
            xp, xm = x.copy(), x.copy()
            xp[i] += h
            xm[i] -= h
            fd = (np.exp(xp).sum() - np.exp(xm).sum()) / (2 * h)
            t = tessera.tensor(x.tolist(), dtype=tessera.float64, requires_grad=True)
            Exp.apply(t, 1.0).sum().backward()
            self.assertAlmostEqual(t.grad.tolist()[i], fd, places=6)

    def test_errors_as_torch(self):
        def wrong_count(torch):
            class Two(torch.autograd.Function):
                @staticmethod
                def forward(ctx, a, b):
                    return a + b

                @staticmethod
                def backward(ctx, g):
                    return g
            a = torch.ones(2, requires_grad=True)
            with self.assertRaises(RuntimeError) as caught:
                Two.apply(a, torch.ones(2)).sum().backward()
            return (str(caught.exception),)
        self.both(wrong_count)

        def modified(torch):
            Exp = functions(torch)[0]
            x = torch.ones(2, requires_grad=True)
            y = Exp.apply(x, 1.0)
            with torch.no_grad():
                y.mul_(2)
            with self.assertRaisesRegex(RuntimeError, "modified by an inplace operation"):
                y.sum().backward()
            return ()
        self.both(modified)

        def not_none(torch):
            Exp = functions(torch)[0]

            class BadGrad(Exp):
                @staticmethod
                def backward(ctx, grad):
                    return grad, grad
            x = torch.ones(2, requires_grad=True)
            with self.assertRaisesRegex(RuntimeError, "returned a gradient different than None at position 2"):
                BadGrad.apply(x, 2.0).sum().backward()
            return ()
        self.both(not_none)

    def test_python_exceptions_come_back_as_themselves(self):
        class Boom(tessera.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if x.sum().item() < 0:
                    raise ValueError("negative input")
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                raise KeyError("no backward today")
        try:
            Boom.apply(-tessera.ones(2))
            self.fail("no ValueError")
        except ValueError as error:
            self.assertEqual(str(error), "negative input")
            tb = error.__traceback__
        frames = []
        while tb:
            frames.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        self.assertIn("forward", frames)  # the traceback reaches into forward
        y = Boom.apply(tessera.ones(2, requires_grad=True))
        with self.assertRaises(KeyError):
            y.sum().backward()
        w = tessera.ones(2, requires_grad=True)
        with self.assertRaises(KeyError):
            tessera.autograd.grad(Boom.apply(w).sum(), [w])

        with self.assertRaisesRegex(RuntimeError, "inside forward or backward"):
            tessera.autograd.FunctionCtx(()).saved_tensors

    def test_hooks_anomaly_and_profiler_see_it(self):
        Exp = functions(tessera)[0]
        x = tessera.ones(3, requires_grad=True)
        y = Exp.apply(x, 1.0)
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()) or g * 2)
        with tessera.profiler.profile() as prof:
            y.sum().backward()
        self.assertEqual(seen, [[1.0, 1.0, 1.0]])
        self.assertAlmostEqual(x.grad.tolist()[0], 2 * 2.718281828459045, places=5)
        self.assertIn("ExpBackward", prof.key_averages().table(row_limit=-1))

        class NaNGrad(tessera.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 1

            @staticmethod
            def backward(ctx, grad):
                return grad * float("nan")
        with tessera.detect_anomaly():
            with self.assertRaisesRegex(tessera.Error, "NaNGradBackward"):
                NaNGrad.apply(tessera.ones(2, requires_grad=True)).sum().backward()

    def test_docs_linear_function_and_gradcheck(self):
        """torch's documentation example (LinearFunction), its gradcheck,
        and a wrong backward that gradcheck catches in both libraries."""
        def snippet(torch):
            class LinearFunction(torch.autograd.Function):
                @staticmethod
                def forward(ctx, input, weight, bias=None):
                    ctx.save_for_backward(input, weight, bias)
                    output = input.mm(weight.t())
                    if bias is not None:
                        output += bias.unsqueeze(0).expand_as(output)
                    return output

                @staticmethod
                def backward(ctx, grad_output):
                    input, weight, bias = ctx.saved_tensors
                    grad_input = grad_weight = grad_bias = None
                    if ctx.needs_input_grad[0]:
                        grad_input = grad_output.mm(weight)
                    if ctx.needs_input_grad[1]:
                        grad_weight = grad_output.t().mm(input)
                    if bias is not None and ctx.needs_input_grad[2]:
                        grad_bias = grad_output.sum(0)
                    return grad_input, grad_weight, grad_bias

            class WrongBias(LinearFunction):
                @staticmethod
                def backward(ctx, grad_output):
                    gi, gw, gb = LinearFunction.backward(ctx, grad_output)
                    return gi, gw, gb * 2
            x = torch.tensor(data(3, 2, seed=6), dtype=torch.float64, requires_grad=True)
            w = torch.tensor(data(4, 2, seed=7), dtype=torch.float64, requires_grad=True)
            b = torch.tensor(data(4, seed=8), dtype=torch.float64, requires_grad=True)
            y = LinearFunction.apply(x, w, b)
            (y * y).sum().backward()
            ok = torch.autograd.gradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4)
            caught = not torch.autograd.gradcheck(WrongBias.apply, (x, w, b), eps=1e-6, atol=1e-4,
                                                  raise_exception=False)
            no_bias = LinearFunction.apply(x, w)
            return y.detach(), x.grad, w.grad, b.grad, no_bias.detach(), ok, caught
        self.both(snippet)
        with self.assertRaises(tessera.autograd.GradcheckError):
            tessera.autograd.gradcheck(lambda t: t * 2, (tessera.ones(2, dtype=tessera.float64,
                                                                      requires_grad=True),), atol=-1)
        with self.assertRaises(ValueError):
            tessera.autograd.gradcheck(lambda t: t * 2, (tessera.ones(2),))
        with self.assertRaisesRegex(RuntimeError, "self must be a matrix"):
            tessera.ones(2).mm(tessera.ones(2, 2))

    def test_non_tensor_outputs_pass_through(self):
        def snippet(torch):
            seen = []

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2, 5, "a"

                @staticmethod
                def backward(ctx, *grads):
                    seen.append([g is None for g in grads])
                    return grads[0] * 2

            class G(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return 5

                @staticmethod
                def backward(ctx, grad):
                    return grad
            x = torch.ones(2, requires_grad=True)
            y, n, s = F.apply(x)
            y.sum().backward()
            return y.detach(), x.grad, n, s, seen[0] == [False, True, True], G.apply(x)
        self.both(snippet)

    def test_checkpoint_replays_forward(self):
        calls = []

        class Counted(tessera.autograd.Function):
            @staticmethod
            def forward(ctx, x):  # backward reads the output: a replay must recompute it
                calls.append(1)
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                (y,) = ctx.saved_tensors
                return grad * y

        def run(region):
            x = tessera.tensor(data(6, seed=5), dtype=tessera.float64, requires_grad=True)
            block = lambda t: Counted.apply(t * 2) * 3  # noqa: E731
            y = tessera.utils.checkpoint.checkpoint(block, x) if region else block(x)
            y.sum().backward()
            return x.grad.tolist()
        plain = run(False)
        self.assertEqual(len(calls), 1)
        replayed = run(True)
        self.assertEqual(len(calls), 3)  # forward, then its replay during backward
        self.assertEqual(plain, replayed)  # bit for bit

    def test_no_grad_and_many_applies_leave_nothing_behind(self):
        Exp = functions(tessera)[0]
        x = tessera.ones(1000, requires_grad=True)
        with tessera.no_grad():
            self.assertIsNone(Exp.apply(x, 1.0).grad_fn)
        gc.collect()
        before = tessera.memory_allocated()
        refs = sys.getrefcount(Exp)
        for _ in range(2000):
            Exp.apply(x, 1.0).sum().backward()
        x.grad = None
        gc.collect()
        self.assertEqual(tessera.memory_allocated(), before)
        self.assertLessEqual(sys.getrefcount(Exp), refs + 1)


if __name__ == "__main__":
    unittest.main()
