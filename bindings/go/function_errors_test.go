package tessera_test

import (
	"errors"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// Function 3: errors and panics in the callbacks come back as themselves,
// and every refusal of Apply, of what the callbacks return and of the
// context's misuse.

var errSentinel = errors.New("sentinel failure")

// failing is swish with one way to fail in one phase.
func failing(phase, how string) fn {
	fail := func() error {
		switch how {
		case "error":
			return errSentinel
		case "panic error":
			panic(errSentinel)
		default:
			panic("kaboom")
		}
	}
	s := swish{}
	return fn{
		name: "Boom",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			if phase == "forward" {
				return nil, fail()
			}
			return s.Forward(ctx, in)
		},
		backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
			if phase == "backward" {
				return nil, fail()
			}
			return s.Backward(ctx, g)
		},
	}
}

// runBoom applies f and, for a backward failure, runs backward through
// Tensor.Backward or AutogradGrad; the error of the failing call.
func runBoom(t *testing.T, f fn, viaGrad bool) error {
	x := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer x.Close()
	ys, err := tessera.Apply(f, x)
	if err != nil {
		return err
	}
	defer ys[0].Close()
	s := got(ys[0].Sum(nil, false)).ok(t)
	defer s.Close()
	if !viaGrad {
		return s.Backward()
	}
	grads, err := tessera.AutogradGrad([]*tessera.Tensor{s}, []*tessera.Tensor{x}, tessera.GradOptions{})
	for _, g := range grads {
		g.Close()
	}
	return err
}

func TestFunctionCallbackErrorsAndPanicsComeBack(t *testing.T) {
	for _, phase := range []string{"forward", "backward"} {
		for _, how := range []string{"error", "panic error", "panic value"} {
			for _, viaGrad := range []bool{false, true} {
				name := phase + "/" + how
				err := runBoom(t, failing(phase, how), viaGrad)
				e := wantStatus(t, err, tessera.InvalidArgument)
				wantMessage(t, e, "Boom."+phase+": ")
				var p *tessera.FunctionPanic
				isPanic := errors.As(err, &p)
				switch how {
				case "error":
					if !errors.Is(err, errSentinel) || isPanic {
						t.Errorf("%s: %v does not wrap the callback's error", name, err)
					}
					wantMessage(t, e, "sentinel failure")
				case "panic error":
					if !errors.Is(err, errSentinel) || !isPanic {
						t.Errorf("%s: %v does not wrap the panic's error", name, err)
					}
					wantMessage(t, e, "panic: sentinel failure")
				default:
					if !isPanic || p.Value != "kaboom" || p.Function != "Boom" || p.Phase != phase ||
						!strings.Contains(string(p.Stack), "failing") {
						t.Errorf("%s: %v: panic %+v", name, err, p)
					}
					wantMessage(t, e, "panic: kaboom")
				}
			}
		}
	}
}

// A tessera call failing inside a callback keeps its status.
func TestFunctionTesseraErrorInsideKeepsItsStatus(t *testing.T) {
	f := fn{
		name: "Mismatch",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			other, err := tessera.Zeros([]int64{3}, tessera.Float64)
			if err != nil {
				return nil, err
			}
			defer other.Close()
			y, err := in[0].Add(other)
			return []*tessera.Tensor{y}, err
		},
	}
	x := got(leaf64([]float64{1, 2}, false)).ok(t)
	defer x.Close()
	_, err := tessera.Apply(f, x)
	e := wantStatus(t, err, tessera.ShapeMismatch)
	wantMessage(t, e, "Mismatch.forward: ")
	var inner *tessera.Error
	if cause := errors.Unwrap(err); !errors.As(cause, &inner) || inner.Status() != tessera.ShapeMismatch {
		t.Errorf("cause %v, want the Add's *Error", cause)
	}
}

// returning is a Function whose forward returns what out makes and whose
// backward returns what grads makes.
func returning(out func(in []*tessera.Tensor) []*tessera.Tensor,
	grads func(in []*tessera.Tensor) []*tessera.Tensor) fn {
	var inputs []*tessera.Tensor
	return fn{
		name: "Returning",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			inputs = in
			return out(in), nil
		},
		backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
			return grads(inputs), nil
		},
	}
}

