package tessera_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

const (
	ckD, ckN, ckClasses, ckBlocks = 16, 8, 4, 4
	ckPDrop                       = 0.25
)

// residualMLP holds a residual MLP's parameters (w, b per block, then the
// head) and a batch: per block h = h + dropout(relu(h @ w + b)), then cross
// entropy of h @ head.
type residualMLP struct {
	params    []*tessera.Tensor
	x, target *tessera.Tensor
}

func newResidualMLP(t *testing.T) *residualMLP {
	t.Helper()
	g := got(tessera.NewGenerator(7)).ok(t)
	defer g.Close()
	m := &residualMLP{}
	param := func(sizes []int64, scale float64) *tessera.Tensor {
		p := got(tessera.Randn(sizes, tessera.Float32, g)).ok(t)
		noErr(t, p.MulScalarInPlace(scale))
		noErr(t, p.SetRequiresGrad(true))
		return p
	}
	for i := 0; i < ckBlocks; i++ {
		m.params = append(m.params, param([]int64{ckD, ckD}, 0.4), param([]int64{ckD}, 0.1))
	}
	m.params = append(m.params, param([]int64{ckD, ckClasses}, 1))
	m.x = got(tessera.Randn([]int64{ckN, ckD}, tessera.Float32, g)).ok(t)
	labels := make([]int64, ckN)
	for i := range labels {
		labels[i] = int64(i % ckClasses)
	}
	m.target = got(tessera.FromInt64s(labels, []int64{ckN}, tessera.Int64)).ok(t)
	return m
}

func (m *residualMLP) Close() {
	for _, p := range m.params {
		p.Close()
	}
	m.x.Close()
	m.target.Close()
}

// block is h + dropout(relu(h @ w_i + b_i)); it closes its temporaries.
func (m *residualMLP) block(i int, h *tessera.Tensor, g *tessera.Generator) (*tessera.Tensor, error) {
	z, err := h.Matmul(m.params[2*i])
	if err != nil {
		return nil, err
	}
	defer z.Close()
	zb, err := z.Add(m.params[2*i+1])
	if err != nil {
		return nil, err
	}
	defer zb.Close()
	a, err := zb.Relu()
	if err != nil {
		return nil, err
	}
	defer a.Close()
	dropped, err := a.Dropout(ckPDrop, true, g)
	if err != nil {
		return nil, err
	}
	defer dropped.Close()
	return h.Add(dropped)
}

