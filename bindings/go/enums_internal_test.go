package tessera

import (
	"testing"

	"tessera.dev/tessera/internal/capi"
)

// The hand-written constants must equal the header's values, which the
// generated package reads from C.
func TestConstantsMatchTheHeader(t *testing.T) {
	pairs := []struct {
		name      string
		mine, hdr int
	}{
		{"OK", int(OK), int(capi.OK)},
		{"InvalidArgument", int(InvalidArgument), int(capi.ERR_INVALID_ARGUMENT)},
		{"ShapeMismatch", int(ShapeMismatch), int(capi.ERR_SHAPE_MISMATCH)},
		{"DTypeMismatch", int(DTypeMismatch), int(capi.ERR_DTYPE_MISMATCH)},
		{"DeviceMismatch", int(DeviceMismatch), int(capi.ERR_DEVICE_MISMATCH)},
		{"OutOfMemory", int(OutOfMemory), int(capi.ERR_OUT_OF_MEMORY)},
		{"NotViewable", int(NotViewable), int(capi.ERR_NOT_VIEWABLE)},
		{"Autograd", int(Autograd), int(capi.ERR_AUTOGRAD)},
		{"IOError", int(IOError), int(capi.ERR_IO)},
		{"CorruptFile", int(CorruptFile), int(capi.ERR_CORRUPT_FILE)},
		{"Unsupported", int(Unsupported), int(capi.ERR_UNSUPPORTED)},
		{"Internal", int(Internal), int(capi.ERR_INTERNAL)},
		{"IndexOutOfRange", int(IndexOutOfRange), int(capi.ERR_INDEX_OUT_OF_RANGE)},
		{"Uint8", int(Uint8), int(capi.UINT8)},
		{"Int8", int(Int8), int(capi.INT8)},
		{"Int16", int(Int16), int(capi.INT16)},
		{"Int32", int(Int32), int(capi.INT32)},
		{"Int64", int(Int64), int(capi.INT64)},
		{"Float16", int(Float16), int(capi.FLOAT16)},
		{"Float32", int(Float32), int(capi.FLOAT32)},
		{"Float64", int(Float64), int(capi.FLOAT64)},
		{"Bool", int(Bool), int(capi.BOOL)},
		{"BFloat16", int(BFloat16), int(capi.BFLOAT16)},
		{"Float8E5M2", int(Float8E5M2), int(capi.FLOAT8_E5M2)},
		{"Float8E4M3FN", int(Float8E4M3FN), int(capi.FLOAT8_E4M3FN)},
		{"Uint16", int(Uint16), int(capi.UINT16)},
		{"Uint32", int(Uint32), int(capi.UINT32)},
		{"Uint64", int(Uint64), int(capi.UINT64)},
		{"ContiguousFormat", int(ContiguousFormat), int(capi.CONTIGUOUS_FORMAT)},
		{"PreserveFormat", int(PreserveFormat), int(capi.PRESERVE_FORMAT)},
		{"ChannelsLast", int(ChannelsLast), int(capi.CHANNELS_LAST)},
		{"ChannelsLast3d", int(ChannelsLast3d), int(capi.CHANNELS_LAST_3D)},
		{"DeviceCPU", int(DeviceCPU), int(capi.DEVICE_CPU)},
		{"DeviceCUDA", int(DeviceCUDA), int(capi.DEVICE_CUDA)},
		{"NoCompression", int(NoCompression), int(capi.COMPRESSION_NONE)},
		{"Zstd", int(Zstd), int(capi.COMPRESSION_ZSTD)},
		{"ZstdPlanes", int(ZstdPlanes), int(capi.COMPRESSION_ZSTD_PLANES)},
		{"GeluNone", int(GeluNone), int(capi.GELU_NONE)},
		{"GeluTanh", int(GeluTanh), int(capi.GELU_TANH)},
	}
	for _, p := range pairs {
		if p.mine != p.hdr {
			t.Errorf("%s = %d, header says %d", p.name, p.mine, p.hdr)
		}
	}
}

// A failing call leaves a *capi.Failure panic that recoverFailure turns into
// an *Error; any other panic is not swallowed.
func TestOnlyFailuresAreRecovered(t *testing.T) {
	err := do(func() { capi.SwigcptrTensor(0).Ndim() })
	if e, ok := err.(*Error); !ok || e.Status() != InvalidArgument {
		t.Fatalf("got %v", err)
	}
	defer func() {
		if r := recover(); r != "not a failure" {
			t.Fatalf("recovered %v", r)
		}
	}()
	_ = do(func() { panic("not a failure") })
	t.Fatal("the panic was swallowed")
}
