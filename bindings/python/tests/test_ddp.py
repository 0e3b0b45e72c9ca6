"""tessera.nn.parallel.DistributedDataParallel against PyTorch 1.13's.

Each scenario of ddp_worker.py runs on W ranks with tessera and with torch
(Gloo, env:// over 127.0.0.1, a hard timeout per run); the gradients and
parameters each rank prints must agree (float32, relative to each
tensor's scale). Argument checks run in this process in a group of one.
"""
import datetime
import json
import os
import socket
import subprocess
import unittest

import tessera
import tessera.distributed as dist
from tessera import errors
from tessera.nn.parallel import DistributedDataParallel as DDP

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "ddp_worker.py")
PYTHON = "/usr/bin/python3"
DEADLINE_S = 90

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
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                   WORLD_SIZE=str(world), OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        procs.append(subprocess.Popen([PYTHON, WORKER, impl, scenario], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    return procs


def collect(test, procs, what):
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
        results.append(json.loads(out))
    return results


class AgainstTorch(unittest.TestCase):
    def compare(self, scenario, world, rtol=1e-5):
        """Runs the scenarios (comma-separated) on world ranks with both;
        fp16_hook's results are compared to 2e-3, the others to rtol."""
        ours = start_ranks("tessera", scenario, world)
        theirs = start_ranks("torch", scenario, world) if HAVE_TORCH else None
        got = collect(self, ours, "tessera " + scenario)
        if theirs is None:
            self.skipTest("PyTorch with torch.distributed is not installed")
        want = collect(self, theirs, "torch " + scenario)
        for rank in range(world):
            self.assertEqual(sorted(got[rank]), sorted(want[rank]))
            for key in want[rank]:
                tol = 2e-3 if key == "fp16_hook" else rtol
                self.assert_close(got[rank][key], want[rank][key], tol, "rank %d, %s" % (rank, key))
        return got

    def assert_close(self, got, want, rtol, where):
        if isinstance(want, dict):
            self.assertEqual(sorted(got), sorted(want), where)
            for k in want:
                self.assert_close(got[k], want[k], rtol, where + "." + k)
        elif want is None or isinstance(want, str) or (isinstance(want, list) and want and isinstance(want[0], str)):
            self.assertEqual(got, want, where)
        else:
            self.assertEqual(len(got), len(want), where)
            scale = max([abs(w) for w in want] + [1e-30])
            diff = max([abs(g - w) for g, w in zip(got, want)] + [0.0])
            self.assertLessEqual(diff, rtol * scale, "%s: max difference %g, scale %g" % (where, diff, scale))

    def test_world_2(self):
        got = self.compare("basic,bucket_view,no_sync,unused_found,fp16_hook,buffers,unused_error", 2)
        # every rank holds rank 0's values after the broadcast, the same averaged grads
        self.assertEqual(got[1]["basic"]["broadcast"], got[0]["basic"]["broadcast"])
        self.assertEqual(got[1]["basic"]["grads2"], got[0]["basic"]["grads2"])

    def test_world_3(self):
        self.compare("basic,no_sync,unused_found", 3)


class InOneProcess(unittest.TestCase):
    """A group of one: the arguments torch checks, and what a module
    without a group or with a foreign hook gets."""

    @classmethod
    def setUpClass(cls):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % free_port(), rank=0, world_size=1,
                                timeout=datetime.timedelta(seconds=30))

    @classmethod
    def tearDownClass(cls):
        dist.destroy_process_group()

    def test_arguments(self):
        net = tessera.nn.Linear(3, 2)
        with self.assertRaisesRegex(ValueError, "device_ids and output_device arguments only work"):
            DDP(net, device_ids=[0])
        with self.assertRaisesRegex(ValueError, "device_ids can only be None or contain a single element."):
            DDP(net, device_ids=[0, 1])
        frozen = tessera.nn.Linear(3, 2)
        for p in frozen.parameters():
            p.requires_grad_(False)
        with self.assertRaisesRegex(RuntimeError, "DistributedDataParallel is not needed"):
            DDP(frozen)
        with self.assertWarnsRegex(UserWarning, "`check_reduction` argument .* is deprecated"):
            DDP(tessera.nn.Linear(3, 2), check_reduction=True)
        model = DDP(net)
        self.assertIs(model.module, net)
        self.assertEqual(sorted(model.state_dict()), ["module.bias", "module.weight"])
        with self.assertRaises(TypeError):
            model.register_comm_hook(None, 3)
        with self.assertRaises(errors.UnsupportedError):
            model.register_comm_hook(None, lambda state, bucket: None)
        from tessera.distributed.algorithms.ddp_comm_hooks import default_hooks
        model.register_comm_hook(None, default_hooks.bf16_compress_hook)
        with self.assertRaisesRegex(ValueError, "can only be called once"):
            model.register_comm_hook(None, default_hooks.fp16_compress_hook)

    def test_training_in_a_group_of_one(self):
        net = tessera.nn.Linear(3, 2)
        model = DDP(net, gradient_as_bucket_view=True)
        x = tessera.ones(4, 3)
        model(x).sum().backward()
        self.assertEqual(net.weight.grad.tolist(), [[4.0] * 3] * 2)
        buckets = model._get_bucket_indices()  # rebuilt in the order the gradients arrived
        self.assertEqual(len(buckets), 1)
        self.assertEqual(sorted(buckets[0]), [0, 1])
        with model.no_sync():
            model(x).sum().backward()
        self.assertEqual(net.bias.grad.tolist(), [8.0, 8.0])


if __name__ == "__main__":
    unittest.main()
