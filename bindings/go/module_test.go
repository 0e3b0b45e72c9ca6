package tessera_test

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// nested is Sequential(Linear(4,3), BatchNorm2d(3), Sequential(Conv2d(3,2,3,bias=False), BatchNorm2d(2)),
// Linear(2,2,bias=False)).
func nested(t *testing.T) *tessera.Sequential {
	t.Helper()
	conv := got(tessera.NewConv2d(3, 2, [2]int64{3, 3}, [2]int64{1, 1}, [2]int64{0, 0}, [2]int64{1, 1}, 1, false,
		nil)).ok(t)
	inner := got(tessera.NewSequential(conv, got(tessera.NewBatchNorm2d(2, 1e-5, 0.1)).ok(t))).ok(t)
	return got(tessera.NewSequential(got(tessera.NewLinear(4, 3, true, nil)).ok(t),
		got(tessera.NewBatchNorm2d(3, 1e-5, 0.1)).ok(t), inner, got(tessera.NewLinear(2, 2, false, nil)).ok(t))).ok(t)
}

func names(list []tessera.NamedTensor) []string {
	out := []string{}
	for _, e := range list {
		out = append(out, e.Name)
	}
	return out
}

func wantNames(t *testing.T, what string, list []tessera.NamedTensor, want ...string) {
	t.Helper()
	if got := names(list); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
}

func zeros(t *testing.T, sizes ...int64) *tessera.Tensor {
	t.Helper()
	return got(tessera.Zeros(sizes, tessera.Float32)).ok(t)
}

func TestModuleKeysInTorchOrder(t *testing.T) {
	m := nested(t)
	defer m.Close()
	// /usr/bin/python3 -c 'import torch, torch.nn as nn; m = nn.Sequential(nn.Linear(4, 3),
	//   nn.BatchNorm2d(3), nn.Sequential(nn.Conv2d(3, 2, 3, bias=False), nn.BatchNorm2d(2)),
	//   nn.Linear(2, 2, bias=False)); print(list(m.state_dict().keys()));
	//   print([n for n, _ in m.named_parameters()]); print([n for n, _ in m.named_buffers()])'
	// (torch 1.13)
	wantNames(t, "state_dict", tessera.StateDict(m), "0.weight", "0.bias", "1.weight", "1.bias",
		"1.running_mean", "1.running_var", "1.num_batches_tracked", "2.0.weight", "2.1.weight", "2.1.bias",
		"2.1.running_mean", "2.1.running_var", "2.1.num_batches_tracked", "3.weight")
	wantNames(t, "named_parameters", m.NamedParameters(), "0.weight", "0.bias", "1.weight", "1.bias",
		"2.0.weight", "2.1.weight", "2.1.bias", "3.weight")
	wantNames(t, "named_buffers", m.NamedBuffers(), "1.running_mean", "1.running_var",
		"1.num_batches_tracked", "2.1.running_mean", "2.1.running_var", "2.1.num_batches_tracked")
	if n := len(tessera.Parameters(m)); n != 8 {
		t.Fatalf("Parameters: %d", n)
	}
	if n := len(tessera.Buffers(m)); n != 6 {
		t.Fatalf("Buffers: %d", n)
	}
	children := m.NamedChildren()
	if len(children) != 4 || children[2].Name != "2" {
		t.Fatalf("children: %v", children)
	}
	if _, ok := children[2].Module.(*tessera.Sequential); !ok {
		t.Fatalf("child 2 is %T", children[2].Module)
	}
	if d := got(tessera.StateDictMap(m)["1.num_batches_tracked"].DType()).ok(t); d != tessera.Int64 {
		t.Fatalf("num_batches_tracked dtype %v", d)
	}
	for _, p := range tessera.Parameters(m) {
		if !got(p.RequiresGrad()).ok(t) {
			t.Fatal("a parameter does not require grad")
		}
	}
}

