"""The other native handles as package classes with close() and with-blocks:
Storage (what tensors share), and the TensorList / TensorMap the binding uses
internally for split results, save and load."""
from . import _core
from ._dtypes import CPU, DeviceType, device
from ._tensor import Closable


class Storage(_core.Storage, Closable):
    """The memory tensors view (torch.UntypedStorage): t.storage()."""
    __slots__ = ()

    def size(self):
        """Bytes (torch's untyped storage size)."""
        return self.nbytes()

    @property
    def device(self):
        kind = _core.Storage.device_type(self)
        return CPU if kind == _core.DEVICE_CPU else device(DeviceType(kind).name, 0)

    def __repr__(self):
        if not _core._is_open(self):
            return "<tessera.Storage (closed)>"
        return f"<tessera.Storage of {self.nbytes()} bytes on {self.device}>"


class TensorList(_core.TensorList, Closable):
    """Tensors with optional names and metadata: save's input, split's output."""
    __slots__ = ()

    def __len__(self):
        return self.size()

    def __getitem__(self, i):
        return self.get(i)


class TensorMap(_core.TensorMap, Closable):
    """A loaded file's tensors by name, and its metadata."""
    __slots__ = ()

    def __len__(self):
        return self.size()


for _cls in (Storage, TensorList, TensorMap):
    _core._set_class(_cls)
