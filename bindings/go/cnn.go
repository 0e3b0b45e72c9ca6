package tessera

import "tessera.dev/tessera/internal/capi"

// The convolutional layers of cnn.h: Conv2d, MaxPool2d, AvgPool2d,
// AdaptiveAvgPool2d and BatchNorm, as torch.nn.functional computes them.
// Pair arguments are [2]int64{H, W}; each result is a new tensor to Close.
// Outputs are channels_last when the input (or Conv2d's weight) is.

// Conv2d is torch.nn.functional.conv2d: input [N, C_in, H, W], weight
// [C_out, C_in/groups, kH, kW], bias nil (none) or [C_out]. ShapeMismatch
// with torch's messages ("Given groups=1, weight of size ..."),
// InvalidArgument for a non-positive stride, dilation or groups.
func Conv2d(input, weight, bias *Tensor, stride, padding, dilation [2]int64, groups int64) (*Tensor, error) {
	if err := refuseClosed("Conv2d: bias", bias); err != nil {
		return nil, err
	}
	return fromTensors(func() uintptr {
		return capi.Conv2d(input.cptr(), weight.cptr(), bias.cptr(), stride[:], padding[:], dilation[:], groups)
	}, input, weight, bias)
}

// poolStride is stride as the wrapper takes it: none (kernel size) for nil.
func poolStride(stride *[2]int64) []int64 {
	if stride == nil {
		return []int64{}
	}
	return stride[:]
}

// MaxPool2d is torch.nn.functional.max_pool2d(input, kernelSize, stride,
// padding, dilation, ceilMode, return_indices=True): the maxima and their
// int64 indices (h*W + w in each plane). stride nil means kernelSize.
func MaxPool2d(input *Tensor, kernelSize [2]int64, stride *[2]int64, padding, dilation [2]int64,
	ceilMode bool) (values, indices *Tensor, err error) {
	pair, err := input.pieces(func(h capi.SwigcptrTensor) uintptr {
		return capi.Max_pool2d_with_indices(uintptr(h), kernelSize[:], poolStride(stride), padding[:],
			dilation[:], ceilMode)
	})
	if err != nil {
		return nil, nil, err
	}
	return pair[0], pair[1], nil
}

// AvgPool2d is torch.nn.functional.avg_pool2d (no divisor_override); stride
// nil means kernelSize.
func AvgPool2d(input *Tensor, kernelSize [2]int64, stride *[2]int64, padding [2]int64, ceilMode,
	countIncludePad bool) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Avg_pool2d(uintptr(h), kernelSize[:], poolStride(stride), padding[:], ceilMode, countIncludePad)
	})
}

// AdaptiveAvgPool2d is torch.nn.functional.adaptive_avg_pool2d.
func AdaptiveAvgPool2d(input *Tensor, outputSize [2]int64) (*Tensor, error) {
	return input.derive(func(h capi.SwigcptrTensor) uintptr {
		return capi.Adaptive_avg_pool2d(uintptr(h), outputSize[:])
	})
}

// BatchNorm is torch.nn.functional.batch_norm: runningMean / runningVar
// ([C], nil only when training) are updated in place when training
// (momentum, unbiased variance); weight and bias nil (none) or [C].
func BatchNorm(input, runningMean, runningVar, weight, bias *Tensor, training bool, momentum,
	eps float64) (*Tensor, error) {
	for _, a := range []struct {
		t    *Tensor
		what string
	}{{runningMean, "runningMean"}, {runningVar, "runningVar"}, {weight, "weight"}, {bias, "bias"}} {
		if err := refuseClosed("BatchNorm: "+a.what, a.t); err != nil {
			return nil, err
		}
	}
	return fromTensors(func() uintptr {
		return capi.Batch_norm(input.cptr(), runningMean.cptr(), runningVar.cptr(), weight.cptr(), bias.cptr(),
			training, momentum, eps)
	}, input, runningMean, runningVar, weight, bias)
}
