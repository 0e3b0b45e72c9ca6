"""tessera.distributed (torch.distributed): process groups over Gloo.

Multi-process runs start one Python process per rank over 127.0.0.1
(dist_worker.py, env:// from MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE), each
with a hard timeout, and run the same scenario with PyTorch 1.13 (the
oracle, /usr/bin/python3's torch with Gloo) at the same time: the printed
results must be equal. Argument checks run in this process in a group of
one (tcp:// on a free port).
"""
import datetime
import json
import os
import socket
import subprocess
import sys
import unittest

import tessera
import tessera.distributed as dist
from tessera import errors

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "dist_worker.py")
PYTHON = "/usr/bin/python3"
DEADLINE_S = 60  # per run of all ranks; a hang fails the test, never the suite

try:
    import torch  # noqa: F401
    import torch.distributed as torch_dist
    HAVE_TORCH = torch_dist.is_available()
except ImportError:  # pragma: no cover
    HAVE_TORCH = False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ranks(impl, scenario, world):
    """Starts world processes of dist_worker.py; returns them."""
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                   WORLD_SIZE=str(world), OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        procs.append(subprocess.Popen([PYTHON, WORKER, impl, scenario], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    return procs


def collect(test, procs, what):
    """Each rank's printed JSON object (None for a rank that printed
    nothing); fails the test on a non-zero exit or the deadline."""
    results = []
    for rank, p in enumerate(procs):
        try:
            out, err = p.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
                q.communicate()
            test.fail("%s: rank %d did not finish within %d s" % (what, rank, DEADLINE_S))
        test.assertEqual(p.returncode, 0, "%s: rank %d exited with %d:\n%s" % (what, rank, p.returncode, err))
        results.append(json.loads(out) if out.strip() else None)
    return results


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

    def test_collectives_match_torch_2_ranks(self):
        got = self.compare_with_torch("collectives", 2)
        self.assertEqual([g["rank"] for g in got], [0, 1])
        self.assertEqual(got[1]["all_reduce_SUM_int64"], [[1, 4, 7], [10, 13, 16]])

    def test_collectives_match_torch_3_ranks(self):
        got = self.compare_with_torch("collectives", 3)
        self.assertEqual([g["world_size"] for g in got], [3, 3, 3])

    def test_groups_send_recv_bitwise_match_torch_3_ranks(self):
        got = self.compare_with_torch("groups", 3)
        self.assertEqual([g["member"] for g in got], [[True], [False], [True]])
        self.assertEqual(got[0]["maps"], [2, 1, [0, 2]])
        self.assertEqual(got[0]["any_source"][1][0], 2)
        self.assertEqual(got[0]["sub_any_source"], [2, [20, 21, 22, 23]])

    def test_other_threads_run_during_a_collective(self):
        got = collect(self, start_ranks("tessera", "threads", 2), "threads")
        for where in ("main", "thread"):
            self.assertTrue(got[0]["waited_in_barrier_" + where], "the barrier did not wait for the late rank")
            self.assertTrue(got[0]["other_thread_ran_" + where], "the GIL was held during barrier() on the "
                            + where + " thread")

    def test_ctrl_c_interrupts_a_collective_and_aborts_the_group(self):
        got = collect(self, start_ranks("tessera", "interrupt", 2), "interrupt")
        self.assertEqual(got[0]["raised"], "KeyboardInterrupt")
        self.assertTrue(got[0]["interrupted_within_1s"])
        self.assertEqual(got[0]["after"], "DistBackendError")  # the group takes no more work
        self.assertEqual(got[1]["raised"], "DistBackendError")  # the peer fails, not hangs
        self.assertTrue(got[1]["failed_within_5s"])

    def test_peer_death_raises_dist_backend_error(self):
        got = collect(self, start_ranks("tessera", "peer_dies", 2), "peer_dies")
        self.assertEqual(got[0]["raised"], "DistBackendError")
        self.assertIsNone(got[1])


class OneProcessGroupTest(unittest.TestCase):
    """A group of one in this process: the calls' checks and errors."""

    def init(self, **kwargs):
        kwargs.setdefault("init_method", "tcp://127.0.0.1:%d" % free_port())
        kwargs.setdefault("rank", 0)
        kwargs.setdefault("world_size", 1)
        dist.init_process_group("gloo", **kwargs)

    def tearDown(self):
        if dist.is_initialized():
            dist.destroy_process_group()

    def test_calls_before_init_raise_torchs_message(self):
        self.assertFalse(dist.is_initialized())
        self.assertIsNone(dist.group.WORLD)
        t = tessera.ones(2)
        calls = [dist.get_rank, dist.get_world_size, dist.get_backend, dist.barrier, dist.destroy_process_group,
                 lambda: dist.all_reduce(t), lambda: dist.broadcast(t, 0),
                 lambda: dist.all_gather_into_tensor(tessera.ones(2), t),
                 lambda: dist.reduce_scatter_tensor(t, tessera.ones(2)), lambda: dist.all_gather([t], t)]
        for call in calls:
            with self.assertRaisesRegex(RuntimeError, "^Default process group has not been initialized, please "
                                        "make sure to call init_process_group.$"):
                call()
        self.assertEqual(t.tolist(), [1.0, 1.0])

    def test_group_of_one(self):
        self.init()
        self.assertTrue(dist.is_initialized())
        self.assertEqual((dist.get_rank(), dist.get_world_size(), dist.get_backend()), (0, 1, "gloo"))
        self.assertIs(dist.group.WORLD, dist.GroupMember.WORLD)
        self.assertEqual(dist.group.WORLD.size(), 1)
        self.assertEqual(dist.get_rank(dist.group.WORLD), 0)
        t = tessera.arange(6, dtype=tessera.float32).reshape(2, 3)
        v = t.t()
        version = t._version
        self.assertIsNone(dist.all_reduce(v, op=dist.ReduceOp.MAX))
        self.assertGreater(t._version, version)
        self.assertEqual(t.tolist(), [[0, 1, 2], [3, 4, 5]])
        work = dist.broadcast(t, 0, async_op=True)
        self.assertIsInstance(work, dist.Work)
        self.assertTrue(work.wait(datetime.timedelta(seconds=10)))
        self.assertTrue(work.is_completed())
        with self.assertRaisesRegex(TypeError, "timedelta"):
            work.wait(10)
        out = tessera.zeros(1, 6)
        dist.all_gather_into_tensor(out, t)
        self.assertEqual(out.tolist(), [[0, 1, 2, 3, 4, 5]])
        parts = [tessera.zeros(2, 3)]
        dist.all_gather(parts, t, async_op=True).wait()
        self.assertEqual(parts[0].tolist(), t.tolist())
        chunk = tessera.zeros(6)
        dist.reduce_scatter_tensor(chunk, t.flatten(), op=dist.ReduceOp.SUM)
        self.assertEqual(chunk.tolist(), [0, 1, 2, 3, 4, 5])
        self.assertIsNone(dist.barrier())
        dist.destroy_process_group()
        self.assertFalse(dist.is_initialized())
        self.init()  # a new default group after destroy
        self.assertEqual(dist.get_world_size(), 1)

    def test_second_init_raises(self):
        self.init()
        with self.assertRaisesRegex(RuntimeError, "^trying to initialize the default process group twice!$"):
            self.init()
        self.assertEqual(dist.get_world_size(), 1)

    def test_backends(self):
        self.assertEqual((dist.Backend.GLOO, dist.Backend.NCCL, dist.Backend.MPI), ("gloo", "nccl", "mpi"))
        self.assertEqual(dist.Backend("GLOO"), "gloo")
        with self.assertRaisesRegex(ValueError, "^Invalid backend: 'foo'$"):
            dist.Backend("foo")
        with self.assertRaisesRegex(ValueError, "Invalid backend"):
            dist.init_process_group("foo")
        # NCCL needs a CUDA device (none here: the emulated one is
        # cuda_emulated_check.py's); UCC is not built.
        for name, why in (("nccl", "the NCCL backend needs CUDA devices and NCCL"), ("ucc", "not built"),
                          ("cpu:nccl", "the NCCL backend needs CUDA devices and NCCL")):
            with self.assertRaisesRegex(errors.UnsupportedError, why) as cm:
                dist.init_process_group(name, init_method="tcp://127.0.0.1:1", rank=0, world_size=1)
            self.assertIsInstance(cm.exception, RuntimeError)
        # MPI where its module cannot be loaded (mpi_ranks.py runs it under
        # mpirun where it is built); the load, and its failure, happen once
        # per process, so only a subprocess can see both outcomes.
        code = ("import tessera.distributed as d, tessera.errors as e\n"
                "print(d.is_mpi_available())\n"
                "try:\n d.init_process_group('mpi')\nexcept e.UnsupportedError as x:\n print(x)\n")
        env = dict(os.environ, TSR_MPI_MODULE="/nonexistent/libtessera_mpi.so")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        self.assertIn("False\nMPI module not found: could not load /nonexistent/libtessera_mpi.so", out)
        self.assertFalse(dist.is_initialized())
        self.assertTrue(dist.is_available())
        self.assertFalse(dist.is_nccl_available())  # no CUDA device (or no plugin) here
        for name in (None, "cpu:gloo", "cpu:gloo,cuda:nccl", dist.Backend.GLOO):
            dist.init_process_group(name, init_method="tcp://127.0.0.1:%d" % free_port(), rank=0, world_size=1)
            self.assertEqual(dist.get_backend(), "gloo")
            dist.destroy_process_group()

    def test_init_arguments(self):
        with self.assertRaisesRegex(RuntimeError, "timeout argument to be of type datetime.timedelta"):
            self.init(timeout=5)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "rank"):
            self.init(rank=1, world_size=1)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "world_size"):
            self.init(world_size=0)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "init_method"):
            self.init(init_method="http://127.0.0.1:1")
        with self.assertRaisesRegex(errors.UnsupportedError, "store"):
            dist.init_process_group("gloo", store=object(), rank=0, world_size=1)
        with self.assertRaisesRegex(RuntimeError, "GLOO options not supported"):
            self.init(pg_options=object())
        self.assertFalse(dist.is_initialized())

    def test_unreachable_store_raises_dist_backend_error(self):
        with self.assertRaises(errors.DistBackendError) as cm:
            self.init(rank=1, world_size=2, timeout=datetime.timedelta(milliseconds=300))
        self.assertIsInstance(cm.exception, RuntimeError)
        self.assertEqual(cm.exception.status, errors.Status.DISTRIBUTED)
        self.assertFalse(dist.is_initialized())

    def test_reduce_op(self):
        op = dist.ReduceOp
        self.assertEqual(op.SUM, op.SUM)
        self.assertNotEqual(op.SUM, op.MAX)
        self.assertEqual(op.RedOpType.PRODUCT, op.PRODUCT)
        self.assertEqual(len({op.SUM, op.AVG, op.PRODUCT, op.MIN, op.MAX}), 5)
        self.assertIsInstance(op.MIN, op)

    def test_collective_argument_errors(self):
        self.init()
        t = tessera.ones(3)
        with self.assertRaisesRegex(TypeError, "argument 'op' must be a tessera.distributed.ReduceOp, not int"):
            dist.all_reduce(t, op=0)
        with self.assertRaisesRegex(TypeError, "ReduceOp, not str"):
            dist.reduce_scatter_tensor(t, t, op="sum")
        with self.assertRaisesRegex(RuntimeError, "Expected parameter `tensor` to be of type tessera.Tensor"):
            dist.all_reduce([t])
        for src in (1, -1):
            with self.assertRaisesRegex(errors.InvalidArgumentError, "root"):
                dist.broadcast(t, src)
        with self.assertRaises(errors.ShapeMismatchError):
            dist.all_gather_into_tensor(tessera.zeros(4), t)
        with self.assertRaises(errors.ShapeMismatchError):
            dist.reduce_scatter_tensor(tessera.zeros(2), t)
        with self.assertRaises(errors.DTypeMismatchError):
            dist.all_gather_into_tensor(tessera.zeros(3, dtype=tessera.float64), t)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "expected length 1, got 2"):
            dist.all_gather([tessera.zeros(3), tessera.zeros(3)], t)
        with self.assertRaisesRegex(errors.ShapeMismatchError, "invalid tensor size at index 0"):
            dist.all_gather([tessera.zeros(4)], t)
        with self.assertRaisesRegex(errors.DTypeMismatchError, "different dtypes"):
            dist.all_gather([tessera.zeros(3, dtype=tessera.float64)], t)
        with self.assertRaisesRegex(RuntimeError, "List\\[tessera.Tensor\\]"):
            dist.all_gather((t,), t)
        with self.assertRaises(errors.InvalidArgumentError):
            dist.all_reduce(tessera.ones(1).expand(3))  # overlaps itself
        with self.assertRaisesRegex(RuntimeError, "Invalid process group specified"):
            dist.get_rank(group=5)
        self.assertEqual(t.tolist(), [1.0, 1.0, 1.0])
        old = dist.group.WORLD
        dist.destroy_process_group()
        with self.assertRaisesRegex(RuntimeError, "Invalid process group specified"):
            dist.all_reduce(t, group=old)

    def test_bitwise_reduce_ops(self):
        op = dist.ReduceOp
        self.assertEqual((int(op.BAND), int(op.BOR), int(op.BXOR)), (5, 6, 7))  # torch's RedOpType values
        self.init()
        t = tessera.tensor([5, 3, 12], dtype=tessera.int32)
        for o in (op.BAND, op.BOR, op.BXOR):
            dist.all_reduce(t, op=o)  # a group of one: unchanged
        self.assertEqual(t.tolist(), [5, 3, 12])
        b = tessera.tensor([True, False])
        dist.all_reduce(b, op=op.BXOR)
        self.assertEqual(b.tolist(), [True, False])
        f = tessera.ones(2)
        for o in (op.BAND, op.BOR, op.BXOR):
            with self.assertRaisesRegex(errors.DTypeMismatchError,
                                        "Cannot use ReduceOp.{} with non-integral dtype".format(o.name)):
                dist.all_reduce(f, op=o)
        dist.barrier()  # the refusals left the group healthy

    def test_new_group_and_point_to_point_checks(self):
        self.init()
        sub = dist.new_group([0], timeout=datetime.timedelta(seconds=20))
        self.assertIsInstance(sub, dist.ProcessGroup)
        self.assertEqual((dist.get_rank(sub), dist.get_world_size(sub)), (0, 1))
        self.assertEqual(dist.get_global_rank(sub, 0), 0)
        self.assertEqual(dist.get_group_rank(sub, 0), 0)
        self.assertEqual(dist.get_process_group_ranks(sub), [0])
        with self.assertRaisesRegex(RuntimeError, "Group rank 1 is not part of group"):
            dist.get_global_rank(sub, 1)
        with self.assertRaisesRegex(RuntimeError, "Global rank 3 is not part of group"):
            dist.get_group_rank(sub, 3)
        t = tessera.ones(2)
        dist.all_reduce(t, group=sub)
        dist.barrier(group=sub)
        everyone = dist.new_group()
        self.assertEqual(dist.get_world_size(everyone), 1)
        with self.assertRaisesRegex(RuntimeError, "The new group's rank should be within"):
            dist.new_group([1])
        with self.assertRaisesRegex(RuntimeError, "world size should be less or equal"):
            dist.new_group([0, 0])
        with self.assertRaisesRegex(RuntimeError, "timedelta"):
            dist.new_group([0], timeout=5)
        with self.assertRaises(errors.UnsupportedError):
            dist.new_group([0], backend="nccl")
        outside = dist.GroupMember.NON_GROUP_MEMBER
        self.assertEqual((dist.get_rank(outside), dist.get_world_size(outside)), (-1, -1))
        with self.assertWarnsRegex(UserWarning, "does not belong to the given group"):
            self.assertIsNone(dist.all_reduce(t, group=outside))
        with self.assertWarnsRegex(UserWarning, "does not belong to the given group"):
            self.assertEqual(dist.recv(t, 0, group=outside), -1)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "should not be the same as the rank"):
            dist.send(t, 0)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "should not be the same as the rank"):
            dist.irecv(t, 0)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "Invalid destination rank: 1"):
            dist.isend(t, 1)
        with self.assertRaisesRegex(errors.InvalidArgumentError, "Tag must be nonnegative"):
            dist.isend(t, 0, tag=-1)
        with self.assertRaisesRegex(RuntimeError, "Global rank 2 is not part of group"):
            dist.send(t, 2, group=sub)
        self.assertEqual(t.tolist(), [1.0, 1.0])
        dist.destroy_process_group(sub)
        with self.assertRaisesRegex(RuntimeError, "Invalid process group specified"):
            dist.barrier(group=sub)
        dist.destroy_process_group()  # closes `everyone` too
        with self.assertRaisesRegex(RuntimeError, "Invalid process group specified"):
            dist.barrier(group=everyone)

    def test_dist_backend_error_is_a_runtime_error(self):
        self.assertTrue(issubclass(dist.DistBackendError, RuntimeError))
        self.assertIs(dist.DistBackendError, errors.DistBackendError)
        self.assertIs(tessera.distributed, dist)
        self.assertEqual(dist.default_pg_timeout, datetime.timedelta(minutes=30))


if __name__ == "__main__":
    unittest.main()
