"""tessera.nn.utils.clip_grad_*, parameter groups / state_dict and
tessera.optim.lr_scheduler against PyTorch 1.13 at run time: each scenario
is written once against a module named `torch` and run with torch and with
tessera; learning rates must agree exactly, tensors to float32 rounding."""
import math
import os
import tempfile
import unittest
import warnings

import numpy as np
import torch as real_torch

import tessera


def data(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32).tolist()


def values(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


def params(torch, dtype=None):
    dtype = dtype or torch.float32
    return [torch.tensor(data(3, 4, seed=1), dtype=dtype, requires_grad=True),
            torch.tensor(data(5, seed=2), dtype=dtype, requires_grad=True),
            torch.tensor(data(2, 2, seed=3), dtype=dtype, requires_grad=True)]


def set_grads(torch, ps, scale=1.0):
    for i, p in enumerate(ps):
        p.grad = (torch.tensor(data(*p.shape, seed=10 + i), dtype=p.dtype) * scale)


def make_opt(torch, kind, ps):
    groups = [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.01}]
    if kind == "sgd":
        return torch.optim.SGD(groups, lr=0.1, momentum=0.9)
    if kind == "sgd_nesterov":
        return torch.optim.SGD([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.01, "nesterov": True,
                                                      "weight_decay": 0.1}], lr=0.1, momentum=0.9)
    if kind == "adam":
        return torch.optim.Adam([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.02, "betas": (0.8, 0.99),
                                                       "amsgrad": True}], lr=0.01)
    return torch.optim.AdamW(groups, lr=0.01, weight_decay=0.05)


class ClipGrad(unittest.TestCase):
    def test_norm_matches_torch(self):
        for norm_type in (2.0, 1, math.inf, "inf", 3.0, 0.5, 0.0, -math.inf):
            for dtype in ("float32", "float64"):
                results = []
                for torch in (tessera, real_torch):
                    ps = params(torch, getattr(torch, dtype))
                    set_grads(torch, ps)
                    ps[1].grad = None
                    total = torch.nn.utils.clip_grad_norm_(ps, max_norm=0.7, norm_type=norm_type)
                    results.append((float(total), str(total.dtype).split(".")[-1], total.dim(),
                                    [values(p.grad) if p.grad is not None else None for p in ps]))
                (t1, d1, n1, g1), (t2, d2, n2, g2) = results
                with self.subTest(norm_type=norm_type, dtype=dtype):
                    self.assertAlmostEqual(t1, t2, delta=1e-5 * max(1, abs(t2)))
                    self.assertEqual((d1, n1), (d2, n2))
                    self.assertIsNone(g1[1])
                    for a, b in zip(g1[::2], g2[::2]):
                        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)

    def test_single_tensor_value_and_deprecated_name(self):
        out = []
        for torch in (tessera, real_torch):
            p = params(torch)[0]
            set_grads(torch, [p], 3.0)
            torch.nn.utils.clip_grad_value_(p, 0.5)
            g1 = values(p.grad)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                total = torch.nn.utils.clip_grad_norm(p, 1.0)
            out.append((g1, float(total), len(w)))
        np.testing.assert_array_equal(out[0][0], out[1][0])
        self.assertAlmostEqual(out[0][1], out[1][1], places=5)
        self.assertEqual(out[0][2], out[1][2])

    def test_no_grads_and_nonfinite(self):
        for torch in (tessera, real_torch):
            ps = params(torch)
            total = torch.nn.utils.clip_grad_norm_(ps, 1.0)
            self.assertEqual((float(total), str(total.dtype)), (0.0, str(torch.float32)))
            set_grads(torch, ps)
            ps[0].grad[0, 0] = float("nan")
            before = values(ps[1].grad)
            with self.assertRaises(RuntimeError) as cm:
                torch.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
            self.assertIn("The total norm of order 2.0 for gradients from `parameters` is non-finite",
                          str(cm.exception))
            np.testing.assert_array_equal(values(ps[1].grad), before)


def train(torch, kind, steps, opt=None, ps=None, start=0):
    if ps is None:
        ps = params(torch)
    if opt is None:
        opt = make_opt(torch, kind, ps)
    for k in range(start, start + steps):
        set_grads(torch, ps, k + 1)
        opt.step()
    return opt, ps


