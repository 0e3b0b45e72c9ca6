"""Exceptions raised for a failed tessera call.

Every failing C call returns a ``tsr_status``; the binding raises the class
registered here for that status, carrying the status and the library's
message. All derive from :class:`Error` (itself a ``RuntimeError``, which is
what PyTorch raises), and where a built-in exception fits they derive from it
too, so ``except ValueError`` or ``except MemoryError`` work as expected.
"""
import enum

from . import _core

__all__ = [
    "Status", "Error", "InvalidArgumentError", "ShapeMismatchError", "DTypeMismatchError",
    "DeviceMismatchError", "OutOfMemoryError", "NotViewableError", "AutogradError",
    "InputOutputError", "CorruptFileError", "UnsupportedError", "InternalError",
    "IndexOutOfRangeError", "CancelledError", "DistBackendError",
]


class Status(enum.IntEnum):
    """tsr_status: the code of a failed call (values are the C ABI's)."""
    OK = _core.OK
    INVALID_ARGUMENT = _core.ERR_INVALID_ARGUMENT
    SHAPE_MISMATCH = _core.ERR_SHAPE_MISMATCH
    DTYPE_MISMATCH = _core.ERR_DTYPE_MISMATCH
    DEVICE_MISMATCH = _core.ERR_DEVICE_MISMATCH
    OUT_OF_MEMORY = _core.ERR_OUT_OF_MEMORY
    NOT_VIEWABLE = _core.ERR_NOT_VIEWABLE
    AUTOGRAD = _core.ERR_AUTOGRAD
    IO = _core.ERR_IO
    CORRUPT_FILE = _core.ERR_CORRUPT_FILE
    UNSUPPORTED = _core.ERR_UNSUPPORTED
    INTERNAL = _core.ERR_INTERNAL
    INDEX_OUT_OF_RANGE = _core.ERR_INDEX_OUT_OF_RANGE
    CANCELLED = _core.ERR_CANCELLED
    DISTRIBUTED = _core.ERR_DISTRIBUTED


_STATUS_OF = {int(s): s for s in Status}


class Error(RuntimeError):
    """A tessera call failed. ``status`` is the :class:`Status`, ``message``
    the library's text (also ``str(error)``)."""

    def __init__(self, status, message):
        super().__init__(message)
        # A dict lookup (IntEnum's constructor is slow); a status newer than
        # this module stays a plain int.
        self.status = _STATUS_OF.get(status, status)
        self.message = message

    def __str__(self):
        return self.message

    def __reduce__(self):  # pickling (multiprocessing) keeps both fields
        return (type(self), (int(self.status), self.message))


class InvalidArgumentError(Error, ValueError):
    """A bad argument: NULL or closed handle, dim out of range, overflow."""


class ShapeMismatchError(Error, ValueError):
    """Sizes that do not broadcast or match."""


class DTypeMismatchError(Error, TypeError):
    """A dtype the operation does not take."""


class DeviceMismatchError(Error, ValueError):
    """Tensors on different devices."""


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed (or passed the memory limit)."""


class NotViewableError(Error, ValueError):
    """The view needs a copy: use reshape."""


class AutogradError(Error):
    """Autograd misuse (in-place on a saved tensor, backward twice, ...)."""


class InputOutputError(Error, OSError):
    """Opening, reading, writing or renaming a file failed."""


class CorruptFileError(Error, ValueError):
    """A truncated, inconsistent or crafted file."""


class UnsupportedError(Error, NotImplementedError):
    """A valid request this build cannot do (a CUDA device, ...)."""


class InternalError(Error):
    """A bug in tessera: please report it."""


class IndexOutOfRangeError(Error, IndexError):
    """An element or list index outside the sizes."""


class CancelledError(Error):
    """A progress callback stopped a save or load (it returned False or
    raised; then the exception it raised is this error's __cause__)."""


class DistBackendError(Error, RuntimeError):
    """A collective or the rendezvous failed: a peer died or hung past the
    timeout, the store was unreachable, or ranks called different
    collectives (torch.distributed.DistBackendError, a RuntimeError)."""


_BY_STATUS = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.SHAPE_MISMATCH: ShapeMismatchError,
    Status.DTYPE_MISMATCH: DTypeMismatchError,
    Status.DEVICE_MISMATCH: DeviceMismatchError,
    Status.OUT_OF_MEMORY: OutOfMemoryError,
    Status.NOT_VIEWABLE: NotViewableError,
    Status.AUTOGRAD: AutogradError,
    Status.IO: InputOutputError,
    Status.CORRUPT_FILE: CorruptFileError,
    Status.UNSUPPORTED: UnsupportedError,
    Status.INTERNAL: InternalError,
    Status.INDEX_OUT_OF_RANGE: IndexOutOfRangeError,
    Status.CANCELLED: CancelledError,
    Status.DISTRIBUTED: DistBackendError,
}


def _register():
    """Tells the native module which class to raise for each status (index =
    status value; an unknown status raises the base Error)."""
    classes = [Error] * 16
    classes[Status.OK] = None
    for status, cls in _BY_STATUS.items():
        classes[status] = cls
    _core._set_error_classes(classes)


_register()
