"""The Fashion CNN of examples/fashion in PyTorch 1.13, for bench/fashion/run:
the same network (cnn.h), batch size, optimizer (AdamW lr 1e-3, weight decay
1e-2), normalisation and data, timed per epoch in each memory format.

    python3 torch_fashion.py DATA_DIR TRAIN_LIMIT EPOCHS THREADS

Prints one line per format: "torch <format> <seconds per epoch>... accuracy A".
"""
import gzip
import struct
import sys
import time

import numpy as np
import torch
from torch import nn

BATCH = 64
MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(data_dir, prefix, limit):
    x = read_idx(f"{data_dir}/{prefix}-images-idx3-ubyte.gz")
    y = read_idx(f"{data_dir}/{prefix}-labels-idx1-ubyte.gz")
    if limit > 0:
        x, y = x[:limit], y[:limit]
    x = (torch.from_numpy(x.astype(np.float32)) / 255.0 - MEAN) / STD
    return x.unsqueeze(1).contiguous(), torch.from_numpy(y.astype(np.int64))


def model():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 10))


def main():
    data_dir, limit, epochs, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    torch.manual_seed(20241126)
    x_train, y_train = load(data_dir, "train", limit)
    x_test, y_test = load(data_dir, "t10k", 0)
    initial = model()
    loss_fn = nn.CrossEntropyLoss()
    for fmt_name, fmt in (("channels_last", torch.channels_last), ("contiguous", torch.contiguous_format)):
        m = model()
        m.load_state_dict(initial.state_dict())
        m = m.to(memory_format=fmt)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1e-2)
        g = torch.Generator().manual_seed(20241127)
        times = []
        for _ in range(epochs):
            t0 = time.perf_counter()
            perm = torch.randperm(len(y_train), generator=g)
            xs, ys = x_train[perm], y_train[perm]
            m.train()
            for i in range(0, len(ys), BATCH):
                xb = xs[i:i + BATCH].contiguous(memory_format=fmt)
                loss = loss_fn(m(xb), ys[i:i + BATCH])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            times.append(time.perf_counter() - t0)
        m.eval()
        with torch.no_grad():
            pred = torch.cat([m(x_test[i:i + 1000].contiguous(memory_format=fmt)).argmax(1)
                              for i in range(0, len(y_test), 1000)])
        acc = (pred == y_test).float().mean().item()
        print(f"torch {fmt_name} " + " ".join(f"{t:.2f}" for t in times) + f" accuracy {acc:.4f}", flush=True)


if __name__ == "__main__":
    main()