class ParamGroupsAndStateDict(unittest.TestCase):
    def test_state_dict_matches_torch(self):
        for kind in ("sgd", "sgd_nesterov", "adam", "adamw"):
            (o1, p1), (o2, p2) = train(tessera, kind, 3), train(real_torch, kind, 3)
            s1, s2 = o1.state_dict(), o2.state_dict()
            with self.subTest(kind):
                self.assertEqual(sorted(s1["state"]), sorted(s2["state"]))
                for i in s2["state"]:
                    self.assertEqual(sorted(s1["state"][i]), sorted(s2["state"][i]))
                    for key, t in s2["state"][i].items():
                        np.testing.assert_allclose(values(s1["state"][i][key]), values(t), rtol=1e-5, atol=1e-7)
                        self.assertEqual(str(s1["state"][i][key].dtype).split(".")[-1],
                                         str(t.dtype).split(".")[-1])
                self.assertEqual(len(s1["param_groups"]), len(s2["param_groups"]))
                for g1, g2 in zip(s1["param_groups"], s2["param_groups"]):
                    self.assertEqual(sorted(g1), sorted(g2))
                    for key in g2:
                        self.assertEqual(g1[key], g2[key], key)
                for a, b in zip(p1, p2):
                    np.testing.assert_allclose(values(a), values(b), rtol=1e-5, atol=1e-7)

    def test_resumed_training_is_bit_identical(self):
        for kind in ("sgd_nesterov", "adam"):
            for via_file in (False, True):
                ref_opt, ref = train(tessera, kind, 3)
                ref_opt.param_groups[1]["lr"] = 0.015
                train(tessera, kind, 3, ref_opt, ref, 3)
                opt, ps = train(tessera, kind, 3)
                opt.param_groups[1]["lr"] = 0.015
                sd = opt.state_dict()
                fresh = [tessera.tensor(p.detach().tolist(), requires_grad=True) for p in ps]
                if via_file:
                    flat = {f"model.{i}": p.detach() for i, p in enumerate(ps)}
                    flat.update({f"state.{i}.{k}": t for i, e in sd["state"].items() for k, t in e.items()})
                    with tempfile.TemporaryDirectory() as d:
                        path = os.path.join(d, "ckpt.safetensors")
                        tessera.save(flat, path)
                        loaded = tessera.load(path)
                    state = {}
                    for name, t in loaded.items():
                        if name.startswith("state."):
                            _, i, key = name.split(".", 2)
                            state.setdefault(int(i), {})[key] = t
                    sd = {"state": state, "param_groups": sd["param_groups"]}
                opt2 = make_opt(tessera, kind, fresh)
                opt2.load_state_dict(sd)
                self.assertEqual(opt2.param_groups[1]["lr"], 0.015)
                train(tessera, kind, 1, opt, ps, 3)  # the loaded state is a copy
                train(tessera, kind, 3, opt2, fresh, 3)
                for a, b in zip(ref, fresh):
                    self.assertEqual(a.detach().tolist(), b.detach().tolist(), (kind, via_file))

    def test_groups_edits_and_errors(self):
        for torch in (tessera, real_torch):
            ps = params(torch)
            opt = torch.optim.SGD([{"params": ps[:1]}], lr=0.1)
            opt.add_param_group({"params": ps[1], "lr": 0.5, "momentum": 0.5})
            self.assertEqual(opt.param_groups[1]["lr"], 0.5)
            self.assertEqual(opt.param_groups[1]["momentum"], 0.5)
            self.assertEqual(opt.param_groups[0]["momentum"], 0)
            self.assertIs(opt.param_groups[1]["params"][0], ps[1])
            with self.assertRaisesRegex(ValueError, "some parameters appear in more than one parameter group"):
                opt.add_param_group({"params": [ps[0]]})
            with self.assertRaisesRegex(TypeError, "ordering of tensors in sets"):
                opt.add_param_group({"params": {ps[2]}})
            with self.assertRaisesRegex(ValueError, "required optimization parameter lr"):
                torch.optim.SGD([{"params": ps[2:]}])
            self.assertEqual(len(opt.param_groups), 2)
            # An lr edit takes effect at the next step.
            opt.param_groups[1]["lr"] = 0.0
            before = values(ps[1])
            set_grads(torch, ps)
            opt.step()
            np.testing.assert_array_equal(values(ps[1]), before)
            with self.assertRaisesRegex(ValueError, "different number of parameter groups"):
                opt.load_state_dict(torch.optim.SGD(ps[2:], lr=0.1).state_dict())
            adam = torch.optim.Adam(ps[2:], betas=(0.5, 0.6))
            adam.param_groups[0]["betas"] = (0.7, 0.6)
            self.assertEqual(adam.param_groups[0]["betas"], (0.7, 0.6))
            self.assertIs(adam.param_groups[0]["amsgrad"], False)
            self.assertEqual(adam.param_groups[0].setdefault("initial_lr", 0.25), 0.25)


