"""Failed calls raise tessera.Error subclasses with the C status and message;
closed handles raise instead of crashing; bad Python input is refused
cleanly."""
import json
import os
import unittest

import tessera as ts

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden.json")))


class NativeErrors(unittest.TestCase):
    def test_view_needing_a_copy_is_not_viewable(self):
        t = ts.arange(6.0).view(2, 3).t()
        with self.assertRaises(ts.NotViewableError) as caught:
            t.view(6)
        error = caught.exception
        self.assertEqual(error.status, ts.Status.NOT_VIEWABLE)
        self.assertEqual(int(error.status), 6)
        self.assertIsInstance(error, ts.Error)
        self.assertIsInstance(error, RuntimeError)  # what torch raises
        self.assertIsInstance(error, ValueError)
        # torch's message, up to its advice, and then tessera's numbers.
        torch_message = GOLDEN["view_error"]
        self.assertTrue(str(error).startswith(torch_message.split(". Use .reshape")[0]), str(error))
        self.assertIn("Use .reshape(...) instead.", str(error))
        self.assertEqual(error.message, str(error))
        self.assertEqual(t.reshape(6).tolist(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0])  # t unchanged

    def test_statuses_map_to_classes(self):
        cases = [
            (lambda: ts.zeros(2) + ts.zeros(3), ts.ShapeMismatchError, ValueError),
            (lambda: ts.arange(4) @ ts.arange(4), ts.DTypeMismatchError, TypeError),
            (lambda: ts.zeros(2, 3).select(0, 5), ts.IndexOutOfRangeError, IndexError),
            (lambda: ts.zeros(2).transpose(0, 3), ts.InvalidArgumentError, ValueError),
            (lambda: ts.load("/nonexistent/dir/x.tsr"), ts.InputOutputError, OSError),
            (lambda: ts.zeros(2, device="cuda"), ts.UnsupportedError, NotImplementedError),
            (lambda: ts.zeros(1 << 40, 1 << 30), ts.Error, RuntimeError),
        ]
        for call, cls, builtin in cases:
            with self.subTest(cls=cls.__name__):
                with self.assertRaises(cls) as caught:
                    call()
                self.assertIsInstance(caught.exception, builtin)
                self.assertTrue(caught.exception.message)

    def test_autograd_misuse(self):
        w = ts.ones(2, requires_grad=True)
        with self.assertRaises(ts.AutogradError) as caught:
            w.add_(1.0)
        self.assertIn("leaf Variable that requires grad", str(caught.exception))
        self.assertEqual(w.tolist(), [1.0, 1.0])

    def test_out_of_memory_under_a_limit(self):
        try:
            ts.set_memory_limit(64 << 20)
            self.assertEqual(ts.memory_limit(), 64 << 20)
            with self.assertRaises(ts.OutOfMemoryError) as caught:
                ts.empty(256 << 20, dtype=ts.uint8)
            self.assertIsInstance(caught.exception, MemoryError)
        finally:
            ts.set_memory_limit(0)

    def test_corrupt_file(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tessera-corrupt-{os.getpid()}.tsr")
        try:
            with open(path, "wb") as f:
                f.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
            with self.assertRaises(ts.CorruptFileError):
                ts.load(path)
        finally:
            os.unlink(path)

    def test_string_with_a_nul_is_refused(self):
        # It would otherwise be cut short: load("a\0b") would open "a".
        for call in (lambda: ts.load("/tmp/a\0b"),
                     lambda: ts.save({"a\0b": ts.ones(1)}, "/tmp/never-written.tsr"),
                     lambda: ts.save({"a": ts.ones(1)}, "/tmp/never-written.tsr",
                                     metadata={"k": "v\0"})):
            with self.assertRaises(ts.InvalidArgumentError) as caught:
                call()
            self.assertIn("NUL", str(caught.exception))
        self.assertFalse(os.path.exists("/tmp/never-written.tsr"))


class Lifetimes(unittest.TestCase):
    def test_use_after_close_raises(self):
        t = ts.zeros(2, 2)
        t.close()
        for use in (lambda: t.shape, lambda: t.ndim, lambda: t.tolist(), lambda: t + 1,
                    lambda: t.transpose(0, 1), lambda: t.sum(), lambda: ts.zeros(2) + t,
                    lambda: t.numpy(), lambda: t.__dlpack__()):
            with self.assertRaises(ts.InvalidArgumentError):
                use()
        self.assertEqual(repr(t), "tensor(<closed>)")

    def test_closed_tensor_is_not_taken_for_none(self):
        w = ts.ones(2, requires_grad=True)
        g = ts.ones(2)
        g.close()
        with self.assertRaises(ts.InvalidArgumentError):
            w.grad = g
        with self.assertRaises(ts.InvalidArgumentError):
            (w * 2).sum().backward(g)

    def test_double_close_and_with(self):
        t = ts.zeros(3)
        t.close()
        t.close()
        with ts.zeros(3) as u:
            self.assertEqual(u.shape, (3,))
        with self.assertRaises(ts.InvalidArgumentError):
            u.numel()

    def test_other_handles_close(self):
        g = ts.Generator(1)
        g.close()
        with self.assertRaises(ts.InvalidArgumentError):
            ts.rand(2, generator=g)
        t = ts.zeros(4)
        with t.storage() as s:
            self.assertEqual(s.nbytes(), 16)
        with self.assertRaises(ts.InvalidArgumentError):
            s.nbytes()
        self.assertEqual(t.tolist(), [0.0] * 4)  # the tensor keeps its own reference

    def test_views_outlive_their_base(self):
        base = ts.arange(6.0)
        view = base.view(2, 3)
        base.close()
        self.assertEqual(view.tolist(), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])


