"""save / load: a dict of named tensors to a safetensors file (optionally
with each tensor zstd-compressed) and back, with string metadata."""
import os

from . import _core
from ._handles import TensorList, TensorMap

_COMPRESSIONS = {None: _core.COMPRESSION_NONE, "none": _core.COMPRESSION_NONE,
                 "zstd": _core.COMPRESSION_ZSTD}


class LoadedTensors(dict):
    """What load returns: name -> Tensor in the file's order, and the file's
    metadata (a dict of strings) as .metadata."""
    __slots__ = ("metadata",)

    def __init__(self, tensors=(), metadata=None):
        super().__init__(tensors)
        self.metadata = dict(metadata or {})

    def close(self):
        """Closes every tensor (releases them now)."""
        for tensor in self.values():
            tensor.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def save(tensors, path, compression=None, level=0, metadata=None):
    """Writes tensors (a mapping name -> Tensor) to path.

    compression: None or "none" (a plain safetensors file) or "zstd" (each
    tensor's bytes a zstd frame; level 0 is zstd's default). metadata: a
    mapping of strings, stored in the header's "__metadata__". The file is
    replaced atomically; on failure it is left as it was."""
    if compression not in _COMPRESSIONS:
        raise ValueError(f"compression must be None, 'none' or 'zstd', not {compression!r}")
    if not hasattr(tensors, "items"):
        raise TypeError("save(): expected a dict of str -> tessera.Tensor, "
                        f"not {type(tensors).__name__}")
    with TensorList() as entries:
        for name, tensor in tensors.items():
            if not isinstance(name, str):
                raise TypeError(f"tensor names must be str, not {type(name).__name__}")
            # None reaches the library, which refuses it (InvalidArgumentError).
            if tensor is not None and not isinstance(tensor, _core.Tensor):
                raise TypeError("save(): expected a dict of str -> tessera.Tensor; the value "
                                f"for {name!r} is a {type(tensor).__name__} (convert it with "
                                "tessera.tensor(...))")
            entries.append(tensor, name)
        for key, value in (metadata or {}).items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("metadata keys and values must be str")
            entries.set_metadata(key, value)
        _core.save(os.fsdecode(path), entries, _COMPRESSIONS[compression], level)


def load(path, max_bytes=0):
    """Reads a file written by save (or any safetensors file) into a
    LoadedTensors dict. max_bytes caps the tensor bytes the load may
    allocate (0: the default cap, 64 times the file's size plus 64 MiB;
    2**63 - 1: no cap)."""
    with TensorMap.load(os.fsdecode(path), max_bytes) as entries:
        metadata = {entries.metadata_key(i): entries.metadata_value(i)
                    for i in range(entries.metadata_size())}
        return LoadedTensors(((entries.name(i), entries.get(i)) for i in range(entries.size())),
                             metadata)
