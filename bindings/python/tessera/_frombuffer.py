"""tessera.frombuffer: torch.frombuffer, a 1-d tensor over the memory of
an object with the buffer protocol (bytearray, memoryview, array.array,
mmap, NumPy), without copying. The tensor keeps the buffer exported (a
bytearray cannot be resized meanwhile) and writes go to the object's
memory."""
import warnings

from . import _core
from ._dtypes import dtype as _dtype

__all__ = ["frombuffer"]
FUNCTIONAL = []
TENSOR_METHODS = {}

_warned_read_only = False


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """count elements of dtype (-1: all that fit) from byte offset of
    buffer, sharing its memory; torch's checks and ValueError messages.
    A read-only buffer (bytes) is shared too, with torch's one-time
    UserWarning: writing through the tensor would change it."""
    global _warned_read_only
    if not isinstance(dtype, _dtype):
        raise TypeError(f"frombuffer(): dtype must be a tessera.dtype, not {type(dtype).__name__}")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError("object does not implement Python buffer protocol.") from None
    with view:
        length, read_only = view.nbytes, view.readonly
        contiguous = view.c_contiguous
    if not contiguous:
        raise ValueError("frombuffer: the buffer is not C-contiguous")
    itemsize = dtype.itemsize
    count, offset = int(count), int(offset)
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % itemsize != 0:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                             f"must be a multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if read_only and not _warned_read_only:
        _warned_read_only = True
        warnings.warn("The given buffer is not writable, and tessera does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to copy "
                      "the buffer to protect its data or make it writable before converting it "
                      "to a tensor. This type of warning will be suppressed for the rest of "
                      "this program.", UserWarning, stacklevel=2)
    tensor = _core._frombuffer(buffer, offset, count, int(dtype), itemsize)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor
