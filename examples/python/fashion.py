#!/usr/bin/python3
"""fashion — a convolutional network trained on Fashion-MNIST from Python.

    fashion.py [--epochs N] [--train-limit N] [--memory-format channels_last|contiguous|both]
               [--timing-steps N] [--min-accuracy A] [DATA_DIR [CHECKPOINT]]

The Python twin of examples/fashion (C), written as a PyTorch script
against the binding: reads Zalando's 28x28 grey photos of clothes and shoes
(Debian package dataset-fashion-mnist, default DATA_DIR
/usr/share/datasets/fashion-mnist) with gzip and struct, trains
conv 32 -> batch norm -> relu -> max pool -> conv 64 -> bn -> relu -> pool
-> flatten -> linear 10 with AdamW (lr 1e-3, weight_decay 1e-2) and
cross-entropy on minibatches of 64 reshuffled each epoch, in channels_last
(or contiguous, or both from the same weights on the same batches), prints
the loss per epoch and `test accuracy:`, times training steps in both memory
formats, prints a profiler table of a few steps and the allocator's
statistics, saves the state dict (torch's names: conv1.weight,
bn1.running_mean, ...) as a zstd checkpoint, reloads it and checks that the
reloaded model predicts exactly the same classes.

Same seeds and the same library calls in the same order as the C program:
the same losses and accuracy. Exits 1 when accuracy is below the minimum
(default 0.89), the reloaded model differs or tensor memory is still
allocated after every handle is closed; 2 for a bad command line; 77 when
the data set is not installed (a skipped test for ctest).
"""
import argparse
import ctypes
import gzip
import math
import os
import struct
import sys
import time

import tessera as ts

SEED = 20241126
BATCH = 64
PROFILED_STEPS = 10
EVAL_BATCH = 1000
LEARNING_RATE, WEIGHT_DECAY = 1e-3, 1e-2
# Fashion-MNIST's training-set pixel mean and standard deviation (grey levels
# scaled to [0, 1]): the usual transforms.Normalize values.
PIXEL_MEAN, PIXEL_STD = 0.2860, 0.3530
PROGRESS_SECONDS = 5.0
SKIP_NO_DATA = 77  # exit status when the data set is not installed (ctest's SKIP_RETURN_CODE)
SIDE, CLASSES = 28, 10
FORMATS = {"channels_last": ts.channels_last, "contiguous": ts.contiguous_format}


def format_name(memory_format):
    return "channels_last" if memory_format == ts.channels_last else "contiguous"


def mib(nbytes):
    return nbytes / (1024.0 * 1024.0)


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
        raise SystemExit(f"{path}: magic number 0x{got:08x}, expected 0x{magic:08x}: "
                         "not an IDX file of this kind")
    expected = header + math.prod(dims)
    if len(data) != expected:
        raise SystemExit(f"{path}: truncated" if len(data) < expected else
                         f"{path}: data continues past the items its header counts")
    return dims, memoryview(data)[header:]


def load_split(data_dir, prefix, limit=0):
    """X [N, 1, 28, 28] float32 normalised and y [N] int64 (the first limit
    items when limit > 0; the whole files are read and checked)."""
    images_path = os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz")
    labels_path = os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz")
    (n, rows, cols), pixels = read_idx(images_path, 0x00000803, 3)
    (n_labels,), labels = read_idx(labels_path, 0x00000801, 1)
    if (rows, cols) != (SIDE, SIDE):
        raise SystemExit(f"{images_path}: images of {rows}x{cols} pixels, expected {SIDE}x{SIDE}")
    if n != n_labels:
        raise SystemExit(f"{images_path} has {n} images but {labels_path} has {n_labels} labels")
    if n and max(labels) >= CLASSES:
        raise SystemExit(f"{labels_path}: a label outside 0..9")
    if 0 < limit < n:
        n = limit
    # The bytes become a uint8 tensor (buffer protocol, no Python loop), and
    # the scaling runs in the library: (p / 255 - mean) / std in float32,
    # as transforms.ToTensor + Normalize.
    raw = ts.tensor(pixels[:n * SIDE * SIDE]).view(n, 1, SIDE, SIDE)
    X = (raw.float() / 255.0 - PIXEL_MEAN) / PIXEL_STD
    y = ts.tensor(labels[:n]).long()
    return X, y


# ---- a small torch.nn ------------------------------------------------------------------

