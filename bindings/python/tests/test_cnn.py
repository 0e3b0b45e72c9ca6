"""The convolutional layers (conv2d, max_pool2d, avg_pool2d,
adaptive_avg_pool2d, batch_norm) from Python against PyTorch 1.13 itself:
values, output strides (channels_last in, channels_last out), gradients,
batch_norm's running stats, torch-style int-or-pair arguments, and the
native error for a wrong pair."""
import unittest

import numpy as np
import torch
import torch.nn.functional as F

import tessera as ts


def tsr(t, requires_grad=False):
    """A tessera copy of a torch tensor, keeping its strides."""
    x = ts.from_dlpack(t.detach().clone(memory_format=torch.preserve_format))
    if requires_grad:
        x.requires_grad_(True)
    return x



def values(t):
    return np.array(t.tolist(), dtype=np.float64)


class Cnn(unittest.TestCase):
    def check(self, mine, ref, tol=1e-4):
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        self.assertEqual(tuple(mine.stride()), tuple(ref.stride()))
        np.testing.assert_allclose(values(mine), ref.detach().double().numpy(), rtol=tol, atol=tol)

    def test_conv2d_both_formats(self):
        for fmt in (torch.contiguous_format, torch.channels_last):
            with self.subTest(fmt=fmt):
                x = torch.randn(2, 4, 7, 6).contiguous(memory_format=fmt).requires_grad_()
                w = torch.randn(6, 2, 3, 3).requires_grad_()
                b = torch.randn(6).requires_grad_()
                y = F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
                tx, tw, tb = tsr(x, True), tsr(w, True), tsr(b, True)
                ty = ts.conv2d(tx, tw, tb, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
                self.check(ty, y)
                g = torch.randn_like(y)
                y.backward(g)
                ty.backward(tsr(g))
                self.check(tx.grad, x.grad)
                self.check(tw.grad, w.grad)
                self.check(tb.grad, b.grad)

    def test_pooling(self):
        x = torch.randn(2, 3, 7, 7).contiguous(memory_format=torch.channels_last)
        tx = tsr(x)
        y, i = F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)
        ty, ti = ts.max_pool2d(tx, 3, 2, 1, ceil_mode=True, return_indices=True)
        self.check(ty, y)
        self.assertEqual(ti.tolist(), i.tolist())
        self.check(ts.max_pool2d(tx, 2), F.max_pool2d(x, 2))
        self.check(ts.avg_pool2d(tx, (3, 2), None, (1, 0), True, False),
                   F.avg_pool2d(x, (3, 2), None, (1, 0), True, False))
        self.check(ts.adaptive_avg_pool2d(tx, (3, 2)), F.adaptive_avg_pool2d(x, (3, 2)))

    def test_batch_norm_running_stats(self):
        x = torch.randn(4, 3, 5, 5)
        rm, rv = torch.zeros(3), torch.ones(3)
        trm, trv = tsr(rm), tsr(rv)
        y = F.batch_norm(x, rm, rv, training=True, momentum=0.2)
        ty = ts.batch_norm(tsr(x), trm, trv, training=True, momentum=0.2)
        self.check(ty, y)
        self.check(trm, rm, 1e-5)
        self.check(trv, rv, 1e-5)

    def test_bad_pair(self):
        x = tsr(torch.randn(1, 1, 4, 4))
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            ts.max_pool2d(x, (2, 2, 2))
        self.assertIn("kernel_size must have 2 elements", str(cm.exception))


