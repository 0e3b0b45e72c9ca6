"""The losses (tessera.nn.functional.mse_loss, l1_loss, smooth_l1_loss,
huber_loss, kl_div; tessera.kl_div) against PyTorch 1.13 itself: values,
dtypes, grad_fn names, gradients wrt input and target (broadcast operands
included), double backward, reduction strings and their errors, empty
batches, the 16-bit floats (torch 2.x's rule where torch 1.13 refuses them)."""
import unittest
import warnings

import numpy as np
import torch
import torch.nn.functional as F

import tessera as ts
import tessera.nn.functional as TF


def tsr(t, requires_grad=False):
    """A tessera copy of a torch tensor, keeping its strides."""
    x = ts.from_dlpack(t.detach().clone(memory_format=torch.preserve_format))
    if requires_grad:
        x.requires_grad_(True)
    return x


def values(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def torch_name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


# (name, extra keyword arguments)
POINTWISE = [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.7}), ("smooth_l1_loss", {"beta": 0.0}),
             ("huber_loss", {"delta": 0.6}), ("kl_div", {}), ("kl_div", {"log_target": True})]


class Loss(unittest.TestCase):
    def setUp(self):
        warnings.simplefilter("ignore")

    def inputs(self, name, kw, xs, ys, dtype=torch.float64):
        x = torch.randn(xs, dtype=dtype)
        y = torch.randn(ys, dtype=dtype)
        if name == "kl_div" and not kw.get("log_target"):
            y = y.abs() + 0.1  # probabilities: positive
        return x, y

    def check(self, mine, ref, tol):
        self.assertEqual(tuple(mine.shape), tuple(ref.shape))
        self.assertEqual(str(mine.dtype).split(".")[-1], str(ref.dtype).split(".")[-1])
        np.testing.assert_allclose(values(mine), ref.detach().double().numpy(), rtol=tol, atol=tol)

    def test_values_grads_names(self):
        torch.manual_seed(0)
        shapes = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), ()), ((0, 3), (0, 3))]
        for name, kw in POINTWISE:
            for xs, ys in shapes:
                for reduction in ("none", "mean", "sum", "batchmean") if name == "kl_div" else ("none", "mean", "sum"):
                    with self.subTest(name=name, kw=kw, xs=xs, ys=ys, reduction=reduction):
                        x, y = self.inputs(name, kw, xs, ys)
                        xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
                        ref = getattr(F, name)(xr, yr, reduction=reduction, **kw)
                        a, b = tsr(x, True), tsr(y, True)
                        mine = getattr(TF, name)(a, b, reduction=reduction, **kw)
                        self.check(mine, ref, 1e-10)
                        self.assertEqual(mine.grad_fn.name(), torch_name(ref))
                        g = torch.randn(ref.shape, dtype=ref.dtype)
                        gx, gy = torch.autograd.grad(ref, [xr, yr], g)
                        mine.backward(tsr(g))
                        self.check(a.grad, gx, 1e-10)
                        self.check(b.grad, gy, 1e-10)

    def test_double_backward(self):
        torch.manual_seed(1)
        # l1_loss and smooth_l1_loss(beta=0) have a constant gradient (a
        # sign): nothing of second order to compare.
        for name, kw in [c for c in POINTWISE if c[0] != "l1_loss" and c[1].get("beta") != 0.0]:
            with self.subTest(name=name, kw=kw):
                x, y = self.inputs(name, kw, (3, 4), (4,))
                xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
                ref = getattr(F, name)(xr, yr, reduction="sum", **kw)
                (gx,) = torch.autograd.grad(ref, [xr], create_graph=True)
                gx2 = torch.autograd.grad((gx * gx).sum(), [xr, yr], allow_unused=True)
                a, b = tsr(x, True), tsr(y, True)
                mine = getattr(TF, name)(a, b, reduction="sum", **kw)
                (ga,) = ts.autograd_grad(mine, [a], create_graph=True)
                ga2 = ts.autograd_grad((ga * ga).sum(), [a, b], allow_unused=True)
                self.check(ga, gx, 1e-10)
                for mine2, ref2 in zip(ga2, gx2):  # kl_div's gradient does not depend on input
                    self.assertEqual(mine2 is None, ref2 is None)
                    if ref2 is not None:
                        self.check(mine2, ref2, 1e-10)

    def test_dtypes(self):
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for name, kw in POINTWISE:
                with self.subTest(name=name, dtype=dtype):
                    x, y = self.inputs(name, kw, (5, 6), (5, 6), dtype)
                    try:
                        ref = getattr(F, name)(x, y, **kw)
                    except RuntimeError:  # torch 1.13 lacks the kernel: torch 2.x's float32, rounded once
                        ref = getattr(F, name)(x.float(), y.float(), **kw).to(dtype)
                    self.check(getattr(TF, name)(tsr(x), tsr(y), **kw), ref, 2e-2 if dtype != torch.float32 else 1e-5)

    def test_mixed_dtypes(self):
        x, y = torch.randn(3, 4), torch.randn(3, 4, dtype=torch.float64)
        for name, kw in POINTWISE[:5]:
            with self.subTest(name=name):
                self.check(getattr(TF, name)(tsr(x), tsr(y), **kw), getattr(F, name)(x, y, **kw), 1e-5)

    def test_strided_inputs(self):
        x, y = torch.randn(4, 6).t(), torch.randn(6, 8)[:, ::2]
        for name, kw in POINTWISE:
            with self.subTest(name=name):
                yy = y.abs() + 0.1 if name == "kl_div" else y
                self.check(getattr(TF, name)(tsr(x), tsr(yy), reduction="none", **kw),
                           getattr(F, name)(x, yy, reduction="none", **kw), 1e-5)

    def test_torch_kl_div_form(self):
        x, y = torch.randn(3, 4), torch.rand(3, 4)
        for r in (0, 1, 2):
            for log_target in (False, True):
                with self.subTest(r=r, log_target=log_target):
                    self.check(ts.kl_div(tsr(x), tsr(y), r, log_target=log_target),
                               torch.kl_div(x, y, r, log_target=log_target), 1e-5)
                    self.check(ts.kl_div(tsr(x), tsr(y), reduction=r, log_target=log_target),
                               torch.kl_div(x, y, reduction=r, log_target=log_target), 1e-5)

    def test_legacy_reduction_args(self):
        x, y = torch.randn(3, 4), torch.randn(3, 4)
        for sa, red in ((None, False), (False, None), (True, True)):
            with self.subTest(size_average=sa, reduce=red):
                self.check(TF.mse_loss(tsr(x), tsr(y), sa, red), F.mse_loss(x, y, sa, red), 1e-5)

    def test_empty_mean_is_nan(self):
        for name, kw in POINTWISE:
            with self.subTest(name=name):
                mine = getattr(TF, name)(ts.zeros(0, 3), ts.ones(0, 3), **kw)
                self.assertTrue(np.isnan(mine.item()))

    def test_errors(self):
        x = ts.zeros(3, 4)
        for name, kw in POINTWISE:
            with self.subTest(name=name):
                with self.assertRaisesRegex(ValueError, "bad is not a valid value for reduction"):
                    getattr(TF, name)(x, x, reduction="bad", **kw)
                # torch's kl_div computes target op input first: a is target
                a, b = (5, 4) if name == "kl_div" else (4, 5)
                with self.assertRaisesRegex(ts.errors.ShapeMismatchError,
                                            r"The size of tensor a \({}\) must match the size of tensor b \({}\)"
                                            .format(a, b)):
                    getattr(TF, name)(x, ts.zeros(3, 5), **kw)
        with self.assertRaisesRegex(ValueError, "huber_loss does not support non-positive values for delta."):
            TF.huber_loss(x, x, delta=0.0)
        with self.assertRaisesRegex(ValueError, "smooth_l1_loss does not support negative values for beta."):
            TF.smooth_l1_loss(x, x, beta=-1.0)
        with self.assertRaisesRegex(ts.errors.DTypeMismatchError, "\"mse_cpu\" not implemented for 'Long'"):
            TF.mse_loss(ts.zeros(3, dtype=ts.int64), ts.zeros(3, dtype=ts.int64))



