package tessera_test

import (
	"errors"
	"testing"

	"tessera.dev/tessera"
)

// Function 2: the context (needs_input_grad, two outputs, mark_dirty,
// mark_non_differentiable, set_materialize_grads, saved tensors' version
// check) and its misuse.

// mulAdd is (a*b, a+b); it records NeedsInputGrad in both phases and gives
// no gradient to an input that needs none.
func mulAdd(needs *[2][2]bool) fn {
	return fn{
		name: "MulAdd",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			for i := range in {
				n, err := ctx.NeedsInputGrad(i)
				if err != nil {
					return nil, err
				}
				needs[0][i] = n
			}
			if err := ctx.SaveForBackward(in[0], in[1]); err != nil {
				return nil, err
			}
			var s scope
			prod, sum := s.keep(in[0].Mul(in[1])), s.keep(in[0].Add(in[1]))
			if s.err != nil {
				s.close()
				return nil, s.err
			}
			return []*tessera.Tensor{prod, sum}, nil
		},
		backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
			saved, err := ctx.SavedTensors()
			if err != nil {
				return nil, err
			}
			grads := make([]*tessera.Tensor, 2)
			var s scope
			defer s.close()
			for i := range grads {
				if needs[1][i], err = ctx.NeedsInputGrad(i); err != nil || !needs[1][i] {
					continue
				}
				// d(a*b)/da = b, d(a+b)/da = 1 (and the same for b)
				grads[i], err = s.keep(g[0].Mul(saved[1-i])).Add(g[1])
				if err != nil {
					return nil, err
				}
			}
			return grads, err
		},
	}
}

func TestFunctionTwoOutputsAndNoGradientForAnInputWithout(t *testing.T) {
	a := got(leaf64([]float64{1, 2, 3}, true)).ok(t)
	defer a.Close()
	b := got(leaf64([]float64{4, 5, 6}, false)).ok(t)
	defer b.Close()
	var needs [2][2]bool
	outs := got(tessera.Apply(mulAdd(&needs), a, b)).ok(t)
	defer outs[0].Close()
	defer outs[1].Close()
	if len(outs) != 2 || !closeTo(got(outs[0].Float64s()).ok(t), []float64{4, 10, 18}, 0) ||
		!closeTo(got(outs[1].Float64s()).ok(t), []float64{5, 7, 9}, 0) {
		t.Fatalf("outputs %v", outs)
	}
	for _, o := range outs {
		if name := got(o.GradFnName()).ok(t); name != "MulAddBackward" {
			t.Errorf("grad_fn %q", name)
		}
	}
	s0 := got(outs[0].Sum(nil, false)).ok(t)
	defer s0.Close()
	s1 := got(outs[1].Sum(nil, false)).ok(t)
	defer s1.Close()
	loss := got(s0.Add(s1)).ok(t)
	defer loss.Close()
	noErr(t, loss.Backward())
	if needs != [2][2]bool{{true, false}, {true, false}} {
		t.Errorf("NeedsInputGrad (forward, backward) = %v", needs)
	}
	ga := got(a.Grad()).ok(t)
	defer ga.Close()
	if !closeTo(got(ga.Float64s()).ok(t), []float64{5, 6, 7}, 0) {
		t.Errorf("a.grad %v, want b + 1", ga)
	}
	if gb := got(b.Grad()).ok(t); gb != nil {
		t.Errorf("b.grad %v, want none", gb)
	}
}

// addOne writes x + 1 into x and returns it, marked dirty.
var addOne = fn{
	name: "AddOne",
	forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
		ones, err := tessera.Ones(in[0].Sizes(), tessera.Float64)
		if err != nil {
			return nil, err
		}
		defer ones.Close()
		if err := in[0].AddInPlace(ones, 1); err != nil {
			return nil, err
		}
		return []*tessera.Tensor{in[0]}, ctx.MarkDirty(in[0])
	},
	backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
		return []*tessera.Tensor{g[0]}, nil
	},
}

func TestFunctionMarkDirty(t *testing.T) {
	leaf := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer leaf.Close()
	x := got(leaf.MulScalar(2)).ok(t)
	defer x.Close()
	before := got(x.Version()).ok(t)
	outs := got(tessera.Apply(addOne, x)).ok(t)
	defer outs[0].Close()
	if v := got(x.Version()).ok(t); v <= before {
		t.Errorf("version %d after the in-place function, was %d", v, before)
	}
	if !got(outs[0].SharesStorage(x)).ok(t) || !closeTo(got(x.Float64s()).ok(t), []float64{3, 5}, 0) {
		t.Errorf("output %v, x %v: want x itself, written", outs[0], x)
	}
	// x's history now ends in the function (torch's rebase)
	if name := got(x.GradFnName()).ok(t); name != "AddOneBackward" {
		t.Errorf("x.grad_fn %q, want AddOneBackward", name)
	}
	s := got(x.Sum(nil, false)).ok(t)
	defer s.Close()
	noErr(t, s.Backward())
	g := got(leaf.Grad()).ok(t)
	defer g.Close()
	if !closeTo(got(g.Float64s()).ok(t), []float64{2, 2}, 0) {
		t.Errorf("leaf.grad %v, want 2s", g)
	}

	// a leaf that requires grad may not be written in place
	_, err := tessera.Apply(addOne, leaf)
	e := wantStatus(t, err, tessera.Autograd)
	wantMessage(t, e, "leaf Variable that requires grad")
}