class Module:
    """torch.nn.Module's bookkeeping: parameters, buffers and submodules in
    registration order, named_parameters(), state_dict(), load_state_dict(),
    train()/eval(), to(memory_format=...), and copy.deepcopy's clone()."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def register_parameter(self, name, tensor):
        self._parameters[name] = tensor.requires_grad_()

    def register_buffer(self, name, tensor):
        self._buffers[name] = tensor

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table, {})
            if name in entries:
                return entries[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __call__(self, *args):
        return self.forward(*args)

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, child in self._modules.items():
            yield from child.named_modules(f"{prefix}{name}.")

    def named_parameters(self):
        for prefix, m in self.named_modules():
            for name, p in m._parameters.items():
                yield prefix + name, p

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def named_buffers(self):
        for prefix, m in self.named_modules():
            for name, b in m._buffers.items():
                yield prefix + name, b

    def state_dict(self):
        """name -> tensor in torch's order (each module's parameters, then its
        buffers, then its children), detached as torch's."""
        out = {}
        for prefix, m in self.named_modules():
            for name, t in list(m._parameters.items()) + list(m._buffers.items()):
                out[prefix + name] = t.detach()
        return out

    def load_state_dict(self, state, assign=True):
        """Takes the tensors of state as this module's parameters and buffers
        (torch 2's assign=True: new handles on the same memory, so state's
        own handles can be closed; keys must match exactly, as strict=True)."""
        names = [n for n, _ in self.named_parameters()] + [n for n, _ in self.named_buffers()]
        if sorted(names) != sorted(state):
            raise KeyError(f"state dict keys {sorted(state)} do not match {sorted(names)}")
        for prefix, m in self.named_modules():
            for name in m._parameters:
                m._parameters[name] = state[prefix + name].detach().requires_grad_()
            for name in m._buffers:
                m._buffers[name] = state[prefix + name].detach()

    def train(self, mode=True):
        for _, m in self.named_modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def to(self, memory_format):
        """module.to(memory_format=...): 4-D parameters and buffers laid out
        in memory_format (new leaf tensors: call before making an optimizer)."""
        with ts.no_grad():
            for _, m in self.named_modules():
                for table in (m._parameters, m._buffers):
                    for name, t in table.items():
                        if t.dim() == 4:
                            moved = t.clone(memory_format=memory_format)
                            table[name] = moved.requires_grad_(t.requires_grad)
        return self

    def clone(self):
        """copy.deepcopy(module): every tensor cloned (same layout) under
        no_grad, so each copy's parameters are leaves of their own."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        object.__setattr__(twin, "_modules", {n: c.clone() for n, c in self._modules.items()})
        with ts.no_grad():
            object.__setattr__(twin, "_parameters", {
                n: p.clone().requires_grad_() for n, p in self._parameters.items()})
            object.__setattr__(twin, "_buffers", {n: b.clone() for n, b in self._buffers.items()})
        return twin

    def close(self):
        """Releases every parameter and buffer now."""
        for _, t in list(self.named_parameters()) + list(self.named_buffers()):
            t.close()


class Conv2d(Module):
    """nn.Conv2d(in, out, kernel_size, padding): the weight from nn.Conv2d's
    reset_parameters (kaiming_uniform_ with a = sqrt(5)), the bias zero as in
    the C example."""

    def __init__(self, in_channels, out_channels, kernel_size, padding=0, generator=None):
        super().__init__()
        self.padding = padding
        weight = ts.zeros(out_channels, in_channels, kernel_size, kernel_size)
        ts.nn.init.kaiming_uniform_(weight, a=math.sqrt(5), generator=generator)
        self.register_parameter("weight", weight)
        self.register_parameter("bias", ts.zeros(out_channels))

    def forward(self, x):
        return ts.conv2d(x, self.weight, self.bias, padding=self.padding)


class BatchNorm2d(Module):
    """nn.BatchNorm2d(channels): affine, running statistics with momentum 0.1
    (torch's num_batches_tracked is not kept)."""

    def __init__(self, channels, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum, self.eps = momentum, eps
        self.register_parameter("weight", ts.ones(channels))
        self.register_parameter("bias", ts.zeros(channels))
        self.register_buffer("running_mean", ts.zeros(channels))
        self.register_buffer("running_var", ts.ones(channels))

    def forward(self, x):
        return ts.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                             self.training, self.momentum, self.eps)


class Linear(Module):
    """nn.Linear(in, out): kaiming_uniform_ weight (a = sqrt(5)), zero bias."""

    def __init__(self, in_features, out_features, generator=None):
        super().__init__()
        weight = ts.zeros(out_features, in_features)
        ts.nn.init.kaiming_uniform_(weight, a=math.sqrt(5), generator=generator)
        self.register_parameter("weight", weight)
        self.register_parameter("bias", ts.zeros(out_features))

    def forward(self, x):
        return ts.linear(x, self.weight, self.bias)


class CNN(Module):
    """conv 3x3 (padding 1) -> bn -> relu -> max pool 2x2, twice (32 then 64
    channels), then linear 10 on the flattened [64, 7, 7] features."""

    def __init__(self, generator=None):
        super().__init__()
        self.conv1 = Conv2d(1, 32, 3, padding=1, generator=generator)
        self.bn1 = BatchNorm2d(32)
        self.conv2 = Conv2d(32, 64, 3, padding=1, generator=generator)
        self.bn2 = BatchNorm2d(64)
        self.fc = Linear(64 * 7 * 7, CLASSES, generator=generator)
        self.memory_format = ts.contiguous_format

    def to(self, memory_format):
        self.memory_format = memory_format
        return super().to(memory_format)

    def forward(self, x):
        # The batch in the model's format: for one channel, NCHW strides
        # already satisfy NHWC, so this is x itself.
        x = x.contiguous(memory_format=self.memory_format)
        x = ts.max_pool2d(ts.relu(self.bn1(self.conv1(x))), 2)
        x = ts.max_pool2d(ts.relu(self.bn2(self.conv2(x))), 2)
        # [B, 64, 7, 7] -> [B, 3136] in (c, h, w) order whatever the layout
        # (a view of NCHW memory, a copy of NHWC memory), as torch.flatten.
        return self.fc(ts.flatten(x, 1))


def copy_of(model, memory_format):
    """copy.deepcopy(model).to(memory_format=...)"""
    return model.clone().to(memory_format)


def predict(model, X):
    """Classes of X, in batches of EVAL_BATCH, in eval mode under no_grad."""
    was_training = model.training
    model.eval()
    out = []
    with ts.no_grad():
        n = X.shape[0]
        for start in range(0, n, EVAL_BATCH):
            with X.narrow(0, start, min(EVAL_BATCH, n - start)) as xb, model(xb) as logits, \
                    logits.argmax(1) as classes:
                out.extend(classes.tolist())
    model.train(was_training)
    return out


# ---- training -----------------------------------------------------------------------

def adamw(model):
    return ts.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)


