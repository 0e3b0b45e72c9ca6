"""Tensor.register_post_accumulate_grad_hook (torch 2.1's; torch 1.13, the
oracle here, has the same point as a post hook on a leaf's AccumulateGrad
node, which is what DistributedDataParallel uses) and
torch.autograd.Variable._execution_engine.queue_callback, against PyTorch
1.13 run in the same process."""
import gc
import unittest
import weakref

import torch as real_torch

import tessera
import tessera.utils.checkpoint


def after_accumulation(torch, x, fn):
    """fn(x) each time backward has accumulated x's gradient: tessera's
    post-accumulate-grad hook, or in torch 1.13 a post hook on x's
    AccumulateGrad node (kept alive by the returned object)."""
    if torch is tessera:
        return x.register_post_accumulate_grad_hook(fn)
    acc = x.view_as(x).grad_fn.next_functions[0][0]
    acc.register_hook(lambda grad_inputs, grad_outputs: fn(x))
    return acc


def loss(x, w):
    return (x * w + x * 2).sum()  # x used twice: its gradient arrives in two parts


class PostAccumulateGradHook(unittest.TestCase):
    def test_sees_the_accumulated_grad_once_per_backward_as_torch(self):
        def run(torch):
            seen = []
            x = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
            x.grad = torch.full((3,), 100.0)
            keep = after_accumulation(torch, x, lambda p: seen.append(("a", p.grad.tolist())))
            keep2 = after_accumulation(torch, x, lambda p: seen.append(("b", p.grad.tolist())))
            s = loss(x, torch.tensor([1.0, 2.0, 3.0]))
            s.backward(retain_graph=True)
            s.backward()
            del keep, keep2
            return seen
        ours, theirs = run(tessera), run(real_torch)
        self.assertEqual(ours, theirs)
        self.assertEqual(ours[:2], [("a", [103.0, 104.0, 105.0]), ("b", [103.0, 104.0, 105.0])])

    def test_gets_the_leaf_and_can_step_it(self):
        # torch 2.1's docs: an SGD update inside the hook.
        x = tessera.tensor([0.0, 0.0, 0.0], requires_grad=True)
        h = x.register_post_accumulate_grad_hook(lambda p: p.sub_(p.grad, alpha=0.5))
        x.backward(tessera.tensor([1.0, 2.0, 3.0]))
        self.assertEqual(x.tolist(), [-0.5, -1.0, -1.5])
        self.assertTrue(x.is_leaf and x.requires_grad)
        h.remove()
        h.remove()  # a second remove does nothing, as torch's
        x.backward(tessera.tensor([1.0, 1.0, 1.0]))
        self.assertEqual(x.tolist(), [-0.5, -1.0, -1.5])
        self.assertEqual(x.grad.tolist(), [2.0, 3.0, 4.0])

    def test_runs_after_register_hook_and_until_removed(self):
        seen = []
        x = tessera.ones(2, requires_grad=True)
        x.register_hook(lambda g: seen.append("pre") or g * 10)
        with x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist())):
            (x * 3).sum().backward()
        (x * 3).sum().backward()
        self.assertEqual(seen, ["pre", [30.0, 30.0], "pre"])

    def test_autograd_grad_runs_none_as_torch(self):
        def run(torch):
            seen = []
            x = torch.ones(2, requires_grad=True)
            keep = after_accumulation(torch, x, lambda p: seen.append("hook"))
            g, = torch.autograd.grad((x * x).sum(), x)
            del keep
            return seen, g.tolist(), x.grad
        self.assertEqual(run(tessera), run(real_torch))
        self.assertEqual(run(tessera), ([], [2.0, 2.0], None))

    def test_under_checkpointing(self):
        seen = []
        x = tessera.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
        y = tessera.utils.checkpoint.checkpoint(lambda t: t.sin() * t, x, use_reentrant=False)
        (y.sum() + (x * 3).sum()).backward()
        expected = (real_torch.tensor([1.0, 2.0, 3.0]).cos() * real_torch.tensor([1.0, 2.0, 3.0])
                    + real_torch.tensor([1.0, 2.0, 3.0]).sin() + 3)
        self.assertEqual(len(seen), 1)
        for a, b in zip(seen[0], expected.tolist()):
            self.assertAlmostEqual(a, b, places=5)

    def test_errors(self):
        # torch 2.1's messages
        with self.assertRaisesRegex(RuntimeError, "cannot register a hook on a tensor that doesn't require gradient"):
            tessera.ones(2).register_post_accumulate_grad_hook(lambda p: None)
        x = tessera.ones(2, requires_grad=True)
        with self.assertRaisesRegex(RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf tensors"):
            (x * 2).register_post_accumulate_grad_hook(lambda p: None)
        with self.assertRaises(TypeError):
            x.register_post_accumulate_grad_hook(3)

    def test_exception_reaches_backward(self):
        x = tessera.ones(2, requires_grad=True)
        later = []

        def bad(p):
            raise ZeroDivisionError("post hook failed")
        x.register_post_accumulate_grad_hook(bad)
        x.register_post_accumulate_grad_hook(lambda p: later.append(1))
        with self.assertRaisesRegex(ZeroDivisionError, "post hook failed"):
            (x * 2).sum().backward()
        self.assertEqual(later, [])
        self.assertEqual(x.grad.tolist(), [2.0, 2.0])  # accumulated before the hook raised


class QueueCallback(unittest.TestCase):
    def test_order_and_timing_as_torch(self):
        def run(torch):
            trace = []
            x = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
            z = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            engine = torch.autograd.Variable._execution_engine

            def cb(name, t, more=None):
                def call():
                    trace.append((name, t.grad.tolist()))
                    if more:
                        engine.queue_callback(more)
                return call

            def queue(g):
                # x's own gradient is not in .grad yet
                trace.append(("hook", x.grad, None if z.grad is None else z.grad.tolist()))
                engine.queue_callback(cb("first", x, cb("third", z)))
                engine.queue_callback(cb("second", z))
            x.register_hook(queue)
            (loss(x, torch.tensor([1.0, 2.0, 3.0])) + (z * z).sum()).backward()
            trace.append("returned")
            return trace
        ours, theirs = run(tessera), run(real_torch)
        self.assertEqual(ours, theirs)
        self.assertEqual([t[0] for t in ours[1:4]], ["first", "second", "third"])

    def test_queued_from_a_post_accumulate_hook(self):
        x = tessera.ones(2, requires_grad=True)
        z = tessera.ones(2, requires_grad=True)
        done = []
        engine = tessera.autograd.Variable._execution_engine
        x.register_post_accumulate_grad_hook(
            lambda p: engine.queue_callback(lambda: done.append((x.grad.tolist(), z.grad.tolist()))))
        ((x * 2).sum() + (z * 5).sum()).backward()
        self.assertEqual(done, [([2.0, 2.0], [5.0, 5.0])])

    def test_autograd_grad_runs_them_as_torch(self):
        def run(torch):
            trace = []
            x = torch.ones(2, requires_grad=True)
            y = x * 4
            y.register_hook(lambda g: torch.autograd.Variable._execution_engine.queue_callback(
                lambda: trace.append("callback")))
            g, = torch.autograd.grad(y.sum(), x)
            trace.append(g.tolist())
            return trace
        self.assertEqual(run(tessera), run(real_torch))

    def test_outside_backward_as_torch(self):
        for torch in (tessera, real_torch):
            with self.assertRaisesRegex(RuntimeError, "^Final callbacks can only be installed during backward pass.$"):
                torch.autograd.Variable._execution_engine.queue_callback(lambda: None)

    def test_exception_reaches_backward(self):
        x = tessera.ones(2, requires_grad=True)
        after = []
        engine = tessera.autograd.Variable._execution_engine

        def queue(g):
            engine.queue_callback(lambda: 1 / 0)
            engine.queue_callback(lambda: after.append(1))
        x.register_hook(queue)
        with self.assertRaises(ZeroDivisionError):
            (x * 2).sum().backward()
        self.assertEqual(after, [])
        with self.assertRaises(TypeError):
            tessera.autograd.Variable._execution_engine.queue_callback(None)


class Variable(unittest.TestCase):
    def test_as_torch(self):
        def run(torch):
            t = torch.ones(2)
            v = torch.autograd.Variable(t, requires_grad=True)
            y = torch.autograd.Variable(torch.ones(2, requires_grad=True) * 2)
            return (v is t, v.requires_grad, t.requires_grad, v.is_leaf, y.requires_grad,
                    isinstance(t, torch.autograd.Variable))
        self.assertEqual(run(tessera), run(real_torch))


class Lifetimes(unittest.TestCase):
    def test_hooks_and_callbacks_are_freed(self):
        queued = []

        class Callback:
            def __call__(self):
                pass

        class Hook:
            def __call__(self, param):
                callback = Callback()
                queued.append(weakref.ref(callback))
                tessera.autograd.Variable._execution_engine.queue_callback(callback)
        x = tessera.ones(2, requires_grad=True)
        hook = Hook()
        hook_ref = weakref.ref(hook)
        x.register_post_accumulate_grad_hook(hook)
        del hook
        (x * 2).sum().backward()
        gc.collect()
        self.assertEqual(len(queued), 1)
        self.assertIsNone(queued[0](), "a callback is freed once it has run")
        self.assertIsNotNone(hook_ref())
        del x
        gc.collect()
        self.assertIsNone(hook_ref(), "a hook is freed with its tensor")
        refused = Callback()
        refused_ref = weakref.ref(refused)
        with self.assertRaises(RuntimeError):
            tessera.autograd.Variable._execution_engine.queue_callback(refused)
        del refused
        gc.collect()
        self.assertIsNone(refused_ref(), "a refused callback is freed")


class HookArguments(unittest.TestCase):
    def test_a_hook_may_keep_its_argument(self):
        kept = []
        x = tessera.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(kept.append)
        x.register_post_accumulate_grad_hook(kept.append)
        (x * x).sum().backward()
        tessera.zeros(64)  # reuse freed memory, if any was
        self.assertEqual(kept[0].tolist(), [2.0, 4.0])
        self.assertEqual(kept[1].grad.tolist(), [2.0, 4.0])


if __name__ == "__main__":
    unittest.main()
