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