def train_step(model, optimizer, xb, yb):
    """One optimizer step on a minibatch; returns the loss."""
    with model(xb) as logits, ts.cross_entropy(logits, yb) as loss:
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss.item()


def train_epoch(model, optimizer, X, y, generator, epoch):
    """One pass over X/y in a fresh random order (DataLoader(shuffle=True)):
    the epoch's permutation gathers a shuffled copy whose minibatches are
    views. Prints a progress line every few seconds; returns the mean loss."""
    n = y.numel()
    with ts.randperm(n, generator=generator) as perm:
        Xs, ys = X.index_select(0, perm), y.index_select(0, perm)
    tty = sys.stdout.isatty()
    start = last_report = time.monotonic()
    loss_sum, batches = 0.0, 0
    for first in range(0, n, BATCH):
        length = min(BATCH, n - first)
        with Xs.narrow(0, first, length) as xb, ys.narrow(0, first, length) as yb:
            loss_sum += train_step(model, optimizer, xb, yb)
        batches += 1
        t = time.monotonic()
        if t - last_report >= PROGRESS_SECONDS:
            last_report = t
            print(f"{chr(13) if tty else ''}    epoch {epoch} [{first + length:6d}/{n}] "
                  f"loss {loss_sum / batches:.4f}  {(first + length) / (t - start):.0f} images/s",
                  end="" if tty else "\n", flush=True)
    if tty:
        print("\r" + " " * 70 + "\r", end="")
    Xs.close()
    ys.close()
    return loss_sum / batches


def train(model, X, y, epochs):
    """Trains model; returns the seconds of each epoch. The shuffling
    generator is seeded as every other format's run, so each format sees
    the same batches in the same order."""
    seconds = []
    with ts.Generator(SEED + 1) as generator, adamw(model) as optimizer:
        print(f"\ntraining in {format_name(model.memory_format)}: AdamW lr {LEARNING_RATE:g} "
              f"weight_decay {WEIGHT_DECAY:g}, batch {BATCH}, {epochs} epochs")
        for epoch in range(1, epochs + 1):
            t0 = time.monotonic()
            loss = train_epoch(model, optimizer, X, y, generator, epoch)
            dt = time.monotonic() - t0
            seconds.append(dt)
            print(f"  epoch {epoch:2d}  loss {loss:.4f}  {dt:.1f} s  ({y.numel() / dt:.0f} images/s)")
    return seconds