func TestFunctionApplyRefusals(t *testing.T) {
	x := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer x.Close()
	closed := got(leaf64([]float64{1}, false)).ok(t)
	closed.Close()
	fresh := func(in []*tessera.Tensor) []*tessera.Tensor {
		y, _ := in[0].MulScalar(2)
		return []*tessera.Tensor{y}
	}
	many := make([]*tessera.Tensor, 65)
	for i := range many {
		many[i] = x
	}
	named := func(name string) fn { f := returning(fresh, nil); f.name = name; return f }
	cases := []struct {
		name   string
		f      tessera.Function
		inputs []*tessera.Tensor
		status tessera.Status
		part   string
	}{
		{"nil function", nil, nil, tessera.InvalidArgument, "the Function is nil"},
		{"empty name", named(""), []*tessera.Tensor{x}, tessera.InvalidArgument, "name is NULL or empty"},
		{"NUL in name", named("a\x00b"), []*tessera.Tensor{x}, tessera.InvalidArgument, "contains a NUL"},
		{"closed input", returning(fresh, nil), []*tessera.Tensor{x, closed}, tessera.InvalidArgument, "input 1 is closed"},
		{"65 inputs", returning(fresh, nil), many, tessera.InvalidArgument, "n_inputs must be 0..64"},
		{"no output", returning(func([]*tessera.Tensor) []*tessera.Tensor { return nil }, nil),
			[]*tessera.Tensor{x}, tessera.InvalidArgument, "returned 0 outputs"},
		{"65 outputs", returning(func(in []*tessera.Tensor) []*tessera.Tensor {
			out := make([]*tessera.Tensor, 65)
			for i := range out {
				out[i], _ = in[0].MulScalar(1)
			}
			return out
		}, nil),
			[]*tessera.Tensor{x}, tessera.InvalidArgument, "returned 65 outputs; at most 64"},
		{"nil output", returning(func([]*tessera.Tensor) []*tessera.Tensor { return []*tessera.Tensor{nil} }, nil),
			[]*tessera.Tensor{x}, tessera.InvalidArgument, "output 0 is NULL"},
		{"closed output", returning(func([]*tessera.Tensor) []*tessera.Tensor { return []*tessera.Tensor{closed} }, nil),
			[]*tessera.Tensor{x}, tessera.InvalidArgument, "Returning.forward: output 0 is closed"},
	}
	for _, c := range cases {
		outs, err := tessera.Apply(c.f, c.inputs...)
		if outs != nil {
			t.Errorf("%s: outputs with the error", c.name)
		}
		e := wantStatus(t, err, c.status)
		if !strings.Contains(e.Message(), c.part) {
			t.Errorf("%s: message %q lacks %q", c.name, e.Message(), c.part)
		}
	}
}

// A nil input is no tensor: forward sees nil, and it gets no gradient.
func TestFunctionNilInput(t *testing.T) {
	x := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer x.Close()
	var sawNil bool
	f := returning(func(in []*tessera.Tensor) []*tessera.Tensor {
		sawNil = in[1] == nil
		y, _ := in[0].MulScalar(3)
		return []*tessera.Tensor{y}
	}, func(in []*tessera.Tensor) []*tessera.Tensor {
		g, _ := tessera.Full([]int64{2}, 3, tessera.Float64)
		return []*tessera.Tensor{g, nil}
	})
	ys := got(tessera.Apply(f, x, nil)).ok(t)
	defer ys[0].Close()
	s := got(ys[0].Sum(nil, false)).ok(t)
	defer s.Close()
	noErr(t, s.Backward())
	g := got(x.Grad()).ok(t)
	defer g.Close()
	if !sawNil || !closeTo(got(g.Float64s()).ok(t), []float64{3, 3}, 0) {
		t.Errorf("forward saw nil: %v; x.grad %v", sawNil, g)
	}
}

