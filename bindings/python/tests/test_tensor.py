"""Construction, layout (against PyTorch 1.13's answers in golden.json),
shared storage of views, dtypes, operators, indexing, conversions, repr."""
import array
import json
import math
import os
import unittest

import tessera as ts
from golden_ops import replay

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden.json")))


class Construction(unittest.TestCase):
    def test_factories(self):
        self.assertEqual(ts.empty(2, 3).shape, (2, 3))
        self.assertEqual(ts.empty((2, 3)).shape, (2, 3))
        self.assertEqual(ts.zeros(4).tolist(), [0.0] * 4)
        self.assertEqual(ts.ones(2, 2, dtype=ts.int32).tolist(), [[1, 1], [1, 1]])
        self.assertEqual(ts.full((2,), 7).dtype, ts.int64)
        self.assertEqual(ts.full((2,), 0.5).tolist(), [0.5, 0.5])
        self.assertEqual(ts.arange(4).tolist(), [0, 1, 2, 3])
        self.assertEqual(ts.arange(1, 2, 0.25).tolist(), [1.0, 1.25, 1.5, 1.75])
        self.assertEqual(ts.arange(1, 2, 0.25).dtype, ts.float32)
        self.assertEqual(ts.empty(3, dtype=ts.float64).dtype, ts.float64)
        self.assertEqual(ts.empty(()).shape, ())
        self.assertEqual(ts.empty_strided((2, 3), (1, 2)).stride(), (1, 2))
        cl = ts.empty(2, 3, 4, 5, memory_format=ts.channels_last)
        self.assertEqual(cl.stride(), (60, 1, 15, 3))
        self.assertIsInstance(ts.zeros(1), ts.Tensor)
        self.assertEqual(ts.zeros_like(cl).shape, (2, 3, 4, 5))
        self.assertEqual(ts.full_like(ts.zeros(2), 3).tolist(), [3.0, 3.0])

    def test_tensor_from_python_data_infers_torchs_dtype(self):
        for case in GOLDEN["inferences"]:
            with self.subTest(data=case["data"]):
                t = ts.tensor(case["data"])
                self.assertEqual(t.dtype.name, case["dtype"])
                self.assertEqual(t.tolist(), case["data"])

    def test_tensor_from_buffers(self):
        t = ts.tensor(array.array("f", [1.5, 2.5, 3.5]))
        self.assertEqual((t.dtype, t.tolist()), (ts.float32, [1.5, 2.5, 3.5]))
        self.assertEqual(ts.tensor(array.array("q", [1, -2])).dtype, ts.int64)
        self.assertEqual(ts.tensor(array.array("i", [1, -2]), dtype=ts.float64).tolist(), [1.0, -2.0])
        self.assertEqual(ts.tensor(memoryview(bytes([1, 2, 250]))).tolist(), [1, 2, 250])
        with self.assertRaises(ValueError):
            ts.tensor([[1, 2], [3]])  # ragged

    def test_tensor_copies(self):
        source = ts.zeros(3)
        copy = ts.tensor(source)
        copy[0] = 5
        self.assertEqual(source.tolist(), [0.0, 0.0, 0.0])

    def test_no_public_constructor(self):
        with self.assertRaises(TypeError):
            ts.Tensor()

    def test_pickle_and_deepcopy(self):
        import copy
        import pickle
        t = ts.arange(6.0).view(2, 3).t().requires_grad_()
        u = pickle.loads(pickle.dumps(t))
        self.assertEqual((u.tolist(), u.dtype, u.requires_grad), (t.tolist(), ts.float32, True))
        v = copy.deepcopy(ts.zeros(2, 0, 3, dtype=ts.bfloat16))
        self.assertEqual((v.shape, v.dtype), ((2, 0, 3), ts.bfloat16))
        w = copy.deepcopy(t)
        self.assertFalse(w.shares_storage(t))

    def test_keyword_arguments(self):
        t = ts.zeros(2, 3, 4)
        self.assertEqual(t.flatten(start_dim=1).shape, (2, 12))
        self.assertEqual(t.transpose(dim0=0, dim1=2).shape, (4, 3, 2))
        self.assertEqual(t.clone(memory_format=ts.preserve_format).shape, (2, 3, 4))
        self.assertEqual(ts.arange(10).unfold(0, size=4, step=3).shape, (3, 4))
        with self.assertRaises(TypeError):
            t.view(foo=2)

    def test_generator_is_seeded(self):
        a = ts.rand(5, generator=ts.Generator(42)).tolist()
        b = ts.rand(5, generator=ts.Generator(42)).tolist()
        self.assertEqual(a, b)
        self.assertTrue(all(0 <= v < 1 for v in a))
        self.assertEqual(sorted(ts.randperm(6, generator=ts.Generator(1)).tolist()), list(range(6)))
        ts.manual_seed(3)
        first = ts.randn(4).tolist()
        ts.manual_seed(3)
        self.assertEqual(ts.randn(4).tolist(), first)


