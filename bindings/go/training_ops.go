package tessera

import (
	"tessera.dev/tessera/internal/capi"
)

// The ops added for ported training scripts (issue 33; pointwise.i, linalg.i,
// reductions.i and loss.i): torch.nn.functional's activations and losses as
// package functions, with a Reduction for torch's reduction string, and
// Tensor methods for the elementwise math, batched products, scans and
// statistics. Each result is a new tensor to Close; a failure returns an
// *Error carrying the library's status and message.

// Reduction is how a loss reduces its elementwise values: torch's
// reduction="none", "mean" or "sum" (tsr_loss_reduction).
type Reduction int

// The values of tsr_loss_reduction.
const (
	ReductionNone Reduction = 0 // the elementwise loss, in the broadcast shape
	ReductionMean Reduction = 1 // the mean over every element (weighted for NLLLoss / CrossEntropy with weights)
	ReductionSum  Reduction = 2 // the sum over every element
)

// ---- activations (torch.nn.functional) ------------------------------------------

// Silu is torch.nn.functional.silu: x * sigmoid(x).
func Silu(input *Tensor) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Pointwise_silu(uintptr(h)) })
}

// LeakyRelu is torch.nn.functional.leaky_relu(input, negativeSlope): x, or
// negativeSlope * x below 0 (torch's default slope is 0.01).
func LeakyRelu(input *Tensor, negativeSlope float64) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Pointwise_leaky_relu(uintptr(h), negativeSlope)
	})
}

// Elu is torch.nn.functional.elu(input, alpha): x, or alpha * (exp(x) - 1)
// below 0 (torch's default alpha is 1).
func Elu(input *Tensor, alpha float64) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Pointwise_elu(uintptr(h), alpha) })
}

// Softplus is torch.nn.functional.softplus(input, beta, threshold): log(1 +
// exp(beta x)) / beta, or x where beta x exceeds threshold (torch: 1, 20).
func Softplus(input *Tensor, beta, threshold float64) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Pointwise_softplus(uintptr(h), beta, threshold)
	})
}

// Hardtanh is torch.nn.functional.hardtanh(input, minVal, maxVal): input
// clamped to [minVal, maxVal] (torch: -1, 1).
func Hardtanh(input *Tensor, minVal, maxVal float64) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Pointwise_hardtanh(uintptr(h), minVal, maxVal)
	})
}

// ---- elementwise Tensor methods --------------------------------------------------

// Sin is torch.sin: floating t keeps its dtype, integer and bool give float32.
func (t *Tensor) Sin() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Sin) }

// Cos is torch.cos.
func (t *Tensor) Cos() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Cos) }

// Rsqrt is torch.rsqrt: 1 / sqrt(t).
func (t *Tensor) Rsqrt() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Rsqrt) }

// Reciprocal is torch.reciprocal: 1 / t.
func (t *Tensor) Reciprocal() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Reciprocal) }

// Floor is torch.floor (integer t: a copy of itself).
func (t *Tensor) Floor() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Floor) }

// Ceil is torch.ceil.
func (t *Tensor) Ceil() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Ceil) }

// Round is torch.round: halves to even (no decimals argument).
func (t *Tensor) Round() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Round) }

// Trunc is torch.trunc (torch.fix): rounded toward zero.
func (t *Tensor) Trunc() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Trunc) }

// Fix is torch.fix, another name of Trunc.
func (t *Tensor) Fix() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Fix) }

// Sign is torch.sign: -1, 0 or 1 in t's dtype.
func (t *Tensor) Sign() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Sign) }

// ClampTensor is torch.clamp(t, min, max) with tensor bounds that broadcast
// against t; either may be nil (None), not both (InvalidArgument). The dtype
// is the promotion of the three. Clamp takes number bounds.
func (t *Tensor) ClampTensor(min, max *Tensor) (*Tensor, error) {
	if err := refuseClosed("ClampTensor: min", min); err != nil {
		return nil, err
	}
	if err := refuseClosed("ClampTensor: max", max); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Pointwise_clamp_tensor(t.cptr(), min.cptr(), max.cptr())
	}, t, min, max)
}

// ---- batched products -------------------------------------------------------------

// Bmm is torch.bmm: [B, n, m] @ [B, m, p] -> [B, n, p]; no broadcasting
// (ShapeMismatch).
func (t *Tensor) Bmm(mat2 *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Linalg_bmm(t.cptr(), mat2.cptr()) }, t, mat2)
}

// Baddbmm is torch.baddbmm(t, batch1, batch2, beta=beta, alpha=alpha): beta *
// t + alpha * (batch1 @ batch2), t broadcast to [B, n, p] (torch: 1, 1).
func (t *Tensor) Baddbmm(batch1, batch2 *Tensor, beta, alpha float64) (*Tensor, error) {
	return fromTensors(func() uintptr {
		return capi.Linalg_baddbmm(t.cptr(), batch1.cptr(), batch2.cptr(), beta, alpha)
	}, t, batch1, batch2)
}

