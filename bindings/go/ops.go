package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Arithmetic and functions with torch's broadcasting, type promotion and
// autograd. Each result is a new tensor to Close.

// Add is t + other.
func (t *Tensor) Add(other *Tensor) (*Tensor, error) {
	return t.combine(other, capi.SwigcptrTensor.Add)
}

// Sub is t - other.
func (t *Tensor) Sub(other *Tensor) (*Tensor, error) {
	return t.combine(other, capi.SwigcptrTensor.Sub)
}

// Mul is t * other, elementwise.
func (t *Tensor) Mul(other *Tensor) (*Tensor, error) {
	return t.combine(other, capi.SwigcptrTensor.Mul)
}

// Div is t / other, elementwise (true division).
func (t *Tensor) Div(other *Tensor) (*Tensor, error) {
	return t.combine(other, capi.SwigcptrTensor.Div)
}

// Matmul is the matrix product (torch.matmul).
func (t *Tensor) Matmul(other *Tensor) (*Tensor, error) {
	return t.combine(other, capi.SwigcptrTensor.Matmul)
}

// MulScalar is t * scalar.
func (t *Tensor) MulScalar(scalar float64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Mul_scalar(scalar) })
}

// AddScalar is t + scalar.
func (t *Tensor) AddScalar(scalar float64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Add_scalar(scalar) })
}

// Dropout is torch.dropout(t, p, train) drawing its mask from g: each element
// kept with probability 1 - p and scaled by 1 / (1 - p), or zeroed; g
// advances by t's element count (see Generator.State). Not train, or p == 0:
// a new handle to t itself. Inside a checkpoint region the recomputation
// draws the same mask. InvalidArgument for p outside [0, 1] or a closed
// handle, DTypeMismatch for a non-floating t.
func (t *Tensor) Dropout(p float64, train bool, g *Generator) (*Tensor, error) {
	defer g.keepAlive()
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Dropout(p, train, g.cptr()) })
}

// Relu is max(t, 0).
func (t *Tensor) Relu() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Relu) }

// Exp is e**t.
func (t *Tensor) Exp() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Exp) }

// Log is the natural logarithm.
func (t *Tensor) Log() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Log) }

// Neg is -t.
func (t *Tensor) Neg() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Neg) }

// Sum adds over dims (every dim when dims is empty), keeping them as size 1
// when keepdim (torch.sum).
func (t *Tensor) Sum(dims []int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Sum(dims, keepdim) })
}

// Mean averages over dims (every dim when dims is empty; torch.mean).
func (t *Tensor) Mean(dims []int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Mean(dims, keepdim) })
}

// Max is the largest element, as a 0-dim tensor (torch.max(t)).
func (t *Tensor) Max() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Max) }

// MaxDim is the largest values along dim and their indices (torch.max(t, dim)).
func (t *Tensor) MaxDim(dim int64, keepdim bool) (values, indices *Tensor, err error) {
	pair, err := t.pieces(func(h capi.SwigcptrTensor) uintptr { return h.Max_dim(dim, keepdim) })
	if err != nil {
		return nil, nil, err
	}
	return pair[0], pair[1], nil
}

// Argmax is the index of the largest value along dim (torch.argmax).
func (t *Tensor) Argmax(dim int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Argmax(dim, keepdim) })
}

// LogSoftmax is log(softmax(t)) along dim.
func (t *Tensor) LogSoftmax(dim int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Log_softmax(dim) })
}

// CrossEntropy is the mean cross-entropy of logits t [N, C] against int64
// class indices target [N] (torch.nn.functional.cross_entropy).
func (t *Tensor) CrossEntropy(target *Tensor) (*Tensor, error) {
	return t.combine(target, capi.SwigcptrTensor.Cross_entropy)
}

// ---- in place (torch's trailing-underscore methods) --------------------------

// AddInPlace is t += alpha * other (torch.Tensor.add_(other, alpha=alpha)).
func (t *Tensor) AddInPlace(other *Tensor, alpha float64) error {
	err := t.update(func(h capi.SwigcptrTensor) { h.Add_(other.cptr(), alpha) })
	runtime.KeepAlive(other)
	return err
}

// MulScalarInPlace is t *= scalar (torch.Tensor.mul_).
func (t *Tensor) MulScalarInPlace(scalar float64) error {
	return t.update(func(h capi.SwigcptrTensor) { h.Mul_scalar_(scalar) })
}

// Fill sets every element to value (torch.Tensor.fill_).
func (t *Tensor) Fill(value float64) error {
	return t.update(func(h capi.SwigcptrTensor) { h.Fill_(value) })
}

// Zero sets every element to zero (torch.Tensor.zero_).
func (t *Tensor) Zero() error { return t.update(capi.SwigcptrTensor.Zero_) }