S_STEPS = 50


def schedules(torch):
    """(name, optimizer kind, builder) of every scheduler case."""
    S = torch.optim.lr_scheduler
    return [
        ("StepLR", "sgd", lambda o: S.StepLR(o, step_size=7, gamma=0.5)),
        ("MultiStepLR", "sgd", lambda o: S.MultiStepLR(o, milestones=[30, 5, 12, 12], gamma=0.3)),
        ("ExponentialLR", "adam", lambda o: S.ExponentialLR(o, gamma=0.93)),
        ("CosineAnnealingLR", "sgd", lambda o: S.CosineAnnealingLR(o, T_max=12, eta_min=0.001)),
        ("LinearLR", "adamw", lambda o: S.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=20)),
        ("LinearLR defaults", "sgd", lambda o: S.LinearLR(o)),
        ("OneCycleLR", "sgd", lambda o: S.OneCycleLR(o, max_lr=[0.5, 0.05], total_steps=50)),
        ("OneCycleLR adam three_phase", "adam",
         lambda o: S.OneCycleLR(o, max_lr=0.2, epochs=10, steps_per_epoch=6, pct_start=0.25, anneal_strategy="linear",
                                three_phase=True, base_momentum=[0.8, 0.7], max_momentum=0.9)),
        ("OneCycleLR no momentum", "sgd",
         lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=60, cycle_momentum=False, div_factor=5.0)),
        ("LambdaLR", "sgd", lambda o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)])),
        ("SequentialLR", "sgd",
         lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=5), S.CosineAnnealingLR(o, T_max=20),
                                      S.StepLR(o, step_size=5, gamma=0.5)], milestones=[5, 25])),
        ("SequentialLR exponential multistep", "adam",
         lambda o: S.SequentialLR(o, [S.ExponentialLR(o, gamma=0.9), S.MultiStepLR(o, milestones=[3, 8], gamma=0.5)],
                                  milestones=[10])),
    ]


