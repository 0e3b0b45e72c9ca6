"""The nn ops (linear, gelu, tanh, sigmoid, sqrt, pow, clamp, softmax,
layer_norm, cat, stack, where, index_select, gather, embedding, relu_)
against PyTorch 1.13's values, gradients and messages (golden.json, written
by make_golden.py, whose nn_cases() holds the torch expression of each
case), and the inference-mode and anomaly-detection scopes."""
import json
import os
import threading
import unittest

import tessera as ts

_GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden.json")))
CASES = {case["name"]: case for case in _GOLDEN["nn"]}
MESSAGES = _GOLDEN["nn_errors"]


def golden_tensor(name, requires_grad=False):
    """An input of nn_cases() (x, w, ids, ...) as a tessera tensor."""
    case = CASES[name]
    t = ts.tensor(case["values"], dtype=getattr(ts, case["dtype"])).reshape(case["sizes"])
    return t.requires_grad_(True) if requires_grad else t


class Base(unittest.TestCase):
    def assert_matches(self, got, name, tol=1e-5):
        want = CASES[name]
        self.assertEqual(list(got.shape), want["sizes"], name)
        self.assertEqual(got.dtype, getattr(ts, want["dtype"]), name)
        values = got.detach().reshape(-1).tolist()
        self.assertEqual(len(values), len(want["values"]), name)
        for i, (g, w) in enumerate(zip(values, want["values"])):
            self.assertAlmostEqual(g, w, delta=tol * max(1.0, abs(w)), msg=f"{name}[{i}]")

    def inputs(self, *names):
        return [golden_tensor(n) for n in names]


