"""Seeded random numbers: Generator (torch.Generator), the default generator
and manual_seed, and the random factories rand, randn, randperm.

Each generator is an mt19937_64 engine; the same seed gives the same numbers
as tessera's C API. A generator must not be used from two threads at once
(the default one included)."""
from . import _core
from ._factories import _finish, _float_default
from ._tensor import Closable, sizes_arg

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