func TestFunctionBackwardRefusals(t *testing.T) {
	closed := got(leaf64([]float64{1}, false)).ok(t)
	closed.Close()
	full := func(sizes []int64, d tessera.DType) *tessera.Tensor {
		g, _ := tessera.Full(sizes, 1, d)
		return g
	}
	cases := []struct {
		name   string
		grads  func(in []*tessera.Tensor) []*tessera.Tensor
		status tessera.Status
		part   string
	}{
		{"two gradients for one input", func([]*tessera.Tensor) []*tessera.Tensor {
			return []*tessera.Tensor{full([]int64{2}, tessera.Float64), full([]int64{2}, tessera.Float64)}
		}, tessera.InvalidArgument, "function ReturningBackward returned an incorrect number of gradients (expected 1, got 2)"},
		{"closed gradient", func([]*tessera.Tensor) []*tessera.Tensor { return []*tessera.Tensor{closed} },
			tessera.InvalidArgument, "Returning.backward: gradient 0 is closed"},
		{"wrong sizes", func([]*tessera.Tensor) []*tessera.Tensor { return []*tessera.Tensor{full([]int64{3}, tessera.Float64)} },
			tessera.ShapeMismatch, "returned an invalid gradient at index 0"},
		{"wrong dtype", func([]*tessera.Tensor) []*tessera.Tensor { return []*tessera.Tensor{full([]int64{2}, tessera.Float32)} },
			tessera.DTypeMismatch, "returned an invalid gradient at index 0"},
	}
	for _, c := range cases {
		x := got(leaf64([]float64{1, 2}, true)).ok(t)
		f := returning(func(in []*tessera.Tensor) []*tessera.Tensor {
			y, _ := in[0].MulScalar(2)
			return []*tessera.Tensor{y}
		}, c.grads)
		ys := got(tessera.Apply(f, x)).ok(t)
		s := got(ys[0].Sum(nil, false)).ok(t)
		e := wantStatus(t, s.Backward(), c.status)
		if !strings.Contains(e.Message(), c.part) {
			t.Errorf("%s: message %q lacks %q", c.name, e.Message(), c.part)
		}
		for _, o := range []*tessera.Tensor{x, ys[0], s} {
			o.Close()
		}
	}
}

// Each context method outside its phase, out of range, on a bad tensor, or
// after its call returned fails with InvalidArgument; the callback that
// sees the error can go on.
func TestFunctionContextRefusals(t *testing.T) {
	closed := got(leaf64([]float64{1}, false)).ok(t)
	closed.Close()
	other := got(leaf64([]float64{1}, false)).ok(t)
	defer other.Close()
	var kept *tessera.FunctionContext
	errs := map[string]error{}
	f := fn{
		name: "Misuse",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			kept = ctx
			_, errs["SavedTensors in forward"] = ctx.SavedTensors()
			_, errs["NeedsInputGrad(-1)"] = ctx.NeedsInputGrad(-1)
			_, errs["NeedsInputGrad(1)"] = ctx.NeedsInputGrad(1)
			errs["SaveForBackward(closed)"] = ctx.SaveForBackward(closed)
			errs["MarkDirty(two)"] = ctx.MarkDirty(in[0], in[0])
			errs["MarkDirty(not an input)"] = ctx.MarkDirty(other)
			errs["MarkNonDifferentiable(closed)"] = ctx.MarkNonDifferentiable(closed)
			y, err := in[0].MulScalar(2)
			return []*tessera.Tensor{y}, err
		},
		backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
			errs["SaveForBackward in backward"] = ctx.SaveForBackward(g[0])
			errs["MarkDirty in backward"] = ctx.MarkDirty()
			errs["MarkNonDifferentiable in backward"] = ctx.MarkNonDifferentiable()
			errs["SetMaterializeGrads in backward"] = ctx.SetMaterializeGrads(false)
			_, errs["NeedsInputGrad(1) in backward"] = ctx.NeedsInputGrad(1)
			grad, err := g[0].MulScalar(2)
			return []*tessera.Tensor{grad}, err
		},
	}
	x := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer x.Close()
	ys := got(tessera.Apply(f, x)).ok(t)
	defer ys[0].Close()
	s := got(ys[0].Sum(nil, false)).ok(t)
	defer s.Close()
	noErr(t, s.Backward())
	_, errs["SavedTensors after the call"] = kept.SavedTensors()
	errs["SaveForBackward after the call"] = kept.SaveForBackward(x)
	_, errs["NeedsInputGrad after the call"] = kept.NeedsInputGrad(0)
	errs["SetMaterializeGrads after the call"] = kept.SetMaterializeGrads(true)
	errs["MarkDirty after the call"] = kept.MarkDirty(x)
	var nilCtx *tessera.FunctionContext
	errs["nil context"] = nilCtx.SaveForBackward()
	want := map[string]string{
		"SavedTensors in forward":            "saved_tensors: only in backward",
		"NeedsInputGrad(-1)":                 "input -1 out of range",
		"NeedsInputGrad(1)":                  "input 1 out of range",
		"SaveForBackward(closed)":            "FunctionContext.SaveForBackward: tensor 0 is closed",
		"MarkDirty(two)":                     "one dirty input per function",
		"MarkDirty(not an input)":            "not an input of this call",
		"MarkNonDifferentiable(closed)":      "tensor 0 is closed",
		"SaveForBackward in backward":        "save_for_backward: only in forward",
		"MarkDirty in backward":              "mark_dirty: only in forward",
		"MarkNonDifferentiable in backward":  "mark_non_differentiable: only in forward",
		"SetMaterializeGrads in backward":    "only in forward",
		"NeedsInputGrad(1) in backward":      "input 1 out of range",
		"SavedTensors after the call":        "only valid during its Forward or Backward",
		"SaveForBackward after the call":     "only valid during its Forward or Backward",
		"NeedsInputGrad after the call":      "only valid during its Forward or Backward",
		"SetMaterializeGrads after the call": "only valid during its Forward or Backward",
		"MarkDirty after the call":           "only valid during its Forward or Backward",
		"nil context":                        "only valid during its Forward or Backward",
	}
	for what, part := range want {
		e := wantStatus(t, errs[what], tessera.InvalidArgument)
		if !strings.Contains(e.Message(), part) {
			t.Errorf("%s: message %q lacks %q", what, e.Message(), part)
		}
	}
	g := got(x.Grad()).ok(t)
	defer g.Close()
	if !closeTo(got(g.Float64s()).ok(t), []float64{2, 2}, 0) {
		t.Errorf("x.grad %v after the refused calls", g)
	}
}