// trainStep runs one SGD step, each block run by runBlock, and returns the
// gradients' bytes, then the updated parameters' bytes.
func trainStep(t *testing.T, runBlock func(f func() error) error) [][]byte {
	t.Helper()
	m := newResidualMLP(t)
	defer m.Close()
	g := got(tessera.NewGenerator(1234)).ok(t)
	defer g.Close()
	h := got(m.x.Clone(tessera.PreserveFormat)).ok(t)
	for i := 0; i < ckBlocks; i++ {
		var next *tessera.Tensor
		noErr(t, runBlock(func() (err error) {
			next, err = m.block(i, h, g)
			return err
		}))
		h.Close()
		h = next
	}
	defer h.Close()
	logits := got(h.Matmul(m.params[2*ckBlocks])).ok(t)
	defer logits.Close()
	loss := got(logits.CrossEntropy(m.target)).ok(t)
	defer loss.Close()
	noErr(t, loss.Backward())
	var out [][]byte
	for _, p := range m.params {
		grad := got(p.Grad()).ok(t)
		out = append(out, got(grad.Bytes()).ok(t))
		grad.Close()
	}
	noErr(t, tessera.NoGrad(func() error {
		for _, p := range m.params {
			grad, err := p.Grad()
			if err != nil {
				return err
			}
			err = p.AddInPlace(grad, -0.1)
			grad.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}))
	for _, p := range m.params {
		out = append(out, got(p.Bytes()).ok(t))
	}
	return out
}

func TestCheckpointGivesIdenticalGradients(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	plain := trainStep(t, func(f func() error) error { return f() })
	if len(plain) != 2*(2*ckBlocks+1) {
		t.Fatalf("%d gradients and parameters", len(plain))
	}
	variants := map[string]func(f func() error) error{
		"WithCheckpoint": func(f func() error) error { return tessera.WithCheckpoint(f) },
		"CheckpointRegion and defer end": func(f func() error) error {
			end, err := tessera.CheckpointRegion()
			if err != nil {
				return err
			}
			defer end()
			return f()
		},
		"KeepOps(matmul, add)": func(f func() error) error {
			return tessera.WithCheckpoint(f, tessera.KeepOps("matmul", "add"))
		},
		"EarlyStop(false), DeterminismCheck(false)": func(f func() error) error {
			return tessera.WithCheckpoint(f, tessera.EarlyStop(false), tessera.DeterminismCheck(false))
		},
	}
	for name, run := range variants {
		result := trainStep(t, run)
		for i := range plain {
			if !bytes.Equal(plain[i], result[i]) {
				what := "gradient"
				if i > 2*ckBlocks {
					what = "updated parameter"
				}
				t.Errorf("%s: %s %d differs", name, what, i)
			}
		}
		if d := tessera.CheckpointDepth(); d != 0 {
			t.Errorf("%s: depth %d after the step", name, d)
		}
	}
	// Fresh random numbers on replay: the recomputed masks are not the forward's.
	fresh := trainStep(t, func(f func() error) error {
		return tessera.WithCheckpoint(f, tessera.PreserveRNGState(false))
	})
	same := true
	for i := 0; i < 2*ckBlocks; i++ {
		same = same && bytes.Equal(plain[i], fresh[i])
	}
	if same {
		t.Error("PreserveRNGState(false) left every block gradient unchanged")
	}
}

func TestCheckpointEndsOnTheErrorPath(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	x := got(tessera.Ones([]int64{3}, tessera.Float32)).ok(t)
	defer x.Close()
	noErr(t, x.SetRequiresGrad(true))

	// fn's own error comes back and the region is ended.
	sentinel := errors.New("from fn")
	var made *tessera.Tensor
	err := tessera.WithCheckpoint(func() error {
		if d := tessera.CheckpointDepth(); d != 1 {
			t.Errorf("depth %d inside", d)
		}
		doubled, err := x.MulScalar(2)
		if err != nil {
			return err
		}
		defer doubled.Close()
		if made, err = doubled.Relu(); err != nil {
			return err
		}
		return sentinel
	})
	if err != sentinel {
		t.Fatalf("WithCheckpoint returned %v", err)
	}
	if d := tessera.CheckpointDepth(); d != 0 {
		t.Fatalf("depth %d after fn failed", d)
	}
	defer made.Close()
	s := got(made.Sum(nil, false)).ok(t)
	defer s.Close()
	noErr(t, s.Backward()) // tensors made inside stay valid
	grad := got(x.Grad()).ok(t)
	defer grad.Close()
	if v := got(grad.Float64s()).ok(t); !closeTo(v, []float64{2, 2, 2}, 0) {
		t.Errorf("gradient through the region %v", v)
	}

	// A library error inside, returned by fn.
	bad := got(tessera.Ones([]int64{2}, tessera.Float32)).ok(t)
	defer bad.Close()
	err = tessera.WithCheckpoint(func() error {
		_, err := x.Add(bad)
		return err
	})
	wantStatus(t, err, tessera.ShapeMismatch)

	// The defer form on an early return, and a panic in fn.
	func() {
		end, err := tessera.CheckpointRegion()
		noErr(t, err)
		defer end()
	}()
	func() {
		defer func() { _ = recover() }()
		_ = tessera.WithCheckpoint(func() error { panic("in fn") })
	}()
	if d := tessera.CheckpointDepth(); d != 0 {
		t.Fatalf("depth %d after an early return and a panic", d)
	}
}

func TestCheckpointMisuse(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	// End without begin.
	e := wantStatus(t, tessera.CheckpointEnd(), tessera.Autograd)
	if !strings.Contains(e.Message(), "no checkpoint region is open") {
		t.Errorf("message %q", e.Message())
	}
	noErr(t, tessera.CheckpointBegin())
	if d := tessera.CheckpointDepth(); d != 1 {
		t.Errorf("depth %d after CheckpointBegin", d)
	}
	noErr(t, tessera.CheckpointEnd())

	// end() is idempotent, and reports a region ended behind its back.
	end, err := tessera.CheckpointRegion()
	noErr(t, err)
	noErr(t, end())
	noErr(t, end())
	end, err = tessera.CheckpointRegion()
	noErr(t, err)
	noErr(t, tessera.CheckpointEnd())
	wantStatus(t, end(), tessera.Autograd)
	err = tessera.WithCheckpoint(func() error { return tessera.CheckpointEnd() })
	wantStatus(t, err, tessera.Autograd) // fn ended the region itself

	// Backward inside an open region.
	w := got(tessera.Ones([]int64{3}, tessera.Float32)).ok(t)
	defer w.Close()
	noErr(t, w.SetRequiresGrad(true))
	sq := got(w.Mul(w)).ok(t)
	defer sq.Close()
	loss := got(sq.Sum(nil, false)).ok(t)
	defer loss.Close()
	err = tessera.WithCheckpoint(func() error {
		wantStatus(t, loss.Backward(), tessera.Autograd)
		_, err := tessera.AutogradGrad([]*tessera.Tensor{loss}, []*tessera.Tensor{w}, tessera.GradOptions{})
		wantStatus(t, err, tessera.Autograd)
		return nil
	})
	noErr(t, err)
	if grad := got(w.Grad()).ok(t); grad != nil {
		t.Errorf("the failed backward wrote a gradient")
	}
	noErr(t, loss.Backward()) // the graph is intact once the region ended

	// An unknown KeepOps name.
	ran := false
	err = tessera.WithCheckpoint(func() error { ran = true; return nil }, tessera.KeepOps("matmul", "no_such_op"))
	e = wantStatus(t, err, tessera.InvalidArgument)
	if ran || !strings.Contains(e.Message(), "'no_such_op'") {
		t.Errorf("ran %v, message %q", ran, e.Message())
	}
	_, err = tessera.CheckpointRegion(tessera.KeepOps("mat\x00mul"))
	wantStatus(t, err, tessera.InvalidArgument)
	if d := tessera.CheckpointDepth(); d != 0 {
		t.Errorf("depth %d after the failures", d)
	}

	// Regions are per OS thread: another goroutine (locked to another
	// thread) sees none.
	err = tessera.WithCheckpoint(func() error {
		done := make(chan int64)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			done <- tessera.CheckpointDepth()
		}()
		if d := <-done; d != 0 {
			return fmt.Errorf("another thread sees depth %d", d)
		}
		return nil
	})
	noErr(t, err)
}

