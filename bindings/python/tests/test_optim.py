"""tessera.optim, tessera.nn.init and tessera.profiler. The expected
numbers come from PyTorch 1.13 (bindings/support/optim_golden.py, run with
/usr/bin/python3): two steps on p0 with the same gradient set before each."""
import gc
import json
import os
import tempfile
import unittest

import tessera as ts

P0 = [1.0, -2.0, 3.0, 0.5]
GRAD = [0.1, -0.2, 0.3, 0.4]
# torch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01), PyTorch 1.13
SGD_STEPS = [[0.9890000224113464, -1.9780000448226929, 2.9670000076293945, 0.4594999849796295],
             [0.9681110382080078, -1.9362220764160156, 2.9043331146240234, 0.38259047269821167]]
# torch.optim.AdamW([p], lr=0.01, weight_decay=0.1), PyTorch 1.13
ADAMW_STEPS = [[0.9890000224113464, -1.9880000352859497, 2.986999988555908, 0.4895000159740448],
               [0.9780110716819763, -1.976012110710144, 2.974013090133667, 0.47901052236557007]]


class OptimTest(unittest.TestCase):
    def run_steps(self, opt, p, expected):
        for want in expected:
            p.grad = ts.tensor(GRAD)
            opt.step()
            for got, w in zip(p.detach().tolist(), want):
                self.assertAlmostEqual(got, w, delta=1e-6)

    def test_sgd_momentum_matches_torch(self):
        p = ts.tensor(P0, requires_grad=True)
        with ts.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01) as opt:
            self.assertIsNone(opt.state_tensor(0, "momentum_buffer"))
            self.run_steps(opt, p, SGD_STEPS)
            self.assertEqual(list(opt.state[p]), ["momentum_buffer"])

    def test_adamw_matches_torch(self):
        p = ts.tensor(P0, requires_grad=True)
        opt = ts.optim.AdamW([p], lr=0.01, weight_decay=0.1)
        self.assertEqual(opt.param_groups[0]["weight_decay"], 0.1)
        self.run_steps(opt, p, ADAMW_STEPS)
        self.assertEqual(opt.state[p]["step"].item(), 2.0)
        self.assertEqual(sorted(opt.state[p]), ["exp_avg", "exp_avg_sq", "step"])
        opt.close()

    def test_adam_defaults_and_lr(self):
        p = ts.tensor(P0, requires_grad=True)
        opt = ts.optim.Adam([p])
        self.assertAlmostEqual(opt.lr, 1e-3)
        opt.lr = 0.5
        self.assertEqual(opt.param_groups[0]["lr"], 0.5)
        opt.param_groups[0]["lr"] = 0.25
        self.assertEqual(opt.lr, 0.25)

    def test_zero_grad_both_ways(self):
        p = ts.tensor(P0, requires_grad=True)
        opt = ts.optim.SGD([p], lr=0.1)
        p.grad = ts.tensor(GRAD)
        opt.zero_grad()  # torch 1.13's default: set_to_none=False
        self.assertEqual(p.grad.tolist(), [0.0] * 4)
        opt.zero_grad(set_to_none=True)
        self.assertIsNone(p.grad)

    def test_errors(self):
        p = ts.tensor(P0, requires_grad=True)
        with self.assertRaises(ts.InvalidArgumentError) as cm:
            ts.optim.SGD([p], lr=-0.1)
        self.assertEqual(cm.exception.message, "Invalid learning rate: -0.1")
        self.assertIsInstance(cm.exception, ValueError)
        with self.assertRaisesRegex(ts.InvalidArgumentError, "empty parameter list"):
            ts.optim.Adam([])
        with self.assertRaisesRegex(ts.InvalidArgumentError, "Invalid beta parameter at index 0"):
            ts.optim.Adam([p], betas=(1.0, 0.999))
        opt = ts.optim.SGD([p], lr=0.1)
        with self.assertRaises(ts.InvalidArgumentError):
            opt.lr = -1
        opt.close()
        with self.assertRaises(ts.InvalidArgumentError):
            opt.step()

    def test_optimizer_keeps_parameters_alive(self):
        p = ts.tensor(P0, requires_grad=True)
        p.grad = ts.tensor(GRAD)
        opt = ts.optim.SGD([p], lr=1.0)
        del p
        opt.step()
        self.assertAlmostEqual(opt.param_groups[0]["params"][0].detach().tolist()[0],
                               P0[0] - GRAD[0], delta=1e-6)

    def test_state_released_on_close_and_collection(self):
        p = ts.zeros(100, 100, requires_grad=True)
        p.grad = ts.ones(100, 100)
        gc.collect()  # earlier tests' garbage, so that base stays put
        base = ts.memory_allocated()
        opt = ts.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.step()
        self.assertGreater(ts.memory_allocated(), base)  # the momentum_buffer
        opt.close()
        self.assertEqual(ts.memory_allocated(), base)
        opt = ts.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.step()
        del opt
        gc.collect()
        self.assertEqual(ts.memory_allocated(), base)