class CnnLowPrecision(unittest.TestCase):
    """bfloat16 against torch 1.13 at run time (conv2d through both
    libraries' oneDNN kernels; pooling and batch norm accumulate in float),
    float16 against torch's float32 result rounded to float16 (torch 1.13 has
    no CPU float16 CNN kernels; tessera follows torch 2.x). Results are
    compared within `ulps` units of the dtype's precision relative to the
    largest magnitude (accumulation order and torch's intermediate bfloat16
    roundings move a result by an ulp or two); dtype and strides exactly."""

    def check(self, mine, ref, ulps=3):
        self.assertEqual(str(mine.dtype).split(".")[-1], str(ref.dtype).split(".")[-1])
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        self.assertEqual(tuple(mine.stride()), tuple(ref.stride()))
        eps = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}.get(ref.dtype, 1e-6)
        want = ref.detach().double().numpy()
        scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
        np.testing.assert_allclose(values(mine), want, rtol=0, atol=ulps * eps * scale)

    def test_conv2d_bfloat16(self):
        for fmt in (torch.contiguous_format, torch.channels_last):
            for groups in (1, 2):
                with self.subTest(fmt=fmt, groups=groups):
                    x = torch.randn(2, 4, 9, 8).bfloat16().contiguous(memory_format=fmt).requires_grad_()
                    w = torch.randn(6, 4 // groups, 3, 3).bfloat16().requires_grad_()
                    b = torch.randn(6).bfloat16().requires_grad_()
                    y = F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=groups)
                    tx, tw, tb = tsr(x, True), tsr(w, True), tsr(b, True)
                    ty = ts.conv2d(tx, tw, tb, stride=(2, 1), padding=1, dilation=(1, 2), groups=groups)
                    self.check(ty, y)
                    g = torch.randn_like(y)
                    y.backward(g)
                    ty.backward(tsr(g))
                    self.check(tx.grad, x.grad)
                    self.check(tw.grad, w.grad)
                    self.check(tb.grad, b.grad)

    def test_conv2d_float16_as_float32_rounded(self):
        x = torch.randn(2, 4, 7, 7).half().contiguous(memory_format=torch.channels_last)
        w = torch.randn(6, 2, 3, 3).half()
        tx, tw = tsr(x, True), tsr(w, True)
        ty = ts.conv2d(tx, tw, None, padding=1, groups=2)
        x32, w32 = x.float().requires_grad_(), w.float().requires_grad_()
        y32 = F.conv2d(x32, w32, None, padding=1, groups=2)
        self.check(ty, y32.half(), ulps=1)
        g = torch.randn_like(y32).half()
        y32.backward(g.float())
        ty.backward(tsr(g))
        self.check(tx.grad, x32.grad.half(), ulps=1)
        self.check(tw.grad, w32.grad.half(), ulps=1)

    def test_pooling_bfloat16(self):
        for fmt in (torch.contiguous_format, torch.channels_last):
            for name, f, tf in (
                    ("max", lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True),
                     lambda t: ts.max_pool2d(t, 3, 2, 1, ceil_mode=True)),
                    ("avg", lambda t: F.avg_pool2d(t, 3, 2, 1), lambda t: ts.avg_pool2d(t, 3, 2, 1)),
                    ("adaptive", lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
                     lambda t: ts.adaptive_avg_pool2d(t, (3, 4)))):
                with self.subTest(fmt=fmt, pool=name):
                    x = torch.randn(2, 3, 7, 7).bfloat16().contiguous(memory_format=fmt).requires_grad_()
                    tx = tsr(x, True)
                    y, ty = f(x), tf(tx)
                    self.check(ty, y)
                    g = torch.randn_like(y)
                    y.backward(g)
                    ty.backward(tsr(g))
                    self.check(tx.grad, x.grad)

    def test_batch_norm_bfloat16(self):
        for fmt in (torch.contiguous_format, torch.channels_last):
            for pdt in (torch.bfloat16, torch.float32):
                for training in (True, False):
                    with self.subTest(fmt=fmt, params=pdt, training=training):
                        x = (torch.randn(3, 4, 5, 5) * 2 + 1).bfloat16().contiguous(memory_format=fmt)
                        x.requires_grad_()
                        rm, rv = torch.rand(4).to(pdt), (torch.rand(4) + 0.5).to(pdt)
                        w, b = torch.randn(4).to(pdt).requires_grad_(), torch.randn(4).to(pdt).requires_grad_()
                        trm, trv, tx, tw, tb = tsr(rm), tsr(rv), tsr(x, True), tsr(w, True), tsr(b, True)
                        y = F.batch_norm(x, rm, rv, w, b, training=training)
                        ty = ts.batch_norm(tx, trm, trv, tw, tb, training=training)
                        self.check(ty, y)
                        self.check(trm, rm)
                        self.check(trv, rv)
                        g = torch.randn_like(y)
                        y.backward(g)
                        ty.backward(tsr(g))
                        self.check(tx.grad, x.grad)
                        self.check(tw.grad, w.grad)
                        self.check(tb.grad, b.grad)

    def test_batch_norm_bfloat16_create_graph(self):
        """Under create_graph the gradients come from differentiable ops,
        computed in float32 and rounded once: torch's first-order values."""
        for pdt in (torch.bfloat16, torch.float32):
            with self.subTest(params=pdt):
                x = torch.randn(3, 4, 3, 3).bfloat16().requires_grad_()
                w, b = torch.randn(4).to(pdt).requires_grad_(), torch.randn(4).to(pdt).requires_grad_()
                tx, tw, tb = tsr(x, True), tsr(w, True), tsr(b, True)
                y = F.batch_norm(x, None, None, w, b, training=True)
                ty = ts.batch_norm(tx, None, None, tw, tb, training=True)
                g = torch.randn_like(y)
                want = torch.autograd.grad(y, [x, w, b], g)
                got = ts.autograd.grad(ty, [tx, tw, tb], tsr(g), create_graph=True)
                for mine, ref in zip(got, want):
                    self.check(mine, ref)
                self.assertIsNotNone(got[0].grad_fn)

    def test_batch_norm_mixed_dtype_errors(self):
        """torch's own message for each mixed combination (the first defined
        of weight, bias, running_mean, running_var decides)."""
        x = torch.randn(2, 3, 4, 4).bfloat16()
        f, b = torch.ones(3), torch.ones(3).bfloat16()
        for rm, rv, w, bias in ((f, f, b, None), (f, f, f, b), (b, f, None, None)):
            with self.subTest(rm=rm.dtype, rv=rv.dtype, w=w is not None and w.dtype, b=bias is not None):
                with self.assertRaises(RuntimeError) as want:
                    F.batch_norm(x, rm.clone(), rv.clone(), w, bias, training=True)
                with self.assertRaises(ts.DTypeMismatchError) as cm:
                    ts.batch_norm(tsr(x), tsr(rm), tsr(rv), w if w is None else tsr(w),
                                  bias if bias is None else tsr(bias), training=True)
                self.assertIn(str(want.exception).split("\n")[0], str(cm.exception))

