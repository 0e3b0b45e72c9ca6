package tessera_test

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// The nn ops against PyTorch 1.13's values, gradients and messages
// (testdata/torch_golden.json; gen_torch_golden.py's nn_cases() holds the
// torch expression of each case), and the InferenceMode and DetectAnomaly
// scopes.

const nnTolerance = 1e-5

// nnTensor is tensor name of nn_cases() (an input, or torch's result) as a
// tessera tensor of its dtype, closed when the test ends; a leaf requiring
// grad when leaf is set.
func nnTensor(t *testing.T, name string, leaf bool) *tessera.Tensor {
	t.Helper()
	for _, c := range golden(t).Nn {
		if c.Name != name {
			continue
		}
		dtype := map[string]tessera.DType{"float32": tessera.Float32, "int64": tessera.Int64,
			"bool": tessera.Bool}[c.DType]
		x := got(tessera.FromFloat64s(c.Values, c.Sizes, dtype)).ok(t)
		t.Cleanup(func() { x.Close() })
		if leaf {
			noErr(t, x.SetRequiresGrad(true))
		}
		return x
	}
	t.Fatalf("no nn golden %q", name)
	return nil
}

// nnMatches checks x (closed here) against golden name: sizes, dtype, values.
func nnMatches(t *testing.T, name string, x *tessera.Tensor) {
	t.Helper()
	defer x.Close()
	for _, c := range golden(t).Nn {
		if c.Name != name {
			continue
		}
		if sizes := x.Sizes(); !equalInts(sizes, c.Sizes) {
			t.Errorf("%s: sizes %v, torch %v", name, sizes, c.Sizes)
		}
		if dtype := got(x.DType()).ok(t); dtype.String() != c.DType {
			t.Errorf("%s: dtype %v, torch %v", name, dtype, c.DType)
		}
		if values := got(x.Float64s()).ok(t); !closeTo(values, c.Values, nnTolerance) {
			t.Errorf("%s: values %v, torch %v", name, values, c.Values)
		}
		return
	}
	t.Fatalf("no nn golden %q", name)
}

