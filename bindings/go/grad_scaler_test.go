package tessera_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// GradScaler and Autocast regions. The expected numbers come from PyTorch
// 1.13's GradScaler run on CPU tensors (bindings/support/grad_scaler_golden.py,
// run with /usr/bin/python3): four steps of SGD(lr=0.1) on optimP0 through a
// scaler with init_scale 8 and growth_interval 2, the third step's input
// holding an inf.

var (
	scalerX = [][]float64{{0.5, 1.0, -1.5, 2.0}, {1.0, 0.25, 0.5, -1.0}, {1.0, math.Inf(1), 0.5, -1.0},
		{-0.5, 0.75, 1.0, 0.125}}
	scalerStepped = []bool{true, true, false, true}
	scalerScales  = []float64{8.0, 16.0, 8.0, 8.0}
	scalerTracker = []int64{1, 0, 0, 1}
	scalerParams  = [][]float64{
		{0.949999988079071, -2.0999999046325684, 3.1500000953674316, 0.30000001192092896},
		{0.8499999642372131, -2.125, 3.1000001430511475, 0.4000000059604645},
		{0.8499999642372131, -2.125, 3.1000001430511475, 0.4000000059604645},
		{0.8999999761581421, -2.200000047683716, 3.000000238418579, 0.38750001788139343}}
)

func scalerWith(t *testing.T, initScale float64, interval int64) *tessera.GradScaler {
	o := tessera.DefaultGradScalerOptions()
	o.InitScale, o.GrowthInterval = initScale, interval
	return got(tessera.NewGradScaler(o)).ok(t)
}

func TestGradScalerRunWithAnInfMatchesTorch(t *testing.T) {
	p := optimParam(t)
	defer p.Close()
	opt := got(tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: 0.1})).ok(t)
	defer opt.Close()
	scaler := scalerWith(t, 8, 2)
	defer scaler.Close()
	for k, xs := range scalerX {
		x := got(tessera.FromFloat64s(xs, []int64{4}, tessera.Float32)).ok(t)
		prod := got(p.Mul(x)).ok(t)
		loss := got(prod.Sum(nil, false)).ok(t)
		scaled := got(scaler.Scale(loss)).ok(t)
		if name := got(scaled.GradFnName()).ok(t); name != "MulBackward0" {
			t.Fatalf("scaled loss's grad_fn %q", name)
		}
		if sizes := scaled.Sizes(); !equalInts(sizes, []int64{1}) {
			t.Fatalf("scaled loss's sizes %v, torch's [1]", sizes)
		}
		noErr(t, scaled.Backward())
		for _, c := range []*tessera.Tensor{x, prod, loss, scaled} {
			c.Close()
		}
		if stepped := got(scaler.Step(opt)).ok(t); stepped != scalerStepped[k] {
			t.Fatalf("step %d: stepped %v, torch %v", k, stepped, scalerStepped[k])
		}
		noErr(t, scaler.Update())
		noErr(t, opt.ZeroGrad(true))
		if s := got(scaler.GetScale()).ok(t); s != scalerScales[k] {
			t.Fatalf("step %d: scale %v, torch %v", k, s, scalerScales[k])
		}
		if tr := got(scaler.GrowthTracker()).ok(t); tr != scalerTracker[k] {
			t.Fatalf("step %d: growth tracker %v, torch %v", k, tr, scalerTracker[k])
		}
		if values := got(p.Float64s()).ok(t); !closeTo(values, scalerParams[k], 1e-6) {
			t.Fatalf("step %d: parameters %v, torch %v", k, values, scalerParams[k])
		}
	}
}

