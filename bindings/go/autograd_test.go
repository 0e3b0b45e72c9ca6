package tessera_test

import (
	"errors"
	"runtime"
	"testing"

	"tessera.dev/tessera"
)

func flatten(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// The function of gen_torch_golden.py's autograd():
// loss = cross_entropy(relu(x @ w + b), target) + 0.1 * sum(h * h).
func TestAutogradMatchesPyTorch(t *testing.T) {
	g := golden(t).Autograd
	leaf := func(values []float64, sizes []int64) *tessera.Tensor {
		x := got(tessera.FromFloat64s(values, sizes, tessera.Float32)).ok(t)
		noErr(t, x.SetRequiresGrad(true))
		return x
	}
	x := leaf(flatten(g.X), []int64{2, 3})
	defer x.Close()
	w := leaf(flatten(g.W), []int64{3, 2})
	defer w.Close()
	b := leaf(g.B, []int64{2})
	defer b.Close()
	target := got(tessera.FromInt64s(g.Target, []int64{2}, tessera.Int64)).ok(t)
	defer target.Close()

	xw := got(x.Matmul(w)).ok(t)
	defer xw.Close()
	z := got(xw.Add(b)).ok(t)
	defer z.Close()
	h := got(z.Relu()).ok(t)
	defer h.Close()
	ce := got(h.CrossEntropy(target)).ok(t)
	defer ce.Close()
	hh := got(h.Mul(h)).ok(t)
	defer hh.Close()
	sum := got(hh.Sum(nil, false)).ok(t)
	defer sum.Close()
	scaled := got(sum.MulScalar(0.1)).ok(t)
	defer scaled.Close()
	loss := got(ce.Add(scaled)).ok(t)
	defer loss.Close()

	if name := got(loss.GradFnName()).ok(t); name != "AddBackward0" {
		t.Errorf("grad_fn %q", name)
	}
	if name := got(x.GradFnName()).ok(t); name != "" || !got(x.IsLeaf()).ok(t) {
		t.Errorf("leaf grad_fn %q", name)
	}
	if v := got(loss.Item()).ok(t); !closeTo([]float64{v}, []float64{g.Loss}, 1e-6) {
		t.Errorf("loss %v, torch %v", v, g.Loss)
	}
	noErr(t, loss.Backward())
	for _, c := range []struct {
		name   string
		tensor *tessera.Tensor
		want   []float64
	}{{"x", x, flatten(g.GradX)}, {"w", w, flatten(g.GradW)}, {"b", b, g.GradB}} {
		grad := got(c.tensor.Grad()).ok(t)
		if grad == nil {
			t.Fatalf("no gradient for %s", c.name)
		}
		if got := got(grad.Float64s()).ok(t); !closeTo(got, c.want, 1e-5) {
			t.Errorf("grad %s %v, torch %v", c.name, got, c.want)
		}
		grad.Close()
	}
	// The graph was freed: a second backward is torch's error.
	wantStatus(t, loss.Backward(), tessera.Autograd)
	noErr(t, w.ZeroGrad())
	zeroed := got(w.Grad()).ok(t)
	defer zeroed.Close()
	if v := got(zeroed.Float64s()).ok(t); !closeTo(v, make([]float64, 6), 0) {
		t.Errorf("gradient after ZeroGrad: %v", v)
	}
	noErr(t, w.SetGrad(nil))
	if grad := got(w.Grad()).ok(t); grad != nil {
		t.Errorf("gradient after SetGrad(nil): %v", grad)
	}
}

func TestNoGradRestoresTheSetting(t *testing.T) {
	runtime.LockOSThread() // grad mode is per thread (see NoGrad)
	defer runtime.UnlockOSThread()
	if !tessera.IsGradEnabled() {
		t.Fatal("grad mode off at start")
	}
	w := got(tessera.Ones([]int64{2}, tessera.Float32)).ok(t)
	defer w.Close()
	noErr(t, w.SetRequiresGrad(true))

	err := tessera.NoGrad(func() error {
		if tessera.IsGradEnabled() {
			t.Error("grad mode on inside NoGrad")
		}
		y := got(w.MulScalar(2)).ok(t)
		defer y.Close()
		if got(y.RequiresGrad()).ok(t) {
			t.Error("a result under NoGrad requires grad")
		}
		// In-place on a leaf that requires grad is allowed only here.
		noErr(t, w.MulScalarInPlace(3))
		// Nested: still off afterwards.
		noErr(t, tessera.NoGrad(func() error { return nil }))
		if tessera.IsGradEnabled() {
			t.Error("nested NoGrad turned grad mode back on")
		}
		return nil
	})
	noErr(t, err)
	if !tessera.IsGradEnabled() {
		t.Fatal("grad mode not restored")
	}
	y := got(w.MulScalar(2)).ok(t)
	defer y.Close()
	if !got(y.RequiresGrad()).ok(t) {
		t.Error("a result after NoGrad does not require grad")
	}
	wantStatus(t, w.MulScalarInPlace(3), tessera.Autograd)

	// fn's error comes back; a panic in fn still restores the setting.
	sentinel := errors.New("from fn")
	if err := tessera.NoGrad(func() error { return sentinel }); err != sentinel {
		t.Errorf("NoGrad returned %v", err)
	}
	func() {
		defer func() { _ = recover() }()
		_ = tessera.NoGrad(func() error { panic("in fn") })
	}()
	if !tessera.IsGradEnabled() {
		t.Error("grad mode not restored after a panic")
	}
}
