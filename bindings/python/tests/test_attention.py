"""tessera.nn.functional.scaled_dot_product_attention (torch 2.x's function;
torch 1.13 has none) against torch 2.x's math path run in torch 1.13:
softmax(q @ k^T * scale + mask) @ v. Values and gradients of q, k, v with
no mask, bool and float masks, causal (L != S), broadcast batch dims,
transposed heads, float16/bfloat16 against float32; dropout's repeatability
and its mean; the errors."""
import math
import unittest
import warnings

import numpy as np
import torch

import tessera as ts
import tessera.nn.functional as TF


def tsr(t, requires_grad=False):
    """A tessera copy of a torch tensor, keeping its strides (bool through
    uint8: torch 1.13's DLPack has no bool)."""
    if t.dtype == torch.bool:
        return tsr(t.to(torch.uint8)).to(ts.bool)
    x = ts.from_dlpack(t.detach().clone(memory_format=torch.preserve_format))
    if requires_grad:
        x.requires_grad_(True)
    return x


def values(t):
    return np.array(t.float().tolist() if t.dtype in (ts.bfloat16, ts.float16) else t.tolist(),
                    dtype=np.float64).reshape(tuple(t.shape))


def composed(q, k, v, mask=None, is_causal=False, scale=None):
    """torch 2.x's _scaled_dot_product_attention_math, in torch 1.13."""
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    if is_causal:
        mask = torch.ones(L, S, dtype=torch.bool).tril()
    if mask is not None:
        if mask.dtype == torch.bool:
            s = s + torch.zeros(mask.shape, dtype=s.dtype).masked_fill(~mask, float("-inf"))
        else:
            s = s + mask
    return torch.softmax(s, -1) @ v


class Attention(unittest.TestCase):
    def setUp(self):
        warnings.simplefilter("ignore")
        torch.manual_seed(0)

    def compare(self, qs, ks, vs, mask=None, is_causal=False, scale=None, heads=False, dtype=torch.float64,
                tol=1e-10):
        def make(shape):
            if heads:  # (B, L, H, E) seen as (B, H, L, E)
                b, h, l, e = shape
                return torch.randn(b, l, h, e, dtype=dtype).transpose(1, 2)
            return torch.randn(shape, dtype=dtype)
        q, k, v = make(qs), make(ks), make(vs)
        tq, tk, tv = (tsr(t, True) for t in (q, k, v))
        rq, rk, rv = (t.detach().clone().requires_grad_() for t in (q, k, v))
        tm = tsr(mask) if mask is not None else None
        out = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=is_causal, scale=scale)
        ref = composed(rq, rk, rv, mask, is_causal, scale)
        self.assertEqual(tuple(out.shape), tuple(ref.shape))
        self.assertEqual(out.grad_fn.name(), "ScaledDotProductFlashAttentionForCpuBackward0")
        np.testing.assert_allclose(values(out), ref.detach().numpy(), rtol=tol, atol=tol)
        g = torch.randn(ref.shape, dtype=dtype)
        ref.backward(g)
        out.backward(tsr(g))
        for mine, theirs in ((tq, rq), (tk, rk), (tv, rv)):
            np.testing.assert_allclose(values(mine.grad), theirs.grad.numpy(), rtol=tol, atol=tol)

    def test_no_mask(self):
        self.compare((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6))

    def test_float32(self):
        self.compare((2, 3, 50, 16), (2, 3, 300, 16), (2, 3, 300, 8), dtype=torch.float32, tol=2e-5)

    def test_bool_mask(self):
        m = torch.rand(5, 7) < 0.7
        m[:, 0] = True
        self.compare((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6), mask=m)

    def test_float_mask_adds_batch_dims(self):
        self.compare((3, 5, 4), (3, 7, 4), (3, 7, 6), mask=torch.randn(2, 1, 5, 7, dtype=torch.float64))

    def test_causal(self):
        self.compare((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6), is_causal=True)
        self.compare((2, 3, 9, 4), (2, 3, 4, 4), (2, 3, 4, 6), is_causal=True)

    def test_broadcast_batch_and_scale(self):
        self.compare((2, 3, 5, 4), (3, 7, 4), (2, 1, 7, 6), scale=0.3)

    def test_transposed_heads(self):
        self.compare((2, 3, 6, 8), (2, 3, 6, 8), (2, 3, 6, 8), heads=True, is_causal=True)

    def test_low_precision_against_float32(self):
        for dtype, tol in ((ts.bfloat16, 1e-2), (ts.float16, 2e-3)):
            q, k, v = (torch.randn(2, 2, 40, 16) for _ in range(3))
            lo = [tsr(t).to(dtype) for t in (q, k, v)]
            ref = TF.scaled_dot_product_attention(*(t.to(ts.float32) for t in lo), is_causal=True)
            out = TF.scaled_dot_product_attention(*lo, is_causal=True)
            self.assertEqual(out.dtype, dtype)
            np.testing.assert_allclose(values(out), values(ref), rtol=tol, atol=tol)

    def test_dropout(self):
        q, k, v = (tsr(torch.randn(2, 4, 6, 8)) for _ in range(3))
        ts.manual_seed(3)
        a = TF.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
        b = TF.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
        ts.manual_seed(3)
        c = TF.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
        self.assertEqual(a.tolist(), c.tolist())
        self.assertNotEqual(a.tolist(), b.tolist())
        # p = 1 drops everything (torch's dropout gives zeros).
        self.assertTrue((values(TF.scaled_dot_product_attention(q, k, v, dropout_p=1.0)) == 0).all())

    def test_errors(self):
        q, k, v = (tsr(torch.randn(2, 5, 4)) for _ in range(3))
        m = tsr(torch.ones(5, 5, dtype=torch.bool))
        with self.assertRaisesRegex(ts.errors.InvalidArgumentError, "Explicit attn_mask should not be set"):
            TF.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=True)
        with self.assertRaisesRegex(ts.errors.InvalidArgumentError, "dropout probability has to be between 0 and 1"):
            TF.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
        with self.assertRaisesRegex(ts.errors.DTypeMismatchError, "same dtype"):
            TF.scaled_dot_product_attention(q, k.to(ts.float64), v)
        with self.assertRaisesRegex(ts.errors.ShapeMismatchError, "key.size"):
            TF.scaled_dot_product_attention(q, tsr(torch.randn(2, 5, 3)), v)
        with self.assertRaisesRegex(ts.errors.DTypeMismatchError, "attn_mask dtype"):
            TF.scaled_dot_product_attention(q, k, v, attn_mask=tsr(torch.ones(5, 5, dtype=torch.int64)))


if __name__ == "__main__":
    unittest.main()