func TestGeneratorStateAndDropout(t *testing.T) {
	g := got(tessera.NewGenerator(2024)).ok(t)
	defer g.Close()
	x := got(tessera.Ones([]int64{5, 7}, tessera.Float32)).ok(t)
	defer x.Close()
	state := func() [2]uint64 {
		seed, offset, err := g.State()
		noErr(t, err)
		return [2]uint64{seed, offset}
	}
	if s := state(); s != [2]uint64{2024, 0} {
		t.Errorf("fresh state %v", s)
	}
	first := got(x.Dropout(0.5, true, g)).ok(t)
	defer first.Close()
	if s := state(); s != [2]uint64{2024, 35} {
		t.Errorf("state after 35 elements %v", s)
	}
	noErr(t, g.SetState(2024, 0))
	again := got(x.Dropout(0.5, true, g)).ok(t)
	defer again.Close()
	if !bytes.Equal(got(first.Bytes()).ok(t), got(again.Bytes()).ok(t)) {
		t.Error("same state, different mask")
	}
	for _, v := range got(first.Float64s()).ok(t) {
		if v != 0 && v != 2 {
			t.Fatalf("dropout value %v, want 0 or 2", v)
		}
	}
	const max = ^uint64(0)
	noErr(t, g.SetState(max, max-1))
	if s := state(); s != [2]uint64{max, max - 1} {
		t.Errorf("all 64 bits: %v", s)
	}
	same := got(x.Dropout(0.5, false, g)).ok(t)
	defer same.Close()
	if !got(same.SharesStorage(x)).ok(t) {
		t.Error("train=false does not return the input itself")
	}
	_, err := x.Dropout(1.5, true, g)
	wantStatus(t, err, tessera.InvalidArgument)
	ints := got(tessera.Arange(0, 3, 1, tessera.Int64)).ok(t)
	defer ints.Close()
	_, err = ints.Dropout(0.5, true, g)
	wantStatus(t, err, tessera.DTypeMismatch)

	closed := got(tessera.NewGenerator(1)).ok(t)
	closed.Close()
	_, _, err = closed.State()
	wantStatus(t, err, tessera.InvalidArgument)
	wantStatus(t, closed.SetState(1, 2), tessera.InvalidArgument)
	_, err = x.Dropout(0.5, true, closed)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = x.Dropout(0.5, true, nil)
	wantStatus(t, err, tessera.InvalidArgument)
}