class TrainingMatchesTorch(unittest.TestCase):
    """examples/fashion's network, end to end: five AdamW steps in
    channels_last from torch's initial weights on one batch give torch's
    losses, weights and running statistics (Adam's normalisation
    magnifies last-bit differences, hence the looser weight tolerance). The
    convolutions have no bias here: batch norm right after cancels it, so
    its gradient is rounding noise (~1e-9) that Adam scales to full steps,
    differently on each side."""

    def test_five_adamw_steps(self):
        torch.manual_seed(0)
        m = torch.nn.Sequential(
            torch.nn.Conv2d(1, 32, 3, padding=1, bias=False), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(32, 64, 3, padding=1, bias=False), torch.nn.BatchNorm2d(64),
            torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(3136, 10))
        m = m.to(memory_format=torch.channels_last)
        x = torch.randn(16, 1, 28, 28)
        y = torch.randint(0, 10, (16,))
        state = {k: tsr(v) for k, v in m.state_dict().items() if "num_batches" not in k}
        names = ["0.weight", "1.weight", "1.bias", "4.weight", "5.weight", "5.bias", "9.weight",
                 "9.bias"]
        params = [state[k].requires_grad_(True) for k in names]
        opt_t = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1e-2)
        opt_s = ts.optim.AdamW(params, lr=1e-3, weight_decay=1e-2)
        xs, ys = tsr(x), tsr(y)

        def forward(h):
            h = h.contiguous(memory_format=ts.channels_last)
            for conv, bn in ((0, 1), (4, 5)):
                h = ts.conv2d(h, state[f"{conv}.weight"], None, 1, 1)
                h = ts.batch_norm(h, state[f"{bn}.running_mean"], state[f"{bn}.running_var"],
                                  state[f"{bn}.weight"], state[f"{bn}.bias"], training=True)
                h = ts.max_pool2d(ts.relu(h), 2)
            return ts.linear(ts.flatten(h, 1), state["9.weight"], state["9.bias"])

        for step in range(5):
            loss_t = F.cross_entropy(m(x.contiguous(memory_format=torch.channels_last)), y)
            opt_t.zero_grad()
            loss_t.backward()
            opt_t.step()
            loss_s = ts.cross_entropy(forward(xs), ys)
            opt_s.zero_grad()
            loss_s.backward()
            opt_s.step()
            self.assertAlmostEqual(loss_s.item(), loss_t.item(), delta=1e-4 * abs(loss_t.item()),
                                   msg=f"loss after step {step}")
        for k, v in m.state_dict().items():
            if "num_batches" in k:
                continue
            np.testing.assert_allclose(values(state[k]), v.double().numpy(),
                                       rtol=1e-3, atol=1e-3 if "running" not in k else 1e-5,
                                       err_msg=k)


if __name__ == "__main__":
    unittest.main()
