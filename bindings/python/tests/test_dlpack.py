"""DLPack with PyTorch 1.13 and NumPy, both directions: values, shared
writes, strides and offsets as include/tessera/dlpack.h documents them, the
producer's deleter running exactly once, no leak of unconsumed capsules, and
the native error for what tessera cannot import."""
import ctypes
import gc
import sys
import unittest

import numpy as np
import torch
from torch.utils import dlpack as torch_dlpack

import tessera as ts

# Every dtype both sides know (torch 1.13 refuses bool both ways).
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bfloat16"]


def torch_values(dtype):
    return torch.arange(-3, 9, dtype=torch.float32).to(getattr(torch, dtype)).view(3, 4)


class TorchToTessera(unittest.TestCase):
    def test_values_for_every_dtype(self):
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                source = torch_values(dtype)
                t = ts.from_dlpack(source)
                self.assertEqual(t.dtype, getattr(ts, dtype))
                self.assertEqual(t.shape, tuple(source.shape))
                self.assertEqual(t.tolist(), source.tolist())
                self.assertEqual(t.data_ptr(), source.data_ptr())  # no copy

    def test_writes_are_shared(self):
        source = torch.zeros(2, 3)
        t = ts.from_dlpack(source)
        source[1, 2] = 7.0
        self.assertEqual(t[1, 2].item(), 7.0)
        t[0, 1] = -3.0
        self.assertEqual(source[0, 1].item(), -3.0)

    def test_strided_view_keeps_strides_and_element_zero(self):
        source = torch.arange(24.0).view(4, 6)[1:, ::2].t()  # offset 6, strides (2, 6)
        t = ts.from_dlpack(source)
        self.assertEqual(t.shape, (3, 3))
        self.assertEqual(t.stride(), source.stride())
        self.assertEqual(t.storage_offset(), 0)  # storage starts at element [0, 0]
        self.assertEqual(t.data_ptr(), source.data_ptr())
        self.assertEqual(t.tolist(), source.tolist())
        self.assertFalse(t.is_contiguous())

    def test_raw_capsule_from_to_dlpack(self):
        source = torch.tensor([1.5, 2.5])
        capsule = torch_dlpack.to_dlpack(source)
        t = ts.from_dlpack(capsule)
        self.assertEqual(t.tolist(), [1.5, 2.5])
        with self.assertRaises(ts.InvalidArgumentError):  # a capsule is consumed once
            ts.from_dlpack(capsule)

    def test_storage_lives_while_tessera_holds_it(self):
        # torch.from_numpy's storage holds a reference to the NumPy array, so
        # the array's reference count shows when torch's storage is freed.
        array = np.arange(6, dtype=np.float32)
        source = torch.from_numpy(array)
        held_by_torch = sys.getrefcount(array)
        t = ts.from_dlpack(source)
        del source
        gc.collect()
        self.assertEqual(sys.getrefcount(array), held_by_torch)  # kept alive by tessera
        self.assertEqual(t.tolist(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
        view = t[2:]
        t.close()
        self.assertEqual(sys.getrefcount(array), held_by_torch)  # the view still uses it
        del view
        gc.collect()
        self.assertEqual(sys.getrefcount(array), held_by_torch - 1)  # deleter ran once

    def test_requires_grad_is_torchs_error(self):
        with self.assertRaises(RuntimeError):
            ts.from_dlpack(torch.ones(2, requires_grad=True))


class TesseraToTorch(unittest.TestCase):
    def test_values_for_every_dtype(self):
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                t = ts.from_dlpack(torch_values(dtype)).clone()  # a tessera-allocated tensor
                out = torch.from_dlpack(t)
                self.assertEqual(out.dtype, getattr(torch, dtype))
                self.assertEqual(out.tolist(), t.tolist())
                self.assertEqual(out.data_ptr(), t.data_ptr())

    def test_writes_are_shared(self):
        t = ts.zeros(2, 3)
        out = torch.from_dlpack(t)
        out[1, 1] = 5.0
        self.assertEqual(t[1, 1].item(), 5.0)
        t[0, 2] = 9.0
        self.assertEqual(out[0, 2].item(), 9.0)

    def test_strided_view_keeps_strides_and_element_zero(self):
        t = ts.arange(24.0).view(4, 6)[1:, ::2].t()
        self.assertEqual((t.stride(), t.storage_offset()), ((2, 6), 6))
        out = torch.from_dlpack(t)
        self.assertEqual(out.stride(), (2, 6))
        self.assertEqual(out.data_ptr(), t.data_ptr())
        self.assertEqual(out.tolist(), t.tolist())
        channels_last = ts.zeros(2, 3, 4, 5).contiguous(ts.channels_last)
        self.assertTrue(torch.from_dlpack(channels_last).is_contiguous(memory_format=torch.channels_last))

    def test_torch_raw_capsule_consumer(self):
        t = ts.tensor([1, 2, 3])
        out = torch_dlpack.from_dlpack(t.__dlpack__())
        self.assertEqual(out.tolist(), [1, 2, 3])

    def test_exported_memory_lives_until_torch_frees_it(self):
        baseline = ts.memory_allocated()
        t = ts.full((256,), 2.0)
        out = torch.from_dlpack(t)
        t.close()
        self.assertEqual(ts.memory_allocated() - baseline, 1024)  # torch still holds it
        self.assertEqual(out.sum().item(), 512.0)
        del out
        gc.collect()
        self.assertEqual(ts.memory_allocated(), baseline)

    def test_unconsumed_capsule_does_not_leak(self):
        baseline = ts.memory_allocated()
        t = ts.zeros(1000)
        capsules = [t.__dlpack__() for _ in range(3)]
        t.close()
        self.assertEqual(ts.memory_allocated() - baseline, 4096)  # the capsules own it
        del capsules
        gc.collect()
        self.assertEqual(ts.memory_allocated(), baseline)

    def test_torch_refusing_leaves_the_capsule_to_its_destructor(self):
        baseline = ts.memory_allocated()
        flags = ts.tensor([True, False])
        with self.assertRaises(RuntimeError):  # torch 1.13 has no DLPack bool
            torch.from_dlpack(flags)
        flags.close()
        gc.collect()
        self.assertEqual(ts.memory_allocated(), baseline)

    def test_device_and_newer_keywords(self):
        t = ts.zeros(3)
        self.assertEqual(t.__dlpack_device__(), (1, 0))  # kDLCPU, 0
        with self.assertRaises(ts.InvalidArgumentError):
            t.__dlpack__(stream=1)
        with self.assertRaises(ts.UnsupportedError):
            t.__dlpack__(dl_device=(2, 0))
        shared = torch.from_dlpack(t.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))
        copied = torch_dlpack.from_dlpack(t.__dlpack__(copy=True))
        t.fill_(1.0)
        self.assertEqual((shared.tolist(), copied.tolist()), ([1.0] * 3, [0.0] * 3))


class NumPy(unittest.TestCase):
    def test_numpy_to_tessera(self):
        array = np.arange(12, dtype=np.int32).reshape(3, 4)[:, 1::2]
        t = ts.from_numpy(array)
        self.assertEqual(t.stride(), (4, 2))
        self.assertEqual(t.tolist(), array.tolist())
        array[2, 1] = 100
        self.assertEqual(t[2, 1].item(), 100)
        t[0, 0] = -1
        self.assertEqual(array[0, 0], -1)

    def test_tessera_to_numpy(self):
        t = ts.arange(6, dtype=ts.float64).view(2, 3)
        array = np.from_dlpack(t)  # NumPy 1.24 marks DLPack imports read-only
        self.assertEqual(array.tolist(), t.tolist())
        t[1, 1] = 40.0
        self.assertEqual(array[1, 1], 40.0)

    def test_numpy_method_is_writable_and_shares(self):
        t = ts.arange(24.0).view(4, 6)[1:, ::2].t()
        array = t.numpy()
        self.assertEqual(array.strides, (8, 24))
        array[0, 0] = -1.0
        self.assertEqual(t[0, 0].item(), -1.0)
        t.close()  # the array keeps its own reference
        self.assertEqual(array[0, 0], -1.0)
        with self.assertRaises(ts.AutogradError):
            ts.ones(1, requires_grad=True).numpy()

    def test_unsupported_dtypes_give_the_native_error(self):
        for dtype in (np.complex64, np.complex128):
            with self.subTest(dtype=dtype):
                with self.assertRaises(ts.UnsupportedError) as caught:
                    ts.from_numpy(np.zeros(3, dtype))
                self.assertIn("not supported by tessera", str(caught.exception))

    def test_unsigned_dtypes_both_ways(self):
        for dtype, name in ((np.uint16, "uint16"), (np.uint32, "uint32"), (np.uint64, "uint64")):
            with self.subTest(dtype=dtype):
                a = np.array([0, 1, np.iinfo(dtype).max], dtype)
                t = ts.from_numpy(a)
                self.assertEqual(t.dtype, getattr(ts, name))
                self.assertEqual(t.tolist(), a.tolist())
                back = t.numpy()
                self.assertEqual(back.dtype, a.dtype)
                self.assertEqual(back.tolist(), a.tolist())


# ---- a hand-made producer: DLPack 0.6's structs through ctypes ---------------------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_CAPSULE_NAME = b"dltensor"  # must outlive the capsule


class Producer:
    """A float32 [2, 3] DLManagedTensor over ctypes memory whose deleter
    counts its calls."""

    def __init__(self, device_type=1, code=2, bits=32):
        self.deleted = 0
        self.data = (ctypes.c_float * 6)(*range(6))
        self.shape = (ctypes.c_int64 * 2)(2, 3)
        self.strides = (ctypes.c_int64 * 2)(3, 1)
        self.deleter = DELETER(self._delete)
        self.managed = DLManagedTensor()
        self.managed.dl_tensor = DLTensor(
            ctypes.cast(self.data, ctypes.c_void_p), DLDevice(device_type, 0), 2,
            DLDataType(code, bits, 1), self.shape, self.strides, 0)
        self.managed.deleter = self.deleter

    def _delete(self, managed):
        self.deleted += 1

    def capsule(self):
        return _capsule_new(ctypes.addressof(self.managed), _CAPSULE_NAME, None)


class DeleterContract(unittest.TestCase):
    def test_deleter_runs_once_when_the_last_user_goes(self):
        producer = Producer()
        t = ts.from_dlpack(producer.capsule())
        self.assertEqual(t.tolist(), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        producer.data[4] = 40.0
        self.assertEqual(t[1, 1].item(), 40.0)
        column = t[:, 2]
        t.close()
        self.assertEqual(producer.deleted, 0)
        del column
        gc.collect()
        self.assertEqual(producer.deleted, 1)

    def test_deleter_runs_once_at_once_when_the_import_fails(self):
        cases = [({"device_type": 2}, "CUDA device"), ({"code": 5, "bits": 64}, "complex dtype"),
                 ({"code": 2, "bits": 8}, "8-bit float")]
        for kwargs, what in cases:
            with self.subTest(what=what):
                producer = Producer(**kwargs)
                with self.assertRaises(ts.UnsupportedError):
                    ts.from_dlpack(producer.capsule())
                self.assertEqual(producer.deleted, 1)


if __name__ == "__main__":
    unittest.main()
