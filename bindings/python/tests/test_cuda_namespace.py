"""tessera.cuda on a machine without a usable GPU behaves as torch.cuda does
there: the queries answer, the statistics are zero, whatever needs a
device raises an AssertionError (torch's "Torch not compiled with CUDA
enabled"). Skipped when a GPU is present (bindings_python_cuda_emulated and
scripts/gpu-check cover that)."""
import unittest

import torch as real_torch

import tessera


@unittest.skipIf(tessera.cuda.is_available(), "a CUDA device is available")
class NoGpu(unittest.TestCase):
    def test_queries_and_statistics_as_torch(self):
        self.assertEqual(tessera.cuda.is_available(), real_torch.cuda.is_available())
        self.assertEqual(tessera.cuda.device_count(), real_torch.cuda.device_count())
        for name in ("memory_allocated", "memory_reserved", "max_memory_allocated"):
            self.assertEqual(getattr(tessera.cuda, name)(), getattr(real_torch.cuda, name)())
        self.assertEqual(dict(tessera.cuda.memory_stats()), dict(real_torch.cuda.memory_stats()))
        self.assertIsNone(tessera.cuda.empty_cache())
        self.assertIsNone(tessera.cuda.reset_peak_memory_stats())
        self.assertEqual(tessera.cuda.memory.memory_allocated(), 0)

    def test_device_work_raises_assertion_error_as_torch(self):
        calls = [lambda m: m.cuda.current_device(), lambda m: m.cuda.synchronize(),
                 lambda m: m.zeros(2).cuda(), lambda m: m.zeros(2).to("cuda"),
                 lambda m: m.cuda.memory._record_memory_history(True), lambda m: m.cuda.current_stream()]
        for call in calls:
            with self.assertRaises(AssertionError):
                call(real_torch)
            with self.assertRaises(AssertionError):
                call(tessera)
        with self.assertRaises(AssertionError):
            tessera.cuda.Stream()
        with self.assertRaises(AssertionError):
            tessera.cuda.memory_summary()
        event = tessera.cuda.Event(enable_timing=True)  # made lazily, as torch's
        self.assertTrue(event.query())
        with self.assertRaises(AssertionError):
            event.record()
        with self.assertRaises(ValueError):
            event.elapsed_time(tessera.cuda.Event())
        with tessera.cuda.stream(None):  # None: nothing changes, as torch
            pass

    def test_module_paths(self):
        import tessera.cuda.memory
        from tessera.cuda import Event, Stream  # noqa: F401
        self.assertIs(tessera.cuda.memory.memory_allocated, tessera.cuda.memory_allocated)


if __name__ == "__main__":
    unittest.main()
