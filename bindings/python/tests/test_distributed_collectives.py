"""torch.distributed's reduce, gather, scatter, all_to_all_single,
all_to_all, object collectives and monitored_barrier
(tessera/_distributed_collectives.py).

Multi-process runs start one Python process per rank over 127.0.0.1
(dist_collectives_worker.py, env://), each with a hard timeout, and run the
same scenario with PyTorch 1.13's Gloo at the same time: the printed results
must be equal. Argument checks run in this process in a group of one.
"""
import datetime
import os
import pickle
import subprocess
import unittest

import tessera
import tessera.distributed as dist
from tessera import errors

from test_distributed import HAVE_TORCH, PYTHON, collect, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "dist_collectives_worker.py")


def start_ranks(impl, scenario, world):
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                   WORLD_SIZE=str(world), OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        procs.append(subprocess.Popen([PYTHON, WORKER, impl, scenario], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    return procs


class MultiProcessTest(unittest.TestCase):
    def compare_with_torch(self, scenario, world):
        ours = start_ranks("tessera", scenario, world)
        theirs = start_ranks("torch", scenario, world) if HAVE_TORCH else None
        got = collect(self, ours, "tessera " + scenario)
        if theirs is None:
            self.skipTest("PyTorch with torch.distributed is not installed")
        want = collect(self, theirs, "torch " + scenario)
        for rank in range(world):
            for key in sorted(want[rank]):
                self.assertEqual(got[rank].get(key), want[rank][key], "rank %d, %s" % (rank, key))
            self.assertEqual(sorted(got[rank]), sorted(want[rank]))
        return got

    def test_tensor_collectives_match_torch_3_ranks(self):
        got = self.compare_with_torch("tensor_collectives", 3)
        self.assertEqual(got[2]["reduce_SUM_float32_dst2"], [[0, 6, 12], [18, 24, 30]])
        self.assertEqual(got[0]["all_to_all_single_equal"], [0, 1, 100, 101, 200, 201])
        self.assertEqual(len(got[2]["gather_dst2"]), 3)
        self.assertIsNone(got[1]["gather_dst2"])

    def test_object_collectives_match_torch_3_ranks(self):
        got = self.compare_with_torch("object_collectives", 3)
        self.assertIn("'payload': 'xxx", got[0]["all_gather_object"])

    def test_monitored_barrier_names_the_late_ranks_as_torch(self):
        got = self.compare_with_torch("monitored", 3)
        self.assertEqual(got[0]["message"], "[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 500 ms")
        self.assertTrue(got[0]["within_timeout"])
        self.assertEqual([g["raised"] for g in got], ["RuntimeError"] * 3)


class OneProcessGroupTest(unittest.TestCase):
    """A group of one in this process: results, checks and errors."""

    def setUp(self):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % free_port(), rank=0, world_size=1)

    def tearDown(self):
        if dist.is_initialized():
            dist.destroy_process_group()

    def test_in_all(self):
        for name in ("reduce", "gather", "scatter", "all_to_all_single", "all_to_all", "all_gather_object",
                     "broadcast_object_list", "gather_object", "scatter_object_list", "monitored_barrier",
                     "is_initialized", "is_available", "get_backend"):
            self.assertIn(name, dist.__all__)
            self.assertTrue(callable(getattr(dist, name)))

    def test_group_of_one_results(self):
        t = tessera.arange(6, dtype=tessera.float32).reshape(2, 3)
        v = t.t()
        version = t._version
        self.assertIsNone(dist.reduce(v, 0, op=dist.ReduceOp.MAX))
        self.assertGreater(t._version, version)
        self.assertEqual(t.tolist(), [[0, 1, 2], [3, 4, 5]])
        parts = [tessera.zeros(3, 2)]
        dist.gather(v, parts, dst=0, async_op=True).wait()
        self.assertEqual(parts[0].tolist(), v.tolist())
        out = tessera.zeros(2, 3).t()
        self.assertIsNone(dist.scatter(out, [v], src=0))
        self.assertEqual(out.tolist(), v.tolist())
        got = tessera.zeros(4, 2)
        dist.all_to_all_single(got, tessera.arange(8.).reshape(4, 2), [4], [4])
        self.assertEqual(got.flatten().tolist(), list(range(8)))
        outs = [tessera.zeros(2, 2, dtype=tessera.int64)]
        dist.all_to_all(outs, [tessera.arange(4).reshape(2, 2)])
        self.assertEqual(outs[0].tolist(), [[0, 1], [2, 3]])
        objects = [None]
        dist.all_gather_object(objects, {"a": [1, 2]})
        self.assertEqual(objects, [{"a": [1, 2]}])
        objects = ["kept", 3]
        dist.broadcast_object_list(objects, src=0)
        self.assertEqual(objects, ["kept", 3])
        dist.broadcast_object_list([], src=0)
        target = [None]
        dist.gather_object(("x", 1), target, dst=0)
        self.assertEqual(target, [("x", 1)])
        received = [None, "untouched"]
        dist.scatter_object_list(received, [{"big": "y" * 10000}], src=0)
        self.assertEqual(received, [{"big": "y" * 10000}, "untouched"])
        self.assertIsNone(dist.monitored_barrier())
        self.assertIsNone(dist.monitored_barrier(timeout=datetime.timedelta(seconds=1), wait_all_ranks=True))

    def test_argument_errors(self):
        t = tessera.ones(3)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "invalid root rank 1"):
            dist.reduce(t, 1)
        with self.assertRaisesRegex(TypeError, "argument 'op' must be a tessera.distributed.ReduceOp, not int"):
            dist.reduce(t, 0, op=0)
        with self.assertRaisesRegex(RuntimeError, "Expected parameter `tensor` to be of type tessera.Tensor"):
            dist.reduce([t], 0)
        with self.assertRaisesRegex(ValueError, "^Argument ``gather_list`` must be specified on destination "
                                    "rank.$"):
            dist.gather(t, None, dst=0)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "Incorrect output list size 2"):
            dist.gather(t, [tessera.zeros(3), tessera.zeros(3)], dst=0)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "invalid tensor size at index 0"):
            dist.gather(t, [tessera.zeros(4)], dst=0)
        with self.assertRaisesRegex(errors.DTypeMismatchError, "different dtypes"):
            dist.gather(t, [tessera.zeros(3, dtype=tessera.float64)], dst=0)
        with self.assertRaisesRegex(RuntimeError, "List\\[tessera.Tensor\\]"):
            dist.gather(t, [t, 1], dst=0)
        with self.assertRaisesRegex(ValueError, "^Argument ``scatter_list`` must be specified on source rank.$"):
            dist.scatter(t, None, src=0)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "Incorrect input list size 2"):
            dist.scatter(t, [t, t], src=0)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "^Split sizes doesn't match total dim 0 size$"):
            dist.all_to_all_single(tessera.zeros(3), t, [2], [3])
        with self.assertRaisesRegex(errors.ShapeMismatchError, "Number of tensor splits not equal to group size"):
            dist.all_to_all_single(tessera.zeros(3), t, None, [1, 2])
        with self.assertRaisesRegex(errors.DTypeMismatchError, "different dtypes"):
            dist.all_to_all_single(tessera.zeros(3, dtype=tessera.int64), t)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "differ beyond dim 0"):
            dist.all_to_all_single(tessera.zeros(3, 1), t)
        with self.assertRaisesRegex(RuntimeError, "^Expected argument scatter_object_output_list to be a list of "
                                    "size at least 1.$"):
            dist.scatter_object_list([], [1], src=0)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "Incorrect input list size 2"):
            dist.scatter_object_list([None], [1, 2], src=0)
        with self.assertRaisesRegex(ValueError, "must be specified on destination rank"):
            dist.gather_object(1, None, dst=0)
        with self.assertRaises((pickle.PicklingError, AttributeError)):  # as torch: pickle's own error
            dist.all_gather_object([None], lambda: 0)
        with self.assertRaisesRegex(TypeError, "timedelta"):
            dist.monitored_barrier(timeout=5)
        self.assertEqual(t.tolist(), [1.0, 1.0, 1.0])
        old = dist.group.WORLD
        dist.destroy_process_group()
        for call in (lambda: dist.reduce(t, 0), lambda: dist.all_gather_object([None], 1),
                     lambda: dist.monitored_barrier()):
            with self.assertRaisesRegex(RuntimeError, "^Default process group has not been initialized"):
                call()
        with self.assertRaisesRegex(RuntimeError, "Invalid process group specified"):
            dist.monitored_barrier(group=old)


if __name__ == "__main__":
    unittest.main()