func TestNnForwardMatchesPyTorch(t *testing.T) {
	in := func(name string) *tessera.Tensor { return nnTensor(t, name, false) }
	x, p, e, w, b := in("x"), in("p"), in("e"), in("w"), in("b")
	g, beta, y, cond := in("g"), in("beta"), in("y"), in("cond")
	index, gatherIndex, ids := in("index"), in("gather_index"), in("ids")
	cases := []struct {
		name string
		op   func() (*tessera.Tensor, error)
	}{
		{"linear", func() (*tessera.Tensor, error) { return tessera.Linear(x, w, b) }},           // F.linear(x, w, b)
		{"linear_no_bias", func() (*tessera.Tensor, error) { return tessera.Linear(x, w, nil) }}, // F.linear(x, w)
		{"gelu", func() (*tessera.Tensor, error) { return tessera.Gelu(x, tessera.GeluNone) }},   // F.gelu(x)
		// F.gelu(x, approximate="tanh")
		{"gelu_tanh", func() (*tessera.Tensor, error) { return tessera.Gelu(x, tessera.GeluTanh) }},
		{"tanh", x.Tanh},       // torch.tanh(x)
		{"sigmoid", x.Sigmoid}, // torch.sigmoid(x)
		{"sqrt", p.Sqrt},       // torch.sqrt(p)
		{"pow_scalar", func() (*tessera.Tensor, error) { return x.PowScalar(3) }},  // torch.pow(x, 3.0)
		{"pow_half", func() (*tessera.Tensor, error) { return p.PowScalar(0.5) }},  // torch.pow(p, 0.5)
		{"pow_tensor", func() (*tessera.Tensor, error) { return p.Pow(e) }},        // torch.pow(p, e)
		{"clamp", func() (*tessera.Tensor, error) { return x.Clamp(-0.5, 1) }},     // torch.clamp(x, min=-0.5, max=1.0)
		{"clamp_min", func() (*tessera.Tensor, error) { return x.ClampMin(-0.5) }}, // torch.clamp(x, min=-0.5)
		{"clamp_max", func() (*tessera.Tensor, error) { return x.ClampMax(1) }},    // torch.clamp(x, max=1.0)
		{"softmax", func() (*tessera.Tensor, error) { return x.Softmax(1) }},       // torch.softmax(x, 1)
		{"softmax_dim0", func() (*tessera.Tensor, error) { return x.Softmax(0) }},  // torch.softmax(x, 0)
		// F.layer_norm(x, [3], g, beta, 1e-5), F.layer_norm(x, [3])
		{"layer_norm", func() (*tessera.Tensor, error) { return tessera.LayerNorm(x, []int64{3}, g, beta, 1e-5) }},
		{"layer_norm_plain", func() (*tessera.Tensor, error) { return tessera.LayerNorm(x, []int64{3}, nil, nil, 1e-5) }},
		{"cat", func() (*tessera.Tensor, error) { return tessera.Cat([]*tessera.Tensor{x, y}, 0) }},          // torch.cat([x, y], 0)
		{"cat_dim1", func() (*tessera.Tensor, error) { return tessera.Cat([]*tessera.Tensor{x, p}, 1) }},     // torch.cat([x, p], 1)
		{"stack", func() (*tessera.Tensor, error) { return tessera.Stack([]*tessera.Tensor{x, p}, 0) }},      // torch.stack([x, p], 0)
		{"stack_dim2", func() (*tessera.Tensor, error) { return tessera.Stack([]*tessera.Tensor{x, p}, 2) }}, // torch.stack([x, p], 2)
		{"where", func() (*tessera.Tensor, error) { return tessera.Where(cond, x, p) }},                      // torch.where(cond, x, p)
		{"index_select", func() (*tessera.Tensor, error) { return x.IndexSelect(1, index) }},                 // torch.index_select(x, 1, index)
		{"gather", func() (*tessera.Tensor, error) { return x.Gather(1, gatherIndex) }},                      // torch.gather(x, 1, gather_index)
		{"embedding", func() (*tessera.Tensor, error) { return tessera.Embedding(ids, w) }},                  // F.embedding(ids, w)
		{"relu_", func() (*tessera.Tensor, error) { // x.clone().relu_()
			c, err := x.Clone(tessera.PreserveFormat)
			if err == nil {
				err = c.ReluInPlace()
			}
			return c, err
		}},
	}
	for _, c := range cases {
		nnMatches(t, c.name, got(c.op()).ok(t))
	}
}

// backwardOfSquares runs (out * out).sum().backward(), as
// gen_torch_golden.py's grads(); out is closed here.
func backwardOfSquares(t *testing.T, out *tessera.Tensor) {
	t.Helper()
	defer out.Close()
	square := got(out.Mul(out)).ok(t)
	defer square.Close()
	sum := got(square.Sum(nil, false)).ok(t)
	defer sum.Close()
	noErr(t, sum.Backward())
}

func TestNnGradientsMatchPyTorch(t *testing.T) {
	leaf := func(name string) *tessera.Tensor { return nnTensor(t, name, true) }
	grad := func(x *tessera.Tensor) *tessera.Tensor { return got(x.Grad()).ok(t) }

	x, w, b := leaf("x"), leaf("w"), leaf("b")
	backwardOfSquares(t, got(tessera.Linear(x, w, b)).ok(t))
	nnMatches(t, "linear_grad_x", grad(x))
	nnMatches(t, "linear_grad_w", grad(w))
	nnMatches(t, "linear_grad_b", grad(b))

	x = leaf("x")
	backwardOfSquares(t, got(tessera.Gelu(x, tessera.GeluNone)).ok(t))
	nnMatches(t, "gelu_grad_x", grad(x))

	x, g, beta := leaf("x"), leaf("g"), leaf("beta")
	backwardOfSquares(t, got(tessera.LayerNorm(x, []int64{3}, g, beta, 1e-5)).ok(t))
	nnMatches(t, "layer_norm_grad_x", grad(x))
	nnMatches(t, "layer_norm_grad_g", grad(g))
	nnMatches(t, "layer_norm_grad_beta", grad(beta))

	x, y := leaf("x"), leaf("y")
	backwardOfSquares(t, got(tessera.Cat([]*tessera.Tensor{x, y}, 0)).ok(t))
	nnMatches(t, "cat_grad_x", grad(x))
	nnMatches(t, "cat_grad_y", grad(y))

	x = leaf("x")
	backwardOfSquares(t, got(x.Gather(1, nnTensor(t, "gather_index", false))).ok(t))
	nnMatches(t, "gather_grad_x", grad(x))

	w = leaf("w")
	backwardOfSquares(t, got(tessera.Embedding(nnTensor(t, "ids", false), w)).ok(t))
	nnMatches(t, "embedding_grad_w", grad(w))
}

