#!/usr/bin/python3
"""digits — tessera end to end from Python, on real data.

    digits.py [DATA.csv.gz [CHECKPOINT]]

The Python twin of examples/digits (C): reads the UCI handwritten digits
(8x8 grey images, 1,797 rows of 64 pixels 0..16 and a label) with Python's
gzip, shuffles them with a seeded generator and splits 80/20, trains a
64-128-10 perceptron with minibatch SGD and autograd (each layer in a
gradient-checkpointing region), prints the loss per
epoch and the held-out accuracy, saves a zstd checkpoint, loads it back and
checks that the reloaded model predicts exactly the same classes. The same
seed and the same library calls in the same order as the C example give the
same numbers. Exits non-zero if accuracy is below 0.95 or the reloaded model
differs.
"""
import array
import gzip
import math
import os
import sys

import tessera as ts

SEED = 20240611
EPOCHS = 25
BATCH = 64
LEARNING_RATE = 0.1
MIN_ACCURACY = 0.95
SIDE, PIXELS, HIDDEN, CLASSES = 8, 64, 128, 10
PARAM_NAMES = ("w1", "b1", "w2", "b2")


def read_digits(path):
    """Pixels scaled to [0, 1] (a flat float list) and labels, checked."""
    pixels, labels = array.array("f"), array.array("q")
    with gzip.open(path, "rt") as f:
        for number, line in enumerate(f, 1):
            fields = [int(v) for v in line.split(",")]
            if len(fields) != PIXELS + 1 or not all(0 <= v <= 16 for v in fields[:PIXELS]) \
                    or not 0 <= fields[PIXELS] < CLASSES:
                raise ValueError(f"{path}:{number}: expected 64 grey levels 0..16 and a label 0..9")
            pixels.extend(v / 16.0 for v in fields[:PIXELS])
            labels.append(fields[PIXELS])
    return pixels, labels


def shuffled_tensors(pixels, labels, generator):
    """X [N, 1, 8, 8] float32 and y [N] int64 in the order of a seeded
    random permutation (torch.randperm with a generator)."""
    n = len(labels)
    order = ts.randperm(n, generator=generator).tolist()
    shuffled = array.array("f")
    for i in order:
        shuffled.extend(pixels[i * PIXELS:(i + 1) * PIXELS])
    X = ts.tensor(shuffled).view(n, 1, SIDE, SIDE)
    y = ts.tensor(array.array("q", (labels[i] for i in order)))
    return X, y


def geometry(what, t):
    print(f"  {what:32s} sizes {list(t.shape)}  strides {list(t.stride())}  "
          f"contiguous={t.is_contiguous()} channels_last={t.is_contiguous(ts.channels_last)}")


def layout_tour(X):
    """What PyTorch users know about memory layout, shown on the images."""
    print("\nlayout of the images (sizes and strides count elements):")
    geometry("X", X)
    # with blocks release each temporary tensor as the block ends.
    with X.clone(memory_format=ts.channels_last) as nhwc:
        geometry("X.clone(channels_last)", nhwc)
    with X.transpose(2, 3) as xt, xt.contiguous() as dense:
        geometry("X.transpose(2, 3)", xt)
        geometry("X.transpose(2, 3).contiguous()", dense)
        print(f"  transpose shares X's storage: {xt.shares_storage(X)}; "
              f"its contiguous copy does: {dense.shares_storage(X)}")
        print(f"  X[0,0,2,5] = {X[0, 0, 2, 5].item():.4f} = X.transpose(2,3)[0,0,5,2] = "
              f"{xt[0, 0, 5, 2].item():.4f} = copy[0,0,5,2] = {dense[0, 0, 5, 2].item():.4f}")


class MLP:
    """x @ w1 + b1 -> relu -> @ w2 + b2, He-initialised from the generator."""

    def __init__(self, generator=None, params=None):
        if params is not None:
            self.params = params
            return
        self.params = {"w1": self._he_weight(PIXELS, HIDDEN, generator),
                       "b1": ts.zeros(HIDDEN, requires_grad=True),
                       "w2": self._he_weight(HIDDEN, CLASSES, generator),
                       "b2": ts.zeros(CLASSES, requires_grad=True)}

    @staticmethod
    def _he_weight(fan_in, fan_out, generator):
        w = ts.randn(fan_in, fan_out, generator=generator)
        # Scaled while it is an ordinary tensor: once it requires grad, an
        # in-place write with grad mode on is an autograd error, as in torch.
        w.mul_(math.sqrt(2.0 / fan_in))
        return w.requires_grad_()

    def __call__(self, x):
        p = self.params
        # Gradient checkpointing, one region per layer: backward recomputes
        # each layer's activations from its input instead of keeping them
        # (torch.utils.checkpoint); the gradients are bit-identical.
        with ts.checkpoint():
            h = ts.relu(x @ p["w1"] + p["b1"])
        with ts.checkpoint():
            return h @ p["w2"] + p["b2"]

    def sgd_step(self, lr):
        with ts.no_grad():
            for p in self.params.values():
                if p.grad is not None:
                    p.add_(p.grad, alpha=-lr)
        for p in self.params.values():
            p.zero_grad()

    def predict(self, x):
        with ts.no_grad(), self(x) as logits:
            return logits.argmax(1).tolist()

    def close(self):
        for p in self.params.values():
            p.close()