class Forward(Base):
    def test_values_match_torch(self):
        x, p, e, w, b, g, beta, y, cond, index, gather_index, ids = self.inputs(
            "x", "p", "e", "w", "b", "g", "beta", "y", "cond", "index", "gather_index", "ids")
        relu_target = x.clone()
        got = {
            "linear": ts.linear(x, w, b),                          # F.linear(x, w, b)
            "linear_no_bias": ts.linear(x, w),                     # F.linear(x, w)
            "gelu": ts.gelu(x),                                    # F.gelu(x)
            "gelu_tanh": ts.gelu(x, approximate="tanh"),           # F.gelu(x, approximate="tanh")
            "tanh": x.tanh(),                                      # torch.tanh(x)
            "sigmoid": x.sigmoid(),                                # torch.sigmoid(x)
            "sqrt": p.sqrt(),                                      # torch.sqrt(p)
            "pow_scalar": x ** 3.0,                                # torch.pow(x, 3.0)
            "pow_half": p.pow(0.5),                                # torch.pow(p, 0.5)
            "pow_tensor": p ** e,                                  # torch.pow(p, e)
            "clamp": x.clamp(-0.5, 1.0),                           # torch.clamp(x, min=-0.5, max=1.0)
            "clamp_min": x.clamp(min=-0.5),                        # torch.clamp(x, min=-0.5)
            "clamp_max": x.clamp(max=1.0),                         # torch.clamp(x, max=1.0)
            "softmax": x.softmax(1),                               # torch.softmax(x, 1)
            "softmax_dim0": ts.softmax(x, 0),                      # torch.softmax(x, 0)
            "layer_norm": ts.layer_norm(x, [3], g, beta, 1e-5),    # F.layer_norm(x, [3], g, beta, 1e-5)
            "layer_norm_plain": ts.layer_norm(x, (3,)),            # F.layer_norm(x, [3])
            "cat": ts.cat([x, y]),                                 # torch.cat([x, y], 0)
            "cat_dim1": ts.cat((x, p), dim=1),                     # torch.cat([x, p], 1)
            "stack": ts.stack([x, p]),                             # torch.stack([x, p], 0)
            "stack_dim2": ts.stack([x, p], 2),                     # torch.stack([x, p], 2)
            "where": ts.where(cond, x, p),                         # torch.where(cond, x, p)
            "index_select": x.index_select(1, index),              # torch.index_select(x, 1, index)
            "gather": x.gather(1, gather_index),                   # torch.gather(x, 1, gather_index)
            "embedding": ts.embedding(ids, w),                     # F.embedding(ids, w)
            "relu_": relu_target.relu_(),                          # x.clone().relu_()
        }
        for name, tensor in got.items():
            with self.subTest(name):
                self.assert_matches(tensor, name)

    def test_function_forms_and_aliases(self):
        x, p, e, index, gather_index = self.inputs("x", "p", "e", "index", "gather_index")
        self.assert_matches(ts.tanh(x), "tanh")
        self.assert_matches(ts.sigmoid(x), "sigmoid")
        self.assert_matches(ts.sqrt(p), "sqrt")
        self.assert_matches(ts.pow(p, e), "pow_tensor")
        self.assert_matches(ts.pow(x, 3.0), "pow_scalar")
        self.assert_matches(ts.clamp(x, -0.5, 1.0), "clamp")
        self.assert_matches(ts.clip(x, max=1.0), "clamp_max")
        self.assert_matches(x.clamp_min(-0.5), "clamp_min")
        self.assert_matches(x.clamp_max(1.0), "clamp_max")
        self.assert_matches(ts.index_select(x, 1, index), "index_select")
        self.assert_matches(ts.gather(x, 1, gather_index), "gather")
        self.assert_matches(ts.concat([x, p], 1), "cat_dim1")

    def test_pow_dtypes_follow_torch(self):
        # torch.tensor([1, 2, 3]) ** 2 stays int64; ** 0.5 is float32; 2 ** t
        # is torch.pow(2, t).
        ints = ts.tensor([1, 2, 3])
        squared = ints ** 2
        self.assertEqual(squared.dtype, ts.int64)
        self.assertEqual(squared.tolist(), [1, 4, 9])
        self.assertEqual((ints ** 0.5).dtype, ts.float32)
        self.assertEqual((2 ** ints).tolist(), [2, 4, 8])
        self.assertEqual((2 ** ints).dtype, ts.int64)
        halves = 2.0 ** ts.tensor([1.0, -1.0])
        self.assertEqual(halves.dtype, ts.float32)
        self.assertEqual(halves.tolist(), [2.0, 0.5])
        self.assertEqual(ts.pow(2, ts.tensor([3.0])).tolist(), [8.0])
        self.assertEqual(ts.tensor([2.0], dtype=ts.float64).pow(2).dtype, ts.float64)

    def test_where_with_a_number_types_it_as_torch(self):
        # torch.where(cond, x, 0.0) is float32; with an int32 x and 2.5,
        # float32 too.
        x, cond = self.inputs("x", "cond")
        out = ts.where(cond, x, 0.0)
        self.assertEqual(out.dtype, ts.float32)
        self.assertEqual(out.tolist(), [[0.5, 0.0, 2.0], [0.0, 0.25, 0.0]])
        ints = ts.tensor([[1, 2, 3], [4, 5, 6]], dtype=ts.int32)
        self.assertEqual(ts.where(cond, ints, 2.5).dtype, ts.float32)
        self.assertEqual(ts.where(cond, 7, ints).dtype, ts.int32)
        self.assertEqual(x.where(cond, 0.0).tolist(), out.tolist())

    def test_relu_in_place_returns_self(self):
        x = golden_tensor("x").clone()
        before = x._version
        self.assertIs(x.relu_(), x)
        self.assertEqual(x._version, before + 1)

    def test_grad_fn_names_are_torch_names(self):
        x = golden_tensor("x", requires_grad=True)
        w = golden_tensor("w", requires_grad=True)
        self.assertEqual(x.softmax(1).grad_fn.name(), "SoftmaxBackward0")
        self.assertEqual(ts.gelu(x).grad_fn.name(), "GeluBackward0")
        self.assertEqual(x.tanh().grad_fn.name(), "TanhBackward0")
        self.assertEqual(ts.cat([x, x]).grad_fn.name(), "CatBackward0")
        self.assertEqual(ts.stack([x, x]).grad_fn.name(), "StackBackward0")
        self.assertEqual(ts.linear(x, w).grad_fn.name(), "MmBackward0")
        self.assertEqual(ts.layer_norm(x, [3]).grad_fn.name(), "NativeLayerNormBackward0")