# ---- memory formats side by side, profiler, allocator ------------------------------------

def num_threads():
    """tsr_get_num_threads(): not in the binding yet, so read through ctypes
    from the libtessera the binding loaded (None when that fails)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libtessera.so" in line}
        lib = ctypes.CDLL(sorted(paths)[0])
        lib.tsr_get_num_threads.restype = ctypes.c_int64
        return lib.tsr_get_num_threads()
    except (OSError, IndexError, AttributeError):
        return None


def compare_formats(initial, X, y, steps, threads):
    """steps training steps of a scratch copy of the initial model in each
    memory format, from the same weights on the same batches, after one
    untimed warm-up step: ms per step and what that makes an epoch."""
    n = y.numel()
    batches = (n + BATCH - 1) // BATCH
    ms = {}
    for memory_format in (ts.channels_last, ts.contiguous_format):
        scratch = copy_of(initial, memory_format)
        with adamw(scratch) as optimizer:
            t0 = 0.0
            for i in range(steps + 1):
                if i == 1:
                    t0 = time.monotonic()
                first = (i * BATCH) % (n - BATCH + 1)
                with X.narrow(0, first, BATCH) as xb, y.narrow(0, first, BATCH) as yb:
                    train_step(scratch, optimizer, xb, yb)
            ms[memory_format] = (time.monotonic() - t0) * 1e3 / steps
        scratch.close()
    print(f"\nmemory formats, {steps} training steps of batch {BATCH} each ({threads} threads):")
    for memory_format, v in ms.items():
        print(f"  {format_name(memory_format):14s} {v:8.2f} ms/step   {v * batches / 1e3:7.1f} s "
              f"per epoch of {n} images")
    print(f"  channels_last / contiguous time: "
          f"{ms[ts.channels_last] / ms[ts.contiguous_format]:.2f}")


def profile_steps(model, X, y):
    """A few training steps of a scratch copy under the profiler, and its
    table of the ops that took the most time."""
    scratch = copy_of(model, model.memory_format)
    with adamw(scratch) as optimizer:
        with ts.profiler.profile(record_shapes=False, profile_memory=True) as prof:
            for i in range(PROFILED_STEPS):
                with X.narrow(0, i * BATCH, BATCH) as xb, y.narrow(0, i * BATCH, BATCH) as yb:
                    train_step(scratch, optimizer, xb, yb)
    print(f"\nprofile of {PROFILED_STEPS} training steps in {format_name(model.memory_format)} "
          f"(batch {BATCH}), top ops by self time:")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12), end="")
    prof.result.close()
    scratch.close()


def print_allocator_stats():
    s = ts.memory_stats()
    print("\nallocator (CPU caching allocator):")
    print(f"  allocated  {mib(s['allocated_bytes.all.current']):8.1f} MiB now, "
          f"{mib(s['allocated_bytes.all.peak']):8.1f} MiB peak  "
          f"({s['allocation.all.current']} blocks live)")
    print(f"  reserved   {mib(s['reserved_bytes.all.current']):8.1f} MiB now, "
          f"{mib(s['reserved_bytes.all.peak']):8.1f} MiB peak  "
          f"(segments held: {s['segment.all.current']})")
    print(f"  {s['allocation.all.allocated']} allocations served, "
          f"{s['num_device_alloc']} of them needed a new segment")


def same_contents(a, b):
    """Same dtype, sizes and bytes (read in logical order, whatever the strides)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.to_bytes() == b.to_bytes()


# ---- main ---------------------------------------------------------------------------

