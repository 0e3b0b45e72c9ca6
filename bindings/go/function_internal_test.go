package tessera

import (
	"errors"
	"strings"
	"testing"

	"tessera.dev/tessera/internal/capi"
)

// capi's own guards for the callbacks, which package tessera's application
// never trips: a capi.FunctionCallbacks that panics, or that fails with
// status OK, still fails the call (TSR_ERR_INTERNAL), and its handles go.

type rawCallbacks struct {
	forward  func(inputs, outputs []uintptr) (int, *capi.Failure)
	backward func() *capi.Failure
}

func (r rawCallbacks) Forward(_ uintptr, inputs, outputs []uintptr) (int, *capi.Failure) {
	return r.forward(inputs, outputs)
}

func (r rawCallbacks) Backward(_ uintptr, _, _ []uintptr) *capi.Failure { return r.backward() }

// double returns 2x (a new tensor: returning the input itself undirtied
// would make it its own grad_fn's output).
func double(inputs, outputs []uintptr) (int, *capi.Failure) {
	x := newTensor(inputs[0])
	defer x.Close()
	y, err := x.MulScalar(2)
	if err == nil {
		defer y.Close()
		err = do(func() { capi.Retain_tensors([]uintptr{y.cptr()}) })
	}
	if err != nil {
		return 0, &capi.Failure{Status: int(Internal), Message: err.Error()}
	}
	outputs[0] = y.cptr()
	return 1, nil
}

func rawApply(cb capi.FunctionCallbacks, x *Tensor) (*Tensor, error) {
	out := make([]uintptr, 1)
	err := do(func() { capi.Function_apply(capi.NewFunction(cb), "Raw", []uintptr{x.cptr()}, out) })
	return newTensor(out[0]), err
}

func TestCallbackGuardsInCapi(t *testing.T) {
	base := capi.LiveHandles()
	x, err := FromFloat64s([]float64{1, 2}, []int64{2}, Float64)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.SetRequiresGrad(true); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("with status OK")
	cases := []struct {
		name string
		cb   rawCallbacks
		part string
	}{
		{"forward panics", rawCallbacks{forward: func([]uintptr, []uintptr) (int, *capi.Failure) { panic("oops") }},
			"Raw.forward: panic in the Go callback: oops"},
		{"forward fails with OK", rawCallbacks{forward: func([]uintptr, []uintptr) (int, *capi.Failure) {
			return 0, &capi.Failure{Message: "odd", Cause: cause}
		}}, "Raw.forward: odd"},
		{"backward panics", rawCallbacks{forward: double, backward: func() *capi.Failure { panic("oops") }},
			"Raw.backward: panic in the Go callback: oops"},
	}
	for _, c := range cases {
		y, err := rawApply(c.cb, x)
		if err == nil {
			s, serr := y.Sum(nil, false)
			if serr != nil {
				t.Fatal(serr)
			}
			err = s.Backward()
			s.Close()
			y.Close()
		}
		var e *Error
		if !errors.As(err, &e) || e.Status() != Internal || !strings.Contains(e.Message(), c.part) {
			t.Errorf("%s: %v, want Internal with %q", c.name, err, c.part)
		}
		if c.name == "forward fails with OK" && !errors.Is(err, cause) {
			t.Errorf("%s: %v does not wrap its cause", c.name, err)
		}
	}
	if n := capi.LiveHandles(); n != base {
		t.Errorf("%d handles live, %d before", n, base)
	}
}