def train_epoch(model, X, y):
    n = y.numel()
    loss_sum, batches = 0.0, 0
    for start in range(0, n, BATCH):
        length = min(BATCH, n - start)
        # Minibatches are views (narrow): no copy. Each step's tensors are
        # released when its with block ends, not when the collector runs.
        with X.narrow(0, start, length) as xb, y.narrow(0, start, length) as yb, \
                model(xb) as logits, ts.cross_entropy(logits, yb) as loss:
            loss.backward()
            model.sgd_step(LEARNING_RATE)
            loss_sum += loss.item()
            batches += 1
    return loss_sum / batches


def print_allocator_stats():
    s = ts.memory_stats()
    kib = 1024.0
    print("\nallocator (CPU caching allocator, sizes in KiB):")
    print(f"  allocated  {s['allocated_bytes.all.current'] / kib:10.1f} now, "
          f"{s['allocated_bytes.all.peak'] / kib:10.1f} peak  ({s['allocation.all.current']} blocks live)")
    print(f"  reserved   {s['reserved_bytes.all.current'] / kib:10.1f} now, "
          f"{s['reserved_bytes.all.peak'] / kib:10.1f} peak  (segments held: {s['segment.all.current']})")
    print(f"  {s['allocation.all.allocated']} allocations served, "
          f"{s['num_device_alloc']} of them needed a new segment")


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    data_path = argv[1] if len(argv) > 1 else os.path.join(here, "..", "data", "digits.csv.gz")
    checkpoint = argv[2] if len(argv) > 2 else "digits-checkpoint.tsr"
    if len(argv) > 3:
        print(f"usage: {argv[0]} [DATA.csv.gz [CHECKPOINT]]", file=sys.stderr)
        return 2
    print(f"tessera {ts.__version__} (Python)")

    pixels, labels = read_digits(data_path)
    print(f"read {len(labels)} images of {SIDE}x{SIDE} pixels from {data_path}")
    generator = ts.Generator(SEED)
    X, y = shuffled_tensors(pixels, labels, generator)
    layout_tour(X)

    # The MLP sees each image as 64 inputs: a view, [N, 1, 8, 8] -> [N, 64].
    n = y.numel()
    n_train = n * 8 // 10
    flat = X.view(n, PIXELS)
    X_train, X_test = flat.narrow(0, 0, n_train), flat.narrow(0, n_train, n - n_train)
    y_train, y_test = y.narrow(0, 0, n_train), y.narrow(0, n_train, n - n_train)
    print(f"\nsplit: {n_train} training images, {n - n_train} held out")

    model = MLP(generator)
    print(f"training MLP {PIXELS}-{HIDDEN}-{CLASSES}, SGD lr {LEARNING_RATE:.2f}, batch {BATCH}, "
          f"{EPOCHS} epochs")
    for epoch in range(1, EPOCHS + 1):
        print(f"  epoch {epoch:2d}  loss {train_epoch(model, X_train, y_train):.4f}")

    predicted = model.predict(X_test)
    truth = y_test.tolist()
    accuracy = sum(p == t for p, t in zip(predicted, truth)) / len(truth)
    print(f"test accuracy: {accuracy:.4f}")
    print_allocator_stats()

    ts.save(model.params, checkpoint, compression="zstd",
            metadata={"model": "digits-mlp-64-128-10"})
    raw = sum(p.nbytes for p in model.params.values())
    size = os.path.getsize(checkpoint)
    print(f"\ncheckpoint {checkpoint}: {size} bytes on disk (zstd, header included) for {raw} "
          f"bytes of float32 parameters ({raw / size:.3f}x)")
    with ts.load(checkpoint) as loaded:
        print(f"reloaded {len(loaded)} tensors, model \"{loaded.metadata['model']}\"")
        reloaded = MLP(params={name: loaded[name] for name in PARAM_NAMES})
        params_same = all(
            bytes(loaded[name].numpy()) == bytes(model.params[name].detach().numpy())
            for name in PARAM_NAMES)
        predictions_same = reloaded.predict(X_test) == predicted
    print(f"reloaded parameters bit-identical: {'yes' if params_same else 'NO'}")
    print(f"reloaded predictions identical: {'yes' if predictions_same else 'NO'}")

    model.close()
    for t in (X, y, flat, X_train, X_test, y_train, y_test):
        t.close()
    generator.close()
    # Every handle closed: no tensor memory is in use any more (the allocator
    # keeps its segments cached; that is reserved, not allocated).
    still_allocated = ts.memory_allocated()
    print(f"after closing every handle: {still_allocated} bytes allocated")

    if accuracy < MIN_ACCURACY:
        print(f"FAILED: accuracy {accuracy:.4f} below {MIN_ACCURACY:.2f}", file=sys.stderr)
        return 1
    if still_allocated != 0:
        print("FAILED: tensor memory still allocated after closing every handle", file=sys.stderr)
        return 1
    if not params_same or not predictions_same:
        print("FAILED: the reloaded model differs from the trained one", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
