package main

import (
	"math"

	"tessera.dev/tessera"
)

const hidden = 128

// mlp is a 64-128-10 perceptron written as PyTorch users write it:
// nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)). Its
// state_dict names are torch's: "0.weight", "0.bias", "2.weight", "2.bias".
type mlp struct {
	net *tessera.Sequential
}

// newMLP builds the layers with He initialisation drawn from g, as
// examples/digits/mlp.c: each weight normal with std sqrt(2 / fan_in), each
// bias zero. nn.Linear's own default (kaiming_uniform_ with a = sqrt(5))
// starts smaller and reaches only about 95% in the example's 25 epochs;
// re-initialising the layers is how a PyTorch script chooses another init too.
func newMLP(g *tessera.Generator) (*mlp, error) {
	first, err := tessera.NewLinear(pixels, hidden, true, g)
	if err != nil {
		return nil, err
	}
	second, err := tessera.NewLinear(hidden, classes, true, g)
	if err != nil {
		first.Close()
		return nil, err
	}
	net, err := tessera.NewSequential(first, tessera.NewReLU(), second)
	if err != nil {
		first.Close()
		second.Close()
		return nil, err
	}
	for _, l := range []*tessera.LinearLayer{first, second} {
		err = tessera.InitNormal(l.Weight, 0, math.Sqrt(2/float64(l.InFeatures)), g)
		if err == nil {
			err = tessera.InitZeros(l.Bias)
		}
		if err != nil {
			net.Close()
			return nil, err
		}
	}
	return &mlp{net}, nil
}

func (m *mlp) Close() error { return m.net.Close() }

// forward is the logits [N, 10] of images x [N, 64].
func (m *mlp) forward(x *tessera.Tensor) (*tessera.Tensor, error) { return m.net.Forward(x) }

// sgdStep is p -= lr * p.grad for every parameter, with gradient recording
// off (torch.no_grad()), then zeroes the gradients (model.zero_grad()).
func (m *mlp) sgdStep(lr float64) error {
	err := tessera.NoGrad(func() error {
		for _, p := range tessera.Parameters(m.net) {
			grad, err := p.Grad()
			if err != nil {
				return err
			}
			if grad == nil {
				continue
			}
			err = p.AddInPlace(grad, -lr)
			grad.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tessera.ZeroGrad(m.net)
}

// predict is the most likely class of each image of x.
func (m *mlp) predict(x *tessera.Tensor) (classes []int64, err error) {
	err = tessera.NoGrad(func() error {
		logits, err := m.forward(x)
		if err != nil {
			return err
		}
		defer logits.Close()
		best, err := logits.Argmax(1, false)
		if err != nil {
			return err
		}
		defer best.Close()
		classes, err = best.Int64s()
		return err
	})
	return classes, err
}