func TestNnErrorsMatchPyTorch(t *testing.T) {
	messages := golden(t).NnErrors
	fails := func(name string, status tessera.Status, out *tessera.Tensor, err error) {
		t.Helper()
		out.Close()
		e := wantStatus(t, err, status)
		if !strings.Contains(e.Message(), messages[name]) {
			t.Errorf("%s: %q lacks torch's %q", name, e.Message(), messages[name])
		}
	}
	tensor := func(values []float64, sizes []int64, dtype tessera.DType) *tessera.Tensor {
		x := got(tessera.FromFloat64s(values, sizes, dtype)).ok(t)
		t.Cleanup(func() { x.Close() })
		return x
	}
	x := nnTensor(t, "x", false)
	w := tensor(make([]float64, 12), []int64{4, 3}, tessera.Float32)
	w42 := tensor(make([]float64, 8), []int64{4, 2}, tessera.Float32)
	ints := tensor([]float64{1, 2}, []int64{2}, tessera.Int64)

	out, err := tessera.Linear(x, w42, nil)
	fails("linear", tessera.ShapeMismatch, out, err)
	out, err = tessera.Gelu(ints, tessera.GeluNone)
	fails("gelu", tessera.DTypeMismatch, out, err)
	out, err = tessera.LayerNorm(x, []int64{4}, nil, nil, 1e-5)
	fails("layer_norm", tessera.ShapeMismatch, out, err)
	out, err = tessera.Cat([]*tessera.Tensor{x, w}, 1)
	fails("cat", tessera.ShapeMismatch, out, err)
	out, err = x.Gather(1, tensor([]float64{3}, []int64{1, 1}, tessera.Int64))
	fails("gather", tessera.IndexOutOfRange, out, err)
	out, err = tessera.Embedding(tensor([]float64{4}, []int64{1}, tessera.Int64), w)
	fails("embedding", tessera.IndexOutOfRange, out, err)
	out, err = tessera.Where(x, x, x)
	fails("where", tessera.DTypeMismatch, out, err)

	// The binding's own checks: a closed optional tensor is not nil (none).
	closed := got(tessera.Zeros([]int64{4}, tessera.Float32)).ok(t)
	closed.Close()
	_, err = tessera.Linear(x, w, closed)
	if e := wantStatus(t, err, tessera.InvalidArgument); !strings.Contains(e.Message(), "bias is closed") {
		t.Errorf("closed bias: %q", e.Message())
	}
	_, err = tessera.LayerNorm(x, []int64{3}, closed, nil, 1e-5)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.Cat(nil, 0)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.Stack([]*tessera.Tensor{x, nil}, 0)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.Stack([]*tessera.Tensor{x, closed}, 0)
	wantStatus(t, err, tessera.InvalidArgument)
}

