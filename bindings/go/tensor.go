package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Tensor is a handle to a tessera tensor (torch.Tensor): sizes, strides and a
// storage offset over a storage that views share. It owns one reference,
// dropped by Close or, failing that, by a finalizer.
type Tensor struct {
	// SWIG's handle type is a uintptr and cannot carry a finalizer; this
	// struct does. 0 once closed: the library then reports InvalidArgument.
	handle capi.SwigcptrTensor
}

// newTensor takes over the reference a wrapper returned (nil for NULL, which
// Grad returns when there is no gradient).
func newTensor(h uintptr) *Tensor {
	if h == 0 {
		return nil
	}
	return own(&Tensor{handle: capi.SwigcptrTensor(h)}, (*Tensor).Close)
}

// Close drops this handle's reference now. Closing twice, or closing nil, does
// nothing. It always returns nil (it satisfies io.Closer).
func (t *Tensor) Close() error {
	if t != nil {
		release(t, &t.handle, func(h capi.SwigcptrTensor) { capi.DeleteTensor(h) })
	}
	return nil
}

// c is the wrapper handle; 0 for a nil or closed tensor.
func (t *Tensor) c() capi.SwigcptrTensor {
	if t == nil {
		return 0
	}
	return t.handle
}

// cptr is the handle as the wrapper takes tensor arguments.
func (t *Tensor) cptr() uintptr { return uintptr(t.c()) }

// The helpers below run one wrapper call on t and keep t reachable until the
// call has returned: without runtime.KeepAlive the finalizer could release
// the handle while C still uses it.

// query runs f, which reads something of t.
func query[T any](t *Tensor, f func(capi.SwigcptrTensor) T) (T, error) {
	out, err := call(func() T { return f(t.c()) })
	runtime.KeepAlive(t)
	return out, err
}

// derive runs f, which makes a new tensor from t.
func (t *Tensor) derive(f func(capi.SwigcptrTensor) uintptr) (out *Tensor, err error) {
	defer recoverFailure(&err)
	out = newTensor(f(t.c()))
	runtime.KeepAlive(t)
	return out, nil
}

// combine runs f, which makes a new tensor from t and other.
func (t *Tensor) combine(other *Tensor, f func(capi.SwigcptrTensor, uintptr) uintptr) (out *Tensor, err error) {
	defer recoverFailure(&err)
	out = newTensor(f(t.c(), other.cptr()))
	runtime.KeepAlive(t)
	runtime.KeepAlive(other)
	return out, nil
}

// update runs f, which changes t (or its autograd state) in place.
func (t *Tensor) update(f func(capi.SwigcptrTensor)) error {
	err := do(func() { f(t.c()) })
	runtime.KeepAlive(t)
	return err
}

// ---- queries (torch.Tensor.size(), stride(), dim(), ...) ----------------------

// Sizes is a copy of the sizes (torch.Tensor.size()); nil once closed.
func (t *Tensor) Sizes() []int64 {
	s, _ := query(t, capi.SwigcptrTensor.Sizes)
	return s
}

// Strides is a copy of the strides, in elements; nil once closed.
func (t *Tensor) Strides() []int64 {
	s, _ := query(t, capi.SwigcptrTensor.Strides)
	return s
}

// Ndim is the number of dimensions (torch.Tensor.dim()).
func (t *Tensor) Ndim() (int64, error) { return query(t, capi.SwigcptrTensor.Ndim) }

// Size is the size of dim (negative dims count from the end).
func (t *Tensor) Size(dim int64) (int64, error) {
	return query(t, func(h capi.SwigcptrTensor) int64 { return h.Size(dim) })
}

// Stride is the stride of dim, in elements.
func (t *Tensor) Stride(dim int64) (int64, error) {
	return query(t, func(h capi.SwigcptrTensor) int64 { return h.Stride(dim) })
}

// StorageOffset is where element [0, ..., 0] sits in the storage, in elements.
func (t *Tensor) StorageOffset() (int64, error) {
	return query(t, capi.SwigcptrTensor.Storage_offset)
}

// Numel is the number of elements.
func (t *Tensor) Numel() (int64, error) { return query(t, capi.SwigcptrTensor.Numel) }

// ElementSize is the size of one element in bytes.
func (t *Tensor) ElementSize() (int64, error) { return query(t, capi.SwigcptrTensor.Element_size) }

// Nbytes is Numel * ElementSize.
func (t *Tensor) Nbytes() (int64, error) { return query(t, capi.SwigcptrTensor.Nbytes) }

// DType is the element type.
func (t *Tensor) DType() (DType, error) {
	return query(t, func(h capi.SwigcptrTensor) DType { return DType(h.Dtype()) })
}

// Device is where the tensor's memory lives.
func (t *Tensor) Device() (Device, error) {
	return query(t, func(h capi.SwigcptrTensor) Device {
		return Device{Type: DeviceType(h.Device_type()), Index: int32(h.Device_index())}
	})
}

// DataPtr is the address of element [0, ..., 0], valid while t is open.
func (t *Tensor) DataPtr() (uintptr, error) {
	return query(t, func(h capi.SwigcptrTensor) uintptr { return uintptr(h.Data_ptr()) })
}

// Storage is a new handle to the storage t views.
func (t *Tensor) Storage() (*Storage, error) {
	h, err := query(t, capi.SwigcptrTensor.Storage)
	return newStorage(h), err
}

// String is torch's repr of the tensor, from the library
// (tsr_tensor_to_string): "tensor([[1., 2.],\n        [3., 4.]])",
// summarised past 1000 elements, with dtype/device/grad_fn suffixes.
func (t *Tensor) String() string {
	s, err := query(t, capi.SwigcptrTensor.To_string)
	if err != nil {
		return "Tensor(closed)"
	}
	return s
}
