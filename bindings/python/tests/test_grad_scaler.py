"""tessera.amp.GradScaler against PyTorch 1.13's torch.cuda.amp.GradScaler at
run time. torch 1.13's class needs CUDA for its two kernels, so the
reference is torch's own class run on CPU tensors with only those kernels
(and its is_cuda assertions) replaced (tests/golden/torch_grad_scaler_cpu.py).
Each scenario is written once against a module named `torch` and run with
torch and with tessera: scales and growth trackers must agree exactly,
tensors to float32 rounding, messages word for word."""
import math
import os
import sys
import unittest

import numpy as np
import torch as real_torch

import tessera

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "golden"))
from torch_grad_scaler_cpu import CPUGradScaler  # noqa: E402


def scaler_class(torch):
    return tessera.amp.GradScaler if torch is tessera else CPUGradScaler


def data(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32).tolist()


def values(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


def model(torch):
    l1, l2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 1)
    with torch.no_grad():
        for i, p in enumerate([l1.weight, l1.bias, l2.weight, l2.bias]):
            p.copy_(torch.tensor(data(*p.shape, seed=i)))
    return l1, l2


# step -> (input element, value) put into x before the step
INJECT = {2: ((0, 1), math.inf), 5: ((3, 2), math.nan), 6: ((1, 0), -math.inf)}


