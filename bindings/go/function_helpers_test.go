package tessera_test

import (
	"math"
	"sync/atomic"

	"tessera.dev/tessera"
)

// Helpers of the Function tests. Callbacks run inside a cgo call: they
// report trouble by returning an error, never with t.Fatal (runtime.Goexit
// must not unwind through the library), so they build on scope below.

// scope keeps the tensors a chain of ops makes and its first error:
// s.keep(x.Sigmoid()) is the result (nil after a failure, which the next op
// refuses, so the first error is the one kept); s.close() closes them all.
type scope struct {
	tensors []*tessera.Tensor
	err     error
}

func (s *scope) keep(t *tessera.Tensor, err error) *tessera.Tensor {
	if s.err == nil {
		s.err = err
	}
	if t != nil {
		s.tensors = append(s.tensors, t)
	}
	return t
}

func (s *scope) close() {
	for _, t := range s.tensors {
		t.Close()
	}
}

// fn is a Function made of closures, for tests that need one quirk each.
type fn struct {
	name     string
	forward  func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error)
	backward func(ctx *tessera.FunctionContext, grads []*tessera.Tensor) ([]*tessera.Tensor, error)
}

func (f fn) Name() string { return f.name }
func (f fn) Forward(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
	return f.forward(ctx, in)
}
func (f fn) Backward(ctx *tessera.FunctionContext, grads []*tessera.Tensor) ([]*tessera.Tensor, error) {
	return f.backward(ctx, grads)
}

// swish is y = x * sigmoid(x) as a Function: forward over the float64
// values in Go, backward with tessera ops, grad * (s + x s (1 - s)).
// forwards and backwards count the calls when set.
type swish struct {
	forwards, backwards *int64
}

func count(c *int64) {
	if c != nil {
		atomic.AddInt64(c, 1)
	}
}

func (swish) Name() string { return "Swish" }

func (f swish) Forward(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
	count(f.forwards)
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

func (f swish) Backward(ctx *tessera.FunctionContext, grads []*tessera.Tensor) ([]*tessera.Tensor, error) {
	count(f.backwards)
	saved, err := ctx.SavedTensors()
	if err != nil {
		return nil, err
	}
	x := saved[0]
	var s scope
	defer s.close()
	sig := s.keep(x.Sigmoid())
	oneMinus := s.keep(s.keep(sig.Neg()).AddScalar(1))
	slope := s.keep(sig.Add(s.keep(s.keep(x.Mul(sig)).Mul(oneMinus))))
	if s.err != nil {
		return nil, s.err
	}
	g, err := grads[0].Mul(slope)
	return []*tessera.Tensor{g}, err
}

// composedSwish is x * x.Sigmoid() through autograd, the reference.
func composedSwish(x *tessera.Tensor) (*tessera.Tensor, error) {
	sig, err := x.Sigmoid()
	if err != nil {
		return nil, err
	}
	defer sig.Close()
	return x.Mul(sig)
}

// leaf64 is a float64 leaf with values, requiring grad when asked.
func leaf64(values []float64, requiresGrad bool) (*tessera.Tensor, error) {
	x, err := tessera.FromFloat64s(values, []int64{int64(len(values))}, tessera.Float64)
	if err == nil && requiresGrad {
		err = x.SetRequiresGrad(true)
	}
	return x, err
}
