#!/usr/bin/python3
"""fashion — a convolutional network trained on Fashion-MNIST, written as a
plain PyTorch script. Its one tessera-specific line is the import: run it
with tessera (as here), or put `import torch` there (plus `import
torch.utils.checkpoint`, a module `import torch` does not load) and it
trains under PyTorch; same_script_check.py does that and compares the two.

    fashion.py [--epochs N] [--train-limit N] [--test-limit N] [--max-steps N]
               [--no-shuffle] [--initial-weights FILE] [--losses FILE]
               [--min-accuracy A] [DATA_DIR [CHECKPOINT]]

Reads Zalando's 28x28 grey photos of clothes and shoes (Debian package
dataset-fashion-mnist, default DATA_DIR /usr/share/datasets/fashion-mnist)
into tensors with torch.frombuffer, and trains
conv 32 -> batch norm -> relu -> max pool -> conv 64 -> bn -> relu -> pool
-> flatten -> linear 10 (an nn.Module, in channels_last, its second block
under gradient checkpointing) with AdamW (lr 1e-3, weight_decay 1e-2), a
StepLR schedule and cross-entropy, on DataLoader minibatches of 64
reshuffled each epoch. It profiles a few steps (torch.profiler, with a
record_function range), prints the loss per epoch and `test accuracy:`,
saves the model's, optimizer's and scheduler's state dicts in one file,
reloads them into a fresh model and checks that it predicts exactly the
same classes.

Exits 1 when accuracy is below the minimum (default 0.89) or the reloaded
model differs; 2 for a bad command line; 77 when the data set is not
installed (a skipped test for ctest).
"""
import argparse
import gzip
import math
import struct
import sys

import tessera as torch

nn = torch.nn
F = torch.nn.functional
checkpoint = torch.utils.checkpoint.checkpoint
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
profile, record_function = torch.profiler.profile, torch.profiler.record_function
ProfilerActivity = torch.profiler.ProfilerActivity

SEED = 20241126
BATCH = 64
LEARNING_RATE, WEIGHT_DECAY = 1e-3, 1e-2
# Fashion-MNIST's training-set pixel mean and standard deviation (grey levels
# scaled to [0, 1]): the usual transforms.Normalize values.
PIXEL_MEAN, PIXEL_STD = 0.2860, 0.3530
PROFILED_STEPS = 5
SKIP_NO_DATA = 77  # exit status when the data set is not installed (ctest's SKIP_RETURN_CODE)
SIDE, CLASSES = 28, 10


# ---- data ---------------------------------------------------------------------------

def read_idx(path, magic, ndims):
    """An IDX file's dims and its items' bytes, checked: the magic number,
    and exactly as many bytes as the header counts."""
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        print(f"{path}: not found (install the Debian package dataset-fashion-mnist)",
              file=sys.stderr)
        sys.exit(SKIP_NO_DATA)
    header = 4 + 4 * ndims
    if len(data) < header:
        raise SystemExit(f"{path}: truncated")
    got, *dims = struct.unpack(f">{1 + ndims}I", data[:header])
    if got != magic:
        raise SystemExit(f"{path}: magic number 0x{got:08x}, expected 0x{magic:08x}")
    if len(data) != header + math.prod(dims):
        raise SystemExit(f"{path}: {len(data)} bytes, the header says {header + math.prod(dims)}")
    return dims, bytearray(data[header:])


def load_split(data_dir, prefix, limit=0):
    """(images [N, 1, 28, 28] float32 normalized, labels [N] int64)."""
    (n, rows, cols), pixels = read_idx(f"{data_dir}/{prefix}-images-idx3-ubyte.gz", 0x803, 3)
    (m,), labels = read_idx(f"{data_dir}/{prefix}-labels-idx1-ubyte.gz", 0x801, 1)
    if (rows, cols) != (SIDE, SIDE) or m != n:
        raise SystemExit(f"{data_dir}: {n} images of {rows}x{cols} and {m} labels")
    n = min(n, limit) if limit else n
    X = torch.frombuffer(pixels, dtype=torch.uint8)[:n * SIDE * SIDE].view(n, 1, SIDE, SIDE)
    X = (X.float() / 255 - PIXEL_MEAN) / PIXEL_STD
    y = torch.frombuffer(labels, dtype=torch.uint8)[:n].long()
    return X, y


# ---- the model ------------------------------------------------------------------------