class InitTest(unittest.TestCase):
    def test_kaiming_uniform_bound(self):
        w = ts.empty(4, 3)
        g = ts.Generator().manual_seed(0)
        self.assertIs(ts.nn.init.kaiming_uniform_(w, generator=g), w)
        # bound = gain(leaky_relu, 0) * sqrt(3 / fan_in) = sqrt(2) * sqrt(3 / 3)
        bound = 2 ** 0.5
        values = w.reshape(-1).tolist()
        self.assertTrue(all(-bound <= v < bound for v in values), values)
        self.assertGreater(max(abs(v) for v in values), bound / 4)

    def test_others(self):
        w = ts.empty(5, 7)
        ts.nn.init.xavier_uniform_(w)
        b = (6 / 12) ** 0.5
        self.assertTrue(all(-b <= v < b for v in w.reshape(-1).tolist()))
        ts.nn.init.uniform_(w, 2.0, 3.0)
        self.assertTrue(all(2.0 <= v < 3.0 for v in w.reshape(-1).tolist()))
        ts.nn.init.normal_(w, 10.0, 0.01)
        self.assertTrue(all(9.9 < v < 10.1 for v in w.reshape(-1).tolist()))
        ts.nn.init.zeros_(w)
        self.assertEqual(set(w.reshape(-1).tolist()), {0.0})
        self.assertAlmostEqual(ts.nn.init.calculate_gain("tanh"), 5 / 3)
        self.assertAlmostEqual(ts.nn.init.calculate_gain("leaky_relu"), (2 / (1 + 0.01 ** 2)) ** 0.5)
        with self.assertRaisesRegex(ts.InvalidArgumentError, "Unsupported nonlinearity foo"):
            ts.nn.init.calculate_gain("foo")
        with self.assertRaisesRegex(ts.InvalidArgumentError, "fewer than 2 dimensions"):
            ts.nn.init.kaiming_uniform_(ts.empty(3))
        with self.assertRaisesRegex(ts.InvalidArgumentError, "Mode fan_avg not supported"):
            ts.nn.init.kaiming_uniform_(ts.empty(3, 3), mode="fan_avg")


class ProfilerTest(unittest.TestCase):
    def test_table_and_chrome_trace(self):
        x = ts.ones(3, 4, requires_grad=True)
        with ts.profiler.profile(record_shapes=True) as prof:
            (x * x).sum().backward()
        self.assertGreater(prof.events(), 0)
        table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
        self.assertIn("aten::mul", table)
        self.assertIn("MulBackward0", table)
        self.assertIn("Self CPU time total", table)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as f:
                trace = json.load(f)
            self.assertIn("aten::mul", [e["name"] for e in trace["traceEvents"]])
            with self.assertRaises(ts.InputOutputError):
                prof.export_chrome_trace(os.path.join(d, "missing", "trace.json"))
        with self.assertRaises(ts.InvalidArgumentError):
            prof.table(sort_by="bogus")

    def test_stop_without_start(self):
        with self.assertRaises(ts.InvalidArgumentError):
            ts.profiler.profile().stop()


if __name__ == "__main__":
    unittest.main()