class NllCrossEntropy(unittest.TestCase):
    def setUp(self):
        warnings.simplefilter("ignore")

    def check(self, mine, ref, tol):
        Loss.check(self, mine, ref, tol)

    def compare(self, fn, x, t, kwargs, tol=1e-10, grad=True):
        xr = x.clone().requires_grad_()
        ref = getattr(F, fn)(xr, t, **kwargs)
        a = tsr(x, True)
        kw = dict(kwargs)
        if kw.get("weight") is not None:
            kw["weight"] = tsr(kw["weight"])
        mine = getattr(TF, fn)(a, tsr(t), **kw)
        self.check(mine, ref, tol)
        self.assertEqual(mine.grad_fn.name(), torch_name(ref))
        if grad:
            g = torch.randn(ref.shape, dtype=ref.dtype)
            (gx,) = torch.autograd.grad(ref, [xr], g)
            mine.backward(tsr(g))
            self.check(a.grad, gx, tol)

    def test_class_indices(self):
        torch.manual_seed(2)
        for shape in [(5,), (4, 5), (3, 5, 4), (2, 5, 3, 2), (2, 5, 2, 2, 2), (0, 5), (0, 5, 3)]:
            tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
            x = torch.randn(shape, dtype=torch.float64)
            t = torch.randint(0, 5, tshape)
            if t.numel() > 1:
                t.view(-1)[1] = 2  # an ignored target when ignore_index=2
            for fn in ("nll_loss", "cross_entropy"):
                for reduction in ("none", "mean", "sum"):
                    for weight in (None, torch.rand(5, dtype=torch.float64)):
                        for ignore_index in (-100, 2):
                            for ls in ((0.0, 0.3) if fn == "cross_entropy" else (0.0,)):
                                kw = dict(weight=weight, reduction=reduction, ignore_index=ignore_index)
                                if ls:
                                    kw["label_smoothing"] = ls
                                with self.subTest(fn=fn, shape=shape, **kw):
                                    self.compare(fn, x, t, kw)

    def test_probability_targets(self):
        torch.manual_seed(3)
        for shape in [(5,), (4, 5), (3, 5, 4), (0, 5)]:
            x = torch.randn(shape, dtype=torch.float64)
            t = torch.rand(shape, dtype=torch.float64).softmax(1 if len(shape) > 1 else 0)
            for reduction in ("none", "mean", "sum"):
                for weight in (None, torch.rand(5, dtype=torch.float64)):
                    for ls in (0.0, 0.2):
                        with self.subTest(shape=shape, reduction=reduction, weight=weight is not None, ls=ls):
                            kw = dict(weight=weight, reduction=reduction, label_smoothing=ls)
                            xr, tr = x.clone().requires_grad_(), t.clone().requires_grad_()
                            ref = F.cross_entropy(xr, tr, **kw)
                            a, b = tsr(x, True), tsr(t, True)
                            kw["weight"] = tsr(weight) if weight is not None else None
                            mine = TF.cross_entropy(a, b, **kw)
                            self.check(mine, ref, 1e-10)
                            self.assertEqual(mine.grad_fn.name(), torch_name(ref))
                            g = torch.randn(ref.shape, dtype=ref.dtype)
                            gx, gt = torch.autograd.grad(ref, [xr, tr], g)
                            mine.backward(tsr(g))
                            self.check(a.grad, gx, 1e-10)
                            self.check(b.grad, gt, 1e-10)

    def test_double_backward(self):
        torch.manual_seed(4)
        for shape in [(4, 5), (2, 5, 3, 2)]:
            x = torch.randn(shape, dtype=torch.float64)
            t = torch.randint(0, 5, shape[:1] + shape[2:])
            w = torch.rand(5, dtype=torch.float64)
            for fn in ("nll_loss", "cross_entropy"):
                with self.subTest(fn=fn, shape=shape):
                    xr = x.clone().requires_grad_()
                    (gx,) = torch.autograd.grad(getattr(F, fn)(xr, t, weight=w), [xr], create_graph=True)
                    (gx2,) = torch.autograd.grad((gx * gx).sum(), [xr], allow_unused=True)
                    a = tsr(x, True)
                    (ga,) = ts.autograd_grad(getattr(TF, fn)(a, tsr(t), weight=tsr(w)), [a], create_graph=True)
                    self.check(ga, gx, 1e-10)
                    if gx2 is None:
                        continue
                    (ga2,) = ts.autograd_grad((ga * ga).sum(), [a])
                    self.check(ga2, gx2, 1e-10)

    def test_dtypes(self):
        t = torch.tensor([0, 3, 1])
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            x = torch.randn(3, 5, dtype=dtype)
            for fn in ("nll_loss", "cross_entropy"):
                with self.subTest(fn=fn, dtype=dtype):
                    try:
                        ref = getattr(F, fn)(x, t)
                    except RuntimeError:  # torch 1.13 lacks the kernel: torch 2.x's float32, rounded once
                        ref = getattr(F, fn)(x.float(), t).to(dtype)
                    self.check(getattr(TF, fn)(tsr(x), tsr(t)), ref, 1e-5 if dtype == torch.float32 else 1e-2)

    def test_strided_input(self):
        x = torch.randn(5, 4, dtype=torch.float64).t()
        t = torch.tensor([[0, 1, 4, 2, 3, 3]])[:, ::2].reshape(-1)[:4]
        t = torch.tensor([0, 4, 3, 1, 2, 2, 0, 1])[::2]
        for fn in ("nll_loss", "cross_entropy"):
            self.compare(fn, x, t, dict(reduction="sum"))

    def test_empty_mean_is_nan(self):
        for fn in ("nll_loss", "cross_entropy"):
            self.assertTrue(np.isnan(getattr(TF, fn)(ts.zeros(0, 5), ts.zeros(0, dtype=ts.int64)).item()))
        # every target ignored: 0 / 0
        self.assertTrue(np.isnan(TF.nll_loss(ts.zeros(2, 5), ts.ones(2, dtype=ts.int64), ignore_index=1).item()))

    def test_errors(self):
        x = ts.zeros(3, 5)
        i64 = lambda *v: ts.tensor(list(v), dtype=ts.int64)
        for fn in (TF.nll_loss, TF.cross_entropy):
            with self.subTest(fn=fn.__name__):
                with self.assertRaisesRegex(IndexError, "Target 7 is out of bounds."):
                    fn(x, i64(0, 1, 7))
                with self.assertRaisesRegex(IndexError, "Target -1 is out of bounds."):
                    fn(x, i64(0, 1, -1))
                with self.assertRaisesRegex(ValueError, r"Expected input batch_size \(3\) to match target batch_size \(2\)."):
                    fn(x, i64(0, 1))
                with self.assertRaisesRegex(TypeError, "expected scalar type Long but found Int"):
                    fn(x, ts.zeros(3, dtype=ts.int32))
                with self.assertRaisesRegex(ValueError, "weight tensor should be defined either for all 5 classes or "
                                                        r"no classes but got weight tensor of shape: \[4\]"):
                    fn(x, i64(0, 1, 2), weight=ts.ones(4))
                with self.assertRaisesRegex(TypeError, "expected scalar type Float but found Double"):
                    fn(x, i64(0, 1, 2), weight=ts.ones(5, dtype=ts.float64))
                with self.assertRaisesRegex(ValueError, r"Expected target size \[3, 2\], got \[3, 3\]"):
                    fn(ts.zeros(3, 5, 2), ts.zeros(3, 3, dtype=ts.int64))
                with self.assertRaisesRegex(ValueError, "bad is not a valid value for reduction"):
                    fn(x, i64(0, 1, 2), reduction="bad")
                with self.assertRaises(ValueError):
                    fn(ts.zeros(()), ts.zeros((), dtype=ts.int64))
        with self.assertRaisesRegex(TypeError, "expected scalar type Long but found Float"):
            TF.nll_loss(x, ts.zeros(3))
        with self.assertRaisesRegex(TypeError, "Expected floating point type for target with class probabilities, got Long"):
            TF.cross_entropy(x, ts.zeros(3, 5, dtype=ts.int64))
        with self.assertRaisesRegex(ValueError, "ignore_index is not supported for floating point target"):
            TF.cross_entropy(x, ts.zeros(3, 5), ignore_index=1)
        with self.assertRaisesRegex(ValueError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
            TF.cross_entropy(x, i64(0, 1, 2), label_smoothing=1.5)



class BinaryCrossEntropy(unittest.TestCase):
    def setUp(self):
        warnings.simplefilter("ignore")

    def check(self, mine, ref, tol):
        Loss.check(self, mine, ref, tol)

    def test_values_grads(self):
        torch.manual_seed(5)
        for shape, wshape, pshape in [((4, 3), (3,), (3,)), ((4, 3), (4, 3), (4, 1)), ((), (), ()), ((0, 3), (3,), (3,))]:
            x = torch.rand(shape, dtype=torch.float64) * 0.98 + 0.01
            t = torch.rand(shape, dtype=torch.float64)
            w = torch.rand(wshape, dtype=torch.float64)
            pw = torch.rand(pshape, dtype=torch.float64) * 3
            for fn in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
                for reduction in ("none", "mean", "sum"):
                    for weights in ((None, None), (w, None), (None, pw), (w, pw)):
                        if fn == "binary_cross_entropy" and weights[1] is not None:
                            continue
                        with self.subTest(fn=fn, shape=shape, reduction=reduction, w=weights[0] is not None,
                                          pw=weights[1] is not None):
                            xin = x if fn == "binary_cross_entropy" else (x - 0.5) * 8
                            kw = dict(weight=weights[0], reduction=reduction)
                            if weights[1] is not None:
                                kw["pos_weight"] = weights[1]
                            xr, tr = xin.clone().requires_grad_(), t.clone().requires_grad_()
                            ref = getattr(F, fn)(xr, tr, **kw)
                            a, b = tsr(xin, True), tsr(t, True)
                            mkw = {k: (tsr(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
                            mine = getattr(TF, fn)(a, b, **mkw)
                            self.check(mine, ref, 1e-10)
                            self.assertEqual(mine.grad_fn.name(), torch_name(ref))
                            g = torch.randn(ref.shape, dtype=ref.dtype)
                            (gx, gt), (ga, gb) = torch.autograd.grad(ref, [xr, tr], g, create_graph=True), \
                                ts.autograd_grad(mine, [a, b], tsr(g), create_graph=True)
                            self.check(ga, gx, 1e-9)
                            self.check(gb, gt, 1e-9)
                            if ref.numel() and ref.dim() == 0:  # double backward
                                rx = torch.autograd.grad((gx * gx).sum() + (gt * gt).sum(), [xr, tr])
                                mx = ts.autograd_grad((ga * ga).sum() + (gb * gb).sum(), [a, b])
                                self.check(mx[0], rx[0], 1e-8)
                                self.check(mx[1], rx[1], 1e-8)

    def test_clamped_log_and_extremes(self):
        x, t = torch.tensor([0.0, 1.0, 0.0, 1.0]), torch.tensor([1.0, 0.0, 0.0, 1.0])
        self.check(TF.binary_cross_entropy(tsr(x), tsr(t), reduction="none"),
                   F.binary_cross_entropy(x, t, reduction="none"), 1e-6)
        z = torch.tensor([-200.0, 200.0, 0.0, 30.0])
        pw = torch.tensor([2.0])
        self.check(TF.binary_cross_entropy_with_logits(tsr(z), tsr(t), reduction="none", pos_weight=tsr(pw)),
                   F.binary_cross_entropy_with_logits(z, t, reduction="none", pos_weight=pw), 1e-5)

    def test_dtypes(self):
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            x, t = torch.rand(3, 4, dtype=dtype), torch.rand(3, 4, dtype=dtype)
            for fn in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
                with self.subTest(fn=fn, dtype=dtype):
                    try:
                        ref = getattr(F, fn)(x, t)
                    except RuntimeError:  # torch 1.13 lacks the kernel: torch 2.x's float32, rounded once
                        ref = getattr(F, fn)(x.float(), t.float()).to(dtype)
                    self.check(getattr(TF, fn)(tsr(x), tsr(t)), ref, 1e-5 if dtype == torch.float32 else 2e-2)

    def test_torch_top_level_form(self):
        x, t, pw = torch.randn(3, 4), torch.rand(3, 4), torch.rand(4)
        for r in (0, 1, 2):
            self.check(ts.binary_cross_entropy_with_logits(tsr(x), tsr(t), None, tsr(pw), r),
                       torch.binary_cross_entropy_with_logits(x, t, None, pw, r), 1e-5)
            self.check(ts.binary_cross_entropy_with_logits(tsr(x), tsr(t), reduction=r),
                       torch.binary_cross_entropy_with_logits(x, t, reduction=r), 1e-5)

    def test_errors(self):
        x = ts.full((3,), 0.5)
        with self.assertRaisesRegex(ValueError, "all elements of input should be between 0 and 1"):
            TF.binary_cross_entropy(ts.full((3,), 1.5), x)
        with self.assertRaisesRegex(ValueError, r"Using a target size \(\[2\]\) that is different to the input "
                                                r"size \(\[3\]\) is deprecated"):
            TF.binary_cross_entropy(x, ts.full((2,), 0.5))
        with self.assertRaisesRegex(ValueError, r"Target size \(\[2\]\) must be the same as input size \(\[3\]\)"):
            TF.binary_cross_entropy_with_logits(x, ts.full((2,), 0.5))
        with self.assertRaisesRegex(TypeError, "Found dtype Double but expected Float"):
            TF.binary_cross_entropy(x, ts.full((3,), 0.5, dtype=ts.float64))
        with self.assertRaisesRegex(TypeError, "Found dtype Double but expected Float"):
            TF.binary_cross_entropy(x, x, weight=ts.full((3,), 0.5, dtype=ts.float64))
        with self.assertRaisesRegex(ValueError, "The size of tensor a"):
            TF.binary_cross_entropy(ts.full((3, 2), 0.5), ts.full((3, 2), 0.5), weight=ts.ones(3))
        with self.assertRaisesRegex(ValueError, "The size of tensor a"):
            TF.binary_cross_entropy_with_logits(ts.full((3, 2), 0.5), ts.full((3, 2), 0.5), pos_weight=ts.ones(3))
        with self.assertRaisesRegex(ValueError, "bad is not a valid value for reduction"):
            TF.binary_cross_entropy_with_logits(x, x, reduction="bad")


if __name__ == "__main__":
    unittest.main()