def parse_args(argv):
    def positive(v):
        n = int(v)
        if not 1 <= n <= 64:
            raise argparse.ArgumentTypeError("1..64")
        return n

    def limit(v):
        n = int(v)
        if n < 256:
            raise argparse.ArgumentTypeError("at least 256")
        return n

    def steps(v):
        n = int(v)
        if not 0 <= n <= 100000:
            raise argparse.ArgumentTypeError("0..100000")
        return n

    def fraction(v):
        a = float(v)
        if not 0 <= a <= 1:
            raise argparse.ArgumentTypeError("0..1")
        return a

    p = argparse.ArgumentParser(description="Train a small CNN on Fashion-MNIST with tessera.")
    p.add_argument("--epochs", type=positive, default=2)
    p.add_argument("--train-limit", type=limit, default=0,
                   help="train on the first N training images (default all)")
    p.add_argument("--memory-format", choices=("channels_last", "contiguous", "both"),
                   default="channels_last")
    p.add_argument("--timing-steps", type=steps, default=60,
                   help="training steps timed in each memory format (0 to skip)")
    p.add_argument("--min-accuracy", type=fraction, default=0.89)
    p.add_argument("data_dir", nargs="?", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("checkpoint", nargs="?", default="fashion-checkpoint.tsr")
    return p.parse_args(argv)


def main(argv):
    opts = parse_args(argv[1:])
    formats = ([ts.channels_last, ts.contiguous_format] if opts.memory_format == "both"
               else [FORMATS[opts.memory_format]])
    threads = num_threads()
    print(f"tessera {ts.__version__} (Python), {threads} threads")

    X_train, y_train = load_split(opts.data_dir, "train", opts.train_limit)
    X_test, y_test = load_split(opts.data_dir, "t10k")
    print(f"read {y_train.numel()} training and {y_test.numel()} test images of {SIDE}x{SIDE} "
          f"pixels from {opts.data_dir}")

    with ts.Generator(SEED) as init_generator:
        initial = CNN(init_generator)
    print("network: conv 32 -> bn -> relu -> pool -> conv 64 -> bn -> relu -> pool -> linear 10, "
          f"{sum(p.numel() for p in initial.parameters())} parameters")

    truth = y_test.tolist()
    trained, accuracies, seconds = None, [], []
    for k, memory_format in enumerate(formats):
        model = copy_of(initial, memory_format)
        seconds.append(train(model, X_train, y_train, opts.epochs))
        predicted_k = predict(model, X_test)
        accuracies.append(sum(p == t for p, t in zip(predicted_k, truth)) / len(truth))
        if k == 0:
            print(f"test accuracy: {accuracies[0]:.4f}")
            trained, predicted = model, predicted_k
        else:
            print(f"{format_name(memory_format)} model test accuracy {accuracies[k]:.4f}")
            model.close()

    print(f"\nseconds per epoch of training ({y_train.numel()} images, {threads} threads):")
    for memory_format, s in zip(formats, seconds):
        print(f"  {format_name(memory_format):14s}" + "".join(f" {v:6.1f}" for v in s))
    if len(formats) == 2:
        print(f"  channels_last / contiguous time: {sum(seconds[0]) / sum(seconds[1]):.2f}")

    if opts.timing_steps > 0:
        compare_formats(initial, X_train, y_train, opts.timing_steps, threads)
    profile_steps(trained, X_train, y_train)
    print_allocator_stats()

    state = trained.state_dict()
    ts.save(state, opts.checkpoint, compression="zstd", metadata={"model": "fashion-cnn-32-64"})
    raw = sum(t.nbytes for t in state.values())
    print(f"\ncheckpoint {opts.checkpoint}: {os.path.getsize(opts.checkpoint)} bytes on disk (zstd) "
          f"for {raw} bytes of float32 state")
    for t in state.values():
        t.close()
    # model = CNN(); model.load_state_dict(torch.load(path));
    # model.to(memory_format=...). The fresh model's own tensors are released
    # as load_state_dict replaces them (the last reference goes).
    reloaded = CNN()
    with ts.load(opts.checkpoint) as loaded:
        reloaded.load_state_dict(loaded)
    reloaded.to(trained.memory_format)
    state_same = all(same_contents(a, b) for (_, a), (_, b) in zip(
        list(trained.named_parameters()) + list(trained.named_buffers()),
        list(reloaded.named_parameters()) + list(reloaded.named_buffers())))
    predictions_same = predict(reloaded, X_test) == predicted
    print(f"reloaded state bit-identical: {'yes' if state_same else 'NO'}")
    print(f"reloaded predictions identical: {'yes' if predictions_same else 'NO'}")

    for t in (X_train, y_train, X_test, y_test):
        t.close()
    for m in (reloaded, trained, initial):
        m.close()
    still_allocated = ts.memory_allocated()
    print(f"after closing every handle: {still_allocated} bytes allocated")

    rc = 0
    for memory_format, accuracy in zip(formats, accuracies):
        if accuracy < opts.min_accuracy:
            print(f"FAILED: {format_name(memory_format)} accuracy {accuracy:.4f} below "
                  f"{opts.min_accuracy:.2f}", file=sys.stderr)
            rc = 1
    if still_allocated != 0:
        print("FAILED: tensor memory still allocated after closing every handle", file=sys.stderr)
        rc = 1
    if not state_same or not predictions_same:
        print("FAILED: the reloaded model differs from the trained one", file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
