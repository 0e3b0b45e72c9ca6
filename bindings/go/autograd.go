package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// SetRequiresGrad marks a leaf tensor for gradient tracking
// (torch.Tensor.requires_grad_).
func (t *Tensor) SetRequiresGrad(requiresGrad bool) error {
	return t.update(func(h capi.SwigcptrTensor) { h.Set_requires_grad(requiresGrad) })
}

// RequiresGrad says whether gradients flow to or through t.
func (t *Tensor) RequiresGrad() (bool, error) { return query(t, capi.SwigcptrTensor.Requires_grad) }

// IsLeaf says whether t was made by the user rather than by an op that
// records gradients.
func (t *Tensor) IsLeaf() (bool, error) { return query(t, capi.SwigcptrTensor.Is_leaf) }

// GradFnName is the name of the node that made t (e.g. "MulBackward0"), ""
// for leaves.
func (t *Tensor) GradFnName() (string, error) { return query(t, capi.SwigcptrTensor.Grad_fn_name) }

// Version counts in-place writes to t's storage (torch's _version).
func (t *Tensor) Version() (int64, error) { return query(t, capi.SwigcptrTensor.Version) }

// Grad is the accumulated gradient (torch.Tensor.grad), nil if there is none.
func (t *Tensor) Grad() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Grad) }

// SetGrad replaces the accumulated gradient (nil clears it).
func (t *Tensor) SetGrad(grad *Tensor) error {
	err := t.update(func(h capi.SwigcptrTensor) { h.Set_grad(grad.cptr()) })
	runtime.KeepAlive(grad)
	return err
}

// ZeroGrad fills the accumulated gradient with zeros, if there is one
// (optimizer.zero_grad(set_to_none=False)); SetGrad(nil) drops it instead.
func (t *Tensor) ZeroGrad() error { return t.update(capi.SwigcptrTensor.Zero_grad) }

// Backward computes the gradients of a scalar t into the leaves' Grad
// (torch.Tensor.backward()); the graph is freed.
func (t *Tensor) Backward() error { return t.BackwardWith(nil, false) }

// BackwardWith is Backward with the gradient of t (nil for a scalar t) and
// retainGraph to allow a second backward through the same graph.
func (t *Tensor) BackwardWith(gradient *Tensor, retainGraph bool) error {
	err := t.update(func(h capi.SwigcptrTensor) { h.Backward(gradient.cptr(), retainGraph) })
	runtime.KeepAlive(gradient)
	return err
}

// Detach is t cut from the graph, sharing its storage (torch.Tensor.detach).
func (t *Tensor) Detach() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Detach) }

// ---- grad mode ------------------------------------------------------------------

// NoGrad runs fn with gradient recording off (torch.no_grad()) and restores
// the previous setting afterwards, also when fn fails or panics. Grad mode is
// per OS thread, so NoGrad locks the goroutine to its thread while fn runs:
// calls fn makes on this goroutine see grad mode off; goroutines it starts
// do not.
func NoGrad(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	previous := capi.Set_grad_enabled(false)
	defer capi.Set_grad_enabled(previous)
	return fn()
}

// IsGradEnabled is the grad mode of the current OS thread
// (torch.is_grad_enabled). Goroutines move between threads: it is only
// meaningful under runtime.LockOSThread (or inside NoGrad).
func IsGradEnabled() bool { return capi.Is_grad_enabled() }

// SetGradEnabled sets the current OS thread's grad mode and returns the
// previous one. Use it under runtime.LockOSThread; NoGrad does that for you.
func SetGradEnabled(enabled bool) bool { return capi.Set_grad_enabled(enabled) }