func TestGradScalerErrorsCarryTorchsMessages(t *testing.T) {
	p := optimParam(t)
	defer p.Close()
	opt := got(tessera.NewSGD([]*tessera.Tensor{p}, tessera.SGDOptions{LR: 1})).ok(t)
	defer opt.Close()
	scaler := scalerWith(t, 2, 2000)
	defer scaler.Close()
	_, err := scaler.Step(opt)
	e := wantStatus(t, err, tessera.InvalidArgument)
	if !strings.HasPrefix(e.Message(), "Attempted step but _scale is None.") {
		t.Fatalf("message %q", e.Message())
	}
	one := got(tessera.Ones([]int64{4}, tessera.Float32)).ok(t)
	defer one.Close()
	scaled := got(scaler.Scale(one)).ok(t)
	scaled.Close()
	noErr(t, p.SetGrad(one))
	noErr(t, scaler.Unscale_(opt))
	e = wantStatus(t, scaler.Unscale_(opt), tessera.InvalidArgument)
	if e.Message() != "unscale_() has already been called on this optimizer since the last update()." {
		t.Fatalf("message %q", e.Message())
	}
	if !got(scaler.Step(opt)).ok(t) {
		t.Fatal("a clean step runs")
	}
	_, err = scaler.Step(opt)
	if e = wantStatus(t, err, tessera.InvalidArgument); e.Message() != "step() has already been called since the last update()." {
		t.Fatalf("message %q", e.Message())
	}
	noErr(t, scaler.Update())
	if e = wantStatus(t, scaler.Update(), tessera.InvalidArgument); e.Message() != "No inf checks were recorded prior to update." {
		t.Fatalf("message %q", e.Message())
	}
	if values := got(p.Float64s()).ok(t); !closeTo(values, []float64{0.5, -2.5, 2.5, 0}, 0) {
		t.Fatalf("one step of the unscaled gradient 0.5: %v", values)
	}
	o := tessera.DefaultGradScalerOptions()
	o.GrowthFactor = 1
	_, err = tessera.NewGradScaler(o)
	if e = wantStatus(t, err, tessera.InvalidArgument); e.Message() != "The growth factor must be > 1.0." {
		t.Fatalf("message %q", e.Message())
	}
}

func TestGradScalerStateDictAndDisabled(t *testing.T) {
	a := scalerWith(t, 4, 2000)
	defer a.Close()
	b := got(tessera.NewGradScaler(tessera.DefaultGradScalerOptions())).ok(t)
	defer b.Close()
	noErr(t, a.SetGrowthInterval(7))
	noErr(t, a.SetGrowthFactor(3))
	noErr(t, a.SetBackoffFactor(0.25))
	sd := got(a.StateDict()).ok(t)
	if len(sd) != 5 {
		t.Fatalf("%d entries, want 5", len(sd))
	}
	noErr(t, b.LoadStateDict(sd))
	for _, v := range sd {
		v.Close()
	}
	if s := got(b.GetScale()).ok(t); s != 4 {
		t.Fatalf("scale %v", s)
	}
	if g := got(b.GrowthFactor()).ok(t); g != 3 {
		t.Fatalf("growth factor %v", g)
	}
	if g := got(b.BackoffFactor()).ok(t); g != 0.25 {
		t.Fatalf("backoff factor %v", g)
	}
	if i := got(b.GrowthInterval()).ok(t); i != 7 {
		t.Fatalf("growth interval %v", i)
	}
	wantStatus(t, b.UpdateScale(5), tessera.InvalidArgument)

	o := tessera.DefaultGradScalerOptions()
	o.Enabled = false
	off := got(tessera.NewGradScaler(o)).ok(t)
	defer off.Close()
	if got(off.IsEnabled()).ok(t) {
		t.Fatal("enabled")
	}
	if s := got(off.GetScale()).ok(t); s != 1 {
		t.Fatalf("a disabled scaler's scale %v", s)
	}
	if sd := got(off.StateDict()).ok(t); len(sd) != 0 {
		t.Fatalf("a disabled scaler's state_dict has %d entries", len(sd))
	}
}

func TestAutocastRegionTurnsOnAndOffAndNests(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if tessera.IsAutocastEnabled(tessera.DeviceCPU) {
		t.Fatal("on outside a region")
	}
	end, err := tessera.Autocast(tessera.DeviceCPU, tessera.BFloat16, true)
	noErr(t, err)
	if !tessera.IsAutocastEnabled(tessera.DeviceCPU) || tessera.AutocastDType(tessera.DeviceCPU) != tessera.BFloat16 {
		t.Fatal("off, or not bfloat16, in a region")
	}
	if tessera.IsAutocastEnabled(tessera.DeviceCUDA) {
		t.Fatal("another device type is affected")
	}
	func() {
		inner, err := tessera.Autocast(tessera.DeviceCPU, tessera.BFloat16, false)
		noErr(t, err)
		defer inner()
		if tessera.IsAutocastEnabled(tessera.DeviceCPU) {
			t.Fatal("on in a nested disabled region")
		}
	}()
	if !tessera.IsAutocastEnabled(tessera.DeviceCPU) {
		t.Fatal("off after the nested region")
	}
	noErr(t, end())
	noErr(t, end())
	if tessera.IsAutocastEnabled(tessera.DeviceCPU) {
		t.Fatal("on after end")
	}
	none, err := tessera.Autocast(tessera.DeviceCPU, tessera.Int64, true)
	wantStatus(t, err, tessera.InvalidArgument)
	noErr(t, none())
	if tessera.IsAutocastEnabled(tessera.DeviceCPU) {
		t.Fatal("a failed Autocast opened a region")
	}
}