class Layout(unittest.TestCase):
    def test_views_match_torch(self):
        for case in GOLDEN["layouts"]:
            with self.subTest(case=case["name"]):
                base = ts.arange(case["numel"], dtype=ts.float32).view(*case["sizes"])
                t = replay(ts, base, case["ops"])
                want = case["expected"]
                self.assertEqual(t.shape, tuple(want["sizes"]))
                self.assertEqual(t.size(), tuple(want["sizes"]))
                self.assertEqual(t.stride(), tuple(want["strides"]))
                self.assertEqual(t.storage_offset(), want["storage_offset"])
                self.assertEqual(t.is_contiguous(), want["contiguous"])
                self.assertEqual(t.ndim == 4 and t.is_contiguous(ts.channels_last),
                                 want["channels_last"])
                self.assertEqual(t.flatten().tolist(), want["values"])

    def test_size_and_stride_of_one_dim(self):
        t = ts.zeros(2, 3, 4).transpose(0, 2)
        self.assertEqual((t.size(0), t.size(-1), t.stride(0)), (4, 2, 1))
        self.assertEqual((t.ndim, t.dim(), t.numel(), t.nbytes, t.itemsize), (3, 3, 24, 96, 4))

    def test_views_share_storage(self):
        base = ts.zeros(3, 4)
        views = [base.t(), base[1], base.view(12), base.narrow(1, 1, 2), base.unsqueeze(0),
                 base.expand(2, 3, 4), base.detach(), base.as_strided((2,), (5,))]
        for v in views:
            self.assertTrue(v.shares_storage(base))
        base.t()[2, 1] = 9.0  # through a view ...
        self.assertEqual(base[1, 2].item(), 9.0)  # ... seen through the base
        base[1].fill_(4.0)  # through the base's row view ...
        self.assertEqual(views[2].tolist()[4:8], [4.0] * 4)  # ... seen through view(12)
        self.assertFalse(base.clone().shares_storage(base))
        self.assertEqual(base.storage().nbytes(), 48)

    def test_split_and_chunk_are_views(self):
        t = ts.arange(10)
        pieces = t.split(4)
        self.assertEqual([p.tolist() for p in pieces], [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])
        self.assertEqual([p.shape for p in t.chunk(3)], [(4,), (4,), (2,)])
        pieces[1][0] = 40
        self.assertEqual(t[4].item(), 40)

    def test_conversions(self):
        t = ts.tensor([1.7, -2.2])
        self.assertEqual(t.to(ts.int64).tolist(), [1, -2])
        self.assertIs(t.to(ts.float32), t)
        self.assertIsNot(t.to(ts.float32, copy=True), t)
        self.assertEqual(t.double().dtype, ts.float64)
        self.assertEqual(t.half().tolist(), [1.7001953125, -2.19921875])
        self.assertEqual(t.to("cpu").dtype, ts.float32)
        with self.assertRaises(ts.UnsupportedError):
            t.to("cuda")
        cl = ts.zeros(2, 3, 4, 5).contiguous(ts.channels_last)
        self.assertTrue(cl.is_contiguous(ts.channels_last))
        self.assertEqual(cl.suggest_memory_format(), ts.channels_last)


