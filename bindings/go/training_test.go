package tessera_test

import (
	"math"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// ClipGradNorm / ClipGradValue, parameter groups and StateDict, and the LR
// schedulers. The expected numbers come from PyTorch 1.13
// (/usr/bin/python3): SGD([{a}, {b, lr 0.01}], lr=0.1, momentum=0.9) under
// CosineAnnealingLR(T_max=4, eta_min=0.001) and OneCycleLR(max_lr=0.5,
// total_steps=6); clip_grad_norm_ of grads [3, 4] and [12] to 1.

var (
	cosineLRs = []float64{0.1, 0.01, 0.0855017856687341, 0.008681980515339464, 0.0505,
		0.0055000000000000005, 0.0154982143312659, 0.0023180194846605367, 0.001, 0.001,
		0.015498214331265896, 0.002318019484660536, 0.05050000000000001, 0.0055000000000000005}
	oneCycleLRs = []float64{0.020000000000000018, 0.49720771772545586, 0.4058728269748815,
		0.23131855133348753, 0.0667387650944153, 2e-06}
	oneCycleMomenta = []float64{0.95, 0.8505584586887436, 0.8688255099070633,
		0.9037365046793212, 0.9366525935914912, 0.95}
)

func trainParam(t *testing.T, v ...float64) *tessera.Tensor {
	p := got(tessera.FromFloat64s(v, []int64{int64(len(v))}, tessera.Float32)).ok(t)
	noErr(t, p.SetRequiresGrad(true))
	return p
}

func setGrad(t *testing.T, p *tessera.Tensor, v ...float64) {
	g := got(tessera.FromFloat64s(v, []int64{int64(len(v))}, tessera.Float32)).ok(t)
	noErr(t, p.SetGrad(g))
	g.Close()
}

func gradOf(t *testing.T, p *tessera.Tensor) []float64 {
	g := got(p.Grad()).ok(t)
	defer g.Close()
	return got(g.Float64s()).ok(t)
}

func twoGroups(t *testing.T, a, b *tessera.Tensor) *tessera.Optimizer {
	opt := got(tessera.NewSGD([]*tessera.Tensor{a}, tessera.SGDOptions{LR: 0.1, Momentum: 0.9})).ok(t)
	noErr(t, opt.AddParamGroup([]*tessera.Tensor{b}, map[string]float64{"lr": 0.01}))
	return opt
}

func TestClipGradMatchesTorch(t *testing.T) {
	a, b := trainParam(t, 0, 0), trainParam(t, 0)
	defer a.Close()
	defer b.Close()
	setGrad(t, a, 3, 4)
	setGrad(t, b, 12)
	total := got(tessera.ClipGradNorm([]*tessera.Tensor{a, b}, 1.0, 2.0, false)).ok(t)
	defer total.Close()
	if v := got(total.Float64s()).ok(t); v[0] != 13 {
		t.Fatalf("total norm %v", v)
	}
	if g := gradOf(t, a); !closeTo(g, []float64{0.23076921701431274, 0.307692289352417}, 0) {
		t.Fatalf("a.grad %v", g)
	}
	if g := gradOf(t, b); !closeTo(g, []float64{0.923076868057251}, 0) {
		t.Fatalf("b.grad %v", g)
	}
	setGrad(t, a, 3, -4)
	noErr(t, tessera.ClipGradValue([]*tessera.Tensor{a}, 0.5))
	if g := gradOf(t, a); !closeTo(g, []float64{0.5, -0.5}, 0) {
		t.Fatalf("clip_grad_value_ %v", g)
	}
	setGrad(t, a, math.NaN(), 1)
	_, err := tessera.ClipGradNorm([]*tessera.Tensor{a}, 1, 2, true)
	if e := wantStatus(t, err, tessera.InvalidArgument); !strings.Contains(e.Error(), "The total norm of order 2.0") {
		t.Fatalf("message %q", e.Error())
	}
}

func TestCosineAnnealingOnTwoGroupsMatchesTorchExactly(t *testing.T) {
	a, b := trainParam(t, 0, 0), trainParam(t, 0)
	defer a.Close()
	defer b.Close()
	opt := twoGroups(t, a, b)
	defer opt.Close()
	s := got(tessera.NewCosineAnnealingLR(opt, 4, 0.001)).ok(t)
	defer s.Close()
	if n := got(opt.ParamGroupCount()).ok(t); n != 2 {
		t.Fatalf("groups %d", n)
	}
	for step := 0; step <= 6; step++ {
		if step > 0 {
			noErr(t, opt.Step())
			noErr(t, s.Step())
		}
		lrs := got(s.LastLR()).ok(t)
		if lrs[0] != cosineLRs[2*step] || lrs[1] != cosineLRs[2*step+1] {
			t.Fatalf("step %d: lrs %v, torch %v", step, lrs, cosineLRs[2*step:2*step+2])
		}
		if lr := got(opt.GroupOption(1, "lr")).ok(t); lr != cosineLRs[2*step+1] {
			t.Fatalf("step %d: group 1's lr %v", step, lr)
		}
	}
	if e := got(s.LastEpoch()).ok(t); e != 6 {
		t.Fatalf("last_epoch %d", e)
	}
}

func TestOneCycleCyclesLRAndMomentum(t *testing.T) {
	a, b := trainParam(t, 0, 0), trainParam(t, 0)
	defer a.Close()
	defer b.Close()
	opt := twoGroups(t, a, b)
	defer opt.Close()
	o := tessera.DefaultOneCycleOptions()
	o.MaxLR = []float64{0.5}
	o.TotalSteps = 6
	s := got(tessera.NewOneCycleLR(opt, o)).ok(t)
	defer s.Close()
	for step := 0; step < 6; step++ {
		if step > 0 {
			noErr(t, s.Step())
		}
		if lr := got(s.LastLR()).ok(t)[0]; lr != oneCycleLRs[step] {
			t.Fatalf("step %d: lr %v, torch %v", step, lr, oneCycleLRs[step])
		}
		if m := got(opt.GroupOption(0, "momentum")).ok(t); m != oneCycleMomenta[step] {
			t.Fatalf("step %d: momentum %v, torch %v", step, m, oneCycleMomenta[step])
		}
	}
	noErr(t, s.Step()) // last_epoch 6 == total_steps: still allowed, as in torch
	wantStatus(t, s.Step(), tessera.InvalidArgument)
	_, err := tessera.NewLinearLR(opt, 1.5, 1, 5)
	if e := wantStatus(t, err, tessera.InvalidArgument); !strings.Contains(e.Error(),
		"Starting multiplicative factor expected to be between 0 and 1.") {
		t.Fatalf("message %q", e.Error())
	}
}

func trainSteps(t *testing.T, opt *tessera.Optimizer, a, b *tessera.Tensor, from, to int) {
	for k := from; k < to; k++ {
		setGrad(t, a, 0.5*float64(k+1), -0.25)
		setGrad(t, b, 1/float64(k+1))
		noErr(t, opt.Step())
	}
}

func TestStateDictRoundTripResumesBitForBit(t *testing.T) {
	a, b, ra, rb := trainParam(t, 1, 2), trainParam(t, 3), trainParam(t, 1, 2), trainParam(t, 3)
	for _, p := range []*tessera.Tensor{a, b, ra, rb} {
		defer p.Close()
	}
	opt, ref := twoGroups(t, a, b), twoGroups(t, ra, rb)
	defer opt.Close()
	defer ref.Close()
	trainSteps(t, ref, ra, rb, 0, 6)
	trainSteps(t, opt, a, b, 0, 3)
	sd := got(opt.StateDict()).ok(t)
	if sd["state.0.momentum_buffer"] == nil {
		t.Fatal("state_dict lacks the momentum buffers")
	}
	a2 := trainParam(t, got(a.Float64s()).ok(t)...)
	b2 := trainParam(t, got(b.Float64s()).ok(t)...)
	defer a2.Close()
	defer b2.Close()
	resumed := twoGroups(t, a2, b2)
	defer resumed.Close()
	noErr(t, resumed.LoadStateDict(sd))
	for _, v := range sd {
		v.Close()
	}
	trainSteps(t, resumed, a2, b2, 3, 6)
	if x, y := got(ra.Float64s()).ok(t), got(a2.Float64s()).ok(t); !closeTo(x, y, 0) {
		t.Fatalf("a after resuming %v, uninterrupted %v", y, x)
	}
	if x, y := got(rb.Float64s()).ok(t), got(b2.Float64s()).ok(t); !closeTo(x, y, 0) {
		t.Fatalf("b after resuming %v, uninterrupted %v", y, x)
	}
	wantStatus(t, opt.AddParamGroup([]*tessera.Tensor{a}, nil), tessera.InvalidArgument)
	wantStatus(t, opt.SetGroupOption(1, "lr", -1), tessera.InvalidArgument)
}