class BadPythonInput(unittest.TestCase):
    def test_wrong_types(self):
        with self.assertRaises(TypeError):
            ts.zeros("abc")
        with self.assertRaises(TypeError):
            ts.zeros(2.5)
        with self.assertRaises(TypeError):
            ts.zeros(2) + "x"
        with self.assertRaises(TypeError):
            ts.zeros(2).add_(None)
        with self.assertRaises(TypeError):
            ts.tensor([1, "a"])
        with self.assertRaises(TypeError):
            ts.save({1.5: ts.zeros(1)}, "/tmp/never-written.tsr")
        with self.assertRaises(ts.InvalidArgumentError):
            ts.zeros(-1)
        with self.assertRaises(ts.InvalidArgumentError):
            ts.save({"a": None}, "/tmp/never-written.tsr")
        self.assertFalse(os.path.exists("/tmp/never-written.tsr"))

    # SWIG's own wording, which 0.1 showed for wrong argument types
    # ("in method 'TensorList_append', argument 2 of type 'TsrTensor *'").
    SWIG_WORDS = ("in method", "of type '", "_p_", "SwigPyObject", "Swig", "Tsr", "tsr_")

    def assert_plain_type_error(self, call, *expected):
        """call raises TypeError, with none of SWIG's words and each of expected."""
        with self.assertRaises(TypeError) as caught:
            call()
        message = str(caught.exception)
        for word in self.SWIG_WORDS:
            self.assertNotIn(word, message)
        for word in expected:
            self.assertIn(word, message)

    def test_wrong_types_are_said_without_swig_internals(self):
        path = "/tmp/never-written.tsr"
        t = ts.ones(2)
        cases = [
            (lambda: ts.save({"a": [1, object()]}, path), ("'a.1'", "object")),
            (lambda: ts.save({"a": {1.5: t}}, path), ("dict keys", "float", "a")),
            (lambda: ts.tensor("abc"), ("number", "str")),
            (lambda: t.matmul([1.0, 2.0]), ("'other'", "tessera.Tensor", "not list")),
            (lambda: ts.linear(ts.ones(2, 2), [[1.0]]), ("'weight'", "tessera.Tensor", "not list")),
            (lambda: ts.where([True], t, t), ("'condition'", "tessera.Tensor", "not list")),
            (lambda: t.copy_([1.0, 2.0]), ("'src'", "tessera.Tensor", "not list")),
            (lambda: ts.full((2,), "x"), ("'value'", "number", "not str")),
            (lambda: t.transpose("a", 0), ("'dim0'", "an int", "not str")),
            (lambda: ts.rand(2, generator=5), ("'generator'", "tessera.Generator", "not int")),
            (lambda: ts.cat([t, [1.0]]), ("Tensor", "list")),
        ]
        for call, expected in cases:
            with self.subTest(expected=expected):
                self.assert_plain_type_error(call, *expected)
        self.assertFalse(os.path.exists(path))

    def test_from_dlpack_refuses_non_capsules(self):
        with self.assertRaises(TypeError):
            ts.from_dlpack(42)


if __name__ == "__main__":
    unittest.main()
