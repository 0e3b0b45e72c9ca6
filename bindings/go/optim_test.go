package tessera_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// Optimizers, initializers and the profiler. The expected numbers come from
// PyTorch 1.13 (bindings/support/optim_golden.py, run with /usr/bin/python3):
// two steps on optimP0 with optimGrad set as the gradient before each.

var (
	optimP0   = []float64{1.0, -2.0, 3.0, 0.5}
	optimGrad = []float64{0.1, -0.2, 0.3, 0.4}
	// torch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01), PyTorch 1.13
	sgdSteps = [][]float64{
		{0.9890000224113464, -1.9780000448226929, 2.9670000076293945, 0.4594999849796295},
		{0.9681110382080078, -1.9362220764160156, 2.9043331146240234, 0.38259047269821167}}
	// torch.optim.AdamW([p], lr=0.01, weight_decay=0.1), PyTorch 1.13
	adamWSteps = [][]float64{
		{0.9890000224113464, -1.9880000352859497, 2.986999988555908, 0.4895000159740448},
		{0.9780110716819763, -1.976012110710144, 2.974013090133667, 0.47901052236557007}}
)

func optimParam(t *testing.T) *tessera.Tensor {
	p := got(tessera.FromFloat64s(optimP0, []int64{4}, tessera.Float32)).ok(t)
	noErr(t, p.SetRequiresGrad(true))
	return p
}

func optimSteps(t *testing.T, opt *tessera.Optimizer, p *tessera.Tensor, expected [][]float64) {
	t.Helper()
	for i, want := range expected {
		g := got(tessera.FromFloat64s(optimGrad, []int64{4}, tessera.Float32)).ok(t)
		noErr(t, p.SetGrad(g))
		g.Close()
		noErr(t, opt.Step())
		if values := got(p.Float64s()).ok(t); !closeTo(values, want, 1e-6) {
			t.Fatalf("step %d: got %v, want torch's %v", i+1, values, want)
		}
	}
}

func TestSGDWithMomentumMatchesTorch(t *testing.T) {
	p := optimParam(t)
	defer p.Close()
	opt := got(tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: 0.1, Momentum: 0.9, WeightDecay: 0.01})).ok(t)
	defer opt.Close()
	if buf := got(opt.State(0, "momentum_buffer")).ok(t); buf != nil {
		t.Fatal("momentum_buffer before the first step")
	}
	optimSteps(t, opt, p, sgdSteps)
	buf := got(opt.State(0, "momentum_buffer")).ok(t)
	defer buf.Close()
	if !equalInts(buf.Sizes(), []int64{4}) {
		t.Fatalf("momentum_buffer sizes %v", buf.Sizes())
	}
	if n := got(opt.NumParams()).ok(t); n != 1 {
		t.Fatalf("NumParams %d", n)
	}
}

func TestAdamWMatchesTorch(t *testing.T) {
	p := optimParam(t)
	defer p.Close()
	o := tessera.DefaultAdamWOptions()
	o.LR, o.WeightDecay = 0.01, 0.1
	opt := got(tessera.NewAdamW([]*tessera.Tensor{p}, o)).ok(t)
	defer opt.Close()
	optimSteps(t, opt, p, adamWSteps)
	step := got(opt.State(0, "step")).ok(t)
	defer step.Close()
	if v := got(step.Item()).ok(t); v != 2 {
		t.Fatalf("step %v", v)
	}
	noErr(t, opt.SetLR(0.5))
	if lr := got(opt.LR()).ok(t); lr != 0.5 {
		t.Fatalf("LR %v after SetLR(0.5)", lr)
	}
	adam := got(tessera.NewAdam([]*tessera.Tensor{p}, tessera.DefaultAdamOptions())).ok(t)
	defer adam.Close()
	if lr := got(adam.LR()).ok(t); lr != 1e-3 {
		t.Fatalf("Adam's default LR %v", lr)
	}
}

func TestOptimizerZeroGrad(t *testing.T) {
	p := optimParam(t)
	defer p.Close()
	opt := got(tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: 0.1})).ok(t)
	defer opt.Close()
	g := got(tessera.FromFloat64s(optimGrad, []int64{4}, tessera.Float32)).ok(t)
	noErr(t, p.SetGrad(g))
	g.Close()
	noErr(t, opt.ZeroGrad(false))
	zeroed := got(p.Grad()).ok(t)
	if values := got(zeroed.Float64s()).ok(t); !closeTo(values, []float64{0, 0, 0, 0}, 0) {
		t.Fatalf("ZeroGrad(false) left %v", values)
	}
	zeroed.Close()
	noErr(t, opt.ZeroGrad(true))
	if none := got(p.Grad()).ok(t); none != nil {
		t.Fatal("ZeroGrad(true) kept the gradient")
	}
}

func TestOptimizerCloseFreesState(t *testing.T) {
	p := got(tessera.Zeros([]int64{100, 100}, tessera.Float32)).ok(t)
	defer p.Close()
	g := got(tessera.Ones([]int64{100, 100}, tessera.Float32)).ok(t)
	defer g.Close()
	noErr(t, p.SetRequiresGrad(true))
	noErr(t, p.SetGrad(g))
	opt := got(tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: 0.1, Momentum: 0.9})).ok(t)
	noErr(t, opt.Step())
	// Finalizers of earlier tests' tensors may free memory meanwhile, never
	// allocate: Close must free at least the 40,000-byte momentum_buffer.
	before := got(tessera.MemoryAllocated(tessera.CPU)).ok(t)
	noErr(t, opt.Close())
	if after := got(tessera.MemoryAllocated(tessera.CPU)).ok(t); before-after < 100*100*4 {
		t.Fatalf("Close freed %d bytes, want the momentum_buffer's 40000", before-after)
	}
}