class Operators(unittest.TestCase):
    def test_number_operands_promote_as_torch(self):
        ops = {"add": lambda t, s: t + s, "radd": lambda t, s: s + t, "sub": lambda t, s: t - s,
               "rsub": lambda t, s: s - t, "mul": lambda t, s: t * s, "div": lambda t, s: t / s,
               "rdiv": lambda t, s: s / t}
        for case in GOLDEN["promotions"]:
            with self.subTest(case=case):
                t = ts.tensor(case["values"], dtype=getattr(ts, case["dtype"]))
                result = ops[case["op"]](t, case["scalar"])
                self.assertEqual(result.dtype.name, case["expected"]["dtype"])
                self.assertEqual(result.tolist(), case["expected"]["values"])

    def test_tensor_operands(self):
        a = ts.tensor([[1.0, 2.0], [3.0, 4.0]])
        b = ts.tensor([10.0, 20.0])
        self.assertEqual((a + b).tolist(), [[11.0, 22.0], [13.0, 24.0]])
        self.assertEqual((a - b).tolist(), [[-9.0, -18.0], [-7.0, -16.0]])
        self.assertEqual((a * b).tolist(), [[10.0, 40.0], [30.0, 80.0]])
        self.assertEqual((b / ts.tensor([4.0, 5.0])).tolist(), [2.5, 4.0])
        self.assertEqual((a @ a).tolist(), [[7.0, 10.0], [15.0, 22.0]])
        self.assertEqual((-a).tolist(), [[-1.0, -2.0], [-3.0, -4.0]])
        self.assertEqual(a.add(b, alpha=2).tolist(), [[21.0, 42.0], [23.0, 44.0]])
        with self.assertRaises(ts.ShapeMismatchError):
            a + ts.zeros(3)

    def test_comparisons_are_elementwise(self):
        # Each expected list is what torch 1.13 prints for the same line.
        self.assertEqual((ts.ones(3) == ts.ones(3)).tolist(), [True, True, True])
        a = ts.tensor([1.0, 2.0, math.nan])
        b = ts.tensor([1.0, 3.0, math.nan])
        self.assertEqual((a == b).tolist(), [True, False, False])
        self.assertEqual((a != b).tolist(), [False, True, True])
        self.assertEqual((a < 2).tolist(), [True, False, False])
        self.assertEqual((a <= 2).tolist(), [True, True, False])
        self.assertEqual((2 < a).tolist(), [False, False, False])
        self.assertEqual((a >= b).tolist(), [True, False, False])
        self.assertEqual((ts.tensor([1, 2, 3]) > 1.5).tolist(), [False, True, True])
        self.assertEqual(ts.eq(a, b).dtype, ts.bool)
        self.assertIs(ts.ones(2) == None, False)  # noqa: E711 (torch's answer too)
        self.assertFalse(ts.allclose(a, b))
        self.assertTrue(ts.allclose(a, a, equal_nan=True))
        self.assertTrue(ts.ones(2).allclose(ts.ones(2) + 1e-9))
        with self.assertRaises(ts.ShapeMismatchError):
            ts.ones(2) < ts.ones(3)

    def test_abs_and_pow(self):
        self.assertEqual(abs(ts.tensor([-1.5, 2.0])).tolist(), [1.5, 2.0])
        self.assertEqual(ts.abs(ts.tensor([-3, 4])).tolist(), [3, 4])
        self.assertEqual((ts.tensor([2.0, 3.0]) ** 2).tolist(), [4.0, 9.0])

    def test_in_place(self):
        t = ts.ones(3)
        t += 1
        t *= 3
        t -= ts.tensor([1.0, 2.0, 3.0])
        self.assertEqual(t.tolist(), [5.0, 4.0, 3.0])
        self.assertEqual(t.zero_().tolist(), [0.0] * 3)
        self.assertEqual(t.fill_(2).tolist(), [2.0] * 3)
        self.assertEqual(t._version, 5)

    def test_reductions_and_functions(self):
        t = ts.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        self.assertEqual(t.sum().item(), 21.0)
        self.assertEqual(t.sum(0).tolist(), [5.0, 7.0, 9.0])
        self.assertEqual(t.sum((0, 1), keepdim=True).shape, (1, 1))
        self.assertEqual(t.mean(1).tolist(), [3.0, 4.0])
        self.assertEqual(t.max().item(), 6.0)
        values, indices = t.max(1)
        self.assertEqual((values.tolist(), indices.tolist()), ([5.0, 6.0], [1, 2]))
        self.assertEqual(t.max(dim=0).indices.tolist(), [1, 0, 1])
        self.assertEqual(t.argmax().item(), 5)
        self.assertEqual(t.argmax(1).tolist(), [1, 2])
        self.assertEqual(ts.relu(t - 3).tolist(), [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
        self.assertAlmostEqual(t.softmax(1).sum(1).tolist()[0], 1.0, places=6)
        self.assertAlmostEqual(ts.exp(ts.log(t)).tolist()[1][2], 6.0, places=5)


class Indexing(unittest.TestCase):
    def test_indexing(self):
        t = ts.arange(24).view(2, 3, 4)
        self.assertEqual(t[1, 2, 3].item(), 23)
        self.assertEqual(t[-1, -1].tolist(), [20, 21, 22, 23])
        self.assertEqual(t[:, 1, ::2].tolist(), [[4, 6], [16, 18]])
        self.assertEqual(t[..., 0].shape, (2, 3))
        self.assertEqual(t[None, 0].shape, (1, 3, 4))
        self.assertEqual(t[0, 5:].shape, (0, 4))
        with self.assertRaises(IndexError):
            t[2]
        with self.assertRaises(IndexError):
            t[0, 0, 0, 0]
        with self.assertRaises(TypeError):
            t[1.5]
        with self.assertRaises(ts.InvalidArgumentError):
            t[::-1]

    def test_setitem(self):
        t = ts.zeros(2, 3)
        t[0] = 1.0
        t[1, 1:] = ts.tensor([5.0, 6.0])
        self.assertEqual(t.tolist(), [[1.0, 1.0, 1.0], [0.0, 5.0, 6.0]])

    def test_python_protocols(self):
        t = ts.arange(6).view(2, 3)
        self.assertEqual(len(t), 2)
        self.assertEqual([row.tolist() for row in t], [[0, 1, 2], [3, 4, 5]])
        self.assertEqual(float(t[1, 1]), 4.0)
        self.assertEqual(int(ts.tensor(3.9)), 3)
        self.assertTrue(bool(ts.tensor([1])))
        with self.assertRaises(ValueError):
            bool(t)
        with self.assertRaises(TypeError):
            len(ts.tensor(1.0))


class Conversions(unittest.TestCase):
    def test_tolist_and_item(self):
        self.assertEqual(ts.tensor([[True], [False]]).tolist(), [[True], [False]])
        self.assertIs(ts.tensor(True).item(), True)
        self.assertEqual(ts.tensor(3).item(), 3)
        self.assertEqual(ts.zeros(2, 0, 3).tolist(), [[], []])
        self.assertEqual(ts.tensor([1.5, 2.5]).to(ts.bfloat16).tolist(), [1.5, 2.5])
        self.assertTrue(math.isnan(ts.tensor(float("nan")).item()))
        with self.assertRaises(ValueError):
            ts.zeros(2).item()

    def test_dtype_and_device(self):
        self.assertEqual(repr(ts.float32), "tessera.float32")
        self.assertEqual(int(ts.float32), 6)  # c10::ScalarType::Float
        self.assertIs(ts.float, ts.float32)
        self.assertIs(ts.long, ts.int64)
        self.assertEqual(ts.zeros(1).device, ts.device("cpu"))
        self.assertEqual(str(ts.zeros(1).device), "cpu")
        self.assertEqual(ts.zeros(1).__dlpack_device__(), (1, 0))

    def test_repr_matches_torch(self):
        for case in GOLDEN["reprs"]:
            with self.subTest(case=case):
                t = ts.tensor(case["data"], dtype=getattr(ts, case["dtype"]))
                if case.get("requires_grad"):
                    t.requires_grad_()
                self.assertEqual(repr(t), case["expected"])

    def test_version(self):
        self.assertRegex(ts.__version__, r"^\d+\.\d+\.\d+")
        major, minor, patch = (int(p) for p in ts.__version__.split(".")[:3])
        self.assertEqual(ts.version_number(), major * 10000 + minor * 100 + patch)


class StorageDtypes(unittest.TestCase):
    """uint16/32/64 and the float8 types: storage only (PyTorch 2.x's)."""
    NEW = ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2"]

    def test_create_convert_and_list(self):
        for name in self.NEW:
            with self.subTest(dtype=name):
                d = getattr(ts, name)
                t = ts.tensor([[0, 1], [2, 6]], dtype=d)
                self.assertEqual(t.dtype, d)
                self.assertEqual(t.t().contiguous().tolist(), [[0, 2], [1, 6]])
                self.assertEqual(t.to(ts.float32).tolist(), [[0.0, 1.0], [2.0, 6.0]])
                self.assertEqual(ts.zeros(3, dtype=d).to(ts.int64).tolist(), [0, 0, 0])
                self.assertEqual(d.itemsize, t.itemsize)
        self.assertTrue(ts.float8_e5m2.is_floating_point)
        self.assertFalse(ts.uint16.is_floating_point)
        self.assertEqual(ts.tensor([-1.0]).to(ts.uint16).tolist(), [65535])
        self.assertEqual(ts.tensor([500.0]).to(ts.float8_e4m3fn).tolist()[0] != 0, True)
        self.assertTrue(math.isnan(ts.tensor([500.0]).to(ts.float8_e4m3fn).tolist()[0]))
        self.assertEqual(ts.tensor(array.array("H", [1, 65535])).dtype, ts.uint16)
        self.assertEqual(ts.tensor(array.array("Q", [2**64 - 1])).tolist(), [2**64 - 1])
        self.assertEqual(ts.tensor(array.array("Q", [2**64 - 1]))[0].item(), 2**64 - 1)

    def test_math_is_refused(self):
        for name in self.NEW:
            with self.subTest(dtype=name):
                t = ts.ones(2, 2, dtype=getattr(ts, name))
                with self.assertRaisesRegex(ts.errors.UnsupportedError, name):
                    t + t
                with self.assertRaises(ts.errors.Error):
                    t.sum()


if __name__ == "__main__":
    unittest.main()
