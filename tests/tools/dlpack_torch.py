#!/usr/bin/python3
"""DLPack between tessera and torch 1.13, through ctypes only (no binding).

    /usr/bin/python3 tests/tools/dlpack_torch.py <path to libtessera.so>

Registered with ctest as dlpack_torch (tests/CMakeLists.txt). Checks:
  tessera -> torch: a narrowed, transposed view (storage_offset 2) reaches
    torch.utils.dlpack.from_dlpack with the same values, sizes, strides and
    element address; writes on either side are seen on the other; the memory
    outlives tessera's handle; torch's deleter call releases the export.
  dtypes: torch sees each tessera dtype as the same torch dtype; bool is
    kDLBool, which torch 1.13 refuses ("Unsupported code 6").
  torch -> tessera: torch's to_dlpack capsule imported by tsr_from_dlpack.
Exit status 0: passed, 1: a check failed, 77: torch is not installed (skip).
"""
import ctypes as C
import gc
import sys

try:
    import torch
    from torch.utils import dlpack as torch_dlpack
except ImportError:
    print("dlpack_torch: torch not importable, skipping")
    sys.exit(77)


# ---- DLPack 0.6 structs -----------------------------------------------------
class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32),
                ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensor(C.Structure):
    pass


DLDeleter = C.CFUNCTYPE(None, C.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p),
                            ("deleter", DLDeleter)]

# ---- Python capsules ---------------------------------------------------------
CAPSULE_NAME = b"dltensor"          # what torch.utils.dlpack.from_dlpack takes
USED_CAPSULE_NAME = b"used_dltensor"  # a consumer renames what it took
capi = C.pythonapi
capi.PyCapsule_New.restype = C.py_object
capi.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
capi.PyCapsule_GetPointer.restype = C.c_void_p
capi.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
capi.PyCapsule_SetName.restype = C.c_int
capi.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]

# ---- tessera -------------------------------------------------------------------
TSR_OK, CPU = 0, 1
DTYPES = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5,
          "float32": 6, "float64": 7, "bool": 11, "bfloat16": 15}

lib = C.CDLL(sys.argv[1])
T = C.c_void_p                       # tsr_tensor*
OUT = C.POINTER(C.c_void_p)          # tsr_tensor**
I64P = C.POINTER(C.c_int64)
signatures = {
    "tsr_arange": ([C.c_double, C.c_double, C.c_double, C.c_int, C.c_int, C.c_int32, OUT], C.c_int),
    "tsr_ones": ([C.c_int64, I64P, C.c_int, C.c_int, C.c_int32, OUT], C.c_int),
    "tsr_view": ([T, C.c_int64, I64P, OUT], C.c_int),
    "tsr_narrow": ([T, C.c_int64, C.c_int64, C.c_int64, OUT], C.c_int),
    "tsr_t": ([T, OUT], C.c_int),
    "tsr_to_dlpack": ([T, C.POINTER(C.POINTER(DLManagedTensor))], C.c_int),
    "tsr_from_dlpack": ([C.c_void_p, OUT], C.c_int),
    "tsr_get_double": ([T, C.c_int64, I64P, C.POINTER(C.c_double)], C.c_int),
    "tsr_set_double": ([T, C.c_int64, I64P, C.c_double], C.c_int),
    "tsr_tensor_ndim": ([T], C.c_int64),
    "tsr_tensor_sizes": ([T], I64P),
    "tsr_tensor_strides": ([T], I64P),
    "tsr_tensor_storage_offset": ([T], C.c_int64),
    "tsr_tensor_data_ptr": ([T], C.c_void_p),
    "tsr_tensor_storage": ([T, OUT], C.c_int),
    "tsr_storage_use_count": ([C.c_void_p], C.c_int64),
    "tsr_storage_release": ([C.c_void_p], None),
    "tsr_tensor_release": ([T], None),
    "tsr_last_error_message": ([], C.c_char_p),
}
for name, (argtypes, restype) in signatures.items():
    fn = getattr(lib, name)
    fn.argtypes, fn.restype = argtypes, restype

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def ok(status):
    if status != TSR_OK:
        raise RuntimeError(lib.tsr_last_error_message().decode())


def i64s(values):
    return (C.c_int64 * max(len(values), 1))(*values)


def new(fn, *args):
    out = C.c_void_p()
    ok(fn(*args, C.byref(out)))
    return out


def geometry(t):
    n = lib.tsr_tensor_ndim(t)
    return (tuple(lib.tsr_tensor_sizes(t)[:n]), tuple(lib.tsr_tensor_strides(t)[:n]))


def get(t, *index):
    v = C.c_double()
    ok(lib.tsr_get_double(t, len(index), i64s(index), C.byref(v)))
    return v.value


def to_capsule(t):
    """tsr_to_dlpack wrapped as torch expects: a capsule named "dltensor" with
    no destructor (whoever consumes it calls the deleter)."""
    managed = C.POINTER(DLManagedTensor)()
    ok(lib.tsr_to_dlpack(t, C.byref(managed)))
    return capi.PyCapsule_New(C.cast(managed, C.c_void_p), CAPSULE_NAME, None), managed


