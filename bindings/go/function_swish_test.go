package tessera_test

import (
	"math"
	"testing"

	"tessera.dev/tessera"
)

// Function 1: a custom swish against the composed ops and against central
// finite differences, and inside a checkpoint region.

var swishInputs = []float64{-3.5, -1.25, -0.5, 0, 0.25, 1, 2.75, 6}

// weightedGrad is x's gradient after backward of sum(w * y).
func weightedGrad(t *testing.T, x, y, w *tessera.Tensor) []float64 {
	t.Helper()
	noErr(t, x.SetGrad(nil))
	noErr(t, y.BackwardWith(w, false))
	g := got(x.Grad()).ok(t)
	defer g.Close()
	return got(g.Float64s()).ok(t)
}

func TestFunctionSwishMatchesComposedAndFiniteDifferences(t *testing.T) {
	x := got(leaf64(swishInputs, true)).ok(t)
	defer x.Close()
	w := got(tessera.FromFloat64s([]float64{0.5, -1, 2, 1.5, -0.25, 3, 1, -2}, []int64{8}, tessera.Float64)).ok(t)
	defer w.Close()

	var forwards, backwards int64
	ys := got(tessera.Apply(swish{&forwards, &backwards}, x)).ok(t)
	if len(ys) != 1 {
		t.Fatalf("%d outputs, want 1", len(ys))
	}
	y := ys[0]
	defer y.Close()
	if name := got(y.GradFnName()).ok(t); name != "SwishBackward" {
		t.Errorf("grad_fn %q, want SwishBackward", name)
	}
	ref := got(composedSwish(x)).ok(t)
	defer ref.Close()
	if !closeTo(got(y.Float64s()).ok(t), got(ref.Float64s()).ok(t), 1e-12) {
		t.Errorf("values %v, composed %v", got(y.Float64s()).ok(t), got(ref.Float64s()).ok(t))
	}

	grad := weightedGrad(t, x, y, w)
	want := weightedGrad(t, x, ref, w)
	if !closeTo(grad, want, 1e-12) {
		t.Errorf("gradient %v, composed ops %v", grad, want)
	}
	if forwards != 1 || backwards != 1 {
		t.Errorf("%d forwards, %d backwards; want 1 each", forwards, backwards)
	}

	// Central differences of the function's own forward, element by element
	// (swish is elementwise): w * (f(x+h) - f(x-h)) / 2h.
	const h = 1e-6
	weights := got(w.Float64s()).ok(t)
	shifted := func(d float64) []float64 {
		xs := make([]float64, len(swishInputs))
		for i, v := range swishInputs {
			xs[i] = v + d
		}
		in := got(leaf64(xs, false)).ok(t)
		defer in.Close()
		out := got(tessera.Apply(swish{}, in)).ok(t)
		defer out[0].Close()
		return got(out[0].Float64s()).ok(t)
	}
	up, down := shifted(h), shifted(-h)
	for i := range grad {
		fd := weights[i] * (up[i] - down[i]) / (2 * h)
		if math.Abs(grad[i]-fd) > 1e-6*(1+math.Abs(fd)) {
			t.Errorf("element %d: gradient %v, finite differences %v", i, grad[i], fd)
		}
	}
}

// Inside a checkpoint region the function keeps nothing for backward and is
// recomputed as one unit: forward runs again, the gradient is the same.
func TestFunctionInCheckpointRegionIsRecomputed(t *testing.T) {
	x := got(leaf64(swishInputs, true)).ok(t)
	defer x.Close()
	var forwards, backwards int64
	var loss *tessera.Tensor
	noErr(t, tessera.WithCheckpoint(func() error {
		ys, err := tessera.Apply(swish{&forwards, &backwards}, x)
		if err != nil {
			return err
		}
		defer ys[0].Close()
		sq, err := ys[0].Mul(ys[0])
		if err != nil {
			return err
		}
		defer sq.Close()
		loss, err = sq.Sum(nil, false)
		return err
	}))
	defer loss.Close()
	noErr(t, loss.Backward())
	if forwards != 2 || backwards != 1 {
		t.Errorf("%d forwards, %d backwards; want 2 (one replay) and 1", forwards, backwards)
	}
	g := got(x.Grad()).ok(t)
	defer g.Close()

	// The same loss without the region, composed.
	x2 := got(leaf64(swishInputs, true)).ok(t)
	defer x2.Close()
	y2 := got(composedSwish(x2)).ok(t)
	defer y2.Close()
	sq2 := got(y2.Mul(y2)).ok(t)
	defer sq2.Close()
	loss2 := got(sq2.Sum(nil, false)).ok(t)
	defer loss2.Close()
	noErr(t, loss2.Backward())
	g2 := got(x2.Grad()).ok(t)
	defer g2.Close()
	if !closeTo(got(g.Float64s()).ok(t), got(g2.Float64s()).ok(t), 1e-12) {
		t.Errorf("checkpointed gradient %v, composed %v", got(g.Float64s()).ok(t), got(g2.Float64s()).ok(t))
	}
}

// Backward is made of tessera ops, so under CreateGraph its result is
// differentiable again: the second derivative matches the composed ops'.
func TestFunctionDoubleBackward(t *testing.T) {
	secondDerivative := func(f func(*tessera.Tensor) (*tessera.Tensor, error)) []float64 {
		x := got(leaf64(swishInputs, true)).ok(t)
		defer x.Close()
		y := got(f(x)).ok(t)
		defer y.Close()
		s := got(y.Sum(nil, false)).ok(t)
		defer s.Close()
		first := got(tessera.AutogradGrad([]*tessera.Tensor{s}, []*tessera.Tensor{x},
			tessera.GradOptions{CreateGraph: true, RetainGraph: true})).ok(t)
		defer first[0].Close()
		s1 := got(first[0].Sum(nil, false)).ok(t)
		defer s1.Close()
		second := got(tessera.AutogradGrad([]*tessera.Tensor{s1}, []*tessera.Tensor{x}, tessera.GradOptions{})).ok(t)
		defer second[0].Close()
		return got(second[0].Float64s()).ok(t)
	}
	custom := secondDerivative(func(x *tessera.Tensor) (*tessera.Tensor, error) {
		ys, err := tessera.Apply(swish{}, x)
		if err != nil {
			return nil, err
		}
		return ys[0], nil
	})
	composed := secondDerivative(composedSwish)
	if !closeTo(custom, composed, 1e-12) {
		t.Errorf("second derivative %v, composed %v", custom, composed)
	}
}