// Outer is torch.outer: the [n, m] outer product of two 1-d tensors.
func (t *Tensor) Outer(vec2 *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Linalg_outer(t.cptr(), vec2.cptr()) }, t, vec2)
}

// ---- scans and statistics -------------------------------------------------------

// noDType asks the scans for torch's default accumulation dtype.
const noDType = -1

// Cumsum is torch.cumsum(t, dim): running sums along dim (integers and bool
// accumulate in int64).
func (t *Tensor) Cumsum(dim int64) (*Tensor, error) { return t.CumsumDType(dim, noDType) }

// CumsumDType is torch.cumsum(t, dim, dtype=dtype): t converted to dtype first.
func (t *Tensor) CumsumDType(dim int64, dtype DType) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Cumsum(uintptr(h), dim, int(dtype)) })
}

// Cumprod is torch.cumprod(t, dim): running products along dim.
func (t *Tensor) Cumprod(dim int64) (*Tensor, error) { return t.CumprodDType(dim, noDType) }

// CumprodDType is torch.cumprod(t, dim, dtype=dtype).
func (t *Tensor) CumprodDType(dim int64, dtype DType) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Cumprod(uintptr(h), dim, int(dtype)) })
}

// Prod is torch.prod(t): the product of every element, 0-dim.
func (t *Tensor) Prod() (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Prod(uintptr(h), noDType) })
}

// ProdDim is torch.prod(t, dim, keepdim).
func (t *Tensor) ProdDim(dim int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Prod_dim(uintptr(h), dim, keepdim, noDType) })
}

// Var is torch.var(t, dims, correction=correction, keepdim=keepdim): the
// variance over dims (empty: every dim), divided by N - correction (1 is
// torch's unbiased=True, 0 unbiased=False).
func (t *Tensor) Var(dims []int64, correction int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Var_dims(uintptr(h), dims, correction, keepdim)
	})
}

// Std is torch.std(t, dims, correction=correction, keepdim=keepdim), the
// square root of Var.
func (t *Tensor) Std(dims []int64, correction int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Std_dims(uintptr(h), dims, correction, keepdim)
	})
}

// VarMean is torch.var_mean(input, dims, correction=correction,
// keepdim=keepdim): the variance and the mean over dims (empty: every dim).
func VarMean(input *Tensor, dims []int64, correction int64, keepdim bool) (variance, mean *Tensor, err error) {
	return input.pair(func(h capi.SwigcptrTensor) uintptr {
		return capi.Var_mean_pair(uintptr(h), dims, correction, keepdim, false)
	})
}

// StdMean is torch.std_mean(input, dims, correction=correction,
// keepdim=keepdim): the standard deviation and the mean.
func StdMean(input *Tensor, dims []int64, correction int64, keepdim bool) (std, mean *Tensor, err error) {
	return input.pair(func(h capi.SwigcptrTensor) uintptr {
		return capi.Var_mean_pair(uintptr(h), dims, correction, keepdim, true)
	})
}

// Logsumexp is torch.logsumexp(t, dims, keepdim): log(sum(exp(t))) over dims,
// computed stably.
func (t *Tensor) Logsumexp(dims []int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Logsumexp(uintptr(h), dims, keepdim) })
}

// Any is torch.any(t): whether any element is nonzero, a 0-dim bool tensor.
func (t *Tensor) Any() (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Any_all(uintptr(h), true, 0, false, false) })
}

// AnyDim is torch.any(t, dim, keepdim).
func (t *Tensor) AnyDim(dim int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Any_all(uintptr(h), false, dim, keepdim, false) })
}

// All is torch.all(t): whether every element is nonzero, a 0-dim bool tensor.
func (t *Tensor) All() (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Any_all(uintptr(h), true, 0, false, true) })
}

// AllDim is torch.all(t, dim, keepdim).
func (t *Tensor) AllDim(dim int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Any_all(uintptr(h), false, dim, keepdim, true) })
}

// Min is the smallest element, as a 0-dim tensor (torch.min(t)).
func (t *Tensor) Min() (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Min(uintptr(h)) })
}

// MinDim is the smallest values along dim and their int64 indices, the first
// on ties (torch.min(t, dim, keepdim)).
func (t *Tensor) MinDim(dim int64, keepdim bool) (values, indices *Tensor, err error) {
	return t.pair(func(h capi.SwigcptrTensor) uintptr { return capi.Min_dim(uintptr(h), dim, keepdim) })
}

// Argmin is the int64 index of the smallest value along dim (torch.argmin).
func (t *Tensor) Argmin(dim int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Argmin(uintptr(h), dim, keepdim) })
}

// pair runs f, which returns a native list of two tensors, and hands them out.
func (t *Tensor) pair(f func(capi.SwigcptrTensor) uintptr) (first, second *Tensor, err error) {
	two, err := t.pieces(f)
	if err != nil {
		return nil, nil, err
	}
	return two[0], two[1], nil
}

