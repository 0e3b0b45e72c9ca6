"""fortunes — the character-level corpus: English text from Debian's
`fortunes` package (fortune cookies: quotations, jokes, poems), its
character vocabulary, a held-out split, and batches drawn from a seed with
NumPy, so that every library sees the same batches in the same order.

The package keeps each collection as a text file (cookies separated by
lines holding only `%`) beside its index (.dat) and a .u8 link to it.
Every 10th cookie (in file-name order, then file order) is held out: the
held-out text reads like the training text without repeating any of it.
"""
import os
import re

import numpy

FORTUNE_DIR = "/usr/share/games/fortunes"
HELD_OUT_EVERY = 10
SEPARATOR = "\n\n"  # between cookies in the joined text


class Missing(Exception):
    """The fortunes package is not installed."""


def read_cookies(directory=FORTUNE_DIR):
    """The cookies of every collection in directory, in name order."""
    try:
        names = sorted(n for n in os.listdir(directory)
                       if not n.endswith((".dat", ".u8")) and os.path.isfile(os.path.join(directory, n)))
    except FileNotFoundError:
        names = []
    if not names:
        raise Missing(f"{directory}: no fortune files (install the Debian package fortunes)")
    cookies = []
    for name in names:
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        cookies += [c.strip("\n") for c in re.split(r"^%\n", text, flags=re.MULTILINE) if c.strip()]
    return cookies


class Corpus:
    """train / held_out: int64 arrays of character ids; chars: the
    vocabulary (sorted characters of the whole text)."""

    def __init__(self, directory=FORTUNE_DIR):
        cookies = read_cookies(directory)
        train = SEPARATOR.join(c for i, c in enumerate(cookies) if i % HELD_OUT_EVERY != HELD_OUT_EVERY - 1)
        held_out = SEPARATOR.join(c for i, c in enumerate(cookies) if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1)
        self.chars = sorted(set(train) | set(held_out))
        self.ids = {c: i for i, c in enumerate(self.chars)}
        self.train = self.encode(train)
        self.held_out = self.encode(held_out)

    def encode(self, text):
        return numpy.array([self.ids[c] for c in text], dtype=numpy.int64)

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)


def windows(data, offsets, block_size):
    """(inputs, targets) int64 [len(offsets), block_size]: data[o : o+T] and
    the next characters data[o+1 : o+T+1]."""
    index = numpy.asarray(offsets)[:, None] + numpy.arange(block_size)[None, :]
    return data[index], data[index + 1]


def training_offsets(seed, steps, batch_size, length, block_size):
    """Each step's batch of window starts, uniform over the training text,
    from NumPy's generator seeded with seed: [steps, batch_size]."""
    rng = numpy.random.default_rng(seed)
    return rng.integers(0, length - block_size - 1, size=(steps, batch_size))


def held_out_offsets(batches, batch_size, length, block_size):
    """batches * batch_size window starts spread evenly over the held-out
    text (no randomness): [batches, batch_size]."""
    count = batches * batch_size
    return numpy.linspace(0, length - block_size - 1, count).astype(numpy.int64).reshape(batches, batch_size)
