package main

import (
	"math"

	"tessera.dev/tessera"
)

const hidden = 128

// paramNames are the checkpoint's tensor names, in params order.
var paramNames = []string{"w1", "b1", "w2", "b2"}

// mlp is a 64-128-10 perceptron: logits = relu(x @ w1 + b1) @ w2 + b2.
type mlp struct {
	params []*tessera.Tensor // w1, b1, w2, b2
}

// heWeight is a [fanIn, fanOut] normal weight scaled by sqrt(2 / fanIn),
// scaled while it is still a plain tensor: in-place writes to a tensor that
// requires grad are an autograd error outside NoGrad, as in PyTorch.
func heWeight(fanIn, fanOut int64, g *tessera.Generator) (*tessera.Tensor, error) {
	w, err := tessera.Randn([]int64{fanIn, fanOut}, tessera.Float32, g)
	if err != nil {
		return nil, err
	}
	if err := w.MulScalarInPlace(math.Sqrt(2 / float64(fanIn))); err != nil {
		w.Close()
		return nil, err
	}
	return w, w.SetRequiresGrad(true)
}

func zeroBias(n int64) (*tessera.Tensor, error) {
	b, err := tessera.Zeros([]int64{n}, tessera.Float32)
	if err != nil {
		return nil, err
	}
	return b, b.SetRequiresGrad(true)
}

// newMLP draws the weights from g in the C example's order (w1, then w2).
func newMLP(g *tessera.Generator) (*mlp, error) {
	m := &mlp{}
	for _, newParam := range []func() (*tessera.Tensor, error){
		func() (*tessera.Tensor, error) { return heWeight(pixels, hidden, g) },
		func() (*tessera.Tensor, error) { return zeroBias(hidden) },
		func() (*tessera.Tensor, error) { return heWeight(hidden, classes, g) },
		func() (*tessera.Tensor, error) { return zeroBias(classes) },
	} {
		p, err := newParam()
		if err != nil {
			m.Close()
			return nil, err
		}
		m.params = append(m.params, p)
	}
	return m, nil
}

func (m *mlp) Close() error {
	for _, p := range m.params {
		p.Close()
	}
	return nil
}

// linear is x @ w + b; the bias row broadcasts over the batch.
func linear(x, w, b *tessera.Tensor) (*tessera.Tensor, error) {
	xw, err := x.Matmul(w)
	if err != nil {
		return nil, err
	}
	defer xw.Close() // the graph keeps what backward needs
	return xw.Add(b)
}

// forward is the logits [N, 10] of images x [N, 64].
func (m *mlp) forward(x *tessera.Tensor) (*tessera.Tensor, error) {
	z1, err := linear(x, m.params[0], m.params[1])
	if err != nil {
		return nil, err
	}
	defer z1.Close()
	h, err := z1.Relu()
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return linear(h, m.params[2], m.params[3])
}

// sgdStep is p -= lr * p.grad for every parameter, with gradient recording
// off (torch.no_grad()), then zeroes the gradients.
func (m *mlp) sgdStep(lr float64) error {
	err := tessera.NoGrad(func() error {
		for _, p := range m.params {
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
	for _, p := range m.params {
		if err := p.ZeroGrad(); err != nil {
			return err
		}
	}
	return nil
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