// ---- losses (torch.nn.functional) -------------------------------------------------

// MSELoss is torch.nn.functional.mse_loss(input, target, reduction): (input -
// target)^2, broadcast, reduced.
func MSELoss(input, target *Tensor, reduction Reduction) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Mse_loss(input.cptr(), target.cptr(), int(reduction)) },
		input, target)
}

// L1Loss is torch.nn.functional.l1_loss(input, target, reduction): |input -
// target|, reduced.
func L1Loss(input, target *Tensor, reduction Reduction) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.L1_loss(input.cptr(), target.cptr(), int(reduction)) },
		input, target)
}

// SmoothL1Loss is torch.nn.functional.smooth_l1_loss(input, target, reduction,
// beta): 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (torch's beta is
// 1). InvalidArgument for a negative beta.
func SmoothL1Loss(input, target *Tensor, reduction Reduction, beta float64) (*Tensor, error) {
	return fromTensors(func() uintptr {
		return capi.Smooth_l1_loss(input.cptr(), target.cptr(), int(reduction), beta)
	}, input, target)
}

// HuberLoss is torch.nn.functional.huber_loss(input, target, reduction,
// delta): 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (torch's
// delta is 1). InvalidArgument for delta <= 0.
func HuberLoss(input, target *Tensor, reduction Reduction, delta float64) (*Tensor, error) {
	return fromTensors(func() uintptr {
		return capi.Huber_loss(input.cptr(), target.cptr(), int(reduction), delta)
	}, input, target)
}

// KLDiv is torch.nn.functional.kl_div(input, target, reduction, log_target):
// input holds log-probabilities, target probabilities (log-probabilities when
// logTarget). torch's "batchmean" is ReductionSum divided by the batch size.
func KLDiv(input, target *Tensor, reduction Reduction, logTarget bool) (*Tensor, error) {
	return fromTensors(func() uintptr {
		return capi.Kl_div(input.cptr(), target.cptr(), int(reduction), logTarget)
	}, input, target)
}

// NLLLoss is torch.nn.functional.nll_loss(input, target, weight, reduction,
// ignore_index): input [N, C] (or [C], or [N, C, d1, ...]) of
// log-probabilities, target int64 class indices, weight nil or [C]
// (torch's ignore_index is -100). IndexOutOfRange ("Target 4 is out of
// bounds."), ShapeMismatch with torch's messages.
func NLLLoss(input, target, weight *Tensor, reduction Reduction, ignoreIndex int64) (*Tensor, error) {
	if err := refuseClosed("NLLLoss: weight", weight); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Nll_loss(input.cptr(), target.cptr(), weight.cptr(), int(reduction), ignoreIndex)
	}, input, target, weight)
}

// CrossEntropy is torch.nn.functional.cross_entropy(input, target, weight,
// reduction, ignore_index, label_smoothing): log_softmax over dim 1 then
// NLLLoss, labelSmoothing in [0, 1] mixing in the uniform distribution;
// target int64 class indices, or class probabilities of input's shape (then
// ignoreIndex does not apply); weight nil or [C]. The method
// Tensor.CrossEntropy is the plain mean over class indices.
func CrossEntropy(input, target, weight *Tensor, reduction Reduction, ignoreIndex int64,
	labelSmoothing float64) (*Tensor, error) {
	if err := refuseClosed("CrossEntropy: weight", weight); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Cross_entropy_loss(input.cptr(), target.cptr(), weight.cptr(), int(reduction), ignoreIndex,
			labelSmoothing)
	}, input, target, weight)
}

// BinaryCrossEntropy is torch.nn.functional.binary_cross_entropy(input,
// target, weight, reduction): -w (t log x + (1 - t) log(1 - x)), the logs
// clamped at -100; input probabilities of target's shape, weight nil or
// broadcastable.
func BinaryCrossEntropy(input, target, weight *Tensor, reduction Reduction) (*Tensor, error) {
	if err := refuseClosed("BinaryCrossEntropy: weight", weight); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Binary_cross_entropy(input.cptr(), target.cptr(), weight.cptr(), int(reduction))
	}, input, target, weight)
}

// BinaryCrossEntropyWithLogits is
// torch.nn.functional.binary_cross_entropy_with_logits(input, target, weight,
// pos_weight, reduction): BinaryCrossEntropy of sigmoid(input), computed
// stably from the logits; posWeight (nil or broadcastable over the classes)
// weighs the positive term.
func BinaryCrossEntropyWithLogits(input, target, weight, posWeight *Tensor, reduction Reduction) (*Tensor, error) {
	if err := refuseClosed("BinaryCrossEntropyWithLogits: weight", weight); err != nil {
		return nil, err
	}
	if err := refuseClosed("BinaryCrossEntropyWithLogits: posWeight", posWeight); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Binary_cross_entropy_with_logits(input.cptr(), target.cptr(), weight.cptr(), posWeight.cptr(),
			int(reduction))
	}, input, target, weight, posWeight)
}