// What forward marks is checked when it returns: a non-differentiable
// tensor that is not an output, a dirty input not returned as output 0.
func TestFunctionMarksCheckedWhenForwardReturns(t *testing.T) {
	other := got(leaf64([]float64{1}, false)).ok(t)
	defer other.Close()
	nonOutput := fn{name: "NonOutput",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			y, err := in[0].MulScalar(2)
			if err == nil {
				err = ctx.MarkNonDifferentiable(other)
			}
			return []*tessera.Tensor{y}, err
		}}
	dirtyElsewhere := fn{name: "DirtyElsewhere",
		forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
			y, err := in[0].MulScalar(2)
			if err == nil {
				err = ctx.MarkDirty(in[0])
			}
			return []*tessera.Tensor{y}, err
		}}
	x := got(leaf64([]float64{1, 2}, false)).ok(t)
	defer x.Close()
	_, err := tessera.Apply(nonOutput, x)
	wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), "mark_non_differentiable names a tensor that is not an output")
	_, err = tessera.Apply(dirtyElsewhere, x)
	wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), "must be returned as output 0")
}

// A Function may apply another inside its callbacks; an inner failure comes
// back through both, still the original error.
func TestFunctionNestedApply(t *testing.T) {
	outer := func(inner tessera.Function) fn {
		return fn{
			name: "Outer",
			forward: func(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
				return tessera.Apply(inner, in[0])
			},
			backward: func(ctx *tessera.FunctionContext, g []*tessera.Tensor) ([]*tessera.Tensor, error) {
				return []*tessera.Tensor{g[0]}, nil
			},
		}
	}
	x := got(leaf64([]float64{1, 2}, true)).ok(t)
	defer x.Close()
	ys := got(tessera.Apply(outer(swish{}), x)).ok(t)
	defer ys[0].Close()
	ref := got(composedSwish(x)).ok(t)
	defer ref.Close()
	if name := got(ys[0].GradFnName()).ok(t); name != "OuterBackward" ||
		!closeTo(got(ys[0].Float64s()).ok(t), got(ref.Float64s()).ok(t), 1e-12) {
		t.Errorf("outer output %v (%s), want swish's values from OuterBackward", ys[0], name)
	}
	_, err := tessera.Apply(outer(failing("forward", "error")), x)
	e := wantStatus(t, err, tessera.InvalidArgument)
	wantMessage(t, e, "Outer.forward: Boom.forward: sentinel failure")
	if !errors.Is(err, errSentinel) {
		t.Errorf("%v does not wrap the inner callback's error", err)
	}
}