def momentum(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def run_schedule(torch, index):
    name, kind, build = schedules(torch)[index]
    opt = make_opt(torch, kind, params(torch))
    s = build(opt)
    lrs = [list(s.get_last_lr())]
    moms = [[momentum(g) for g in opt.param_groups]]
    group_lrs = [[g["lr"] for g in opt.param_groups]]
    for _ in range(S_STEPS):
        opt.step()
        s.step()
        lrs.append(list(s.get_last_lr()))
        moms.append([momentum(g) for g in opt.param_groups])
        group_lrs.append([g["lr"] for g in opt.param_groups])
    return name, lrs, moms, group_lrs, s.last_epoch


class LrSchedulers(unittest.TestCase):
    def test_fifty_steps_match_torch_exactly(self):
        warnings.simplefilter("ignore")
        for i in range(len(schedules(tessera))):
            mine, ref = run_schedule(tessera, i), run_schedule(real_torch, i)
            with self.subTest(ref[0]):
                self.assertEqual(mine[1], ref[1])  # get_last_lr, exactly
                self.assertEqual(mine[2], ref[2])  # momentum / beta1
                self.assertEqual(mine[3], ref[3])  # param_groups' lr
                self.assertEqual(mine[4], ref[4])

    def test_closed_forms_through_step_epoch(self):
        warnings.simplefilter("ignore")
        for i in range(5):
            got = []
            for torch in (tessera, real_torch):
                _, kind, build = schedules(torch)[i]
                opt = make_opt(torch, kind, params(torch))
                s = build(opt)
                got.append([(s.step(e), s.get_last_lr())[1] for e in (3, 17, 4, 40, 0)])
            self.assertEqual(got[0], got[1])

    def test_errors_as_torch(self):
        cases = [
            (ValueError, lambda S, o: S.LinearLR(o, start_factor=1.5)),
            (ValueError, lambda S, o: S.OneCycleLR(o, max_lr=0.1)),
            (ValueError, lambda S, o: S.OneCycleLR(o, max_lr=0.1, total_steps=5.0)),
            (ValueError, lambda S, o: S.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=1)),
            (ValueError, lambda S, o: S.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="exp")),
            (ValueError, lambda S, o: S.OneCycleLR(o, max_lr=[0.1, 0.2, 0.3], total_steps=10)),
            (KeyError, lambda S, o: S.StepLR(o, 3, last_epoch=4)),
            (ValueError, lambda S, o: S.LambdaLR(o, [lambda e: 1.0])),
            (TypeError, lambda S, o: S.StepLR("not an optimizer", 3)),
            (ValueError, lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.StepLR(o, 2)], milestones=[3, 4])),
        ]
        for k, (error, make) in enumerate(cases):
            messages = []
            for torch in (tessera, real_torch):
                opt = make_opt(torch, "sgd", params(torch))
                with self.assertRaises(error, msg=k) as cm:
                    make(torch.optim.lr_scheduler, opt)
                messages.append(str(cm.exception))
                self.assertEqual([g["lr"] for g in opt.param_groups], [0.1, 0.01], k)
                if k != len(cases) - 1:  # SequentialLR's children, made first, set it in torch too
                    self.assertNotIn("initial_lr", opt.param_groups[0], k)
            self.assertEqual(messages[0], messages[1], k)
        for torch in (tessera, real_torch):
            s = torch.optim.lr_scheduler.OneCycleLR(make_opt(torch, "sgd", params(torch)), 0.1, total_steps=2)
            s.step()
            s.step()
            with self.assertRaisesRegex(ValueError, "Tried to step 4 times. The specified number of total steps is 2"):
                s.step()

    def test_state_dict_and_resume_as_torch(self):
        warnings.simplefilter("ignore")
        for i in (0, 3, 6, 9, 10):
            results = []
            for torch in (tessera, real_torch):
                name, kind, build = schedules(torch)[i]
                opt = make_opt(torch, kind, params(torch))
                s = build(opt)
                for _ in range(12):
                    opt.step()
                    s.step()
                saved_opt, saved = opt.state_dict(), s.state_dict()
                keys = sorted(k for k in saved if k not in ("anneal_func", "_schedule_phases"))
                opt2 = make_opt(torch, kind, params(torch))
                s2 = build(opt2)
                opt2.load_state_dict(saved_opt)
                s2.load_state_dict(saved)
                lrs = []
                for _ in range(15):
                    opt.step()
                    s.step()
                    opt2.step()
                    s2.step()
                    lrs.append((s.get_last_lr(), s2.get_last_lr(), [g["lr"] for g in opt2.param_groups]))
                results.append((keys, saved["last_epoch"], saved["_last_lr"], lrs))
            with self.subTest(name):
                mine, ref = results
                self.assertEqual(mine[1:], ref[1:])
                for a, b, groups in mine[3]:
                    self.assertEqual(a, b)  # resumed == uninterrupted
                    self.assertEqual(b, groups)
                if name not in ("OneCycleLR", "SequentialLR"):
                    self.assertEqual(mine[0], ref[0])

    def test_close_and_module_paths(self):
        from tessera.optim.lr_scheduler import StepLR  # torch.optim.lr_scheduler's path
        opt = make_opt(tessera, "sgd", params(tessera))
        s = StepLR(opt, 2)
        s.close()
        with self.assertRaisesRegex(tessera.InvalidArgumentError, "scheduler is NULL"):
            s.step()
        with StepLR(opt, 2, gamma=0.5) as s2:
            s2.step()
            s2.step()
            self.assertEqual(s2.get_last_lr(), [0.05, 0.005])
            self.assertEqual(s2.last_epoch, 2)
            self.assertEqual(s2.base_lrs, [0.1, 0.01])


if __name__ == "__main__":
    unittest.main()
