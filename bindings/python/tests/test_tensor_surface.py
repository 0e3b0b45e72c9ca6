"""Tensor.to's overloads, storage() / untyped_storage(), frombuffer,
tensor() on bytes, Size and .data, each against PyTorch 1.13 run in the
same process."""
import gc
import unittest
import warnings

import torch as real_torch

import tessera


def both(fn):
    """fn(torch-like module) under tessera and under torch."""
    return fn(tessera), fn(real_torch)


class To(unittest.TestCase):
    def test_overloads(self):
        x = tessera.arange(24.).view(1, 2, 3, 4)
        self.assertIs(x.to(tessera.float32), x)
        self.assertIs(x.to("cpu"), x)
        self.assertIs(x.to(x), x)
        self.assertIsNot(x.to(copy=True), x)
        self.assertEqual(x.to("cpu", tessera.float64).dtype, tessera.float64)
        self.assertEqual(x.to(device="cpu", dtype=tessera.int32).dtype, tessera.int32)
        self.assertEqual(x.to(tessera.zeros(1, dtype=tessera.float16)).dtype, tessera.float16)
        self.assertEqual(x.to(tessera.float64, False, True).dtype, tessera.float64)
        y = x.to(memory_format=tessera.channels_last)
        self.assertTrue(y.is_contiguous(memory_format=tessera.channels_last))
        self.assertIs(y.to(memory_format=tessera.channels_last), y)
        self.assertEqual(y.tolist(), x.tolist())
        z = x.to(tessera.float64, memory_format=tessera.channels_last)
        self.assertEqual((z.dtype, z.stride()), (tessera.float64, (24, 1, 8, 2)))
        theirs = real_torch.arange(24.).view(1, 2, 3, 4).to(memory_format=real_torch.channels_last)
        self.assertEqual(y.stride(), theirs.stride())

    def test_bad_arguments(self):
        x = tessera.ones(2)
        with self.assertRaisesRegex(TypeError, "unexpected keyword"):
            x.to(colour="red")
        with self.assertRaisesRegex(TypeError, "invalid combination"):
            x.to(3.5)
        with self.assertRaisesRegex(TypeError, "too many"):
            x.to("cpu", tessera.float32, False, False, 1)
        with self.assertRaisesRegex(ValueError, "unknown device type"):
            x.to("tpu")

    def test_device_tensors_without_a_gpu(self):
        x = tessera.ones(2, requires_grad=True)
        self.assertIs(x.cpu(), x)
        self.assertFalse(x.is_cuda)
        self.assertEqual(x.get_device(), -1)
        for call in (lambda: x.cuda(), lambda: x.to("cuda"), lambda: x.to("cuda:0"), lambda: x.to(0)):
            with self.assertRaises(AssertionError):
                call()
            with self.assertRaises(tessera.UnsupportedError):
                call()

    def test_size(self):
        ours, theirs = both(lambda t: t.zeros(2, 3).shape)
        self.assertEqual(ours, theirs)
        self.assertEqual(repr(ours), "tessera.Size([2, 3])")
        self.assertEqual(ours.numel(), theirs.numel())
        self.assertIsInstance(ours[1:], tessera.Size)
        self.assertEqual(tessera.zeros(2, 3).size(), (2, 3))

    def test_data_setter_keeps_the_object(self):
        p = tessera.ones(2, requires_grad=True)
        (p * 2).sum().backward()
        p.data = tessera.full((2,), 5.0)
        self.assertEqual(p.tolist(), [5.0, 5.0])
        self.assertTrue(p.requires_grad and p.is_leaf)
        self.assertEqual(p.grad.tolist(), [2.0, 2.0])
        p.data = tessera.zeros(3, dtype=tessera.float64)
        self.assertEqual((p.shape, p.dtype), ((3,), tessera.float64))
        self.assertIsNone(p.grad)  # the old grad no longer fits
        self.assertFalse(p.data.requires_grad)
        with self.assertRaises(TypeError):
            p.data = [1.0]


class StorageViews(unittest.TestCase):
    def test_typed_storage_as_torch(self):
        ours, theirs = both(lambda t: t.arange(6.).view(2, 3)[1].storage())
        self.assertEqual(list(ours), list(theirs))
        self.assertEqual(ours.tolist(), theirs.tolist())
        self.assertEqual((ours.size(), len(ours), ours.element_size(), ours.nbytes()),
                         (theirs.size(), len(theirs), theirs.element_size(), theirs.nbytes()))
        self.assertEqual(ours[5], theirs[5])
        self.assertEqual(ours[-1], theirs[-1])
        self.assertEqual(str(ours.dtype).split(".")[1], str(theirs.dtype).split(".")[1])
        with self.assertRaises(IndexError):
            ours[6]

    def test_storage_writes_through(self):
        base = tessera.zeros(2, 3)
        row = base[1]
        s = row.storage()
        s[4] = 7.0
        self.assertEqual(row.tolist(), [0.0, 7.0, 0.0])
        s.fill_(1.0)
        self.assertEqual(base.tolist(), [[1.0] * 3] * 2)
        self.assertEqual(s.data_ptr(), base.data_ptr())
        s[0:2] = 3.0
        self.assertEqual(base[0].tolist(), [3.0, 3.0, 1.0])

    def test_untyped_storage_bytes(self):
        x = tessera.tensor([1.0, 2.0])
        u = x.untyped_storage()
        self.assertEqual(u.size(), 8)
        self.assertEqual(bytes(u.tolist()), bytes(memoryview(x.numpy()).cast("B")))
        u[0] = 0xFF
        self.assertNotEqual(x[0].item(), 1.0)
        self.assertEqual(u.element_size(), 1)

    def test_storage_outlives_the_tensor(self):
        x = tessera.arange(4.)
        s = x.storage()
        del x
        gc.collect()
        self.assertEqual(s.tolist(), [0.0, 1.0, 2.0, 3.0])
        self.assertEqual(tessera.zeros(0).storage().tolist(), [])

    def test_read_only_mapped_storage_refuses_writes(self):
        import tempfile, os
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.safetensors")
            tessera.save({"w": tessera.ones(4)}, path)
            with tessera.open_file(path) as f:
                t = f.get_tensor("w")
                s = t.storage()
                with self.assertRaises(tessera.Error):
                    s[0] = 3.0
                with self.assertRaises(tessera.Error):
                    t.untyped_storage()[0] = 1
                self.assertEqual(s.tolist(), [1.0] * 4)


