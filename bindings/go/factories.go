package tessera

import "tessera.dev/tessera/internal/capi"

// Option changes where or how a factory makes its tensor.
type Option func(*factoryOptions)

type factoryOptions struct {
	device Device
	format MemoryFormat
}

// On makes the tensor on device d (default CPU).
func On(d Device) Option { return func(o *factoryOptions) { o.device = d } }

// WithMemoryFormat lays Empty's tensor out in format (default ContiguousFormat).
func WithMemoryFormat(format MemoryFormat) Option {
	return func(o *factoryOptions) { o.format = format }
}

func applyOptions(opts []Option) factoryOptions {
	o := factoryOptions{device: CPU, format: ContiguousFormat}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func dt(d DType) capi.Enum_SS_tsr_dtype { return capi.Enum_SS_tsr_dtype(d) }

// create runs one factory call and wraps its new tensor.
func create(f func() uintptr) (out *Tensor, err error) {
	defer recoverFailure(&err)
	return newTensor(f()), nil
}

// Empty is an uninitialised tensor (torch.empty).
func Empty(sizes []int64, dtype DType, opts ...Option) (*Tensor, error) {
	o := applyOptions(opts)
	return create(func() uintptr {
		return capi.TensorEmpty(sizes, dt(dtype), capi.Enum_SS_tsr_memory_format(o.format),
			o.device.capiType(), int(o.device.Index))
	})
}

// EmptyStrided is an uninitialised tensor with the given strides, in
// elements (torch.empty_strided).
func EmptyStrided(sizes, strides []int64, dtype DType, opts ...Option) (*Tensor, error) {
	o := applyOptions(opts)
	return create(func() uintptr {
		return capi.TensorEmpty_strided(sizes, strides, dt(dtype), o.device.capiType(), int(o.device.Index))
	})
}

// Zeros is a tensor of zeros (torch.zeros).
func Zeros(sizes []int64, dtype DType, opts ...Option) (*Tensor, error) {
	o := applyOptions(opts)
	return create(func() uintptr {
		return capi.TensorZeros(sizes, dt(dtype), o.device.capiType(), int(o.device.Index))
	})
}

// Ones is a tensor of ones (torch.ones).
func Ones(sizes []int64, dtype DType, opts ...Option) (*Tensor, error) {
	o := applyOptions(opts)
	return create(func() uintptr {
		return capi.TensorOnes(sizes, dt(dtype), o.device.capiType(), int(o.device.Index))
	})
}

// Full is a tensor filled with value (torch.full).
func Full(sizes []int64, value float64, dtype DType, opts ...Option) (*Tensor, error) {
	o := applyOptions(opts)
	return create(func() uintptr {
		return capi.TensorFull(sizes, value, dt(dtype), o.device.capiType(), int(o.device.Index))
	})
}

// Arange is [start, end) in steps of step (torch.arange).
func Arange(start, end, step float64, dtype DType, opts ...Option) (*Tensor, error) {
	o := applyOptions(opts)
	return create(func() uintptr {
		return capi.TensorArange(start, end, step, dt(dtype), o.device.capiType(), int(o.device.Index))
	})
}

// FromFloat64s is a tensor of sizes holding values (C order), converted to
// dtype as copy_ converts (torch.tensor(values, dtype=dtype).view(sizes)).
func FromFloat64s(values []float64, sizes []int64, dtype DType) (*Tensor, error) {
	return create(func() uintptr { return capi.TensorFrom_float64(values, sizes, dt(dtype)) })
}

// FromInt64s is FromFloat64s for integer values.
func FromInt64s(values []int64, sizes []int64, dtype DType) (*Tensor, error) {
	return create(func() uintptr { return capi.TensorFrom_int64(values, sizes, dt(dtype)) })
}

// FromBytes copies data, C-order native-endian elements of dtype, into a new
// tensor of sizes. len(data) must be the tensor's Nbytes.
func FromBytes(data []byte, sizes []int64, dtype DType) (*Tensor, error) {
	return create(func() uintptr { return capi.TensorFrom_bytes(data, sizes, dt(dtype)) })
}

// Rand is uniform on [0, 1) from g (torch.rand(..., generator=g)).
func Rand(sizes []int64, dtype DType, g *Generator) (*Tensor, error) {
	defer g.keepAlive()
	return create(func() uintptr { return capi.TensorRand(sizes, g.cptr(), dt(dtype)) })
}

// Randn is standard normal from g (torch.randn(..., generator=g)).
func Randn(sizes []int64, dtype DType, g *Generator) (*Tensor, error) {
	defer g.keepAlive()
	return create(func() uintptr { return capi.TensorRandn(sizes, g.cptr(), dt(dtype)) })
}

// Randperm is a random permutation of 0..n-1, int64 (torch.randperm).
func Randperm(n int64, g *Generator) (*Tensor, error) {
	defer g.keepAlive()
	return create(func() uintptr { return capi.TensorRandperm(n, g.cptr()) })
}
