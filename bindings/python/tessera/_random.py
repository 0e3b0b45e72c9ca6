"""Seeded random numbers: Generator (torch.Generator), the default generator
and manual_seed, the random factories rand, randn, randperm, and dropout.

Each generator is a counter-based Philox4x32-10 stream (include/tessera/
random.h) whose whole state is (seed, offset), the offset counting the
32-bit words drawn: get_state() / set_state(seed, offset) save and restore
it. The same seed gives the same numbers as tessera's C API on every
platform. A generator must not be used from two threads at once (the
default one included)."""
from . import _core
from ._factories import _finish, _float_default
from ._tensor import Closable, sizes_arg

_U64 = (1 << 64) - 1

# torch's default seed (torch.initial_seed() in a fresh process).
DEFAULT_SEED = 67280421310721


class Generator(_core.Generator, Closable):
    """torch.Generator: Generator(seed) or Generator() with the default seed."""
    __slots__ = ()

    def __init__(self, seed=DEFAULT_SEED):
        _core.Generator.__init__(self, seed)

    def manual_seed(self, seed):
        """Restarts the sequence from seed; returns self (as torch)."""
        _core.Generator.manual_seed(self, seed)
        return self

    def get_state(self):
        """(seed, offset): the Philox seed and the number of 32-bit words
        drawn so far, both unsigned 64-bit ints. (torch's get_state returns
        an opaque ByteTensor; here the state is these two numbers.)"""
        seed, offset = _core.Generator.get_state(self)
        return seed & _U64, offset & _U64

    def set_state(self, seed, offset=None):
        """Moves the generator to (seed, offset), a pair get_state returned
        (also accepted as one tuple): the next op draws what an op at that
        position drew before. Returns self."""
        if offset is None and isinstance(seed, (tuple, list)):
            seed, offset = seed
        if offset is None:
            raise TypeError("set_state(seed, offset): offset missing")
        _core.Generator.set_state(self, seed, offset)
        return self

    def __repr__(self):
        state = "" if _core._is_open(self) else " (closed)"
        return f"<tessera.Generator{state}>"


_core._set_class(Generator)

default_generator = Generator()


def manual_seed(seed):
    """Reseeds the default generator (torch.manual_seed); returns it."""
    return default_generator.manual_seed(seed)


def rand(*size, generator=None, dtype=None, requires_grad=False):
    """Uniform on [0, 1)."""
    g = default_generator if generator is None else generator
    t = _core.Tensor.rand(sizes_arg(size), g, _float_default(dtype))
    return _finish(t, requires_grad)


def randn(*size, generator=None, dtype=None, requires_grad=False):
    """Standard normal."""
    g = default_generator if generator is None else generator
    t = _core.Tensor.randn(sizes_arg(size), g, _float_default(dtype))
    return _finish(t, requires_grad)


def randperm(n, generator=None):
    """A random permutation of 0..n-1 (int64)."""
    return _core.Tensor.randperm(n, default_generator if generator is None else generator)


def dropout(input, p=0.5, train=True, generator=None):
    """torch.dropout(input, p, train) (torch.nn.functional.dropout with
    training=train) drawing its mask from generator (the default generator
    when None): each element is kept with probability 1 - p and scaled by
    1 / (1 - p), or zeroed; the generator advances by input.numel() words.
    Not train, or p == 0: input itself (as torch returns it). With history, the gradient is
    grad * mask / (1 - p). Inside a checkpoint region the recomputation draws
    the same mask (preserve_rng_state). InvalidArgumentError for p outside
    [0, 1]; DTypeMismatchError for a non-floating input."""
    g = default_generator if generator is None else generator
    return _core.Tensor.dropout(input, float(p), bool(train), g)
