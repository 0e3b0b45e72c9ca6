"""Memory: unclosed tensors are freed by reference counting (and by the
cycle collector), resident memory stays bounded over a million of them, and
the allocator statistics are there."""
import gc
import os
import unittest

import tessera as ts

MIB = 1 << 20


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Release(unittest.TestCase):
    def test_a_million_unclosed_tensors_stay_bounded(self):
        template = ts.zeros(4, 4)
        baseline = ts.memory_allocated()
        ts.reset_peak_memory_stats()
        rss_before = resident_bytes()
        for i in range(1_000_000):
            t = ts.empty((4, 4)) if i % 2 else template.transpose(0, 1)  # never closed
            del t
        gc.collect()
        rss_after = resident_bytes()
        # Each tensor was freed as soon as it was dropped: at most a few
        # 512-byte blocks were ever live on top of the baseline.
        self.assertLessEqual(ts.max_memory_allocated() - baseline, 4 * 512 + 512)
        self.assertEqual(ts.memory_allocated(), baseline)
        self.assertLess(rss_after - rss_before, 32 * MIB)

    def test_cycles_are_collected(self):
        baseline = ts.memory_allocated()
        t = ts.zeros(1000)
        t.me = t  # a reference cycle through the instance dict
        del t
        gc.collect()
        self.assertEqual(ts.memory_allocated(), baseline)

    def test_close_frees_now(self):
        baseline = ts.memory_allocated()
        t = ts.zeros(1000)
        self.assertEqual(ts.memory_allocated() - baseline, 4096)  # 4000 bytes in 512-byte blocks
        keep = t  # a second Python reference does not delay close
        t.close()
        self.assertEqual(ts.memory_allocated(), baseline)
        del keep

    def test_storage_lives_while_a_view_does(self):
        baseline = ts.memory_allocated()
        base = ts.zeros(1000)
        row = base[10:20]
        del base
        self.assertEqual(ts.memory_allocated() - baseline, 4096)
        del row
        self.assertEqual(ts.memory_allocated(), baseline)


class Statistics(unittest.TestCase):
    def test_memory_stats_fields(self):
        t = ts.zeros(256)
        stats = ts.memory_stats()
        for name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
                     "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"):
            for field in ("current", "peak", "allocated", "freed"):
                self.assertIn(f"{name}.all.{field}", stats)
        for name in ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free"):
            self.assertIn(name, stats)
        self.assertEqual(stats["allocated_bytes.all.current"], ts.memory_allocated())
        self.assertGreaterEqual(stats["allocated_bytes.all.current"], 1024)
        self.assertGreaterEqual(stats["reserved_bytes.all.current"],
                                stats["allocated_bytes.all.current"])
        self.assertEqual(ts.memory_reserved(), stats["reserved_bytes.all.current"])
        self.assertGreaterEqual(ts.max_memory_reserved(), ts.memory_reserved())
        del t

    def test_empty_cache_and_accumulated_reset(self):
        ts.reset_accumulated_memory_stats()
        t = ts.zeros(10)
        del t
        stats = ts.memory_stats()
        self.assertEqual(stats["allocation.all.allocated"], 1)
        self.assertEqual(stats["allocation.all.freed"], 1)
        ts.empty_cache()
        self.assertEqual(ts.memory_reserved(), ts.memory_stats()["reserved_bytes.all.current"])

    def test_other_devices_are_unsupported(self):
        with self.assertRaises(ts.UnsupportedError):
            ts.memory_allocated("cuda")


if __name__ == "__main__":
    unittest.main()
