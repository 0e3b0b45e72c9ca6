"""from_dlpack: zero-copy import of another library's array (PyTorch, NumPy,
anything with __dlpack__, or a raw "dltensor" capsule such as torch 1.13's
torch.utils.dlpack.to_dlpack returns). Export is Tensor.__dlpack__, so
numpy.from_dlpack(t) and torch.from_dlpack(t) read tessera tensors.

The tensor shares the producer's memory: writes on either side are seen on
the other. It keeps sizes, dtype and strides of dims of size >= 2; its
storage starts at element [0,...,0] (storage_offset 0) and requires_grad is
off (see include/tessera/dlpack.h). The producer's memory stays alive until
the last tessera tensor using it is released."""
from . import _core


def from_dlpack(obj):
    """A tessera tensor over obj's memory, without copying. Unsupported dtypes
    (complex, uint16, ...) and devices raise tessera.UnsupportedError."""
    if hasattr(obj, "__dlpack__"):
        capsule = obj.__dlpack__()
    elif type(obj).__name__ == "PyCapsule":
        capsule = obj
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(obj).__name__}")
    return _core._from_dlpack_capsule(capsule)


def from_numpy(array):
    """torch.from_numpy: a tensor sharing a NumPy array's memory."""
    return from_dlpack(array)