func TestAutogradGrad(t *testing.T) {
	x := got(tessera.FromFloat64s([]float64{1, -2, 3}, []int64{3}, tessera.Float64)).ok(t)
	defer x.Close()
	noErr(t, x.SetRequiresGrad(true))
	x2 := got(x.Mul(x)).ok(t)
	defer x2.Close()
	x3 := got(x2.Mul(x)).ok(t)
	defer x3.Close()
	y := got(x3.Sum(nil, false)).ok(t)
	defer y.Close()
	first := got(tessera.AutogradGrad([]*tessera.Tensor{y}, []*tessera.Tensor{x},
		tessera.GradOptions{RetainGraph: true, CreateGraph: true})).ok(t)
	dy := first[0]
	defer dy.Close()
	if v := got(dy.Float64s()).ok(t); !closeTo(v, []float64{3, 12, 27}, 0) {
		t.Errorf("d x^3 = %v, want 3x^2", v)
	}
	if !got(dy.RequiresGrad()).ok(t) {
		t.Error("CreateGraph: the gradient does not require grad")
	}
	s := got(dy.Sum(nil, false)).ok(t)
	defer s.Close()
	second := got(tessera.AutogradGrad([]*tessera.Tensor{s}, []*tessera.Tensor{x}, tessera.GradOptions{})).ok(t)
	defer second[0].Close()
	if v := got(second[0].Float64s()).ok(t); !closeTo(v, []float64{6, -12, 18}, 0) {
		t.Errorf("d2 x^3 = %v, want 6x", v)
	}
	if grad := got(x.Grad()).ok(t); grad != nil {
		t.Error("AutogradGrad wrote Grad")
	}

	unused := got(tessera.Ones([]int64{1}, tessera.Float64)).ok(t)
	defer unused.Close()
	noErr(t, unused.SetRequiresGrad(true))
	x3w := got(x.MulScalar(3)).ok(t)
	defer x3w.Close()
	sum := got(x.Sum(nil, false)).ok(t)
	defer sum.Close()
	weights := got(tessera.FromFloat64s([]float64{1, 10, 100}, []int64{3}, tessera.Float64)).ok(t)
	defer weights.Close()
	grads := got(tessera.AutogradGrad([]*tessera.Tensor{x3w, sum}, []*tessera.Tensor{x, unused},
		tessera.GradOptions{GradOutputs: []*tessera.Tensor{weights, nil}, RetainGraph: true, AllowUnused: true})).ok(t)
	if len(grads) != 2 || grads[1] != nil {
		t.Fatalf("grads %v, want a gradient and nil", grads)
	}
	defer grads[0].Close()
	if v := got(grads[0].Float64s()).ok(t); !closeTo(v, []float64{4, 31, 301}, 0) {
		t.Errorf("weighted gradient %v", v)
	}
	_, err := tessera.AutogradGrad([]*tessera.Tensor{sum}, []*tessera.Tensor{x, unused}, tessera.GradOptions{RetainGraph: true})
	wantStatus(t, err, tessera.Autograd)
	_, err = tessera.AutogradGrad([]*tessera.Tensor{x3w, sum}, []*tessera.Tensor{x},
		tessera.GradOptions{GradOutputs: []*tessera.Tensor{nil}, RetainGraph: true})
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.AutogradGrad(nil, []*tessera.Tensor{x}, tessera.GradOptions{})
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.AutogradGrad([]*tessera.Tensor{sum}, []*tessera.Tensor{nil}, tessera.GradOptions{})
	wantStatus(t, err, tessera.InvalidArgument)
	closed := got(tessera.Ones([]int64{1}, tessera.Float64)).ok(t)
	closed.Close()
	_, err = tessera.AutogradGrad([]*tessera.Tensor{sum}, []*tessera.Tensor{closed}, tessera.GradOptions{})
	wantStatus(t, err, tessera.InvalidArgument)
}