func TestInferenceMode(t *testing.T) {
	runtime.LockOSThread() // the mode queries below read this thread's setting
	defer runtime.UnlockOSThread()
	if tessera.IsInferenceModeEnabled() {
		t.Fatal("inference mode on by default")
	}
	w := got(tessera.Ones([]int64{3}, tessera.Float32)).ok(t)
	defer w.Close()
	noErr(t, w.SetRequiresGrad(true))
	var made *tessera.Tensor
	err := tessera.InferenceMode(func() error {
		if !tessera.IsInferenceModeEnabled() || tessera.IsGradEnabled() {
			t.Error("inside: inference mode on, grad mode off")
		}
		var err error
		if made, err = tessera.Zeros([]int64{3}, tessera.Float32); err != nil {
			return err
		}
		y, err := w.MulScalar(2)
		if err != nil {
			return err
		}
		defer y.Close()
		if !got(y.IsInference()).ok(t) || got(y.RequiresGrad()).ok(t) || got(y.GradFnName()).ok(t) != "" {
			t.Error("results inside are inference tensors without history")
		}
		return nil
	})
	noErr(t, err)
	defer made.Close()
	if tessera.IsInferenceModeEnabled() || !tessera.IsGradEnabled() {
		t.Error("not restored after the scope")
	}
	if !got(made.IsInference()).ok(t) || got(w.IsInference()).ok(t) {
		t.Error("IsInference")
	}
	out, err := w.Mul(made)
	out.Close()
	if e := wantStatus(t, err, tessera.Autograd); !strings.Contains(e.Message(), "Inference tensors cannot be saved for backward") {
		t.Errorf("saving an inference tensor: %q", e.Message())
	}

	// Restored when fn fails and when it panics.
	boom := errors.New("boom")
	if err := tessera.InferenceMode(func() error { return boom }); err != boom {
		t.Errorf("fn's error not returned: %v", err)
	}
	func() {
		defer func() { recover() }()
		_ = tessera.InferenceMode(func() error { panic("leaves the scope") })
	}()
	if tessera.IsInferenceModeEnabled() || !tessera.IsGradEnabled() {
		t.Error("not restored after an error or a panic")
	}
	if previous := tessera.SetInferenceMode(true); previous || !tessera.SetInferenceMode(false) {
		t.Error("SetInferenceMode returns the previous setting")
	}
}

// nanBackward runs (x / x).sum().backward() at x = 0 and returns x's gradient.
func nanBackward() (float64, error) {
	x, err := tessera.Zeros([]int64{1}, tessera.Float32)
	if err != nil {
		return 0, err
	}
	defer x.Close()
	if err := x.SetRequiresGrad(true); err != nil {
		return 0, err
	}
	q, err := x.Div(x)
	if err != nil {
		return 0, err
	}
	defer q.Close()
	s, err := q.Sum(nil, false)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.Backward(); err != nil {
		return 0, err
	}
	grad, err := x.Grad()
	if err != nil {
		return 0, err
	}
	defer grad.Close()
	return grad.Item()
}

func TestDetectAnomaly(t *testing.T) {
	if tessera.IsAnomalyEnabled() {
		t.Fatal("anomaly detection on by default")
	}
	err := tessera.DetectAnomaly(func() error {
		if !tessera.IsAnomalyEnabled() {
			t.Error("off inside DetectAnomaly")
		}
		_, err := nanBackward()
		return err
	})
	e := wantStatus(t, err, tessera.Autograd)
	// torch: "Function 'DivBackward0' returned nan values in its 1th output."
	if !strings.Contains(e.Message(), "returned nan values") || !strings.Contains(e.Message(), golden(t).NnErrors["anomaly"]) {
		t.Errorf("anomaly message %q", e.Message())
	}
	if tessera.IsAnomalyEnabled() {
		t.Error("not restored after the scope")
	}
	if v := got(nanBackward()).ok(t); !math.IsNaN(v) {
		t.Errorf("without detection the gradient is %v, want NaN", v)
	}
	func() {
		defer func() { recover() }()
		_ = tessera.DetectAnomaly(func() error { panic("leaves the scope") })
	}()
	if tessera.IsAnomalyEnabled() {
		t.Error("not restored after a panic")
	}
	if previous := tessera.SetDetectAnomaly(true); previous || !tessera.SetDetectAnomaly(false) {
		t.Error("SetDetectAnomaly returns the previous setting")
	}
}
