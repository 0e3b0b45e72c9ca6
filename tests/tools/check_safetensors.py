#!/usr/bin/env python3
"""An independent safetensors reader and writer, for interop tests.

Uses only json, struct and numpy (torch optionally), so it shares no code
with tessera. Validation follows the reference implementation
(huggingface/safetensors, safetensors/src/tensor.rs: SafeTensors::read_metadata
and Metadata::validate) and reports the reference's error names:

  HeaderTooSmall                file shorter than 8 bytes
  HeaderTooLarge                header length N > 100_000_000
  InvalidHeaderLength           8 + N past the end of the file
  InvalidHeader                 header bytes are not UTF-8
  InvalidHeaderDeserialization  not a JSON object of the expected shape
                                (unknown dtype, non-usize numbers, missing
                                fields; unknown fields are ignored, as serde)
  InvalidOffset(name)           after sorting by data_offsets, a tensor does
                                not begin where the previous ends (the first
                                at 0), or end < begin
  ValidationOverflow            prod(shape) * itemsize overflows 64 bits
  TensorInvalidInfo             end - begin != prod(shape) * itemsize
  MetadataIncompleteBuffer      last end + 8 + N != file size

Usage:
  check_safetensors.py validate FILE
      Exit 0 and print one JSON line per tensor (name, dtype, shape,
      data_offsets) if FILE is valid; else print "INVALID: <error>" and
      exit 1.
  check_safetensors.py roundtrip IN OUT [--torch]
      Read IN; write OUT (with this script's own writer, laid out as the
      reference's serialize()) holding, for each tensor X of IN, X itself
      and "X.f64", its values as float64. With --torch the values pass
      through torch tensors (torch.from_numpy / .view / .to(float64)).
Exit status 77 means numpy (or torch, with --torch) is missing: skip.
"""
import json
import struct
import sys

try:
    import numpy as np
except ImportError:  # the caller treats 77 as "skipped"
    print("numpy is not installed")
    sys.exit(77)

MAX_HEADER_SIZE = 100_000_000
U64 = 2**64

# name -> (itemsize, numpy dtype, position in the reference's Dtype enum).
# BF16 and the 8-bit floats have no numpy dtype: read as raw unsigned ints.
DTYPES = {
    "BOOL": (1, np.dtype("?"), 0),
    "U8": (1, np.dtype("u1"), 1),
    "I8": (1, np.dtype("i1"), 2),
    "F8_E5M2": (1, np.dtype("u1"), 3),
    "F8_E4M3": (1, np.dtype("u1"), 4),
    "I16": (2, np.dtype("<i2"), 5),
    "U16": (2, np.dtype("<u2"), 6),
    "F16": (2, np.dtype("<f2"), 7),
    "BF16": (2, np.dtype("<u2"), 8),
    "I32": (4, np.dtype("<i4"), 9),
    "U32": (4, np.dtype("<u4"), 10),
    "F32": (4, np.dtype("<f4"), 11),
    "F64": (8, np.dtype("<f8"), 12),
    "I64": (8, np.dtype("<i8"), 13),
    "U64": (8, np.dtype("<u8"), 14),
}


class Invalid(Exception):
    pass


def is_usize(v):
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < U64


def parse(buf):
    """Returns (header_len, metadata, [(name, info)] sorted by offsets)."""
    if len(buf) < 8:
        raise Invalid("HeaderTooSmall")
    (n,) = struct.unpack("<Q", buf[:8])
    if n > MAX_HEADER_SIZE:
        raise Invalid("HeaderTooLarge")
    if 8 + n > len(buf):
        raise Invalid("InvalidHeaderLength")
    try:
        text = buf[8:8 + n].decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid("InvalidHeader")
    try:
        header = json.loads(text)
    except ValueError as e:
        raise Invalid(f"InvalidHeaderDeserialization: {e}")
    if not isinstance(header, dict):
        raise Invalid("InvalidHeaderDeserialization: root is not an object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
            isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())):
        raise Invalid("InvalidHeaderDeserialization: __metadata__ is not a map of strings")
    tensors = []
    for name, info in header.items():
        ok = (isinstance(info, dict) and info.get("dtype") in DTYPES
              and isinstance(info.get("shape"), list) and all(map(is_usize, info["shape"]))
              and isinstance(info.get("data_offsets"), list) and len(info["data_offsets"]) == 2
              and all(map(is_usize, info["data_offsets"])))
        if not ok:
            raise Invalid(f"InvalidHeaderDeserialization: tensor {name!r}: {info!r}")
        tensors.append((name, info))
    tensors.sort(key=lambda t: tuple(t[1]["data_offsets"]))
    start = 0
    for name, info in tensors:
        b, e = info["data_offsets"]
        if b != start or e < b:
            raise Invalid(f"InvalidOffset({name})")
        start = e
        count = 1
        for s in info["shape"]:
            count *= s
            if count >= U64:
                raise Invalid("ValidationOverflow")
        nbytes = count * DTYPES[info["dtype"]][0]
        if nbytes >= U64:
            raise Invalid("ValidationOverflow")
        if e - b != nbytes:
            raise Invalid(f"TensorInvalidInfo: {name!r} {info['dtype']} {info['shape']} "
                          f"needs {nbytes} bytes, data_offsets {info['data_offsets']}")
    if start + 8 + n != len(buf):
        raise Invalid("MetadataIncompleteBuffer")
    return n, metadata or {}, tensors


