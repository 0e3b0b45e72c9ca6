package tessera

import "tessera.dev/tessera/internal/capi"

// DType is an element type (tsr_dtype; values as c10::ScalarType).
type DType int

// The values of tsr_dtype (include/tessera/types.h).
const (
	Uint8    DType = 0
	Int8     DType = 1
	Int16    DType = 2
	Int32    DType = 3
	Int64    DType = 4
	Float16  DType = 5
	Float32  DType = 6
	Float64  DType = 7
	Bool     DType = 11
	BFloat16 DType = 15
	// Storage only (creation, views, copy, To, save and load; no math).
	Float8E5M2   DType = 23
	Float8E4M3FN DType = 24
	Uint16       DType = 27
	Uint32       DType = 28
	Uint64       DType = 29
)

// String is the library's name, e.g. "float32".
func (d DType) String() string { return capi.Dtype_name(capi.Enum_SS_tsr_dtype(d)) }

// MemoryFormat is a layout request (torch.memory_format).
type MemoryFormat int

// The values of tsr_memory_format.
const (
	ContiguousFormat MemoryFormat = 0 // row-major (torch.contiguous_format)
	PreserveFormat   MemoryFormat = 1 // keep the input's layout when dense
	ChannelsLast     MemoryFormat = 2 // 4-D: logical NCHW, physical NHWC
	ChannelsLast3d   MemoryFormat = 3 // 5-D: logical NCDHW, physical NDHWC
)

// DeviceType is where memory lives (DLPack's codes).
type DeviceType int

// The values of tsr_device_type.
const (
	DeviceCPU  DeviceType = 1
	DeviceCUDA DeviceType = 2
)

// Device is a device type and its index (torch.device).
type Device struct {
	Type  DeviceType
	Index int32
}

// CPU is the host device, where tensors are made unless told otherwise.
var CPU = Device{Type: DeviceCPU, Index: 0}

func (d Device) capiType() capi.Enum_SS_tsr_device_type { return capi.Enum_SS_tsr_device_type(d.Type) }

// Compression is how Save stores tensor bytes (tsr_compression).
type Compression int

// The values of tsr_compression.
const (
	NoCompression Compression = 0 // a plain safetensors file
	Zstd          Compression = 1 // one zstd frame per tensor
	ZstdPlanes    Compression = 2 // format 0.2: chunked byte planes, zstd where it pays
)

// GeluApproximate is Gelu's approximation (torch's approximate argument;
// tsr_gelu_approximate).
type GeluApproximate int

// The values of tsr_gelu_approximate.
const (
	GeluNone GeluApproximate = 0 // x * Phi(x), Phi the normal CDF (approximate="none")
	GeluTanh GeluApproximate = 1 // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (approximate="tanh")
)
