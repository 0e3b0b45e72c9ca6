"""tessera.autocast against torch 1.13's torch.autocast: the region state
(enter, exit, nesting, enabled=False, decorator, cache_enabled), the
torch.cpu.amp / torch.cuda.amp spellings, torch's errors and warnings, and a
small model's forward and backward under bfloat16 autocast — output dtypes
equal to torch's, values and float32 gradients close to torch's."""
import unittest
import warnings

import numpy as np
import torch
import torch.nn.functional as F

import tessera as ts


def tsr(t, requires_grad=False):
    x = ts.from_dlpack(t.detach().clone())
    if requires_grad:
        x.requires_grad_(True)
    return x


def values(t):
    return np.array(t.float().tolist() if hasattr(t, "float") else t.tolist(), dtype=np.float64)


class Regions(unittest.TestCase):
    def test_enter_exit_and_nesting(self):
        self.assertFalse(ts.is_autocast_cpu_enabled())
        self.assertEqual(ts.get_autocast_cpu_dtype(), ts.bfloat16)
        self.assertEqual(ts.get_autocast_gpu_dtype(), ts.float16)
        with ts.autocast("cpu"):
            self.assertTrue(ts.is_autocast_cpu_enabled())
            self.assertFalse(ts.is_autocast_enabled())  # CUDA's
            with ts.autocast("cpu", enabled=False):
                self.assertFalse(ts.is_autocast_cpu_enabled())
            with ts.autocast("cpu", dtype=ts.float16):
                self.assertEqual(ts.get_autocast_cpu_dtype(), ts.float16)
            self.assertEqual(ts.get_autocast_cpu_dtype(), ts.bfloat16)
            self.assertTrue(ts.is_autocast_cpu_enabled())
        self.assertFalse(ts.is_autocast_cpu_enabled())

    def test_exit_by_exception_restores(self):
        with self.assertRaises(KeyError):
            with ts.autocast("cpu"):
                raise KeyError("x")
        self.assertFalse(ts.is_autocast_cpu_enabled())

    def test_decorator_and_reentry(self):
        region = ts.autocast("cpu")

        @region
        def inside():
            return ts.is_autocast_cpu_enabled()

        self.assertTrue(inside())
        with region:
            self.assertTrue(inside())
            self.assertTrue(ts.is_autocast_cpu_enabled())
        self.assertFalse(ts.is_autocast_cpu_enabled())

    def test_cache_enabled(self):
        self.assertTrue(ts.is_autocast_cache_enabled())
        with ts.autocast("cpu", cache_enabled=False):
            self.assertFalse(ts.is_autocast_cache_enabled())
        self.assertTrue(ts.is_autocast_cache_enabled())

    def test_torch_spellings(self):
        with ts.cpu.amp.autocast():
            self.assertTrue(ts.is_autocast_cpu_enabled())
        from tessera.cpu.amp import autocast as cpu_autocast  # importable as torch's
        with cpu_autocast(enabled=False):
            self.assertFalse(ts.is_autocast_cpu_enabled())
        self.assertIs(ts.cuda.amp.autocast, ts._autocast.cuda_autocast)

    def test_errors_and_warnings_as_torch(self):
        with self.assertRaisesRegex(RuntimeError, "must be 'cuda' or 'cpu'"):
            ts.autocast("tpu")
        with self.assertRaisesRegex(RuntimeError, "must be 'cuda' or 'cpu'"):
            torch.autocast("tpu")
        if not ts.cuda.is_available():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with ts.autocast("cuda"):
                    self.assertFalse(ts.is_autocast_enabled())
            self.assertTrue(any("CUDA is not available" in str(w.message) for w in caught))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with ts.autocast("cpu", dtype=ts.float32):
                self.assertFalse(ts.is_autocast_cpu_enabled())
        self.assertTrue(any("not supported" in str(w.message) for w in caught))


class Ops(unittest.TestCase):
    def test_policy_dtypes_as_torch(self):
        torch.manual_seed(0)
        a, b = torch.randn(4, 8), torch.randn(8, 3)
        h = torch.randn(4, 3).bfloat16()
        target = torch.tensor([0, 2, 1, 1])
        cases = [
            ("matmul", lambda m, x, y, z: m.matmul(x, y), (a, b, h)),
            ("mse_loss", lambda m, x, y, z: m.nn.functional.mse_loss(z, z * 2), (a, b, h)),
            ("cross_entropy", lambda m, x, y, z: m.nn.functional.cross_entropy(z, target if m is torch else tsr(target)),
             (a, b, h)),
            ("softmax", lambda m, x, y, z: m.softmax(z, -1), (a, b, h)),
            ("cat", lambda m, x, y, z: m.cat([z, x[:, :3]]), (a, b, h)),
        ]
        for name, fn, args in cases:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                want = fn(torch, *args)
            with ts.autocast("cpu", dtype=ts.bfloat16):
                got = fn(ts, *[tsr(t) for t in args])
            self.assertEqual(str(got.dtype).split(".")[-1], str(want.dtype).split(".")[-1], name)
            np.testing.assert_allclose(values(got), values(want), rtol=2e-2, atol=2e-2, err_msg=name)

    def test_model_forward_and_backward(self):
        torch.manual_seed(1)
        x = torch.randn(6, 16)
        w1, b1 = torch.randn(32, 16) * 0.2, torch.randn(32) * 0.1
        w2 = torch.randn(5, 32) * 0.2
        y = torch.tensor([0, 4, 2, 1, 3, 0])

        def forward(m, params, x, y):
            w1, b1, w2 = params
            h = m.nn.functional.gelu(m.nn.functional.linear(x, w1, b1))
            h = m.nn.functional.layer_norm(h, (32,))
            return m.nn.functional.cross_entropy(m.nn.functional.linear(h, w2), y), h

        tp = [t.clone().requires_grad_() for t in (w1, b1, w2)]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            tl, th = forward(torch, tp, x, y)
        tl.backward()
        mp = [tsr(t, True) for t in (w1, b1, w2)]
        with ts.autocast("cpu", dtype=ts.bfloat16):
            ml, mh = forward(ts, mp, tsr(x), tsr(y))
        ml.backward()
        self.assertEqual(mh.dtype, ts.bfloat16)
        self.assertEqual(ml.dtype, ts.float32)
        self.assertAlmostEqual(ml.item(), tl.item(), delta=3e-2)
        for mine, ref in zip(mp, tp):
            self.assertEqual(mine.grad.dtype, ts.float32)
            np.testing.assert_allclose(values(mine.grad), values(ref.grad), rtol=5e-2, atol=2e-2)


if __name__ == "__main__":
    unittest.main()
