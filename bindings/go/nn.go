package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// The torch.nn.functional ops (Linear, Gelu, LayerNorm, Embedding), the ops
// on several tensors (Cat, Stack, Where), and the activations and indexing
// methods of Tensor added with them. Each result is a new tensor to Close.

// fromTensors runs f, which makes a new tensor from the handles of tensors,
// and keeps tensors reachable until it has returned.
func fromTensors(f func() uintptr, tensors ...*Tensor) (out *Tensor, err error) {
	defer recoverFailure(&err)
	out = newTensor(f())
	for _, t := range tensors {
		runtime.KeepAlive(t)
	}
	return out, nil
}

// refuseClosed reports an optional argument that was closed: passed on, it
// would read as nil ("none") instead of failing.
func refuseClosed(what string, t *Tensor) error {
	if t != nil && t.c() == 0 {
		return newError(InvalidArgument, what+" is closed")
	}
	return nil
}

// Linear is torch.nn.functional.linear: input @ weight^T + bias, with input
// [*, in], weight [out, in] and bias nil (none) or [out]. ShapeMismatch
// ("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"), DTypeMismatch
// for mixed dtypes or integers.
func Linear(input, weight, bias *Tensor) (*Tensor, error) {
	if err := refuseClosed("Linear: bias", bias); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Linear(input.cptr(), weight.cptr(), bias.cptr())
	}, input, weight, bias)
}

// Gelu is torch.nn.functional.gelu(input, approximate): GeluNone (x * Phi(x))
// or GeluTanh.
func Gelu(input *Tensor, approximate GeluApproximate) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Gelu(uintptr(h), capi.Enum_SS_tsr_gelu_approximate(approximate))
	})
}

// LayerNorm is torch.nn.functional.layer_norm: (x - mean) / sqrt(var + eps) *
// weight + bias over the trailing dims normalizedShape (biased variance);
// weight and bias nil (none) or of sizes normalizedShape. torch's eps is 1e-5.
// ShapeMismatch with torch's messages.
func LayerNorm(input *Tensor, normalizedShape []int64, weight, bias *Tensor, eps float64) (*Tensor, error) {
	if err := refuseClosed("LayerNorm: weight", weight); err != nil {
		return nil, err
	}
	if err := refuseClosed("LayerNorm: bias", bias); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Layer_norm(input.cptr(), normalizedShape, weight.cptr(), bias.cptr(), eps)
	}, input, weight, bias)
}

// Embedding is torch.nn.functional.embedding(input, weight): the rows of
// weight [V, D] at the int32/int64 indices input (any shape); the result has
// input's sizes + [D]. IndexOutOfRange for an index outside [0, V).
func Embedding(input, weight *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Embedding(input.cptr(), weight.cptr()) }, input, weight)
}

// Cat is torch.cat(tensors, dim): the tensors joined along dim, which every
// other dim must agree on; the dtype is their promotion. InvalidArgument for
// no tensors or a nil or closed one, ShapeMismatch with torch's messages.
func Cat(tensors []*Tensor, dim int64) (*Tensor, error) {
	return joined(capi.Cat, tensors, dim)
}

// Stack is torch.stack(tensors, dim): tensors of one size joined along a new
// dim.
func Stack(tensors []*Tensor, dim int64) (*Tensor, error) {
	return joined(capi.Stack, tensors, dim)
}

func joined(f func(uintptr, int64) uintptr, tensors []*Tensor, dim int64) (out *Tensor, err error) {
	defer recoverFailure(&err)
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	fillList(list, tensors, false)
	return newTensor(f(uintptr(list), dim)), nil
}

// Where is torch.where(condition, input, other): input where condition (bool)
// is true, else other; all three broadcast, the dtype is
// torch.result_type(input, other).
func Where(condition, input, other *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr {
		return capi.Where(condition.cptr(), input.cptr(), other.cptr())
	}, condition, input, other)
}

// ---- Tensor methods ------------------------------------------------------------

// Tanh is torch.tanh: floating t keeps its dtype, integer and bool give float32.
func (t *Tensor) Tanh() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Tanh) }

// Sigmoid is 1 / (1 + e**-t) (torch.sigmoid).
func (t *Tensor) Sigmoid() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Sigmoid) }

// Sqrt is the square root (NaN below 0; torch.sqrt).
func (t *Tensor) Sqrt() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Sqrt) }