def tessera_to_torch():
    # a.view(4,6).narrow(1,2,3).t(): sizes (3,4), strides (1,6), storage_offset 2
    a = new(lib.tsr_arange, 0.0, 24.0, 1.0, DTYPES["float32"], CPU, 0)
    v = new(lib.tsr_view, a, 2, i64s([4, 6]))
    n = new(lib.tsr_narrow, v, 1, 2, 3)
    t = new(lib.tsr_t, n)
    for h in (a, v, n):
        lib.tsr_tensor_release(h)
    expected = torch.arange(24.0).view(4, 6).narrow(1, 2, 3).t()
    check(geometry(t) == ((3, 4), (1, 6)) and lib.tsr_tensor_storage_offset(t) == 2,
          "tessera view: sizes (3,4) strides (1,6) storage_offset 2")
    storage = new(lib.tsr_tensor_storage, t)

    capsule, _ = to_capsule(t)
    check(lib.tsr_storage_use_count(storage) == 2, "the export holds a tensor over the storage")
    x = torch_dlpack.from_dlpack(capsule)
    check(x.dtype == torch.float32 and x.shape == (3, 4) and x.stride() == (1, 6),
          f"torch sees float32 (3,4) strides (1,6): {x.dtype} {tuple(x.shape)} {x.stride()}")
    check(x.data_ptr() == lib.tsr_tensor_data_ptr(t), "torch's data_ptr is tessera's element [0,0]")
    check(torch.equal(x, expected), "torch sees tessera's values")

    x[2, 1] = -5.0
    check(get(t, 2, 1) == -5.0, "a write in torch is seen in tessera")
    ok(lib.tsr_set_double(t, 2, i64s([0, 3]), 42.0))
    check(x[0, 3].item() == 42.0, "a write in tessera is seen in torch")

    lib.tsr_tensor_release(t)
    check(lib.tsr_storage_use_count(storage) == 1, "after tsr_tensor_release only the export holds it")
    # Fresh tessera tensors of the same size would reuse the memory if it had
    # been given back to the caching allocator.
    decoys = [new(lib.tsr_arange, 100.0, 124.0, 1.0, DTYPES["float32"], CPU, 0) for _ in range(4)]
    expected[2, 1], expected[0, 3] = -5.0, 42.0
    check(torch.equal(x, expected), "torch's tensor outlives tessera's handle")
    for d in decoys:
        lib.tsr_tensor_release(d)

    del x, capsule
    gc.collect()
    check(lib.tsr_storage_use_count(storage) == 0, "torch ran the deleter when its tensor died")
    lib.tsr_storage_release(storage)


TORCH_DTYPES = {"uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
                "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
                "float32": torch.float32, "float64": torch.float64,
                "bfloat16": torch.bfloat16, "bool": torch.bool}


def dtypes():
    torch_has_kdlbool = int(torch.__version__.split(".")[0]) >= 2
    for name, code in DTYPES.items():
        t = new(lib.tsr_ones, 2, i64s([2, 3]), code, CPU, 0)
        capsule, managed = to_capsule(t)
        lib.tsr_tensor_release(t)
        try:
            x = torch_dlpack.from_dlpack(capsule)
        except RuntimeError as e:
            refused = name == "bool" and not torch_has_kdlbool and "Unsupported code 6" in str(e)
            check(refused, f"{name}: torch {torch.__version__} refused it: {e}")
            managed.contents.deleter(managed)  # not consumed: the capsule is still ours
            continue
        check(x.dtype == TORCH_DTYPES[name] and torch.equal(x, torch.ones(2, 3, dtype=x.dtype)),
              f"{name}: torch sees {x.dtype} ones")


def torch_to_tessera():
    base = torch.arange(24.0).view(4, 6)
    y = base[1:, ::2]                   # sizes (3,3), strides (6,2), storage_offset 6
    capsule = torch_dlpack.to_dlpack(y)
    managed = capi.PyCapsule_GetPointer(capsule, CAPSULE_NAME)
    t = new(lib.tsr_from_dlpack, C.c_void_p(managed))
    capi.PyCapsule_SetName(capsule, USED_CAPSULE_NAME)  # tessera calls the deleter now
    check(geometry(t) == ((3, 3), (6, 2)), f"tessera sees torch's sizes and strides: {geometry(t)}")
    check(lib.tsr_tensor_data_ptr(t) == y.data_ptr(), "zero-copy import from torch")
    check([get(t, i, j) for i in range(3) for j in range(3)] == y.flatten().tolist(),
          "tessera sees torch's values")
    ok(lib.tsr_set_double(t, 2, i64s([1, 1]), -1.0))
    check(base[2, 2].item() == -1.0, "a write in tessera is seen in torch")
    expected = y.clone()
    del y, base, capsule
    gc.collect()
    check([get(t, i, j) for i in range(3) for j in range(3)] == expected.flatten().tolist(),
          "torch's memory outlives torch's tensors while tessera holds it")
    lib.tsr_tensor_release(t)


tessera_to_torch()
dtypes()
torch_to_tessera()
if failures:
    print(f"dlpack_torch: {len(failures)} check(s) failed")
    sys.exit(1)
print("dlpack_torch: all checks passed")
