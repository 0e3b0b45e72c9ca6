"""save / load: a dict of named tensors to a safetensors file (optionally
compressed, optionally sharded) and back, with string metadata; Saver, a
streaming save; open_file, a file read lazily (memory-mapped)."""
import os

from . import _core, _nesting
from ._dtypes import DTYPE_OF
from ._handles import TensorList, TensorMap
from ._tensor import Closable
from .errors import CancelledError

_COMPRESSIONS = {None: _core.COMPRESSION_NONE, "none": _core.COMPRESSION_NONE,
                 "zstd": _core.COMPRESSION_ZSTD, "zstd-planes": _core.COMPRESSION_ZSTD_PLANES}


def _compression(compression):
    if compression not in _COMPRESSIONS:
        raise ValueError("compression must be None, 'none', 'zstd' or 'zstd-planes', "
                         f"not {compression!r}")
    return _COMPRESSIONS[compression]


class _Progress:
    """The callable the native trampoline calls: the user's progress(done,
    total), where returning False cancels. An exception raised by it cancels
    too; it is kept here and becomes the CancelledError's __cause__ (an
    exception must not cross the C library's frames)."""
    __slots__ = ("fn", "error")

    def __init__(self, fn):
        self.fn = fn
        self.error = None

    def __call__(self, done, total):
        try:
            return self.fn(done, total) is not False
        except BaseException as error:  # KeyboardInterrupt too: cancel first (see _call)
            self.error = error
            return False

    @staticmethod
    def wrap(progress):
        if progress is None:
            return None
        if not callable(progress):
            raise TypeError(f"progress must be callable or None, not {type(progress).__name__}")
        return _Progress(progress)


def _call(progress, fn, *args):
    """fn(*args); a CancelledError caused by an exception in the callback
    says so (raise ... from the callback's exception). KeyboardInterrupt and
    SystemExit in the callback cancel the call, then go on as themselves."""
    try:
        return fn(*args)
    except CancelledError as cancelled:
        error = progress.error if progress is not None else None
        if error is not None:
            progress.error = None
            if not isinstance(error, Exception):
                raise error from cancelled
            raise cancelled from error
        raise


def _metadata_list(entries, metadata):
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("metadata keys and values must be str")
        entries.set_metadata(key, value)


class LoadedTensors(dict):
    """What load returns: name -> Tensor in the file's order, and the file's
    metadata (a dict of strings) as .metadata."""
    __slots__ = ("metadata",)

    def __init__(self, tensors=(), metadata=None):
        super().__init__(tensors)
        self.metadata = dict(metadata or {})

    def close(self):
        """Closes every tensor (releases them now), nested ones too."""
        _close_all(self.values())

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _close_all(values):
    for value in values:
        if isinstance(value, _core.Tensor):
            value.close()
        elif isinstance(value, dict):
            _close_all(value.values())
        elif isinstance(value, (list, tuple)):
            _close_all(value)


def save(tensors, path, compression=None, level=0, metadata=None, *, skip_checksums=False,
         max_shard_size=0, flatten_views=False, progress=None):
    """Writes tensors to path: a mapping name -> Tensor (a plain safetensors
    file), or any object torch.save takes that is made of tensors, dicts,
    lists, tuples and plain values (a model's and an optimizer's state
    dicts together, a single tensor): its tensors are stored under dotted
    keys ("model.0.weight") and its shape in the metadata, so load gives the
    same object back. Nothing is pickled.

    compression: None or "none" (a plain safetensors file), "zstd" (each
    tensor's bytes a zstd frame) or "zstd-planes" (byte planes in 1 MiB
    chunks, smaller on trained weights; file format 0.2); level 0 is zstd's
    default. metadata: a mapping of strings, stored in the header's
    "__metadata__". skip_checksums: no "tessera.checksum" entry (the file is
    byte for byte the reference writer's). max_shard_size: bytes of tensor
    data per shard (0: one file); when the tensors pass it, path (ending in
    ".safetensors") becomes a Hugging Face sharded checkpoint
    (model-00001-of-0000N.safetensors and model.safetensors.index.json,
    which load reads). flatten_views: save tensors sharing a storage as
    separate copies (default: as views of one saved storage). progress:
    progress(bytes_done, bytes_total) as the save goes; returning False (or
    raising) cancels it with CancelledError and leaves any file at path as
    it was. The file is replaced atomically; on failure it is left as it was."""
    code = _compression(compression)
    if not _nesting.is_flat(tensors):
        # torch.save's objects (a tensor, nested state dicts, lists, plain
        # values): tensors under dotted keys, the shape in the metadata
        tensors, structure = _nesting.flatten(tensors)
        metadata = dict(metadata or {})
        metadata[_nesting.STRUCTURE_KEY] = structure
    guard = _Progress.wrap(progress)
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
        _metadata_list(entries, metadata)
        _call(guard, _core.save_with, os.fsdecode(path), entries, code, level,
              bool(skip_checksums), max_shard_size, bool(flatten_views), guard)