def train(torch, steps=12):
    """A two-layer MLP, two optimizers, one scaler; infs and NaNs injected
    into the input; unscale_ + clip_grad_norm_ on every third step;
    update(new_scale) once. Per step: scale, tracker, both step results,
    the parameters."""
    l1, l2 = model(torch)
    opt1 = torch.optim.Adam(l1.parameters(), lr=0.01)
    opt2 = torch.optim.SGD(l2.parameters(), lr=0.05, momentum=0.9)
    scaler = scaler_class(torch)(init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
    rows = []
    for step in range(steps):
        x = torch.tensor(data(5, 4, seed=100 + step))
        y = torch.tensor(data(5, 1, seed=200 + step))
        if step in INJECT:
            (i, j), v = INJECT[step]
            x[i, j] = v
        opt1.zero_grad()
        opt2.zero_grad()
        loss = torch.nn.functional.mse_loss(l2(torch.relu(l1(x))), y)
        scaled = scaler.scale(loss)
        scaled.backward()
        if step % 3 == 0:
            scaler.unscale_(opt1)
            torch.nn.utils.clip_grad_norm_(l1.parameters(), 0.5)
        r1 = scaler.step(opt1)
        r2 = scaler.step(opt2, lambda: 7.0)  # a closure passed on positionally: its loss comes back
        scaler.update(64.0 if step == 8 else None)
        rows.append((scaler.get_scale(), scaler._get_growth_tracker(), r1, r2,
                     [values(p) for p in (l1.weight, l1.bias, l2.weight, l2.bias)], tuple(scaled.shape),
                     str(scaled.dtype).split(".")[-1]))
    return rows, scaler.state_dict()


class Training(unittest.TestCase):
    def test_run_with_infs_matches_torch(self):
        (ours, our_sd), (theirs, their_sd) = train(tessera), train(real_torch)
        skipped = 0
        for step, (a, b) in enumerate(zip(ours, theirs)):
            self.assertEqual(a[0], b[0], f"step {step}: scale")
            self.assertEqual(a[1], b[1], f"step {step}: growth tracker")
            self.assertEqual(a[2], b[2], f"step {step}: step(opt1)'s result")
            self.assertEqual(a[3], b[3], f"step {step}: step(opt2, closure)'s result")
            skipped += a[3] is None
            self.assertEqual(a[5], b[5], f"step {step}: scaled loss shape")
            self.assertEqual(a[6], b[6], f"step {step}: scaled loss dtype")
            for pa, pb in zip(a[4], b[4]):
                np.testing.assert_allclose(pa, pb, rtol=1e-5, atol=1e-6, err_msg=f"step {step}")
        self.assertEqual(skipped, 3, "the three injected steps are skipped")
        self.assertEqual(our_sd, their_sd)

    def test_state_dict_round_trip(self):
        for torch in (tessera, real_torch):
            _, sd = train(torch, steps=5)
            fresh = scaler_class(torch)()
            fresh.load_state_dict(sd)
            self.assertEqual(fresh.state_dict(), sd, torch.__name__)
            self.assertEqual(fresh.get_scale(), sd["scale"])
        # through tessera.save / tessera.load: the numbers as 0-dim tensors
        sd = train(tessera, steps=5)[1]
        fresh = tessera.amp.GradScaler()
        fresh.load_state_dict({k: tessera.tensor(v) for k, v in sd.items()})
        self.assertEqual(fresh.state_dict(), sd)


class Surface(unittest.TestCase):
    def test_same_class_in_cuda_amp(self):
        import tessera.cuda.amp
        self.assertIs(tessera.cuda.amp.GradScaler, tessera.amp.GradScaler)

    def test_scale_nested_outputs(self):
        results = []
        for torch in (tessera, real_torch):
            s = scaler_class(torch)(init_scale=4.0)
            a, b = torch.tensor([1.0, 2.0]), torch.tensor(3.0)
            out = s.scale([a, (b, [a])])
            self.assertIsInstance(out, list)
            self.assertIsInstance(out[1], tuple)
            results.append([values(out[0]).tolist(), values(out[1][0]).tolist(), values(out[1][1][0]).tolist()])
            gen = s.scale(iter([a]))
            self.assertNotIsInstance(gen, (list, tuple))
            self.assertEqual(values(next(gen)).tolist(), [4.0, 8.0])
            with self.assertRaises(ValueError) as cm:
                s.scale([a, 3])
            self.assertEqual(str(cm.exception), "outputs must be a Tensor or an iterable of Tensors")
        self.assertEqual(results[0], results[1])

    def test_errors_match_torch(self):
        msgs = []
        for torch in (tessera, real_torch):
            got = []
            p = torch.ones(2, requires_grad=True)
            opt = torch.optim.SGD([p], lr=1.0)
            s = scaler_class(torch)(init_scale=2.0)
            for call in (lambda: s.unscale_(opt), lambda: s.step(opt), lambda: s.update()):
                with self.assertRaises((RuntimeError, AssertionError)) as cm:
                    call()
                got.append(str(cm.exception))
            (p * 3).sum().backward()
            s.scale(torch.ones(()))
            s.unscale_(opt)
            for call in (lambda: s.unscale_(opt),):
                with self.assertRaises(RuntimeError) as cm:
                    call()
                got.append(str(cm.exception))
            with self.assertRaises(RuntimeError) as cm:
                s.step(opt, closure=lambda: 1.0)
            got.append(str(cm.exception))
            s.step(opt)
            for call in (lambda: s.step(opt), lambda: s.unscale_(opt)):
                with self.assertRaises(RuntimeError) as cm:
                    call()
                got.append(str(cm.exception))
            s.update()
            with self.assertRaises((RuntimeError, AssertionError)) as cm:
                s.update()
            got.append(str(cm.exception))
            p.grad = None
            with self.assertRaises((RuntimeError, AssertionError)) as cm:
                s.step(opt)
            got.append(str(cm.exception))
            with self.assertRaises(RuntimeError) as cm:
                scaler_class(torch)().load_state_dict({})
            got.append(str(cm.exception))
            q = torch.ones(2, dtype=torch.float16, requires_grad=True)
            q.grad = torch.ones(2, dtype=torch.float16)
            with self.assertRaises(ValueError) as cm:
                s.unscale_(torch.optim.SGD([q], lr=1.0))
            got.append(str(cm.exception))
            msgs.append(got)
        self.assertEqual(msgs[0], msgs[1])

    def test_disabled_passes_through(self):
        for torch in (tessera, real_torch):
            s = scaler_class(torch)(enabled=False)
            self.assertFalse(s.is_enabled())
            t = torch.ones(())
            self.assertIs(s.scale(t), t)
            p = torch.ones(2, requires_grad=True)
            p.grad = torch.tensor([math.inf, 1.0])
            opt = torch.optim.SGD([p], lr=1.0)
            self.assertEqual(s.step(opt, lambda: 5.0), 5.0)
            self.assertEqual(values(p).tolist(), [-math.inf, 0.0])
            s.update()
            self.assertEqual(s.get_scale(), 1.0)
            self.assertEqual(s.state_dict(), {})
            s.load_state_dict({})

    def test_getters_setters_and_new_scale_tensor(self):
        s = tessera.amp.GradScaler(init_scale=0.1)
        self.assertEqual(s.get_scale(), 0.1)  # torch: init_scale as given until the first scale()
        s.set_growth_factor(3.0)
        s.set_backoff_factor(0.25)
        s.set_growth_interval(1)
        self.assertEqual((s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()), (3.0, 0.25, 1))
        s.scale(tessera.ones(()))
        self.assertEqual(s.get_scale(), float(np.float32(0.1)))
        s.update(tessera.tensor([5.0]))
        self.assertEqual(s.get_scale(), 5.0)
        for bad in (tessera.tensor([5.0, 6.0]), tessera.tensor([5.0], dtype=tessera.float64), 5):
            with self.assertRaises(AssertionError):
                s.update(bad)
        with self.assertRaises(TypeError):
            s.unscale_(object())
        with self.assertRaisesRegex(tessera.InvalidArgumentError, "The growth factor must be > 1.0."):
            tessera.amp.GradScaler(growth_factor=1.0)
        s.close()
        with self.assertRaises(tessera.InvalidArgumentError):
            s.get_scale()


if __name__ == "__main__":
    unittest.main()