def _grads(fn, *leaves):
    """The gradients of (fn(*leaves) ** 2).sum(), as make_golden.py's grads."""
    out = fn(*leaves)
    (out * out).sum().backward()
    return [leaf.grad for leaf in leaves]


class Gradients(Base):
    def test_linear(self):
        gx, gw, gb = _grads(ts.linear, *(golden_tensor(n, True) for n in ("x", "w", "b")))
        self.assert_matches(gx, "linear_grad_x")
        self.assert_matches(gw, "linear_grad_w")
        self.assert_matches(gb, "linear_grad_b")

    def test_gelu(self):
        (gx,) = _grads(ts.gelu, golden_tensor("x", True))
        self.assert_matches(gx, "gelu_grad_x")

    def test_layer_norm(self):
        grads = _grads(lambda a, g, b: ts.layer_norm(a, [3], g, b, 1e-5),
                       *(golden_tensor(n, True) for n in ("x", "g", "beta")))
        for grad, name in zip(grads, ("layer_norm_grad_x", "layer_norm_grad_g",
                                      "layer_norm_grad_beta")):
            self.assert_matches(grad, name)

    def test_cat(self):
        gx, gy = _grads(lambda a, c: ts.cat([a, c], 0), golden_tensor("x", True),
                        golden_tensor("y", True))
        self.assert_matches(gx, "cat_grad_x")
        self.assert_matches(gy, "cat_grad_y")

    def test_gather_and_embedding(self):
        gather_index, ids = self.inputs("gather_index", "ids")
        (gx,) = _grads(lambda a: a.gather(1, gather_index), golden_tensor("x", True))
        self.assert_matches(gx, "gather_grad_x")
        (gw,) = _grads(lambda w: ts.embedding(ids, w), golden_tensor("w", True))
        self.assert_matches(gw, "embedding_grad_w")


class Errors(Base):
    def assert_fails(self, error, name, fn):
        with self.assertRaises(error) as caught:
            fn()
        self.assertIn(MESSAGES[name], str(caught.exception))
        return caught.exception

    def test_each_family_fails_as_torch(self):
        x = golden_tensor("x")
        w = ts.ones(4, 3)
        self.assert_fails(ts.ShapeMismatchError, "linear", lambda: ts.linear(x, ts.ones(4, 2)))
        self.assert_fails(ts.DTypeMismatchError, "gelu", lambda: ts.gelu(ts.tensor([1, 2])))
        self.assert_fails(ts.ShapeMismatchError, "layer_norm", lambda: ts.layer_norm(x, [4]))
        self.assert_fails(ts.ShapeMismatchError, "cat", lambda: ts.cat([x, w], 1))
        self.assert_fails(ts.IndexOutOfRangeError, "gather",
                          lambda: x.gather(1, ts.tensor([[3]])))
        self.assert_fails(ts.IndexOutOfRangeError, "embedding",
                          lambda: ts.embedding(ts.tensor([4]), w))
        self.assert_fails(ts.InvalidArgumentError, "clamp", lambda: x.clamp())
        self.assert_fails(ts.DTypeMismatchError, "where", lambda: ts.where(x, x, x))

    def test_binding_checks(self):
        x = golden_tensor("x")
        w = ts.ones(4, 3)
        bias = ts.zeros(4)
        bias.close()
        with self.assertRaisesRegex(ts.InvalidArgumentError, "bias: tensor is closed"):
            ts.linear(x, w, bias)  # a closed bias must not read as None
        with self.assertRaisesRegex(ts.InvalidArgumentError, "either none or tanh"):
            ts.gelu(x, approximate="erf")
        with self.assertRaisesRegex(ts.InvalidArgumentError, "non-empty list"):
            ts.cat([])
        with self.assertRaises(TypeError):
            ts.cat(x)
        with self.assertRaises(TypeError):
            ts.stack([x, 1.0])
        with self.assertRaises(TypeError):  # a tensor bound with a number bound, as torch
            x.clamp(min=x, max=1.0)
        closed = ts.ones(2, 3)
        closed.close()
        with self.assertRaises(ts.InvalidArgumentError):
            ts.stack([x, closed])