func TestModuleStrictLoad(t *testing.T) {
	l := got(tessera.NewLinear(2, 3, true, nil)).ok(t)
	defer l.Close()
	bias, extra := zeros(t, 3), zeros(t, 1)
	defer bias.Close()
	defer extra.Close()
	before := got(l.Bias.Float64s()).ok(t)
	// torch 1.13: nn.Linear(2, 3).load_state_dict({"bias": torch.zeros(3), "extra": torch.zeros(1)})
	_, err := tessera.LoadStateDict(l, map[string]*tessera.Tensor{"bias": bias, "extra": extra}, true)
	e := wantStatus(t, err, tessera.InvalidArgument)
	want := "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"weight\". " +
		"\n\tUnexpected key(s) in state_dict: \"extra\". "
	if e.Message() != want {
		t.Fatalf("message %q, want %q", e.Message(), want)
	}
	if after := got(l.Bias.Float64s()).ok(t); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused load copied the bias")
	}

	// Nested: "0.nope" is unexpected where "0" is a child. torch 1.13 lists "9", "0.nope", "1.x" in the
	// dict's order; a Go map has none, so each module's unexpected keys come sorted.
	s := got(tessera.NewSequential(got(tessera.NewLinear(2, 2, true, nil)).ok(t), tessera.NewReLU())).ok(t)
	defer s.Close()
	w := zeros(t, 2, 2)
	defer w.Close()
	_, err = tessera.LoadStateDict(s, map[string]*tessera.Tensor{"0.weight": w, "0.nope": extra, "1.x": extra,
		"9": extra}, true)
	e = wantStatus(t, err, tessera.InvalidArgument)
	want = "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"0.bias\". " +
		"\n\tUnexpected key(s) in state_dict: \"9\", \"0.nope\", \"1.x\". "
	if e.Message() != want {
		t.Fatalf("nested message %q, want %q", e.Message(), want)
	}
}

func TestModuleLenientLoad(t *testing.T) {
	l := got(tessera.NewLinear(2, 3, true, nil)).ok(t)
	defer l.Close()
	bias := got(tessera.Full([]int64{3}, 7, tessera.Float32)).ok(t)
	defer bias.Close()
	extra := zeros(t, 1)
	defer extra.Close()
	keys := got(tessera.LoadStateDict(l, map[string]*tessera.Tensor{"bias": bias, "extra": extra}, false)).ok(t)
	if !reflect.DeepEqual(keys.MissingKeys, []string{"weight"}) || !reflect.DeepEqual(keys.UnexpectedKeys,
		[]string{"extra"}) {
		t.Fatalf("keys %+v", keys)
	}
	if v := got(l.Bias.Float64s()).ok(t); !closeTo(v, []float64{7, 7, 7}, 0) {
		t.Fatalf("bias %v", v)
	}
	if !got(l.Bias.RequiresGrad()).ok(t) {
		t.Fatal("the loaded bias no longer requires grad")
	}
	_, err := tessera.LoadStateDict(l, map[string]*tessera.Tensor{"bias": nil}, false)
	if e := wantStatus(t, err, tessera.InvalidArgument); e.Message() != "state_dict[\"bias\"] is nil" {
		t.Fatalf("nil value: %q", e.Message())
	}
	closed := zeros(t, 3)
	closed.Close()
	_, err = tessera.LoadStateDict(l, map[string]*tessera.Tensor{"bias": closed}, false)
	wantStatus(t, err, tessera.InvalidArgument)
}

