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
        self.assertEqual(y.grad_fn, "SquareBackward")
        y.sum().backward()
        self.assertTrue(x.grad.is_cuda)
        self.assertEqual(x.grad.cpu().tolist(), [2.0, 4.0, 6.0])

    def test_profiler_cuda_time_columns(self):
        """The seeds' example: profile a device model, sort by cuda_time_total."""
        from tessera.profiler import profile, ProfilerActivity
        x = tessera.randn(32, 32).cuda().requires_grad_()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            (x @ x).relu().sum().backward()
        table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=5)
        self.assertIn("CUDA total", table)
        self.assertIn("Self CUDA time total", table)
        first_row = table.splitlines()[3].split()
        self.assertIn(first_row[0], ("aten::matmul", "MmBackward0"))
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
        self.assertEqual(Y.grad_fn, "ConvolutionBackward0")
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