class Block(nn.Module):
    """conv 3x3 (padding 1) -> batch norm -> relu -> max pool 2x2."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)


class Net(nn.Module):
    """Two blocks (32 then 64 channels), then linear 10 on the flattened
    [64, 7, 7] features. The second block is checkpointed: its activations
    are recomputed during backward instead of kept."""

    def __init__(self):
        super().__init__()
        self.block1 = Block(1, 32)
        self.block2 = Block(32, 64)
        self.fc = nn.Linear(64 * 7 * 7, CLASSES)

    def forward(self, x):
        x = self.block1(x)
        x = checkpoint(self.block2, x, use_reentrant=False)
        return self.fc(torch.flatten(x, 1))


# ---- training -------------------------------------------------------------------------

def train(model, loader, optimizer, scheduler, epochs, max_steps, losses):
    """Appends each step's loss to losses; stops after max_steps (0: none)."""
    for epoch in range(epochs):
        model.train()
        total, count = 0.0, 0
        for xb, yb in loader:
            xb = xb.to(memory_format=torch.channels_last)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            total, count = total + losses[-1], count + 1
            if max_steps and len(losses) >= max_steps:
                break
        scheduler.step()
        print(f"epoch {epoch + 1}: mean loss {total / max(count, 1):.4f} over {count} steps, "
              f"next lr {scheduler.get_last_lr()[0]:.2e}")
        if max_steps and len(losses) >= max_steps:
            break


def predict(model, X):
    model.eval()
    with torch.no_grad():
        return [p for xb in X.split(1000) for p in
                model(xb.to(memory_format=torch.channels_last)).argmax(1).tolist()]


def profile_steps(model, loader, optimizer):
    """A few training steps under the profiler: its table and trace size."""
    model.train()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=False) as prof:
        for step, (xb, yb) in enumerate(loader):
            if step == PROFILED_STEPS:
                break
            with record_function("train_step"):
                optimizer.zero_grad()
                F.cross_entropy(model(xb.to(memory_format=torch.channels_last)), yb).backward()
                optimizer.step()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))


def parse_args(argv):
    p = argparse.ArgumentParser(description="Train a small CNN on Fashion-MNIST (PyTorch script).")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--train-limit", type=int, default=0, help="use the first N training images")
    p.add_argument("--test-limit", type=int, default=0, help="use the first N test images")
    p.add_argument("--max-steps", type=int, default=0, help="stop training after N steps")
    p.add_argument("--no-shuffle", action="store_true", help="batches in data set order")
    p.add_argument("--initial-weights", help="load_state_dict from this file first")
    p.add_argument("--losses", help="write each step's loss to this file, one per line")
    p.add_argument("--min-accuracy", type=float, default=0.89)
    p.add_argument("data_dir", nargs="?", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("checkpoint", nargs="?", default="fashion-checkpoint.pt")
    opts = p.parse_args(argv)
    if opts.epochs < 1 or opts.train_limit < 0 or opts.test_limit < 0 or opts.max_steps < 0:
        p.error("--epochs must be >= 1 and the limits >= 0")
    return opts


def main(argv):
    opts = parse_args(argv[1:])
    torch.manual_seed(SEED)
    X_train, y_train = load_split(opts.data_dir, "train", opts.train_limit)
    X_test, y_test = load_split(opts.data_dir, "t10k", opts.test_limit)
    print(f"{torch.__name__} {torch.__version__}: {len(y_train)} training and {len(y_test)} test "
          f"images from {opts.data_dir}")

    model = Net()
    if opts.initial_weights:
        model.load_state_dict(torch.load(opts.initial_weights))
    model = model.to(memory_format=torch.channels_last)
    print(f"{sum(p.numel() for p in model.parameters())} parameters, conv weights in "
          f"channels_last: {model.block1.conv.weight.is_contiguous(memory_format=torch.channels_last)}")
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH,
                        shuffle=not opts.no_shuffle, generator=torch.Generator().manual_seed(SEED))

    losses = []
    train(model, loader, optimizer, scheduler, opts.epochs, opts.max_steps, losses)
    if opts.losses:
        with open(opts.losses, "w") as f:
            f.write("".join(f"{v!r}\n" for v in losses))
    predicted = predict(model, X_test)
    accuracy = sum(p == t for p, t in zip(predicted, y_test.tolist())) / len(predicted)
    print(f"test accuracy: {accuracy:.4f}")
    if not opts.losses:
        profile_steps(model, loader, optimizer)
        predicted = predict(model, X_test)

    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epochs": opts.epochs}, opts.checkpoint)
    saved = torch.load(opts.checkpoint)
    reloaded = Net().to(memory_format=torch.channels_last)
    reloaded.load_state_dict(saved["model"])
    optimizer = torch.optim.AdamW(reloaded.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    optimizer.load_state_dict(saved["optimizer"])
    same = predict(reloaded, X_test) == predicted
    print(f"checkpoint {opts.checkpoint}: reloaded after {saved['epochs']} epochs, "
          f"predictions identical: {'yes' if same else 'NO'}")

    if accuracy < opts.min_accuracy:
        print(f"FAILED: accuracy {accuracy:.4f} below {opts.min_accuracy:.2f}", file=sys.stderr)
        return 1
    if not same:
        print("FAILED: the reloaded model differs from the trained one", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
