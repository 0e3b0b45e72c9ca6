"""Tensor.storage() and Tensor.untyped_storage(): the memory a tensor views,
as torch's TypedStorage (elements of the tensor's dtype) and UntypedStorage
(bytes). Both are live views: reading gives the current values, writing
(s[i] = v, fill_) changes every tensor over that memory.

    x = tessera.arange(6.).view(2, 3)[1]
    list(x.storage())           # [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]: the whole storage
    x.storage().size()          # 6 elements; nbytes() 24; element_size() 4
    x.untyped_storage()[0]      # 0: the first byte
"""
from . import _core
from ._dtypes import DTYPE_OF, dtype as _dtype
from ._handles import Storage

__all__ = ["TypedStorage", "UntypedStorage"]
# Area protocol (_areas): no functional names; the two Tensor methods below.
FUNCTIONAL = []

_N = _core.Tensor


class _StorageView:
    """A 1-d tensor over the whole storage (_elements) behind the list-like
    protocol both storages share."""

    def __init__(self, storage, elements):
        self._storage = storage    # the tessera.Storage handle (data_ptr, device)
        self._elements = elements  # 1-d, contiguous, offset 0, sharing the memory

    def size(self):
        return _N.numel(self._elements)

    __len__ = size

    def nbytes(self):
        return self._storage.nbytes()

    def data_ptr(self):
        return self._storage.data_ptr()

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def tolist(self):
        return self._elements.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._elements[index].tolist()
        return self._elements[self._check_index(index)].item()

    def __setitem__(self, index, value):
        self._writable()
        if isinstance(index, slice):
            self._elements[index] = value
        else:
            self._elements[self._check_index(index)] = value

    def fill_(self, value):
        self._writable()
        self._elements.fill_(value)
        return self

    def _check_index(self, index):
        n = self.size()
        i = index.__index__()
        if not -n <= i < n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return i % n if n else i

    def _writable(self):
        """Read-only memory (a memory-mapped file) refuses writes with the
        library's error: a one-element copy onto itself, which writes
        nothing, is checked like any write."""
        typed = self._typed_elements()
        if _N.numel(typed):
            first = _N.narrow(typed, 0, 0, 1)
            _N.copy_(first, first)

    def _typed_elements(self):
        return self._elements

    def close(self):
        """Releases the storage reference and the element view now (later
        calls raise InvalidArgumentError); tensors over the memory keep it."""
        self._storage.close()
        self._elements.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        if not _core._is_open(self._storage):
            return f"<tessera.{type(self).__name__} (closed)>"
        kind = type(self).__name__
        return f"<tessera.{kind} of {self.size()} elements on {self.device}: {self.tolist()!r}>"


class TypedStorage(_StorageView):
    """torch.TypedStorage: the storage as elements of dtype (size() counts
    elements)."""

    def __init__(self, tensor):
        storage = _N.storage(tensor)
        itemsize = _N.element_size(tensor)
        n = storage.nbytes() // itemsize
        # as_strided keeps the storage's flags (a mapped file stays read-only)
        base = _N.detach(tensor)
        super().__init__(storage, _N.as_strided(base, (n,), (1,), 0))
        self.dtype = DTYPE_OF[_N.dtype(tensor)]

    def element_size(self):
        return self.dtype.itemsize

    def untyped(self):
        """The same memory as bytes (torch 2's TypedStorage.untyped())."""
        return UntypedStorage(self._storage, self._elements)


class UntypedStorage(_StorageView):
    """torch.UntypedStorage: the storage as bytes (size() counts bytes)."""

    def __init__(self, storage, typed_elements):
        super().__init__(storage, _core._storage_elements(storage, int(_dtype.uint8), 1))
        self._typed = typed_elements  # for the writability check

    def element_size(self):
        return 1

    def _typed_elements(self):
        return self._typed


def storage(self):
    """torch.Tensor.storage(): the whole storage as elements of this dtype."""
    return TypedStorage(self)


def untyped_storage(self):
    """torch.Tensor.untyped_storage(): the whole storage as bytes."""
    return TypedStorage(self).untyped()


TENSOR_METHODS = {"storage": storage, "untyped_storage": untyped_storage}