// PowScalar is torch.pow(t, exponent) with a float exponent: floating t keeps
// its dtype, integer and bool t give float32.
func (t *Tensor) PowScalar(exponent float64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Pow_scalar(exponent) })
}

// Pow is torch.pow(t, exponent) elementwise, broadcasting; the dtype is
// torch.result_type(t, exponent).
func (t *Tensor) Pow(exponent *Tensor) (*Tensor, error) {
	return t.combine(exponent, capi.SwigcptrTensor.Pow)
}

// Clamp is torch.clamp(t, min, max): elements limited to [min, max] (min >
// max gives max everywhere). Floating t keeps its dtype, integer and bool t
// give float32.
func (t *Tensor) Clamp(min, max float64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Clamp(true, min, true, max) })
}

// ClampMin is torch.clamp(t, min=min) (torch.clamp_min).
func (t *Tensor) ClampMin(min float64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Clamp(true, min, false, 0) })
}

// ClampMax is torch.clamp(t, max=max) (torch.clamp_max).
func (t *Tensor) ClampMax(max float64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Clamp(false, 0, true, max) })
}

// Softmax is torch.softmax(t, dim) for floating t.
func (t *Tensor) Softmax(dim int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Softmax(dim) })
}

// IndexSelect is torch.index_select(t, dim, index): the slices of t along dim
// at index (0-D or 1-D, int32 or int64).
func (t *Tensor) IndexSelect(dim int64, index *Tensor) (*Tensor, error) {
	return t.combine(index, func(h capi.SwigcptrTensor, i uintptr) uintptr { return h.Index_select(dim, i) })
}

// Gather is torch.gather(t, dim, index): index int64 with t's number of dims.
func (t *Tensor) Gather(dim int64, index *Tensor) (*Tensor, error) {
	return t.combine(index, func(h capi.SwigcptrTensor, i uintptr) uintptr { return h.Gather(dim, i) })
}

// ReluInPlace is t = max(t, 0) in place (torch.Tensor.relu_).
func (t *Tensor) ReluInPlace() error { return t.update(capi.SwigcptrTensor.Relu_) }

// IsInference says whether t was made under InferenceMode
// (torch.Tensor.is_inference).
func (t *Tensor) IsInference() (bool, error) { return query(t, capi.SwigcptrTensor.Is_inference) }

// ---- inference mode and anomaly detection ------------------------------------------

// InferenceMode runs fn under torch.inference_mode() and restores the
// previous setting afterwards, also when fn fails or panics: grad mode is
// off and new tensors are inference tensors (IsInference), which record no
// history; outside, autograd refuses to save them for backward (Autograd).
// Inference mode is per OS thread, so InferenceMode locks the goroutine to
// its thread while fn runs; goroutines fn starts do not see it.
func InferenceMode(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	previous := capi.Set_inference_mode(true)
	defer capi.Set_inference_mode(previous)
	return fn()
}

// IsInferenceModeEnabled is the inference mode of the current OS thread
// (torch.is_inference_mode_enabled); only meaningful under
// runtime.LockOSThread (or inside InferenceMode).
func IsInferenceModeEnabled() bool { return capi.Is_inference_mode_enabled() }

// SetInferenceMode sets the current OS thread's inference mode and returns
// the previous one. Use it under runtime.LockOSThread; InferenceMode does
// that for you.
func SetInferenceMode(enabled bool) bool { return capi.Set_inference_mode(enabled) }

// DetectAnomaly runs fn with anomaly detection on
// (torch.autograd.detect_anomaly) and restores the previous setting
// afterwards, also when fn fails or panics. The setting is process-wide.
// While on, a backward whose node returns a NaN gradient fails with Autograd
// naming it ("Function 'DivBackward0' returned nan values in its 1th
// output. ...").
func DetectAnomaly(fn func() error) error {
	previous := capi.Set_detect_anomaly(true)
	defer capi.Set_detect_anomaly(previous)
	return fn()
}

// IsAnomalyEnabled says whether anomaly detection is on (process-wide).
func IsAnomalyEnabled() bool { return capi.Is_anomaly_enabled() }

// SetDetectAnomaly turns anomaly detection on or off, process-wide
// (torch.autograd.set_detect_anomaly), and returns the previous setting.
func SetDetectAnomaly(enabled bool) bool { return capi.Set_detect_anomaly(enabled) }