func TestModuleShapeMismatch(t *testing.T) {
	l := got(tessera.NewLinear(2, 3, true, nil)).ok(t)
	defer l.Close()
	w, foo, b := zeros(t, 2, 3), zeros(t, 3), zeros(t, 3)
	defer w.Close()
	defer foo.Close()
	defer b.Close()
	// torch 1.13: nn.Linear(2, 3).load_state_dict({"weight": torch.zeros(2, 3), "foo": torch.zeros(3)})
	_, err := tessera.LoadStateDict(l, map[string]*tessera.Tensor{"weight": w, "foo": foo}, true)
	e := wantStatus(t, err, tessera.InvalidArgument)
	want := "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". " +
		"\n\tUnexpected key(s) in state_dict: \"foo\". \n\tsize mismatch for weight: copying a param with shape " +
		"torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([3, 2])."
	if e.Message() != want {
		t.Fatalf("message %q, want %q", e.Message(), want)
	}
	// Not strict still refuses the shape (torch too), and copies nothing, not even the bias.
	_, err = tessera.LoadStateDict(l, map[string]*tessera.Tensor{"weight": w, "bias": b}, false)
	e = wantStatus(t, err, tessera.InvalidArgument)
	want = "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with shape " +
		"torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([3, 2])."
	if e.Message() != want {
		t.Fatalf("lenient message %q", e.Message())
	}
	if v := got(l.Bias.Float64s()).ok(t); v[0] == 0 && v[1] == 0 && v[2] == 0 {
		t.Fatal("a refused load copied the bias")
	}
}

func TestModuleStateDictFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.tsr")
	a, b := nested(t), nested(t)
	defer a.Close()
	defer b.Close()
	x := got(tessera.Ones([]int64{2, 3, 5, 5}, tessera.Float32)).ok(t)
	defer x.Close()
	// A forward pass in training mode moves a's running statistics and counter.
	y := got(a.NamedChildren()[2].Module.Forward(x)).ok(t)
	y.Close()
	noErr(t, tessera.SaveStateDict(path, a, nil))
	keys := got(tessera.LoadStateDictFile(path, b, true)).ok(t)
	if len(keys.MissingKeys)+len(keys.UnexpectedKeys) != 0 {
		t.Fatalf("keys %+v", keys)
	}
	sb := tessera.StateDictMap(b)
	for _, e := range tessera.StateDict(a) {
		if !reflect.DeepEqual(got(e.Tensor.Float64s()).ok(t), got(sb[e.Name].Float64s()).ok(t)) {
			t.Fatalf("%s does not round-trip", e.Name)
		}
	}
	if n := got(sb["2.1.num_batches_tracked"].ItemInt64()).ok(t); n != 1 {
		t.Fatalf("num_batches_tracked %d", n)
	}
	small := got(tessera.NewLinear(1, 1, true, nil)).ok(t)
	defer small.Close()
	_, err := tessera.LoadStateDictFile(path, small, true)
	if e := wantStatus(t, err, tessera.InvalidArgument); !strings.HasPrefix(e.Message(),
		"Error(s) in loading state_dict for Linear:\n\tMissing key(s)") {
		t.Fatalf("wrong module: %q", e.Message())
	}
	_, err = tessera.LoadStateDictFile(filepath.Join(t.TempDir(), "none.tsr"), b, true)
	wantStatus(t, err, tessera.IOError)
	wantStatus(t, tessera.SaveStateDict(filepath.Join(t.TempDir(), "no/dir/x.tsr"), a, nil), tessera.IOError)
}

