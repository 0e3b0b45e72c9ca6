#!/usr/bin/python3
"""dlopen_ctypes.py — libtessera from Python's ctypes, no binding: the same
steps as dlopen_example.c.

    /usr/bin/python3 examples/dlopen/dlopen_ctypes.py [PATH/TO/libtessera.so]

Library path: argv[1] when given, else <repository>/build/src/libtessera.so
(the build directory of scripts/test and the README). The header version
is read from include/tessera/version.h next to this script, as a C program
would get it from the preprocessor; same major version = compatible.

Every function gets argtypes and restype before its first call: ctypes
otherwise passes Python ints as C int and reads results as C int, which
truncates pointers and int64 values. Enums are C ints; handles are void*.

Exit status: 0 ok, 1 a load or API failure, 2 header and library
incompatible.
"""
import ctypes as C
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]

# Values from include/tessera/types.h.
TSR_OK, TSR_ERR_NOT_VIEWABLE = 0, 6
TSR_FLOAT32, TSR_DEVICE_CPU, TSR_CONTIGUOUS_FORMAT = 6, 1, 0


def header_version():
    """(major, minor, patch) from the TSR_VERSION_* macros of version.h."""
    text = (REPO / "include" / "tessera" / "version.h").read_text()
    parts = [re.search(rf"#define TSR_VERSION_{p}\s+(\d+)", text) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        sys.exit("version.h: TSR_VERSION_MAJOR/MINOR/PATCH not found")
    return tuple(int(m.group(1)) for m in parts)


def load(path):
    lib = C.CDLL(str(path))
    handle, out = C.c_void_p, C.POINTER(C.c_void_p)  # tsr_tensor*, tsr_tensor**
    i64p = C.POINTER(C.c_int64)
    signatures = {
        "tsr_version_number": ([], C.c_int32),
        "tsr_version_string": ([], C.c_char_p),
        "tsr_arange": ([C.c_double, C.c_double, C.c_double, C.c_int, C.c_int, C.c_int32, out], C.c_int),
        "tsr_view": ([handle, C.c_int64, i64p, out], C.c_int),
        "tsr_transpose": ([handle, C.c_int64, C.c_int64, out], C.c_int),
        "tsr_tensor_ndim": ([handle], C.c_int64),
        "tsr_tensor_sizes": ([handle], i64p),
        "tsr_tensor_strides": ([handle], i64p),
        "tsr_is_contiguous": ([handle, C.c_int, C.POINTER(C.c_bool)], C.c_int),
        "tsr_status_name": ([C.c_int], C.c_char_p),
        "tsr_last_error_message": ([], C.c_char_p),
        "tsr_tensor_release": ([handle], None),
    }
    for name, (argtypes, restype) in signatures.items():
        fn = getattr(lib, name)  # AttributeError names a missing symbol
        fn.argtypes, fn.restype = argtypes, restype
    return lib


def check_version(lib):
    major, minor, patch = header_version()
    header_number = major * 10000 + minor * 100 + patch
    lib_number = lib.tsr_version_number()
    compatible = lib_number // 10000 == major
    print(f"header {major}.{minor}.{patch} ({header_number}), library "
          f"{lib.tsr_version_string().decode()} ({lib_number}): "
          f"{'compatible' if compatible else 'incompatible'}")
    return compatible


def demo(lib):
    """arange(6) -> view(2, 3) -> transpose(0, 1), then a view needing a copy."""
    a, m, t, flat = C.c_void_p(), C.c_void_p(), C.c_void_p(), C.c_void_p()
    shape, six = (C.c_int64 * 2)(2, 3), (C.c_int64 * 1)(6)
    try:
        if (lib.tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_DEVICE_CPU, 0, C.byref(a)) != TSR_OK
                or lib.tsr_view(a, 2, shape, C.byref(m)) != TSR_OK
                or lib.tsr_transpose(m, 0, 1, C.byref(t)) != TSR_OK):
            print("tensor demo failed:", lib.tsr_last_error_message().decode(), file=sys.stderr)
            return False
        contiguous = C.c_bool(True)
        if lib.tsr_is_contiguous(t, TSR_CONTIGUOUS_FORMAT, C.byref(contiguous)) != TSR_OK:
            return False
        n = lib.tsr_tensor_ndim(t)
        sizes, strides = lib.tsr_tensor_sizes(t)[:n], lib.tsr_tensor_strides(t)[:n]
        print(f"arange(6).view(2, 3).transpose(0, 1): sizes {sizes}, strides {strides}, "
              f"contiguous: {'yes' if contiguous.value else 'no'}")

        status = lib.tsr_view(t, 1, six, C.byref(flat))
        print(f"view(6) of the transpose: {lib.tsr_status_name(status).decode()}: "
              f"{lib.tsr_last_error_message().decode()}")
        return status == TSR_ERR_NOT_VIEWABLE and not flat
    finally:
        for h in (flat, t, m, a):  # release accepts NULL
            lib.tsr_tensor_release(h)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else REPO / "build" / "src" / "libtessera.so"
    try:
        lib = load(path)
    except (OSError, AttributeError) as e:
        print(f"loading {path}: {e}", file=sys.stderr)
        return 1
    print(f"loaded {path}")
    if not check_version(lib):
        return 2
    return 0 if demo(lib) else 1


if __name__ == "__main__":
    sys.exit(main())
