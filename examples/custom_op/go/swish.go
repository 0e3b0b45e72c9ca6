package main

import (
	"math"
	"sync/atomic"

	"tessera.dev/tessera"
)

// Swish is y = x * sigmoid(x) as one custom op: the forward is fused (one
// pass over the values in Go instead of two tessera ops and a temporary),
// and the backward is written with tessera ops, so it works under
// create_graph too. It counts its calls to show the checkpoint replay.
type Swish struct {
	Forwards, Backwards *int64
}

// Name gives the outputs' grad_fn "SwishBackward".
func (Swish) Name() string { return "Swish" }

// Forward computes y from x's float64 values and saves x: backward needs
// sigmoid(x), which is cheaper to recompute than to keep.
func (s Swish) Forward(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
	atomic.AddInt64(s.Forwards, 1)
	x := in[0]
	xs, err := x.Float64s()
	if err != nil {
		return nil, err
	}
	ys := make([]float64, len(xs))
	for i, v := range xs {
		ys[i] = v / (1 + math.Exp(-v))
	}
	y, err := tessera.FromFloat64s(ys, x.Sizes(), tessera.Float64)
	if err != nil {
		return nil, err
	}
	if err := ctx.SaveForBackward(x); err != nil {
		y.Close()
		return nil, err
	}
	return []*tessera.Tensor{y}, nil
}

// Backward is grad * (s + x s (1 - s)) with s = sigmoid(x).
func (s Swish) Backward(ctx *tessera.FunctionContext, grads []*tessera.Tensor) ([]*tessera.Tensor, error) {
	atomic.AddInt64(s.Backwards, 1)
	saved, err := ctx.SavedTensors() // lent: closed when Backward returns
	if err != nil {
		return nil, err
	}
	x := saved[0]
	var o ops
	defer o.close()
	sig := o.keep(x.Sigmoid())
	oneMinus := o.keep(o.keep(sig.Neg()).AddScalar(1))
	slope := o.keep(sig.Add(o.keep(o.keep(x.Mul(sig)).Mul(oneMinus))))
	if o.err != nil {
		return nil, o.err
	}
	g, err := grads[0].Mul(slope)
	return []*tessera.Tensor{g}, err // handed over: the package closes g
}

// ops keeps the intermediates of a chain of tessera ops and its first
// error, so the chain reads as math and everything is closed once.
type ops struct {
	tensors []*tessera.Tensor
	err     error
}

func (o *ops) keep(t *tessera.Tensor, err error) *tessera.Tensor {
	if o.err == nil {
		o.err = err
	}
	if t != nil {
		o.tensors = append(o.tensors, t)
	}
	return t
}

func (o *ops) close() {
	for _, t := range o.tensors {
		t.Close()
	}
}
