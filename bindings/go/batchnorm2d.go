package tessera

// BatchNorm2d is torch.nn.BatchNorm2d(num_features, eps, momentum) with the
// affine Weight (ones) and Bias (zeros) and the running statistics as
// buffers: running_mean (zeros), running_var (ones), num_batches_tracked
// (int64 0). In training mode Forward normalizes with the batch's statistics
// and updates the running ones (running = (1 - momentum) running + momentum
// batch); in eval mode (Train(false)) it uses the running ones.
type BatchNorm2d struct {
	ModuleBase
	Eps, Momentum                              float64
	Weight, Bias                               *Tensor // the module's own: not to be closed
	RunningMean, RunningVar, NumBatchesTracked *Tensor
}

// NewBatchNorm2d: torch's defaults are eps 1e-5, momentum 0.1.
func NewBatchNorm2d(numFeatures int64, eps, momentum float64) (*BatchNorm2d, error) {
	bn := &BatchNorm2d{Eps: eps, Momentum: momentum}
	if err := bn.init(numFeatures); err != nil {
		bn.Close()
		return nil, err
	}
	return bn, nil
}

func (bn *BatchNorm2d) init(n int64) error {
	c := []int64{n}
	for _, r := range []struct {
		name      string
		slot      **Tensor
		make      func() (*Tensor, error)
		parameter bool
	}{
		{"weight", &bn.Weight, func() (*Tensor, error) { return Ones(c, Float32) }, true},
		{"bias", &bn.Bias, func() (*Tensor, error) { return Zeros(c, Float32) }, true},
		{"running_mean", &bn.RunningMean, func() (*Tensor, error) { return Zeros(c, Float32) }, false},
		{"running_var", &bn.RunningVar, func() (*Tensor, error) { return Ones(c, Float32) }, false},
		{"num_batches_tracked", &bn.NumBatchesTracked, func() (*Tensor, error) { return Zeros(nil, Int64) }, false},
	} {
		t, err := r.make()
		if err != nil {
			return err
		}
		if r.parameter {
			err = bn.RegisterParameter(r.name, t)
		} else {
			err = bn.RegisterBuffer(r.name, t, true)
		}
		if err != nil {
			t.Close()
			return err
		}
		*r.slot = t
	}
	return nil
}

// Forward takes input [N, C, H, W]; InvalidArgument "expected 4D input (got
// 3D input)" otherwise, torch's ValueError.
func (bn *BatchNorm2d) Forward(input *Tensor) (*Tensor, error) {
	ndim, err := input.Ndim()
	if err != nil {
		return nil, err
	}
	if ndim != 4 {
		return nil, newError(InvalidArgument, "expected 4D input (got "+itoa(ndim)+"D input)")
	}
	training := bn.IsTraining()
	if training {
		// torch counts batches even with a fixed momentum (it reads the
		// count only when momentum is None).
		n, err := bn.NumBatchesTracked.ItemInt64()
		if err != nil {
			return nil, err
		}
		if err := bn.NumBatchesTracked.Fill(float64(n + 1)); err != nil {
			return nil, err
		}
	}
	return BatchNorm(input, bn.RunningMean, bn.RunningVar, bn.Weight, bn.Bias, training, bn.Momentum, bn.Eps)
}
