package main

import (
	"tessera.dev/tessera"
)

// network is loss = sum((swish(x W1) W2)^2), the block swish(x W1) W2
// optionally in a checkpoint region: the region keeps no activations, and
// backward recomputes what it needs of the block, here swish(x W1) for the
// second matmul's backward: the custom function's forward runs again.
type network struct {
	x, w2 *tessera.Tensor
	swish Swish
}

// gradient is W1's gradient (of a fresh leaf with w1's values) and the
// loss. W2 is trained too, so the second matmul keeps swish's output for
// its backward: that is what the checkpointed run recomputes.
func (n network) gradient(w1 *tessera.Tensor, checkpointed bool) ([]float64, float64, error) {
	w, err := trainable(w1)
	if err != nil {
		return nil, 0, err
	}
	defer w.Close()
	w2, err := trainable(n.w2)
	if err != nil {
		return nil, 0, err
	}
	defer w2.Close()
	var out *tessera.Tensor
	block := func() error {
		var o ops
		defer o.close()
		h := o.keep(apply(n.swish, o.keep(n.x.Matmul(w))))
		if o.err != nil {
			return o.err
		}
		out, err = h.Matmul(w2)
		return err
	}
	if checkpointed {
		err = tessera.WithCheckpoint(block)
	} else {
		err = block()
	}
	if err != nil {
		return nil, 0, err
	}
	defer out.Close()
	var o ops
	defer o.close()
	loss := o.keep(o.keep(out.Mul(out)).Sum(nil, false))
	if o.err != nil {
		return nil, 0, o.err
	}
	if err := loss.Backward(); err != nil {
		return nil, 0, err
	}
	value, err := loss.Item()
	if err != nil {
		return nil, 0, err
	}
	grad, err := w.Grad()
	if err != nil {
		return nil, 0, err
	}
	defer grad.Close()
	values, err := grad.Float64s()
	return values, value, err
}

// trainable is a new leaf with t's values that requires grad.
func trainable(t *tessera.Tensor) (*tessera.Tensor, error) {
	leaf, err := t.Detach()
	if err != nil {
		return nil, err
	}
	if err := leaf.SetRequiresGrad(true); err != nil {
		leaf.Close()
		return nil, err
	}
	return leaf, nil
}

// apply runs a one-output Function.
func apply(f tessera.Function, x *tessera.Tensor) (*tessera.Tensor, error) {
	out, err := tessera.Apply(f, x)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// composedSwish is x * sigmoid(x) made of tessera ops, the reference.
func composedSwish(x *tessera.Tensor) (*tessera.Tensor, error) {
	sig, err := x.Sigmoid()
	if err != nil {
		return nil, err
	}
	defer sig.Close()
	return x.Mul(sig)
}

// gradient is d sum(f(x)) / dx at x's values.
func gradient(x *tessera.Tensor, f func(*tessera.Tensor) (*tessera.Tensor, error)) ([]float64, error) {
	leaf, err := trainable(x)
	if err != nil {
		return nil, err
	}
	defer leaf.Close()
	y, err := f(leaf)
	if err != nil {
		return nil, err
	}
	defer y.Close()
	s, err := y.Sum(nil, false)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.Backward(); err != nil {
		return nil, err
	}
	g, err := leaf.Grad()
	if err != nil {
		return nil, err
	}
	defer g.Close()
	return g.Float64s()
}
