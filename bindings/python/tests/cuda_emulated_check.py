"""tessera.cuda and device tensors on the emulated CUDA device (the CUDA
plugin's host code over the runtime's test double, kernels on the grid
emulator): run by ctest bindings_python_cuda_emulated with TSR_CUDA_PLUGIN
naming libtessera_cuda_emulated.so (not picked up by the plain discovery:
without the plugin there is no device)."""
import unittest

import numpy as np

import tessera
from tessera import nn


class EmulatedCuda(unittest.TestCase):
    def setUp(self):
        if not tessera.cuda.is_available():
            self.fail("TSR_CUDA_PLUGIN does not name a working CUDA plugin")

    def test_nccl_group_of_one(self):
        """init_process_group("nccl") and the default "cpu:gloo,cuda:nccl" on
        the emulated device, NCCL being the tests' double ($TSR_NCCL_LIBRARY;
        tests/nccl_double/test_nccl_backend.c runs the numbers at world 2 and 3)."""
        import socket
        import tessera.distributed as dist
        import tessera.errors as errors
        self.assertTrue(dist.is_nccl_available())
        for backend in ("nccl", None):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            dist.init_process_group(backend, init_method="tcp://127.0.0.1:%d" % port, rank=0, world_size=1)
            try:
                self.assertEqual(dist.get_backend(), "nccl" if backend else "gloo")
                t = tessera.arange(4.).cuda()
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                dist.all_reduce(t, async_op=True).wait()
                self.assertEqual((t.device.type, t.cpu().tolist()), ("cuda", [0., 1., 2., 3.]))
                dist.barrier()
                cpu = tessera.ones(2)
                if backend == "nccl":
                    with self.assertRaisesRegex(errors.UnsupportedError, "a CPU tensor in a TSR_DIST_NCCL"):
                        dist.all_reduce(cpu)
                else:
                    dist.all_reduce(cpu)
                    self.assertEqual(cpu.tolist(), [1., 1.])
            finally:
                dist.destroy_process_group()

    def test_queries(self):
        self.assertGreaterEqual(tessera.cuda.device_count(), 1)
        self.assertEqual(tessera.cuda.current_device(), 0)
        with tessera.cuda.device(0):
            self.assertEqual(tessera.cuda.current_device(), 0)
        with self.assertRaises(ValueError):
            tessera.cuda.set_device(99)

    def test_tensors_move_and_come_back(self):
        x = tessera.arange(6.).view(2, 3)
        y = x.cuda()
        self.assertEqual((str(y.device), y.is_cuda, y.get_device()), ("cuda:0", True, 0))
        self.assertIs(y.cuda(), y)
        self.assertIs(y.to("cuda"), y)
        back = y.cpu()
        self.assertEqual(back.device, tessera.device("cpu"))
        self.assertEqual(back.tolist(), x.tolist())
        self.assertEqual(y.to("cpu", tessera.float64).dtype, tessera.float64)
        with self.assertRaisesRegex(TypeError, "can't convert cuda:0 device type tensor to numpy"):
            y.numpy()
        np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())
        self.assertEqual((y * 2).sum().item(), 30.0)
        z = x.to(y)  # to(other): other's device and dtype
        self.assertTrue(z.is_cuda)
        self.assertTrue(tessera.ones(1, 2, 3, 4).to("cuda", memory_format=tessera.channels_last)
                        .is_contiguous(memory_format=tessera.channels_last))

    def test_memory_statistics_and_snapshot(self):
        tessera.cuda.empty_cache()
        before = tessera.cuda.memory_allocated()
        y = tessera.ones(1024, device="cuda")
        self.assertGreaterEqual(tessera.cuda.memory_allocated() - before, 4096)
        self.assertGreaterEqual(tessera.cuda.memory_reserved(), tessera.cuda.memory_allocated())
        self.assertGreater(tessera.cuda.memory_stats()["allocated_bytes.all.current"], 0)
        self.assertIn("Allocated memory", tessera.cuda.memory_summary())
        tessera.cuda.memory._record_memory_history(True, max_entries=100)
        w = tessera.zeros(10, device="cuda")
        snapshot = tessera.cuda.memory._snapshot()
        self.assertTrue(snapshot["segments"])
        self.assertTrue(snapshot["device_traces"])
        self.assertIsInstance(tessera.cuda.memory_snapshot(), list)
        tessera.cuda.memory._record_memory_history(False)
        del y, w

    def test_streams_and_events(self):
        s = tessera.cuda.Stream()
        self.assertNotEqual(s, tessera.cuda.default_stream())
        start, end = tessera.cuda.Event(enable_timing=True), tessera.cuda.Event(enable_timing=True)
        with tessera.cuda.stream(s):
            self.assertEqual(tessera.cuda.current_stream(), s)
            start.record()
            y = tessera.ones(256, device="cuda") * 3
            end.record()
        self.assertEqual(tessera.cuda.current_stream(), tessera.cuda.default_stream())
        end.synchronize()
        self.assertTrue(end.query())
        self.assertGreaterEqual(start.elapsed_time(end), 0.0)
        tessera.cuda.current_stream().wait_stream(s)
        s.synchronize()
        self.assertTrue(s.query())
        tessera.cuda.synchronize()
        self.assertEqual(y.sum().item(), 768.0)

    def test_module_to_cuda_and_back(self):
        m = nn.Sequential(nn.Linear(3, 2))
        ids = [id(p) for p in m.parameters()]
        m.cuda()
        self.assertEqual([id(p) for p in m.parameters()], ids)
        self.assertTrue(m[0].weight.is_cuda and m[0].weight.requires_grad)
        out = m(tessera.ones(4, 3).cuda())
        out.sum().backward()
        self.assertTrue(m[0].weight.grad.is_cuda)
        m.cpu()
        self.assertFalse(m[0].weight.is_cuda)
        self.assertFalse(m[0].weight.grad.is_cuda)

    def test_custom_function_on_the_device(self):
        class Square(tessera.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 2 * x
        x = tessera.tensor([1.0, 2.0, 3.0]).cuda().requires_grad_()
        y = Square.apply(x)
        self.assertTrue(y.is_cuda)
        self.assertEqual(y.grad_fn.name(), "SquareBackward")
        y.sum().backward()
        self.assertTrue(x.grad.is_cuda)
        self.assertEqual(x.grad.cpu().tolist(), [2.0, 4.0, 6.0])

    def test_half_and_bfloat16_matmul_under_autocast(self):
        """cuBLAS's float16/bfloat16 GEMM (float32 sums, emulated): the CPU's
        result, plain and under autocast("cuda"), gradients in float32."""
        x = tessera.randn(8, 16).cuda().requires_grad_()
        w = tessera.randn(4, 16).cuda().requires_grad_()
        for dt in (tessera.float16, tessera.bfloat16):
            plain = x.detach().to(dt) @ w.detach().to(dt).t()
            self.assertEqual((plain.dtype, plain.is_cuda), (dt, True))
            want = x.detach().cpu().to(dt) @ w.detach().cpu().to(dt).t()
            self.assertEqual(plain.cpu().float().tolist(), want.float().tolist())
            with tessera.autocast("cuda", dtype=dt):
                y = tessera.nn.functional.linear(x, w)
            self.assertEqual(y.dtype, dt)
            y.float().sum().backward()
            self.assertEqual((x.grad.dtype, w.grad.dtype), (tessera.float32, tessera.float32))
            ones = tessera.ones(8, 4).to(dt)
            want_gx = (ones @ w.detach().cpu().to(dt)).float()
            self.assertEqual(x.grad.cpu().tolist(), want_gx.tolist())
            x.grad = None
            w.grad = None

    def test_grad_scaler_fused_unscale(self):
        """GradScaler on device gradients (the fused check-and-unscale kernel
        for dense ones, the ops path for a strided one): the CPU's step, and
        a skipped step with the scale backed off after an inf."""
        def run(device, poison):
            tessera.manual_seed(0)
            model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)).to(device)
            extra = tessera.ones(4, 3, device=device).t().requires_grad_()  # transposed leaf
            opt = tessera.optim.SGD(list(model.parameters()) + [extra], lr=0.1)
            scaler = tessera.amp.GradScaler(init_scale=1024.0)
            x = tessera.arange(12.0).view(2, 6).to(device) / 10
            loss = (model(x) @ extra).sum()
            scaler.scale(loss).backward()
            if poison:
                with tessera.no_grad():
                    model[0].weight.grad[1, 2] = float("inf")
            scaler.step(opt)
            scaler.update()
            return [p.detach().cpu().tolist() for p in model.parameters()], extra.detach().cpu().tolist(), scaler.get_scale()
        for poison in (False, True):
            dev, cpu = run("cuda", poison), run("cpu", poison)
            self.assertEqual(dev[2], cpu[2])
            self.assertEqual(dev[2], 512.0 if poison else 1024.0)
            for a, b in zip(dev[0] + [dev[1]], cpu[0] + [cpu[1]]):
                np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-6, atol=1e-7)

    def test_scaled_dot_product_attention_matches_the_cpu(self):
        """F.scaled_dot_product_attention on the device (one thread per row,
        online softmax, the logsumexp kept for backward): the CPU's outputs
        and gradients with broadcast batch dims, causal, bool and float
        masks, dropout (the same Philox words), float32/bfloat16/float64."""
        import tessera.nn.functional as F
        tessera.manual_seed(0)
        q, k, v = tessera.randn(2, 3, 5, 8), tessera.randn(2, 1, 7, 8), tessera.randn(1, 3, 7, 4)
        bool_mask = tessera.randn(5, 7) > 0
        bool_mask[2] = False  # a row with no key: NaN on both
        cases = ({}, {"is_causal": True}, {"attn_mask": bool_mask}, {"attn_mask": tessera.randn(5, 7)},
                 {"dropout_p": 0.3}, {"scale": 0.7})
        for kwargs in cases:
            for dt, tol in ((tessera.float32, 1e-5), (tessera.bfloat16, 2e-2), (tessera.float64, 1e-12)):
                results = []
                for dev in ("cpu", "cuda"):
                    qq, kk, vv = [x.to(dt).to(dev).clone().requires_grad_() for x in (q, k, v)]
                    args = {key: (val.to(dev) if key == "attn_mask" else val) for key, val in kwargs.items()}
                    tessera.manual_seed(5)
                    out = F.scaled_dot_product_attention(qq, kk, vv, **args)
                    self.assertEqual((out.device.type, out.dtype), (dev, dt))
                    # Row 2 is NaN under bool_mask: left out of the loss.
                    loss = out[:, :, :2].double().pow(2).sum() + out[:, :, 3:].double().pow(2).sum()
                    loss.backward()
                    results.append([t.detach().cpu().double() for t in (out, qq.grad, kk.grad, vv.grad)])
                for name, a, b in zip(("out", "dq", "dk", "dv"), *results):
                    np.testing.assert_allclose(np.array(a.tolist()), np.array(b.tolist()), rtol=tol, atol=tol,
                                               err_msg=f"{name} {kwargs} {dt}")
        with_dropout = results[0][0]  # float64, scale 0.7: no dropout; compare dropout's effect
        tessera.manual_seed(5)
        dropped = F.scaled_dot_product_attention(q.cuda(), k.cuda(), v.cuda(), dropout_p=0.3).cpu()
        plain = F.scaled_dot_product_attention(q.cuda(), k.cuda(), v.cuda()).cpu()
        self.assertGreater((dropped - plain).abs().max().item(), 0.01)
        self.assertEqual(with_dropout.shape, (2, 3, 5, 4))

    def test_profiler_cuda_time_columns(self):
        """The seeds' example: profile a device model, sort by cuda_time_total."""
        from tessera.profiler import profile, ProfilerActivity
        x = tessera.randn(32, 32).cuda().requires_grad_()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            (x @ x).relu().sum().backward()
        table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=5)
        self.assertIn("CUDA total", table)
        self.assertIn("Self CUDA time total", table)
        # Rows descend by CUDA total (the 9th column; "1.5ms", "3.2us").
        def micros(cell):
            scale = {"us": 1, "ms": 1e3}.get(cell[-2:], 1e6)
            return float(cell.rstrip("mus")) * scale
        rows = [line.split() for line in table.splitlines()[3:-3]]
        totals = [micros(row[8]) for row in rows]
        self.assertEqual(len(rows), 5)
        self.assertEqual(totals, sorted(totals, reverse=True))
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            (x @ x).sum()
        self.assertNotIn("CUDA total", prof.key_averages().table(sort_by="cpu_time_total"))

    def test_channels_last_conv2d_as_the_seeds_example(self):
        """model = Conv2d(...).to(device).to(memory_format=channels_last); Y = model(X):
        cuDNN's forward and both backwards (the cuDNN test double here), the CPU's values."""
        tessera.manual_seed(0)
        cpu_model = nn.Conv2d(3, 6, 3, stride=2, padding=1, dilation=1, groups=3)
        model = nn.Conv2d(3, 6, 3, stride=2, padding=1, dilation=1, groups=3)
        model.load_state_dict(cpu_model.state_dict())
        model = model.to("cuda").to(memory_format=tessera.channels_last)
        x = tessera.randn(2, 3, 9, 8)
        X = x.to("cuda", memory_format=tessera.channels_last).requires_grad_()
        Y = model(X)
        self.assertTrue(Y.is_cuda)
        self.assertTrue(Y.is_contiguous(memory_format=tessera.channels_last))
        self.assertEqual(Y.grad_fn.name(), "ConvolutionBackward0")
        (Y * Y).sum().backward()
        xc = x.clone().requires_grad_()
        yc = cpu_model(xc)
        (yc * yc).sum().backward()
        np.testing.assert_allclose(Y.cpu().detach().numpy(), yc.detach().numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(X.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(model.weight.grad.cpu().numpy(), cpu_model.weight.grad.numpy(),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(model.bias.grad.cpu().numpy(), cpu_model.bias.grad.numpy(),
                                   rtol=1e-5, atol=1e-5)

    def test_batch_norm_and_average_pooling_layers(self):
        """nn.BatchNorm2d (training then eval), AvgPool2d and AdaptiveAvgPool2d
        on channels_last CUDA tensors (cuDNN through the double) as on the CPU."""
        tessera.manual_seed(1)
        layers = [nn.BatchNorm2d(4), nn.AvgPool2d(3, stride=2, padding=1), nn.AdaptiveAvgPool2d((1, 1))]
        model_cpu = nn.Sequential(*layers)
        model = nn.Sequential(nn.BatchNorm2d(4), nn.AvgPool2d(3, stride=2, padding=1),
                              nn.AdaptiveAvgPool2d((1, 1)))
        model.load_state_dict(model_cpu.state_dict())
        model = model.to("cuda").to(memory_format=tessera.channels_last)
        x = tessera.randn(3, 4, 6, 6)
        for training in (True, False):
            model.train(training)
            model_cpu.train(training)
            xd = x.to("cuda", memory_format=tessera.channels_last).requires_grad_()
            xc = x.clone().requires_grad_()
            y, yc = model(xd), model_cpu(xc)
            self.assertTrue(y.is_cuda)
            (y * y).sum().backward()
            (yc * yc).sum().backward()
            np.testing.assert_allclose(y.cpu().detach().numpy(), yc.detach().numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(xd.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(model[0].running_var.cpu().numpy(), model_cpu[0].running_var.numpy(),
                                       rtol=1e-5)
        np.testing.assert_allclose(model[0].weight.grad.cpu().numpy(), model_cpu[0].weight.grad.numpy(),
                                   rtol=1e-5, atol=1e-5)

    def test_double_backward_of_conv2d_and_batch_norm(self):
        """create_graph through conv2d (its backward's backward is conv2d
        again, on cuDNN) and batch norm (differentiable ops on the device)."""
        F = nn.functional

        def grads(device):
            tessera.manual_seed(3)
            x = tessera.randn(2, 3, 6, 6).to(device).requires_grad_()
            w = tessera.randn(4, 3, 3, 3).to(device).requires_grad_()
            g = tessera.randn(4).to(device).requires_grad_()
            y = F.batch_norm(F.conv2d(x, w, padding=1), None, None, weight=g, training=True)
            gx, = tessera.autograd.grad((y * y * y).sum(), [x], create_graph=True)
            (gx * gx).sum().backward()
            return [t.grad.cpu().numpy() for t in (x, w, g)]
        for got, want in zip(grads("cuda"), grads("cpu")):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())

    def test_cudnn_flags_choose_the_algorithm_path(self):
        cudnn = tessera.backends.cudnn
        self.assertTrue(cudnn.is_available())
        x = tessera.randn(1, 2, 6, 6).cuda()
        w = tessera.randn(3, 2, 3, 3).cuda()
        plain = nn.functional.conv2d(x, w)
        with cudnn.flags(benchmark=True, deterministic=True):
            self.assertTrue(cudnn.benchmark and cudnn.deterministic)
            timed = nn.functional.conv2d(x, w)
        self.assertFalse(cudnn.benchmark or cudnn.deterministic)
        np.testing.assert_allclose(timed.cpu().numpy(), plain.cpu().numpy(), rtol=1e-6)


if __name__ == "__main__":
    unittest.main()
