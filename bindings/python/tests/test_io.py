"""save / load: values, names, order, metadata, zstd; failures leave no file."""
import os
import shutil
import tempfile
import unittest

import tessera as ts


class SaveLoad(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tessera-py-io-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def tensors(self):
        return {
            "weight": ts.arange(12, dtype=ts.float32).view(3, 4).t(),  # non-contiguous
            "bias": ts.tensor([0.5, -1.5, 2.25]),
            "steps": ts.tensor([1, 2, 3], dtype=ts.int64),
            "mask": ts.tensor([True, False]),
            "half": ts.tensor([1.5, 2.0]).half(),
            "scalar": ts.tensor(3.0, dtype=ts.float64),
        }

    def check_round_trip(self, compression):
        tensors = self.tensors()
        path = self.path(f"model-{compression}.tsr")
        ts.save(tensors, path, compression=compression, metadata={"model": "mlp", "epoch": "3"})
        loaded = ts.load(path)
        self.assertIsInstance(loaded, dict)
        self.assertEqual(sorted(loaded), sorted(tensors))
        # A compressed file also says so in its metadata (tessera/io.h).
        codec = {"tessera.compression": "zstd"} if compression == "zstd" else {}
        self.assertEqual(loaded.metadata, {"model": "mlp", "epoch": "3", **codec})
        for name, tensor in tensors.items():
            with self.subTest(name=name):
                self.assertEqual(loaded[name].dtype, tensor.dtype)
                self.assertEqual(loaded[name].shape, tensor.shape)
                self.assertEqual(loaded[name].tolist(), tensor.tolist())
                self.assertTrue(loaded[name].is_contiguous())
        return path

    def test_plain(self):
        self.check_round_trip(None)

    def test_zstd(self):
        plain = self.check_round_trip("none")
        packed = self.check_round_trip("zstd")
        big = {"zeros": ts.zeros(64, 1024)}
        ts.save(big, self.path("plain-big.tsr"))
        ts.save(big, self.path("zstd-big.tsr"), compression="zstd", level=19)
        self.assertLess(os.path.getsize(self.path("zstd-big.tsr")) * 20,
                        os.path.getsize(self.path("plain-big.tsr")))
        self.assertTrue(os.path.exists(plain) and os.path.exists(packed))
        self.assertEqual(ts.load(self.path("zstd-big.tsr"))["zeros"].sum().item(), 0.0)

    def test_loaded_tensors_close(self):
        ts.save({"a": ts.ones(2)}, self.path("a.tsr"))
        with ts.load(self.path("a.tsr")) as loaded:
            a = loaded["a"]
            self.assertEqual(a.tolist(), [1.0, 1.0])
        with self.assertRaises(ts.InvalidArgumentError):
            a.numel()

    def test_path_like(self):
        import pathlib
        path = pathlib.Path(self.path("p.tsr"))
        ts.save({"x": ts.zeros(1)}, path)
        self.assertEqual(list(ts.load(path)), ["x"])

    def test_bad_arguments_write_nothing(self):
        path = self.path("never.tsr")
        with self.assertRaises(ValueError):
            ts.save({"a": ts.zeros(1)}, path, compression="gzip")
        with self.assertRaises(TypeError):
            ts.save({"a": ts.zeros(1)}, path, metadata={"k": 1})
        closed = ts.zeros(1)
        closed.close()
        with self.assertRaises(ts.InvalidArgumentError):
            ts.save({"a": closed}, path)
        with self.assertRaises(ts.InputOutputError):
            ts.save({"a": ts.zeros(1)}, os.path.join(self.dir, "missing", "x.tsr"))
        self.assertFalse(os.path.exists(path))

    def test_load_cap(self):
        ts.save({"a": ts.zeros(1000)}, self.path("a.tsr"))
        with self.assertRaises(ts.Error):
            ts.load(self.path("a.tsr"), max_bytes=100)


if __name__ == "__main__":
    unittest.main()