class InferenceMode(unittest.TestCase):
    def test_scope(self):
        w = ts.ones(3, requires_grad=True)
        self.assertFalse(ts.is_inference_mode_enabled())
        with ts.inference_mode():
            self.assertTrue(ts.is_inference_mode_enabled())
            self.assertFalse(ts.is_grad_enabled())
            made = ts.zeros(3)
            y = w * 2
            self.assertTrue(made.is_inference())
            self.assertTrue(y.is_inference())
            self.assertFalse(y.requires_grad)
            self.assertIsNone(y.grad_fn)
            with ts.inference_mode(False):
                self.assertFalse(ts.is_inference_mode_enabled())
                self.assertFalse(ts.zeros(1).is_inference())
            self.assertTrue(ts.is_inference_mode_enabled())
        self.assertFalse(ts.is_inference_mode_enabled())
        self.assertTrue(ts.is_grad_enabled())
        self.assertFalse(w.is_inference())
        self.assertFalse((w * 2).is_inference())
        # Outside, autograd refuses to save an inference tensor for backward.
        with self.assertRaisesRegex(ts.AutogradError, "Inference tensors cannot be saved for backward"):
            w * made

    def test_restored_on_exceptions_and_as_decorator(self):
        with self.assertRaises(ZeroDivisionError):
            with ts.inference_mode():
                1 / 0
        self.assertFalse(ts.is_inference_mode_enabled())
        self.assertTrue(ts.is_grad_enabled())

        @ts.inference_mode()
        def make():
            return ts.ones(2)
        self.assertTrue(make().is_inference())
        self.assertFalse(ts.is_inference_mode_enabled())

    def test_per_thread(self):
        seen = []
        with ts.inference_mode():
            thread = threading.Thread(target=lambda: seen.append(ts.is_inference_mode_enabled()))
            thread.start()
            thread.join()
        self.assertEqual(seen, [False])


class AnomalyDetection(unittest.TestCase):
    def nan_backward(self):
        x = ts.zeros(1, requires_grad=True)
        (x / x).sum().backward()
        return x

    def test_scope_raises_on_nan_gradients(self):
        self.assertFalse(ts.is_anomaly_enabled())
        with ts.detect_anomaly():
            self.assertTrue(ts.is_anomaly_enabled())
            with self.assertRaises(ts.AutogradError) as caught:
                self.nan_backward()
        self.assertIn("returned nan values", str(caught.exception))
        # torch: "Function 'DivBackward0' returned nan values in its 1th output."
        self.assertIn(MESSAGES["anomaly"], str(caught.exception))
        self.assertFalse(ts.is_anomaly_enabled())
        self.assertEqual(str(self.nan_backward().grad.item()), "nan")  # off again: no check

    def test_set_detect_anomaly(self):
        try:
            ts.set_detect_anomaly(True)  # at once, as torch.autograd.set_detect_anomaly
            self.assertTrue(ts.is_anomaly_enabled())
            with self.assertRaisesRegex(ts.AutogradError, "returned nan values"):
                self.nan_backward()
            with ts.set_detect_anomaly(False):
                self.assertFalse(ts.is_anomaly_enabled())
            self.assertTrue(ts.is_anomaly_enabled())
        finally:
            ts.set_detect_anomaly(False)
        with self.assertRaises(KeyError):
            with ts.detect_anomaly():
                raise KeyError("restored on the way out")
        self.assertFalse(ts.is_anomaly_enabled())


if __name__ == "__main__":
    unittest.main()