func TestModuleTrainEvalBatchNorm(t *testing.T) {
	bn := got(tessera.NewBatchNorm2d(1, 1e-5, 0.1)).ok(t)
	defer bn.Close()
	x := got(tessera.FromFloat64s([]float64{1, 2, 3, 4}, []int64{1, 1, 2, 2}, tessera.Float32)).ok(t)
	defer x.Close()
	if !bn.IsTraining() {
		t.Fatal("a new module is not training")
	}
	y := got(bn.Forward(x)).ok(t)
	// Batch statistics: mean 2.5, biased var 1.25.
	s := 1 / math.Sqrt(1.25+1e-5)
	if v := got(y.Float64s()).ok(t); !closeTo(v, []float64{-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, 1e-5) {
		t.Fatalf("training output %v", v)
	}
	y.Close()
	// running_mean 0.9 * 0 + 0.1 * 2.5; running_var with the unbiased 5/3.
	runningVar := 0.9 + 0.1*5.0/3
	if v := got(bn.RunningMean.Float64s()).ok(t); !closeTo(v, []float64{0.25}, 1e-6) {
		t.Fatalf("running_mean %v", v)
	}
	if v := got(bn.RunningVar.Float64s()).ok(t); !closeTo(v, []float64{runningVar}, 1e-6) {
		t.Fatalf("running_var %v", v)
	}
	if n := got(bn.NumBatchesTracked.ItemInt64()).ok(t); n != 1 {
		t.Fatalf("num_batches_tracked %d", n)
	}
	bn.Train(false)
	y = got(bn.Forward(x)).ok(t)
	defer y.Close()
	want := make([]float64, 4)
	for i := range want {
		want[i] = (float64(i+1) - 0.25) / math.Sqrt(runningVar+1e-5)
	}
	if v := got(y.Float64s()).ok(t); !closeTo(v, want, 1e-5) {
		t.Fatalf("eval output %v, want %v", v, want)
	}
	if n := got(bn.NumBatchesTracked.ItemInt64()).ok(t); n != 1 {
		t.Fatalf("eval counted a batch: %d", n)
	}
	flat := zeros(t, 2, 2)
	defer flat.Close()
	_, err := bn.Forward(flat)
	if e := wantStatus(t, err, tessera.InvalidArgument); e.Message() != "expected 4D input (got 2D input)" {
		t.Fatalf("2D input: %q", e.Message())
	}

	m := nested(t)
	defer m.Close()
	m.Train(false)
	grandchild := m.NamedChildren()[2].Module.NamedChildren()[1].Module
	if grandchild.IsTraining() {
		t.Fatal("Train(false) did not reach a grandchild")
	}
	m.Train(true)
	if !grandchild.IsTraining() {
		t.Fatal("Train(true) did not reach a grandchild")
	}
}

func TestModuleZeroGrad(t *testing.T) {
	m := got(tessera.NewSequential(got(tessera.NewLinear(3, 4, true, nil)).ok(t), tessera.NewReLU(),
		got(tessera.NewLinear(4, 2, true, nil)).ok(t))).ok(t)
	defer m.Close()
	x := got(tessera.Ones([]int64{5, 3}, tessera.Float32)).ok(t)
	defer x.Close()
	y := got(m.Forward(x)).ok(t)
	defer y.Close()
	loss := got(y.Sum(nil, false)).ok(t)
	defer loss.Close()
	noErr(t, loss.Backward())
	total := 0.0
	for _, p := range tessera.Parameters(m) {
		g := got(p.Grad()).ok(t)
		for _, v := range got(g.Float64s()).ok(t) {
			total += math.Abs(v)
		}
		g.Close()
	}
	if total == 0 {
		t.Fatal("no gradient after backward")
	}
	noErr(t, tessera.ZeroGrad(m))
	for _, e := range m.NamedParameters() {
		g := got(e.Tensor.Grad()).ok(t)
		for _, v := range got(g.Float64s()).ok(t) {
			if v != 0 {
				t.Fatalf("%s.grad not zeroed", e.Name)
			}
		}
		g.Close()
	}
}

// within checks every value is in [-bound, bound] and not all equal (drawn).
func within(t *testing.T, what string, x *tessera.Tensor, bound float64) {
	t.Helper()
	v := got(x.Float64s()).ok(t)
	distinct := map[float64]bool{}
	for _, d := range v {
		if math.Abs(d) > bound+1e-7 {
			t.Fatalf("%s: %v outside %v", what, d, bound)
		}
		distinct[d] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("%s: not drawn", what)
	}
}

func TestModuleLayers(t *testing.T) {
	g := got(tessera.NewGenerator(3)).ok(t)
	defer g.Close()
	l := got(tessera.NewLinear(16, 8, true, g)).ok(t)
	defer l.Close()
	if !equalInts(l.Weight.Sizes(), []int64{8, 16}) || !equalInts(l.Bias.Sizes(), []int64{8}) {
		t.Fatalf("Linear sizes %v %v", l.Weight.Sizes(), l.Bias.Sizes())
	}
	// kaiming_uniform_(a = sqrt(5)): bound gain * sqrt(3 / fan_in) = sqrt(2 / 6) * sqrt(3 / 16) = 1/4.
	within(t, "Linear weight", l.Weight, 0.25)
	within(t, "Linear bias", l.Bias, 0.25)
	x := got(tessera.Ones([]int64{4, 16}, tessera.Float32)).ok(t)
	defer x.Close()
	y := got(l.Forward(x)).ok(t)
	defer y.Close()
	want := got(tessera.Linear(x, l.Weight, l.Bias)).ok(t)
	defer want.Close()
	if !equalInts(y.Sizes(), []int64{4, 8}) || !reflect.DeepEqual(got(y.Float64s()).ok(t), got(want.Float64s()).ok(t)) {
		t.Fatal("Linear.Forward is not F.linear")
	}
	wide := got(tessera.Ones([]int64{1, 4}, tessera.Float32)).ok(t)
	defer wide.Close()
	_, err := l.Forward(wide)
	wantStatus(t, err, tessera.ShapeMismatch)

	nb := got(tessera.NewLinear(2, 2, false, nil)).ok(t)
	defer nb.Close()
	if nb.Bias != nil {
		t.Fatal("bias without bias")
	}
	wantNames(t, "Linear without bias", tessera.StateDict(nb), "weight")

	c := got(tessera.NewConv2d(4, 6, [2]int64{3, 1}, [2]int64{2, 1}, [2]int64{1, 0}, [2]int64{1, 1}, 2, true, g)).ok(t)
	defer c.Close()
	if !equalInts(c.Weight.Sizes(), []int64{6, 2, 3, 1}) {
		t.Fatalf("Conv2d weight %v", c.Weight.Sizes())
	}
	// fan_in = 2 * 3 * 1 = 6: bound 1 / sqrt(6).
	within(t, "Conv2d weight", c.Weight, 1/math.Sqrt(6))
	within(t, "Conv2d bias", c.Bias, 1/math.Sqrt(6))
	img := got(tessera.Ones([]int64{1, 4, 7, 5}, tessera.Float32)).ok(t)
	defer img.Close()
	out := got(c.Forward(img)).ok(t)
	defer out.Close()
	if !equalInts(out.Sizes(), []int64{1, 6, 4, 5}) {
		t.Fatalf("Conv2d output %v", out.Sizes())
	}
	wantNames(t, "Conv2d", tessera.StateDict(c), "weight", "bias")
}

func TestModuleConv2dGroupErrors(t *testing.T) {
	one, zero := [2]int64{1, 1}, [2]int64{0, 0}
	for _, c := range []struct {
		in, out, groups int64
		want            string
	}{
		{3, 4, 2, "in_channels must be divisible by groups"},
		{4, 3, 2, "out_channels must be divisible by groups"},
		{4, 4, 0, "groups must be a positive integer"},
	} {
		_, err := tessera.NewConv2d(c.in, c.out, one, one, zero, one, c.groups, true, nil)
		if e := wantStatus(t, err, tessera.InvalidArgument); e.Message() != c.want {
			t.Fatalf("%+v: %q", c, e.Message())
		}
	}
	_, err := tessera.NewLinear(-1, 2, true, nil)
	wantStatus(t, err, tessera.InvalidArgument)
}

// scale is a module written outside the package: one parameter, two buffers.
type scale struct {
	tessera.ModuleBase
	factor *tessera.Tensor
}

func (s *scale) Forward(x *tessera.Tensor) (*tessera.Tensor, error) { return x.Mul(s.factor) }

func TestModuleRegistration(t *testing.T) {
	s := &scale{}
	defer s.Close()
	s.factor = got(tessera.Ones([]int64{1}, tessera.Float32)).ok(t)
	noErr(t, s.RegisterParameter("scale", s.factor))
	noErr(t, s.RegisterBuffer("step", zeros(t, 1), true))
	noErr(t, s.RegisterBuffer("cache", zeros(t, 1), false))
	var m tessera.Module = s
	wantNames(t, "non-persistent left out", tessera.StateDict(m), "scale", "step")
	wantNames(t, "named_buffers", m.NamedBuffers(), "step", "cache")
	for _, c := range []struct {
		err  error
		want string
	}{
		{s.RegisterParameter("a.b", nil), "parameter name can't contain \".\", got: a.b"},
		{s.RegisterBuffer("", nil, true), "buffer name can't be empty string \"\""},
		{s.RegisterModule("step", tessera.NewReLU()), "attribute 'step' already exists"},
		{s.RegisterModule("m", nil), "module \"m\" is nil"},
	} {
		if e := wantStatus(t, c.err, tessera.InvalidArgument); e.Message() != c.want {
			t.Fatalf("%q, want %q", e.Message(), c.want)
		}
	}
	closed := zeros(t, 1)
	closed.Close()
	wantStatus(t, s.RegisterParameter("closed", closed), tessera.InvalidArgument)
	wantNames(t, "a refused parameter is not registered", m.NamedParameters(), "scale")
	// Registering a name again replaces the tensor in place and releases the old one.
	fresh := got(tessera.Full([]int64{1}, 3, tessera.Float32)).ok(t)
	noErr(t, s.RegisterParameter("scale", fresh))
	_, err := s.factor.Numel()
	wantStatus(t, err, tessera.InvalidArgument) // closed
	wantNames(t, "order kept", tessera.StateDict(m), "scale", "step")
	if tessera.StateDictMap(m)["scale"] != fresh {
		t.Fatal("not replaced")
	}
	noErr(t, s.RegisterParameter("scale", nil))
	wantNames(t, "None parameter left out", tessera.StateDict(m), "step")
	noErr(t, s.RegisterBuffer("cache", zeros(t, 1), true))
	wantNames(t, "now persistent", tessera.StateDict(m), "step", "cache")
	// The message names the module by its Go type, as torch by its class.
	_, err = tessera.LoadStateDict(m, nil, true)
	if e := wantStatus(t, err, tessera.InvalidArgument); !strings.HasPrefix(e.Message(),
		"Error(s) in loading state_dict for scale:\n\tMissing key(s) in state_dict: \"step\", \"cache\". ") {
		t.Fatalf("message %q", e.Message())
	}
}

func TestModuleSharingAndClose(t *testing.T) {
	shared := got(tessera.NewLinear(2, 2, true, nil)).ok(t)
	m := got(tessera.NewSequential(shared, tessera.NewReLU())).ok(t)
	noErr(t, m.RegisterModule("again", shared))
	wantNames(t, "listed once", m.NamedParameters(), "0.weight", "0.bias")
	wantNames(t, "state_dict lists both", tessera.StateDict(m), "0.weight", "0.bias", "again.weight",
		"again.bias")
	noErr(t, m.Close())
	noErr(t, m.Close()) // twice: nothing more
	_, err := shared.Weight.Numel()
	wantStatus(t, err, tessera.InvalidArgument)
	bn := got(tessera.NewBatchNorm2d(1, 1e-5, 0.1)).ok(t)
	bn.Close()
	_, err = bn.NumBatchesTracked.Numel()
	wantStatus(t, err, tessera.InvalidArgument)
}

func TestModuleEmptySequential(t *testing.T) {
	s := got(tessera.NewSequential()).ok(t)
	defer s.Close()
	x := got(tessera.Ones([]int64{2}, tessera.Float32)).ok(t)
	defer x.Close()
	y := got(s.Forward(x)).ok(t)
	defer y.Close()
	if y == x || !got(y.SharesStorage(x)).ok(t) {
		t.Fatal("not a new handle to the input")
	}
	noErr(t, s.Append(tessera.NewReLU()))
	if s.Len() != 1 {
		t.Fatalf("Len %d", s.Len())
	}
	_, err := tessera.NewSequential(tessera.NewReLU(), nil)
	wantStatus(t, err, tessera.InvalidArgument)
}