// withIndex returns (2x, argmax x) with the index non-differentiable; the
// backward records the gradient it got for the index.
func withIndex(materialize bool, gotIndexGrad **tessera.Tensor, isNil *bool) fn {
	return fn{
		name: "WithIndex",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			var s scope
			twice, idx := s.keep(in[0].MulScalar(2)), s.keep(in[0].Argmax(0, false))
			if s.err == nil {
				s.err = ctx.MarkNonDifferentiable(idx)
			}
			if s.err == nil {
				s.err = ctx.SetMaterializeGrads(materialize)
			}
			if s.err != nil {
				s.close()
				return nil, s.err
			}
			return []*tessera.Tensor{twice, idx}, nil
		},
		backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
			*isNil = g[1] == nil
			if g[1] != nil {
				var err error
				if *gotIndexGrad, err = g[1].Clone(tessera.PreserveFormat); err != nil {
					return nil, err
				}
			}
			grad, err := g[0].MulScalar(2)
			return []*tessera.Tensor{grad}, err
		},
	}
}

func TestFunctionMarkNonDifferentiableAndMaterializeGrads(t *testing.T) {
	for _, materialize := range []bool{true, false} {
		x := got(leaf64([]float64{1, 7, 3}, true)).ok(t)
		var indexGrad *tessera.Tensor
		var isNil bool
		outs := got(tessera.Apply(withIndex(materialize, &indexGrad, &isNil), x)).ok(t)
		if got(outs[1].RequiresGrad()).ok(t) || !got(outs[0].RequiresGrad()).ok(t) {
			t.Errorf("requires_grad: values %v, index %v; want true, false",
				got(outs[0].RequiresGrad()).ok(t), got(outs[1].RequiresGrad()).ok(t))
		}
		if i := got(outs[1].ItemInt64()).ok(t); i != 1 {
			t.Errorf("argmax %d", i)
		}
		s := got(outs[0].Sum(nil, false)).ok(t)
		noErr(t, s.Backward())
		if isNil == materialize {
			t.Errorf("materialize %v: index gradient nil = %v", materialize, isNil)
		}
		if materialize && !closeTo(got(indexGrad.Float64s()).ok(t), []float64{0}, 0) {
			t.Errorf("materialized index gradient %v, want zeros", indexGrad)
		}
		g := got(x.Grad()).ok(t)
		if !closeTo(got(g.Float64s()).ok(t), []float64{2, 2, 2}, 0) {
			t.Errorf("x.grad %v", g)
		}
		for _, c := range []*tessera.Tensor{x, outs[0], outs[1], s, g, indexGrad} {
			c.Close()
		}
	}
}

func TestFunctionSavedInputModifiedInPlace(t *testing.T) {
	leaf := got(leaf64(swishInputs, true)).ok(t)
	defer leaf.Close()
	x := got(leaf.MulScalar(1)).ok(t)
	defer x.Close()
	var backwards int64
	ys := got(tessera.Apply(swish{backwards: &backwards}, x)).ok(t)
	defer ys[0].Close()
	noErr(t, x.MulScalarInPlace(3))
	s := got(ys[0].Sum(nil, false)).ok(t)
	defer s.Close()
	e := wantStatus(t, s.Backward(), tessera.Autograd)
	wantMessage(t, e, "modified by an inplace operation")
	if backwards != 0 {
		t.Errorf("backward ran %d times", backwards)
	}
}

// What a callback gets is lent (closed when it returns); what it returns is
// handed over (closed once the library holds its own reference), also when
// it fails.
func TestFunctionOwnership(t *testing.T) {
	var lent, returned, saved, failedReturn []*tessera.Tensor
	f := fn{
		name: "Owner",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			y, err := in[0].MulScalar(2)
			lent, returned = append(lent, in[0]), append(returned, y)
			if err == nil {
				err = ctx.SaveForBackward(in[0])
			}
			return []*tessera.Tensor{y}, err
		},
		backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
			s, err := ctx.SavedTensors()
			if err != nil {
				return nil, err
			}
			saved, lent = append(saved, s...), append(lent, g[0])
			grad, err := g[0].MulScalar(2)
			failedReturn = append(failedReturn, grad)
			return []*tessera.Tensor{grad}, errSentinel
		},
	}
	x := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer x.Close()
	ys := got(tessera.Apply(f, x)).ok(t)
	defer ys[0].Close()
	s := got(ys[0].Sum(nil, false)).ok(t)
	defer s.Close()
	if err := s.Backward(); !errors.Is(err, errSentinel) {
		t.Fatalf("backward: %v", err)
	}
	all := append(append(append(lent, returned...), saved...), failedReturn...)
	if len(all) != 5 {
		t.Fatalf("%d tensors seen, want 5", len(all))
	}
	for i, c := range all {
		if c.Sizes() != nil {
			t.Errorf("tensor %d is still open after its callback", i)
		}
	}
	// the library's references live on: y and x are intact
	if !closeTo(got(ys[0].Float64s()).ok(t), []float64{2, 4}, 0) || !closeTo(got(x.Float64s()).ok(t), []float64{1, 2}, 0) {
		t.Errorf("y %v, x %v", ys[0], x)
	}
}
