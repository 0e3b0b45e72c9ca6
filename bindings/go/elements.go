package tessera

import "tessera.dev/tessera/internal/capi"

// Element access copies values between Go and the tensor; for whole tensors
// prefer Float64s/Int64s/Bytes (one call) over At in a loop.

// Item is the value of a one-element tensor (torch.Tensor.item()).
func (t *Tensor) Item() (float64, error) { return query(t, capi.SwigcptrTensor.Item_double) }

// ItemInt64 is the value of a one-element tensor as an int64.
func (t *Tensor) ItemInt64() (int64, error) { return query(t, capi.SwigcptrTensor.Item_int64) }

// At is the element at index (one entry per dim; negative counts from the end).
func (t *Tensor) At(index ...int64) (float64, error) {
	return query(t, func(h capi.SwigcptrTensor) float64 { return h.Get_double(index) })
}

// AtInt64 is At for integer tensors, without going through float64.
func (t *Tensor) AtInt64(index ...int64) (int64, error) {
	return query(t, func(h capi.SwigcptrTensor) int64 { return h.Get_int64(index) })
}

// Set writes value, converted to t's dtype, at index.
func (t *Tensor) Set(value float64, index ...int64) error {
	return t.update(func(h capi.SwigcptrTensor) { h.Set_double(index, value) })
}

// SetInt64 is Set for integer values.
func (t *Tensor) SetInt64(value int64, index ...int64) error {
	return t.update(func(h capi.SwigcptrTensor) { h.Set_int64(index, value) })
}

// Float64s is every element in C order, converted to float64.
func (t *Tensor) Float64s() ([]float64, error) { return query(t, capi.SwigcptrTensor.To_float64) }

// Int64s is every element in C order, converted to int64.
func (t *Tensor) Int64s() ([]int64, error) { return query(t, capi.SwigcptrTensor.To_int64) }

// Bytes is every element in C order as raw bytes of t's dtype.
func (t *Tensor) Bytes() ([]byte, error) { return query(t, capi.SwigcptrTensor.To_bytes) }
