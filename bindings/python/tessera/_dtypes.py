"""Element types, memory formats and devices, named as PyTorch names them
(tessera.float32, tessera.channels_last, tessera.device("cpu")). The enum
values are the C ABI's (c10::ScalarType and c10::MemoryFormat numbers)."""
import enum

from . import _core


class dtype(enum.IntEnum):
    """An element type: tessera.float32 is dtype.float32 (value 6, as
    c10::ScalarType::Float)."""
    uint8 = _core.UINT8
    int8 = _core.INT8
    int16 = _core.INT16
    int32 = _core.INT32
    int64 = _core.INT64
    float16 = _core.FLOAT16
    float32 = _core.FLOAT32
    float64 = _core.FLOAT64
    bool = _core.BOOL
    bfloat16 = _core.BFLOAT16
    # storage only: creation, views, copy, to(), save and load; no math
    float8_e5m2 = _core.FLOAT8_E5M2
    float8_e4m3fn = _core.FLOAT8_E4M3FN
    uint16 = _core.UINT16
    uint32 = _core.UINT32
    uint64 = _core.UINT64

    def __repr__(self):
        return "tessera." + self.name

    __str__ = __repr__

    @property
    def is_floating_point(self):
        return self in _FLOATING

    @property
    def itemsize(self):
        """Bytes per element."""
        return _ITEMSIZE[self]


_FLOATING = frozenset({dtype.float16, dtype.float32, dtype.float64, dtype.bfloat16,
                       dtype.float8_e5m2, dtype.float8_e4m3fn})
_ITEMSIZE = {dtype.uint8: 1, dtype.int8: 1, dtype.int16: 2, dtype.int32: 4, dtype.int64: 8,
             dtype.float16: 2, dtype.float32: 4, dtype.float64: 8, dtype.bool: 1,
             dtype.bfloat16: 2, dtype.float8_e5m2: 1, dtype.float8_e4m3fn: 1,
             dtype.uint16: 2, dtype.uint32: 4, dtype.uint64: 8}

# Lookup by the C value without IntEnum's (slower) constructor.
DTYPE_OF = {int(d): d for d in dtype}

# torch's other names for the same dtypes.
ALIASES = {"float": dtype.float32, "double": dtype.float64, "half": dtype.float16,
           "long": dtype.int64, "int": dtype.int32, "short": dtype.int16}

# memoryview/struct format characters (native sizes) and the dtype they hold.
_FORMATS = {"b": dtype.int8, "B": dtype.uint8, "?": dtype.bool, "e": dtype.float16,
            "f": dtype.float32, "d": dtype.float64}
_INT_BY_SIZE = {2: dtype.int16, 4: dtype.int32, 8: dtype.int64}
_UINT_BY_SIZE = {2: dtype.uint16, 4: dtype.uint32, 8: dtype.uint64}


def dtype_of_format(fmt, itemsize):
    """The dtype of a buffer's format ("f", "<i8", "l", ...), or None."""
    code = fmt.lstrip("@=<>!")
    if code in _FORMATS:
        return _FORMATS[code]
    if code in ("h", "i", "l", "q", "n"):
        return _INT_BY_SIZE.get(itemsize)
    if code in ("H", "I", "L", "Q", "N"):
        return _UINT_BY_SIZE.get(itemsize)
    return None


# struct format of each dtype (for tolist through memoryview); the 16- and
# 8-bit floats are widened to float32 first.
STRUCT_FORMAT = {dtype.uint8: "B", dtype.int8: "b", dtype.int16: "h", dtype.int32: "i",
                 dtype.int64: "q", dtype.float32: "f", dtype.float64: "d", dtype.bool: "?",
                 dtype.uint16: "H", dtype.uint32: "I", dtype.uint64: "Q"}


class memory_format(enum.IntEnum):
    """How a tensor's elements are laid out (values are c10::MemoryFormat's)."""
    contiguous_format = _core.CONTIGUOUS_FORMAT
    preserve_format = _core.PRESERVE_FORMAT
    channels_last = _core.CHANNELS_LAST
    channels_last_3d = _core.CHANNELS_LAST_3D

    def __repr__(self):
        return "tessera." + self.name

    __str__ = __repr__


class DeviceType(enum.IntEnum):
    """DLPack's device type codes, which the C ABI uses."""
    cpu = _core.DEVICE_CPU
    cuda = _core.DEVICE_CUDA


class device:
    """torch.device: ``device("cpu")``, ``device("cuda", 0)``, ``device("cpu:0")``."""
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, str) and ":" in type:
            type, _, number = type.partition(":")
            index = int(number)
        if type not in DeviceType.__members__:
            raise ValueError(f"unknown device type {type!r} (expected 'cpu' or 'cuda')")
        self.type = type
        self.index = index

    @property
    def device_type(self):
        return DeviceType[self.type]

    @property
    def device_index(self):
        return 0 if self.index is None else self.index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return (isinstance(other, device) and self.type == other.type
                and self.device_index == other.device_index)

    def __hash__(self):
        return hash((self.type, self.device_index))

    def __repr__(self):
        if self.index is None:
            return f"device(type={self.type!r})"
        return f"device(type={self.type!r}, index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


CPU = device("cpu")


def device_args(dev):
    """(device_type, device_index) for a factory's device= argument."""
    if dev is None:
        return _core.DEVICE_CPU, 0
    d = device(dev)
    return int(d.device_type), d.device_index