class FromBuffer(unittest.TestCase):
    def test_aliasing_and_values_as_torch(self):
        buf = bytearray(b"\x00\x00\x80?\x00\x00\x00@\x00\x00@@")
        ours = tessera.frombuffer(buf, dtype=tessera.float32)
        theirs = real_torch.frombuffer(bytearray(buf), dtype=real_torch.float32)
        self.assertEqual(ours.tolist(), theirs.tolist())
        ours[0] = 5.0
        self.assertEqual(buf[:4], bytearray(memoryview(bytearray(real_torch.tensor([5.0]).numpy().tobytes()))))
        buf[4:8] = b"\x00\x00\x00\x00"
        self.assertEqual(ours[1].item(), 0.0)
        part = tessera.frombuffer(buf, dtype=tessera.float32, count=1, offset=8)
        self.assertEqual(part.tolist(), [3.0])
        with self.assertRaises(BufferError):  # exported: cannot be resized while the tensor lives
            buf.extend(b"1234")
        del ours, part
        gc.collect()
        buf.extend(b"1234")  # released with the tensors

    def test_errors_match_torch(self):
        cases = [(bytearray(7), {}), (bytearray(8), {"count": 3}), (bytearray(8), {"offset": 9}),
                 (bytearray(0), {}), (bytearray(8), {"offset": 2})]
        for buf, kwargs in cases:
            with self.assertRaises(ValueError) as theirs:
                real_torch.frombuffer(bytearray(buf), dtype=real_torch.float32, **kwargs)
            with self.assertRaises(ValueError) as ours:
                tessera.frombuffer(bytearray(buf), dtype=tessera.float32, **kwargs)
            self.assertEqual(str(ours.exception), str(theirs.exception))
        with self.assertRaises(TypeError):
            tessera.frombuffer([1, 2], dtype=tessera.float32)
        with self.assertRaises(TypeError):
            tessera.frombuffer(bytearray(4), dtype="float32")

    def test_read_only_buffer_warns_once(self):
        import tessera._frombuffer as fb
        fb._warned_read_only = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = tessera.frombuffer(b"\x00\x00\x80?", dtype=tessera.float32)
            tessera.frombuffer(b"\x00\x00\x80?", dtype=tessera.float32)
        self.assertEqual(t.tolist(), [1.0])
        self.assertEqual(sum(issubclass(w.category, UserWarning) for w in caught), 1)


class TensorFromBytes(unittest.TestCase):
    def test_bytes_refused_as_torch(self):
        for module in (tessera, real_torch):
            with self.assertRaisesRegex(TypeError, "invalid data type 'bytes'"):
                module.tensor(b"abc", dtype=module.float32)
        ours, theirs = both(lambda t: t.tensor(bytearray(b"abc")))
        self.assertEqual(ours.tolist(), theirs.tolist())
        self.assertEqual(ours.dtype, tessera.int64)


class AutogradNamespace(unittest.TestCase):
    def test_grad_and_backward_as_torch(self):
        for torch in (tessera, real_torch):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            (g,) = torch.autograd.grad((x * x).sum(), x)
            self.assertEqual(g.tolist(), [2.0, 4.0])
            a, b = (x * 3).sum(), (x * x).sum()
            torch.autograd.backward([a, b])
            self.assertEqual(x.grad.tolist(), [5.0, 7.0])
            with torch.autograd.profiler.record_function("r"):
                pass
            with self.assertRaises(RuntimeError):
                torch.autograd.backward([a, b], [torch.ones(())])
        import importlib
        self.assertIs(importlib.import_module("tessera.autograd.profiler"), tessera.profiler)
        with tessera.autograd.no_grad():
            self.assertFalse(tessera.is_grad_enabled())


class Hooks(unittest.TestCase):
    def test_register_hook_as_torch(self):
        for torch in (tessera, real_torch):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            seen = []
            h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
            y = x * 3
            y.register_hook(lambda g: g + 1)
            y.sum().backward()
            self.assertEqual(seen, [[6.0, 6.0]])
            self.assertEqual(x.grad.tolist(), [60.0, 60.0])
            h.remove()
            x.grad = None
            (x * 3).sum().backward()
            self.assertEqual(x.grad.tolist(), [3.0, 3.0])
            with self.assertRaises(RuntimeError):
                torch.ones(1).register_hook(lambda g: g)

    def test_hook_exception_reaches_backward(self):
        x = tessera.ones(2, requires_grad=True)

        def bad(grad):
            raise ZeroDivisionError("hook failed")
        x.register_hook(bad)
        with self.assertRaisesRegex(ZeroDivisionError, "hook failed"):
            (x * 2).sum().backward()
        x.register_hook(lambda g: "not a tensor")
        with self.assertRaises((ZeroDivisionError, TypeError)):
            (x * 2).sum().backward()


if __name__ == "__main__":
    unittest.main()