def arrays(buf):
    """{name: (dtype name, numpy array in C order)} of a valid file."""
    n, _, tensors = parse(buf)
    data = buf[8 + n:]
    out = {}
    for name, info in tensors:
        b, e = info["data_offsets"]
        dt = DTYPES[info["dtype"]][1]
        out[name] = (info["dtype"], np.frombuffer(data[b:e], dtype=dt).reshape(info["shape"]))
    return out


def bf16_to_f64(raw):
    return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def f8_to_f64(raw, exp_bits):
    """OCP FP8 bytes -> float64, from the format's definition: E4M3 (bias 7,
    no infinities, S.1111.111 NaN) or E5M2 (bias 15, IEEE-like)."""
    man_bits = 7 - exp_bits
    bias = (1 << (exp_bits - 1)) - 1
    r = raw.astype(np.int64)
    sign = np.where(r & 0x80, -1.0, 1.0)
    e = (r >> man_bits) & ((1 << exp_bits) - 1)
    m = (r & ((1 << man_bits) - 1)).astype(np.float64)
    frac = m / (1 << man_bits)
    val = np.where(e == 0, frac * 2.0 ** (1 - bias), (1 + frac) * 2.0 ** (e - bias))
    if exp_bits == 4:
        val = np.where((r & 0x7F) == 0x7F, np.nan, val)
    else:
        top = e == 31
        val = np.where(top & (m == 0), np.inf, np.where(top, np.nan, val))
    return sign * val


def through_numpy(dtype, arr):
    """(bytes in the same dtype, float64 values) without torch."""
    if dtype == "BF16":
        f64 = bf16_to_f64(arr)
    elif dtype == "F8_E4M3":
        f64 = f8_to_f64(arr, 4)
    elif dtype == "F8_E5M2":
        f64 = f8_to_f64(arr, 5)
    else:
        f64 = arr.astype(np.float64)
    return arr.tobytes(), f64


def through_torch(dtype, arr):
    """(bytes in the same dtype, float64 values), decoded by torch."""
    import torch
    if dtype in ("U16", "U32", "U64", "F8_E4M3", "F8_E5M2") and not hasattr(torch, "uint16"):
        # torch < 2.3 has no uint16/32/64 and torch < 2.1 no float8: numpy
        return through_numpy(dtype, arr)
    if dtype in ("F8_E4M3", "F8_E5M2"):
        kind = torch.float8_e4m3fn if dtype == "F8_E4M3" else torch.float8_e5m2
        t = torch.from_numpy(arr.copy()).view(kind)
        raw = t.view(torch.uint8).numpy().tobytes()
        return raw, t.to(torch.float64).numpy()
    if dtype == "BF16":
        t = torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16)
        raw = t.view(torch.int16).numpy().tobytes()
    else:
        t = torch.from_numpy(arr.copy())
        raw = t.numpy().tobytes()
    assert t.shape == arr.shape, (t.shape, arr.shape)
    return raw, t.to(torch.float64).numpy()


def write(path, entries):
    """Writes [(name, dtype name, shape, raw bytes)] as the reference's
    serialize() lays a file out: sorted by dtype enum position (descending)
    then name, compact JSON, header padded with spaces to 8 bytes."""
    entries = sorted(entries, key=lambda x: (-DTYPES[x[1]][2], x[0]))
    header, offset = {}, 0
    for name, dtype, shape, raw in entries:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(e[3] for e in entries))


def main(argv):
    if len(argv) >= 2 and argv[0] == "validate":
        with open(argv[1], "rb") as f:
            buf = f.read()
        try:
            _, metadata, tensors = parse(buf)
        except Invalid as e:
            print(f"INVALID: {e}")
            return 1
        print(json.dumps({"__metadata__": metadata}))
        for name, info in tensors:
            print(json.dumps({"name": name, **info}))
        return 0
    if len(argv) >= 3 and argv[0] == "roundtrip":
        use_torch = "--torch" in argv[3:]
        if use_torch:
            try:
                import torch  # noqa: F401
            except ImportError:
                print("torch is not installed")
                return 77
        with open(argv[1], "rb") as f:
            buf = f.read()
        entries = []
        for name, (dtype, arr) in arrays(buf).items():
            raw, f64 = (through_torch if use_torch else through_numpy)(dtype, arr)
            entries.append((name, dtype, arr.shape, raw))
            entries.append((name + ".f64", "F64", arr.shape, np.ascontiguousarray(f64, "<f8").tobytes()))
        write(argv[2], entries)
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