def load(path, max_bytes=0, *, skip_checksums=False, progress=None):
    """Reads a file written by save (or any safetensors file, or a sharded
    checkpoint's model.safetensors.index.json) into a LoadedTensors dict,
    or, for a file saved from a nested object, that object again (a dict
    comes back as LoadedTensors). Files are never unpickled: a torch.save
    pickle is refused as not a safetensors file.
    max_bytes caps the tensor bytes the load may allocate (0: the default
    cap, 64 times the file's size plus 64 MiB; 2**63 - 1: no cap).
    skip_checksums: do not verify the file's checksums (trusted files).
    progress: as for save; cancelling raises CancelledError."""
    guard = _Progress.wrap(progress)
    with _call(guard, TensorMap.load_with, os.fsdecode(path), max_bytes, bool(skip_checksums),
               guard) as entries:
        metadata = {entries.metadata_key(i): entries.metadata_value(i)
                    for i in range(entries.metadata_size())}
        loaded = LoadedTensors(((entries.name(i), entries.get(i)) for i in range(entries.size())),
                               metadata)
    structure = metadata.get(_nesting.STRUCTURE_KEY)
    if structure is None:
        return loaded
    obj = _nesting.unflatten(dict(loaded), structure)
    if isinstance(obj, dict):
        del metadata[_nesting.STRUCTURE_KEY]
        return LoadedTensors(obj, metadata)
    return obj


class Saver(_core.Saver, Closable):
    """A streaming save (tessera/saver.h): tensors are written as they are
    added, and the file appears at path atomically at commit.

        with tessera.Saver("model.safetensors", compression="zstd-planes") as saver:
            for name, tensor in produce():
                saver.add(name, tensor)
        # committed here; an exception in the block abandons the save instead

    Leaving the with block normally commits (unless commit() was called);
    leaving it by an exception, close(), or collection without commit
    abandons the save: any file at path stays as it was and no temporary
    file is left. Arguments as for save (no sharding through a saver);
    progress is called by add and commit with the bytes added so far."""
    __slots__ = ()

    def __new__(cls, path, compression=None, level=0, metadata=None, *, skip_checksums=False,
                progress=None):
        code = _compression(compression)
        guard = _Progress.wrap(progress)
        with TensorList() as meta:
            _metadata_list(meta, metadata)
            saver = _call(guard, _core.Saver.open, os.fsdecode(path), meta, code, level,
                          bool(skip_checksums), 0, guard)
        saver._progress = guard
        saver._committed = False
        return saver

    def __init__(self, *args, **kwargs):  # everything happened in __new__
        pass

    def add(self, name, tensor):
        """Writes tensor's contents under name now (the tensor may change or
        be closed afterwards)."""
        _call(self.__dict__.get("_progress"), _core.Saver.add, self, name, tensor)

    def commit(self):
        """Finishes the file and renames it over path. Once only."""
        _call(self.__dict__.get("_progress"), _core.Saver.commit, self)
        self._committed = True

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None and not self.__dict__.get("_committed", False):
                self.commit()
        finally:
            self.close()

    def __repr__(self):
        state = "open" if _core._is_open(self) else "closed"
        return f"<tessera.Saver ({state})>"


class File(_core.File, Closable):
    """A checkpoint opened without reading its tensors (tessera/file.h),
    like safetensors' safe_open: names, dtypes, shapes and metadata at once,
    each tensor when asked for. A tensor of a plain file is a read-only view
    of a memory mapping of the file (clone() gives a writable copy); of a
    compressed file, only its chunks are read. The mapping lives while the
    File or any tensor from it does. Also a read-only mapping name ->
    Tensor (each access makes a new tensor)."""
    __slots__ = ()

    def keys(self):
        """Tensor names in file order."""
        return [self.name(i) for i in range(self.size())]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return self.size()

    def __contains__(self, name):
        return isinstance(name, str) and self.find(name) >= 0

    def __getitem__(self, name):
        if not isinstance(name, str) or self.find(name) < 0:
            raise KeyError(name)
        return self.get_by_name(name)

    def get_tensor(self, name):
        """The tensor called name (safetensors' get_tensor)."""
        return self.get_by_name(name)

    def get_slice(self, key, start, stop):
        """Rows [start, stop) of dim 0 of the tensor key (its name, or its
        index in file order), reading only what they need (tsr_file_get_slice;
        safetensors' get_slice(name)[start:stop]): a read-only view of the
        mapping for a plain file, a new tensor decoded from just the chunks
        holding those rows for a zstd-planes file. 0 <= start <= stop <=
        sizes[0]; negative positions are not counted from the end
        (InvalidArgumentError, as for a 0-dim tensor). KeyError for an
        absent name, IndexOutOfRangeError for an index out of range."""
        i = self._index(key) if isinstance(key, str) else key
        return _core.File.get_slice(self, i, start, stop)

    def _index(self, name):
        i = self.find(name)
        if i < 0:
            raise KeyError(name)
        return i

    def dtype_of(self, name):
        """The dtype of the tensor called name, without reading it."""
        return DTYPE_OF[_core.File.dtype(self, self._index(name))]

    def shape_of(self, name):
        """The sizes of the tensor called name, without reading it."""
        return tuple(_core.File.shape(self, self._index(name)))

    def metadata(self):
        """The file's "__metadata__" strings (the checksum entry left out)."""
        return {self.metadata_key(i): self.metadata_value(i) for i in range(self.metadata_size())}

    def __repr__(self):
        if not _core._is_open(self):
            return "<tessera.File (closed)>"
        return f"<tessera.File of {self.size()} tensors>"


def open_file(path, max_bytes=0, *, skip_checksums=False):
    """Opens path (tsr_open_file): reads and checks its header, maps a plain
    file; see File. max_bytes and skip_checksums as for load."""
    return File.open(os.fsdecode(path), max_bytes, bool(skip_checksums))


for _cls in (Saver, File):
    _core._set_class(_cls)