func TestOptimizerErrors(t *testing.T) {
	p := optimParam(t)
	defer p.Close()
	_, err := tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: -0.1})
	if e := wantStatus(t, err, tessera.InvalidArgument); e.Message() != "Invalid learning rate: -0.1" {
		t.Fatalf("message %q", e.Message())
	}
	_, err = tessera.NewAdam(nil, tessera.DefaultAdamOptions())
	wantStatus(t, err, tessera.InvalidArgument)
	opt := got(tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: 0.1})).ok(t)
	wantStatus(t, opt.SetLR(-1), tessera.InvalidArgument)
	noErr(t, opt.Close())
	noErr(t, opt.Close())
	wantStatus(t, opt.Step(), tessera.InvalidArgument)
}

func TestInit(t *testing.T) {
	g := got(tessera.NewGenerator(0)).ok(t)
	defer g.Close()
	w := got(tessera.Zeros([]int64{4, 3}, tessera.Float32)).ok(t)
	defer w.Close()
	noErr(t, tessera.InitKaimingUniform(w, 0, "fan_in", "leaky_relu", g))
	bound := math.Sqrt(2) // gain(leaky_relu, 0) * sqrt(3 / fan_in 3)
	max := 0.0
	for _, v := range got(w.Float64s()).ok(t) {
		if v < -bound || v >= bound {
			t.Fatalf("kaiming value %v outside [-%v, %v)", v, bound, bound)
		}
		max = math.Max(max, math.Abs(v))
	}
	if max <= bound/4 {
		t.Fatalf("kaiming values all within %v", max)
	}
	noErr(t, tessera.InitUniform(w, 2, 3, g))
	for _, v := range got(w.Float64s()).ok(t) {
		if v < 2 || v >= 3 {
			t.Fatalf("uniform value %v", v)
		}
	}
	noErr(t, tessera.InitXavierUniform(w, 1, nil))
	noErr(t, tessera.InitNormal(w, 10, 0.01, nil))
	for _, v := range got(w.Float64s()).ok(t) {
		if math.Abs(v-10) >= 0.1 {
			t.Fatalf("normal value %v", v)
		}
	}
	noErr(t, tessera.InitZeros(w))
	if values := got(w.Float64s()).ok(t); !closeTo(values, make([]float64, 12), 0) {
		t.Fatalf("InitZeros left %v", values)
	}
	if gain := got(tessera.CalculateGain("tanh", nil)).ok(t); math.Abs(gain-5.0/3) > 1e-12 {
		t.Fatalf("tanh gain %v", gain)
	}
	_, err := tessera.CalculateGain("foo", nil)
	if e := wantStatus(t, err, tessera.InvalidArgument); e.Message() != "Unsupported nonlinearity foo" {
		t.Fatalf("message %q", e.Message())
	}
	v := got(tessera.Zeros([]int64{3}, tessera.Float32)).ok(t)
	defer v.Close()
	wantStatus(t, tessera.InitKaimingUniform(v, 0, "fan_in", "leaky_relu", nil), tessera.InvalidArgument)
}

func TestProfiler(t *testing.T) {
	x := got(tessera.Ones([]int64{3, 4}, tessera.Float32)).ok(t)
	defer x.Close()
	noErr(t, x.SetRequiresGrad(true))
	noErr(t, tessera.StartProfiler(tessera.ProfilerOptions{RecordShapes: true}))
	y, err := x.Mul(x)
	if err == nil {
		var s *tessera.Tensor
		if s, err = y.Sum(nil, false); err == nil {
			err = s.Backward()
			s.Close()
		}
		y.Close()
	}
	r, stopErr := tessera.StopProfiler()
	noErr(t, err)
	noErr(t, stopErr)
	defer r.Close()
	if n := got(r.NumEvents()).ok(t); n <= 0 {
		t.Fatalf("%d events", n)
	}
	table := got(r.Table("cpu_time_total", 10)).ok(t)
	if !strings.Contains(table, "aten::mul") || !strings.Contains(table, "MulBackward0") {
		t.Fatalf("table lacks aten::mul / MulBackward0:\n%s", table)
	}
	path := filepath.Join(t.TempDir(), "trace.json")
	noErr(t, r.ExportChromeTrace(path))
	var trace struct {
		TraceEvents []struct {
			Name string `json:"name"`
		} `json:"traceEvents"`
	}
	noErr(t, json.Unmarshal(got(os.ReadFile(path)).ok(t), &trace))
	found := false
	for _, e := range trace.TraceEvents {
		found = found || e.Name == "aten::mul"
	}
	if !found {
		t.Fatal("no aten::mul event in the trace")
	}
	wantStatus(t, r.ExportChromeTrace(filepath.Join(t.TempDir(), "missing", "trace.json")), tessera.IOError)
	_, err = r.Table("bogus", 10)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.StopProfiler()
	wantStatus(t, err, tessera.InvalidArgument)
}
