"""Checkpoint files 2 through Python: Saver (streaming save, a context
manager), progress callbacks (cancel by False or by an exception), sharded
saves through the index, views saved as views, zstd-planes, open_file (lazy,
memory-mapped), the storage-only dtypes in files; every error path with its
exception class, status and message, and nothing left behind."""
import gc
import json
import os
import shutil
import tempfile
import unittest

import tessera as ts


class CheckpointFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tessera-py-ckpt-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def listing(self):
        return sorted(os.listdir(self.dir))

    def write_old(self, name):
        """A previous file at path, which failures must leave as it was."""
        ts.save({"old": ts.tensor([7.0])}, self.path(name))
        with open(self.path(name), "rb") as f:
            return f.read()

    def assert_unchanged(self, name, before):
        with open(self.path(name), "rb") as f:
            self.assertEqual(f.read(), before)

    # ---- Saver ----------------------------------------------------------
    def test_saver_commits_on_clean_exit(self):
        w = ts.arange(6, dtype=ts.float32).view(2, 3)
        with ts.Saver(self.path("s.safetensors"), compression="zstd-planes",
                      metadata={"step": "4"}) as saver:
            self.assertIsInstance(saver, ts.Saver)
            saver.add("w", w.t())  # non-contiguous: its C-order contents
            saver.add("b", ts.tensor([1, 2], dtype=ts.int64))
            self.assertFalse(os.path.exists(self.path("s.safetensors")))  # not before commit
        loaded = ts.load(self.path("s.safetensors"))
        self.assertEqual(list(loaded), ["w", "b"])  # in the order added
        self.assertEqual(loaded["w"].tolist(), [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])
        self.assertEqual(loaded["b"].tolist(), [1, 2])
        self.assertEqual(loaded.metadata["step"], "4")
        self.assertEqual(loaded.metadata["tessera.compression"], "zstd-planes")
        self.assertEqual(self.listing(), ["s.safetensors"])  # no temporary left

    def test_saver_abandons_on_exception(self):
        before = self.write_old("s.safetensors")
        with self.assertRaises(KeyError):
            with ts.Saver(self.path("s.safetensors")) as saver:
                saver.add("a", ts.ones(3))
                raise KeyError("producer failed")
        self.assert_unchanged("s.safetensors", before)
        self.assertEqual(self.listing(), ["s.safetensors"])

    def test_saver_close_without_commit_and_collection_abandon(self):
        before = self.write_old("s.safetensors")
        saver = ts.Saver(self.path("s.safetensors"))
        saver.add("a", ts.ones(3))
        saver.close()
        saver.close()  # a second close does nothing
        saver = ts.Saver(self.path("s.safetensors"))
        saver.add("a", ts.ones(3))
        del saver
        gc.collect()
        self.assert_unchanged("s.safetensors", before)
        self.assertEqual(self.listing(), ["s.safetensors"])

    def test_saver_explicit_commit_inside_with(self):
        with ts.Saver(self.path("s.safetensors")) as saver:
            saver.add("a", ts.ones(2))
            saver.commit()  # leaving the block does not commit again
        self.assertEqual(ts.load(self.path("s.safetensors"))["a"].tolist(), [1.0, 1.0])

    def test_saver_errors(self):
        saver = ts.Saver(self.path("s.safetensors"))
        saver.add("a", ts.ones(2))
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            saver.add("a", ts.ones(2))  # duplicate: refused, the saver goes on
        self.assertEqual(cm.exception.status, ts.Status.INVALID_ARGUMENT)
        self.assertIn('duplicate tensor name "a"', str(cm.exception))
        saver.commit()
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            saver.commit()
        self.assertIn("already committed", str(cm.exception))
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            saver.add("b", ts.ones(2))
        self.assertIn("already committed", str(cm.exception))
        saver.close()
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            saver.add("b", ts.ones(2))
        self.assertIn("the saver is closed", str(cm.exception))
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            saver.commit()
        self.assertIn("the saver is closed", str(cm.exception))
        self.assertEqual(ts.load(self.path("s.safetensors"))["a"].tolist(), [1.0, 1.0])

    def test_saver_bad_arguments(self):
        with self.assertRaises(ts.InputOutputError) as cm:
            ts.Saver(os.path.join(self.dir, "missing", "x.safetensors"))
        self.assertEqual(cm.exception.status, ts.Status.IO)
        self.assertIn("missing", str(cm.exception))
        with self.assertRaises(ValueError):
            ts.Saver(self.path("x.safetensors"), compression="gzip")
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            ts.Saver(self.path("x.safetensors"), metadata={"tessera.x": "1"})
        self.assertIn("tessera.", str(cm.exception))
        with self.assertRaises(TypeError):
            ts.Saver(self.path("x.safetensors"), progress=3)
        self.assertEqual(self.listing(), [])

    # ---- progress -------------------------------------------------------
    def test_progress_reports_save_and_load(self):
        calls = []
        tensors = {"a": ts.zeros(100), "b": ts.zeros(50, dtype=ts.float64)}
        ts.save(tensors, self.path("p.safetensors"), progress=lambda d, t: calls.append((d, t)))
        self.assertEqual(calls[0], (0, 800))
        self.assertEqual(calls[-1], (800, 800))
        self.assertTrue(all(a[0] <= b[0] for a, b in zip(calls, calls[1:])))
        calls.clear()
        ts.load(self.path("p.safetensors"), progress=lambda d, t: calls.append((d, t)))
        self.assertEqual(calls[0], (0, 800))
        self.assertEqual(calls[-1], (800, 800))

    def test_progress_false_cancels_save_and_load(self):
        before = self.write_old("p.safetensors")
        with self.assertRaises(ts.CancelledError) as cm:
            ts.save({"a": ts.zeros(10)}, self.path("p.safetensors"), progress=lambda d, t: d == 0)
        self.assertEqual(cm.exception.status, ts.Status.CANCELLED)
        self.assertIn("cancelled by the progress callback", str(cm.exception))
        self.assertIsNone(cm.exception.__cause__)
        self.assert_unchanged("p.safetensors", before)
        self.assertEqual(self.listing(), ["p.safetensors"])
        with self.assertRaises(ts.CancelledError) as cm:
            ts.load(self.path("p.safetensors"), progress=lambda d, t: False)
        self.assertIn("cancelled by the progress callback", str(cm.exception))

    def test_progress_exception_cancels_with_cause(self):
        before = self.write_old("p.safetensors")

        def boom(done, total):
            raise ZeroDivisionError("from the callback")

        with self.assertRaises(ts.CancelledError) as cm:
            ts.save({"a": ts.zeros(10)}, self.path("p.safetensors"), compression="zstd",
                    progress=boom)
        self.assertIsInstance(cm.exception.__cause__, ZeroDivisionError)
        self.assert_unchanged("p.safetensors", before)
        with self.assertRaises(ts.CancelledError) as cm:
            ts.load(self.path("p.safetensors"), progress=boom)
        self.assertIsInstance(cm.exception.__cause__, ZeroDivisionError)
        self.assertEqual(self.listing(), ["p.safetensors"])

    def test_keyboard_interrupt_in_progress_cancels_then_goes_on(self):
        before = self.write_old("p.safetensors")

        def interrupt(done, total):
            if done > 0:
                raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt) as cm:
            ts.save({"a": ts.zeros(10), "b": ts.ones(3)}, self.path("p.safetensors"),
                    progress=interrupt)
        self.assertIsInstance(cm.exception.__cause__, ts.CancelledError)
        self.assert_unchanged("p.safetensors", before)
        self.assertEqual(self.listing(), ["p.safetensors"])

    def test_saver_progress_cancel(self):
        before = self.write_old("s.safetensors")
        with self.assertRaises(ts.CancelledError):  # at open: no file created
            ts.Saver(self.path("s.safetensors"), progress=lambda d, t: False)
        seen = []

        def stop_after_first(done, total):
            seen.append((done, total))
            if done > 0:
                raise RuntimeError("enough")

        saver = ts.Saver(self.path("s.safetensors"), progress=stop_after_first)
        with self.assertRaises(ts.CancelledError) as cm:
            saver.add("a", ts.ones(4))
        self.assertIsInstance(cm.exception.__cause__, RuntimeError)
        with self.assertRaises(ts.InvalidArgumentError) as cm:  # abandoned
            saver.commit()
        self.assertIn("abandoned", str(cm.exception))
        saver.close()
        self.assertEqual(seen[0], (0, 0))
        self.assert_unchanged("s.safetensors", before)
        self.assertEqual(self.listing(), ["s.safetensors"])

    def test_progress_callback_is_not_leaked(self):
        import sys
        import weakref

        class Callback:
            def __call__(self, done, total):
                return True

        cb = Callback()
        ref = weakref.ref(cb)
        base = sys.getrefcount(cb)
        ts.save({"a": ts.zeros(3)}, self.path("a.safetensors"), progress=cb)
        ts.load(self.path("a.safetensors"), progress=cb)
        with ts.Saver(self.path("b.safetensors"), progress=cb) as saver:
            saver.add("a", ts.zeros(3))
        del saver
        gc.collect()
        self.assertEqual(sys.getrefcount(cb), base)
        del cb
        gc.collect()
        self.assertIsNone(ref())

    # ---- shards, views, compression, dtypes ---------------------------------
    def test_sharded_save_loads_through_the_index(self):
        tensors = {f"layer{i}": ts.full((64,), float(i)) for i in range(5)}  # 256 B each
        ts.save(tensors, self.path("model.safetensors"), max_shard_size=600)
        files = self.listing()
        self.assertIn("model.safetensors.index.json", files)
        shards = [f for f in files if f.startswith("model-")]
        self.assertEqual(len(shards), 3)
        with open(self.path("model.safetensors.index.json")) as f:
            index = json.load(f)
        self.assertEqual(sorted(index["weight_map"]), sorted(tensors))
        loaded = ts.load(self.path("model.safetensors.index.json"))
        for name, tensor in tensors.items():
            self.assertEqual(loaded[name].tolist(), tensor.tolist())
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            ts.save(tensors, self.path("model.bin"), max_shard_size=600)
        self.assertIn(".safetensors", str(cm.exception))
        with self.assertRaises(ts.InvalidArgumentError):
            ts.save(tensors, self.path("m.safetensors"), max_shard_size=-1)

    def test_views_saved_as_views_or_flattened(self):
        w = ts.arange(6, dtype=ts.float32).view(2, 3)
        ts.save({"w": w, "wt": w.t()}, self.path("v.safetensors"))
        loaded = ts.load(self.path("v.safetensors"))
        self.assertEqual(loaded["wt"].tolist(), w.t().tolist())
        self.assertEqual(loaded["wt"].stride(), (1, 3))
        self.assertEqual(loaded["w"].storage().data_ptr(), loaded["wt"].storage().data_ptr())
        ts.save({"w": w, "wt": w.t()}, self.path("f.safetensors"), flatten_views=True)
        flat = ts.load(self.path("f.safetensors"))
        self.assertEqual(flat["wt"].stride(), (2, 1))
        self.assertNotEqual(flat["w"].storage().data_ptr(), flat["wt"].storage().data_ptr())

    def test_compressions_and_new_dtypes(self):
        tensors = {d.name: ts.arange(5).to(d) for d in
                   (ts.uint16, ts.uint32, ts.uint64, ts.float8_e4m3fn, ts.float8_e5m2, ts.bfloat16)}
        for compression in (None, "zstd", "zstd-planes"):
            path = self.path(f"d-{compression}.safetensors")
            ts.save(tensors, path, compression=compression, skip_checksums=True)
            loaded = ts.load(path, skip_checksums=True)
            for name, tensor in tensors.items():
                with self.subTest(compression=compression, dtype=name):
                    self.assertEqual(loaded[name].dtype, tensor.dtype)
                    self.assertEqual(loaded[name].to(ts.float64).tolist(),
                                     [0.0, 1.0, 2.0, 3.0, 4.0])
        self.assertNotIn("tessera.checksum", ts.load(self.path("d-None.safetensors")).metadata)

    def test_checksum_failure_and_skip(self):
        ts.save({"a": ts.arange(64, dtype=ts.float32)}, self.path("c.safetensors"))
        with open(self.path("c.safetensors"), "r+b") as f:
            f.seek(-5, os.SEEK_END)
            byte = f.read(1)
            f.seek(-5, os.SEEK_END)
            f.write(bytes([byte[0] ^ 1]))
        with self.assertRaises(ts.CorruptFileError) as cm:
            ts.load(self.path("c.safetensors"))
        self.assertEqual(cm.exception.status, ts.Status.CORRUPT_FILE)
        self.assertIn("checksum", str(cm.exception))
        self.assertEqual(len(ts.load(self.path("c.safetensors"), skip_checksums=True)["a"]), 64)

    # ---- open_file ------------------------------------------------------
    def test_open_file_lazy_and_read_only(self):
        ts.save({"w": ts.arange(6, dtype=ts.float32).view(2, 3), "n": ts.tensor([1, 2], dtype=ts.uint16)},
                self.path("o.safetensors"), metadata={"k": "v"})
        with ts.open_file(self.path("o.safetensors")) as f:
            self.assertIsInstance(f, ts.File)
            self.assertEqual(sorted(f.keys()), ["n", "w"])
            self.assertEqual(len(f), 2)
            self.assertIn("w", f)
            self.assertNotIn("x", f)
            self.assertEqual(f.shape_of("w"), (2, 3))
            self.assertEqual(f.dtype_of("n"), ts.uint16)
            self.assertEqual(f.metadata(), {"k": "v"})
            w = f["w"]
            self.assertEqual(f.get_tensor("n").tolist(), [1, 2])
            with self.assertRaises(KeyError):
                f["x"]
            with self.assertRaises(KeyError):
                f.shape_of("x")
            with self.assertRaises(ts.InvalidArgumentError) as cm:
                f.get_by_name("x")
            self.assertIn("no tensor named", str(cm.exception))
        # the mapping outlives the file handle while a tensor holds it
        self.assertEqual(w.tolist(), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            w.add_(1.0)
        self.assertIn("read-only", str(cm.exception))
        self.assertEqual(w.tolist(), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        c = w.clone()
        c.add_(1.0)
        self.assertEqual(c.tolist(), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        with self.assertRaises(ts.InvalidArgumentError):
            f.size()  # closed

    def test_open_file_get_slice(self):
        # 600 x 700 float32 rows of 2,800 bytes: 1.68 MB, two 1 MiB
        # zstd-planes chunks, row 374 straddling their boundary.
        whole = ts.arange(600 * 700, dtype=ts.float32).view(600, 700)
        for compression in (None, "zstd-planes"):
            path = self.path(f"slice-{compression}.safetensors")
            ts.save({"s": ts.tensor(2.0), "w": whole}, path, compression=compression)
            with ts.open_file(path) as f:
                full = f["w"]
                for start, stop in ((0, 600), (0, 1), (370, 380), (374, 375), (599, 600), (5, 5)):
                    for key in ("w", f.find("w")):
                        rows = f.get_slice(key, start, stop)
                        self.assertEqual(rows.shape, (stop - start, 700))
                        self.assertEqual(rows.dtype, ts.float32)
                        # exact (rtol = atol = 0); not tolist(), whose diff of
                        # 420,000 numbers on failure takes minutes
                        self.assertTrue(rows.allclose(full.narrow(0, start, stop - start), 0.0, 0.0),
                                        f"{compression} rows [{start}, {stop}) by {key!r}")
                self.assertEqual(f.get_slice("w", 1, 2)[0, 699].item(), 1399.0)  # not just equal: right
                with self.assertRaises(ts.InvalidArgumentError) as cm:
                    f.get_slice("w", 5, 4)
                self.assertEqual(cm.exception.status, ts.Status.INVALID_ARGUMENT)
                self.assertIn('rows [5, 4) of tensor "w": start is after stop', str(cm.exception))
                with self.assertRaises(ts.InvalidArgumentError) as cm:
                    f.get_slice("s", 0, 0)
                self.assertIn("0-dim", str(cm.exception))
                with self.assertRaises(KeyError):
                    f.get_slice("x", 0, 1)
                with self.assertRaises(ts.IndexOutOfRangeError):
                    f.get_slice(2, 0, 1)
                self.assertEqual(f.get_slice("w", 0, 2).tolist(), full.narrow(0, 0, 2).tolist())  # file still usable

    def test_open_file_errors(self):
        with self.assertRaises(ts.InputOutputError) as cm:
            ts.open_file(self.path("missing.safetensors"))
        self.assertIn("missing.safetensors", str(cm.exception))
        with open(self.path("junk.safetensors"), "wb") as f:
            f.write(b"\x05\x00")
        with self.assertRaises(ts.CorruptFileError) as cm:
            ts.open_file(self.path("junk.safetensors"))
        self.assertEqual(cm.exception.status, ts.Status.CORRUPT_FILE)
        ts.save({"a": ts.zeros(1000)}, self.path("a.safetensors"), compression="zstd")
        with self.assertRaises(ts.CorruptFileError):
            ts.open_file(self.path("a.safetensors"), max_bytes=100)
        with ts.open_file(self.path("a.safetensors")) as f:
            self.assertEqual(f["a"].sum().item(), 0.0)


if __name__ == "__main__":
    unittest.main()
