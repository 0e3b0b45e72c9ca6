package tessera_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"tessera.dev/tessera"
)

func TestVersion(t *testing.T) {
	n := tessera.VersionNumber()
	want := fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
	if got := tessera.Version(); got != want {
		t.Fatalf("Version() = %q, VersionNumber() = %d (%q)", got, n, want)
	}
}

func TestConstruction(t *testing.T) {
	z := got(tessera.Zeros([]int64{2, 3}, tessera.Float32)).ok(t)
	defer z.Close()
	if got := z.Sizes(); !equalInts(got, []int64{2, 3}) {
		t.Errorf("Zeros sizes %v", got)
	}
	if got := z.Strides(); !equalInts(got, []int64{3, 1}) {
		t.Errorf("Zeros strides %v", got)
	}
	if d := got(z.DType()).ok(t); d != tessera.Float32 || d.String() != "float32" {
		t.Errorf("dtype %v", d)
	}
	// repr(torch.zeros(2, 3)) of torch 1.13.
	if s := z.String(); s != "tensor([[0., 0., 0.],\n        [0., 0., 0.]])" {
		t.Errorf("String %q", s)
	}
	if n := got(z.Numel()).ok(t); n != 6 {
		t.Errorf("numel %d", n)
	}
	if n := got(z.Nbytes()).ok(t); n != 24 {
		t.Errorf("nbytes %d", n)
	}
	if d := got(z.Device()).ok(t); d != tessera.CPU {
		t.Errorf("device %v", d)
	}
	if v := got(z.Float64s()).ok(t); !closeTo(v, []float64{0, 0, 0, 0, 0, 0}, 0) {
		t.Errorf("zeros %v", v)
	}

	f := got(tessera.Full([]int64{2}, 2.5, tessera.Float64)).ok(t)
	defer f.Close()
	if v := got(f.Float64s()).ok(t); !closeTo(v, []float64{2.5, 2.5}, 0) {
		t.Errorf("full %v", v)
	}
	i := got(tessera.FromInt64s([]int64{1, -2, 3, 4}, []int64{2, 2}, tessera.Int64)).ok(t)
	defer i.Close()
	if v := got(i.Int64s()).ok(t); !equalInts(v, []int64{1, -2, 3, 4}) {
		t.Errorf("from int64s %v", v)
	}
	if v := got(i.AtInt64(1, 0)).ok(t); v != 3 {
		t.Errorf("i[1,0] = %d", v)
	}
	b := got(tessera.FromBytes([]byte{1, 2, 3}, []int64{3}, tessera.Uint8)).ok(t)
	defer b.Close()
	if v := got(b.Bytes()).ok(t); string(v) != "\x01\x02\x03" {
		t.Errorf("bytes %v", v)
	}
	// A 0-dim tensor: empty (not nil) sizes, one element.
	s := got(tessera.Full(nil, 7, tessera.Float32)).ok(t)
	defer s.Close()
	if sz := s.Sizes(); sz == nil || len(sz) != 0 {
		t.Errorf("scalar sizes %v", sz)
	}
	if v := got(s.Item()).ok(t); v != 7 {
		t.Errorf("item %v", v)
	}
	e := got(tessera.Empty([]int64{2, 3, 4, 5}, tessera.Float32, tessera.WithMemoryFormat(tessera.ChannelsLast))).ok(t)
	defer e.Close()
	if got := e.Strides(); !equalInts(got, []int64{60, 1, 15, 3}) {
		t.Errorf("channels_last empty strides %v", got)
	}
	// A bad dtype is refused with the library's status.
	_, err := tessera.Zeros([]int64{2}, tessera.DType(99))
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.Zeros([]int64{-1}, tessera.Float32)
	wantStatus(t, err, tessera.InvalidArgument)
}

func TestViewsShareStorage(t *testing.T) {
	base := arange(t, []int64{3, 4})
	defer base.Close()
	tr := got(base.Transpose(0, 1)).ok(t)
	defer tr.Close()
	if !got(tr.SharesStorage(base)).ok(t) {
		t.Fatal("transpose does not share storage")
	}
	noErr(t, tr.Set(-5, 3, 1)) // tr[3,1] is base[1,3]
	if v := got(base.At(1, 3)).ok(t); v != -5 {
		t.Fatalf("write through the view not seen: base[1,3] = %v", v)
	}
	noErr(t, base.Set(42, 2, 0))
	if v := got(tr.At(0, 2)).ok(t); v != 42 {
		t.Fatalf("write through the base not seen: tr[0,2] = %v", v)
	}
	row := got(base.Select(0, 1)).ok(t)
	defer row.Close()
	noErr(t, row.Fill(9))
	if v := got(base.Float64s()).ok(t); !closeTo(v[4:8], []float64{9, 9, 9, 9}, 0) {
		t.Fatalf("fill through select: %v", v)
	}
	clone := got(base.Clone(tessera.PreserveFormat)).ok(t)
	defer clone.Close()
	if got(clone.SharesStorage(base)).ok(t) {
		t.Fatal("clone shares storage")
	}
	st := got(tr.Storage()).ok(t)
	defer st.Close()
	if n := got(st.Nbytes()).ok(t); n != 48 {
		t.Errorf("storage nbytes %d", n)
	}
	if p := got(base.DataPtr()).ok(t); p != got(st.DataPtr()).ok(t) {
		t.Errorf("base data_ptr %x, storage %x", p, got(st.DataPtr()).ok(t))
	}
	// Closing the base leaves the view (and its storage) usable; tr[3,1] is
	// base[1,3], filled with 9 through row.
	base.Close()
	if v := got(tr.At(3, 1)).ok(t); v != 9 {
		t.Fatalf("view after closing its base: %v", v)
	}
}

func TestErrorsCarryStatusAndMessage(t *testing.T) {
	base := arange(t, []int64{3, 4})
	defer base.Close()
	tr := got(base.T()).ok(t)
	defer tr.Close()
	_, err := tr.View(12)
	e := wantStatus(t, err, tessera.NotViewable)
	// tessera says what PyTorch says, with the sizes and strides inserted
	// before the advice: "...subspaces): cannot view sizes [4, 3] with
	// strides [1, 4] as sizes [12]. Use .reshape(...) instead."
	torchSays := golden(t).ViewError.Message
	cut := strings.Index(torchSays, ". Use .reshape")
	if cut < 0 {
		t.Fatalf("unexpected PyTorch message %q", torchSays)
	}
	if m := e.Message(); !strings.HasPrefix(m, torchSays[:cut]) || !strings.HasSuffix(m, torchSays[cut:]) ||
		!strings.Contains(m, "sizes [4, 3] with strides [1, 4]") {
		t.Errorf("message %q,\nPyTorch says %q", m, torchSays)
	}
	if tessera.StatusOf(err) != tessera.NotViewable || tessera.StatusOf(nil) != tessera.OK {
		t.Error("StatusOf")
	}
	if s := tessera.NotViewable.String(); s != "TSR_ERR_NOT_VIEWABLE" {
		t.Errorf("status name %q", s)
	}
	var asError *tessera.Error
	if !errors.As(fmt.Errorf("wrapped: %w", err), &asError) || asError.Status() != tessera.NotViewable {
		t.Error("errors.As through wrapping")
	}
	// Reshape copies instead.
	r := got(tr.Reshape(12)).ok(t)
	r.Close()

	a := got(tessera.Zeros([]int64{2, 3}, tessera.Float32)).ok(t)
	defer a.Close()
	b := got(tessera.Zeros([]int64{4}, tessera.Float32)).ok(t)
	defer b.Close()
	_, err = a.Add(b)
	wantStatus(t, err, tessera.ShapeMismatch)
	_, err = a.At(2, 0)
	wantStatus(t, err, tessera.IndexOutOfRange)
	_, err = a.Transpose(0, 5)
	wantStatus(t, err, tessera.InvalidArgument)
	// After a failure the next call succeeds: no stale error.
	if n := got(a.Ndim()).ok(t); n != 2 {
		t.Errorf("ndim %d", n)
	}
}

func TestUseAfterCloseIsAnError(t *testing.T) {
	x := got(tessera.Ones([]int64{2, 2}, tessera.Float32)).ok(t)
	y := got(tessera.Ones([]int64{2, 2}, tessera.Float32)).ok(t)
	defer y.Close()
	noErr(t, x.Close())
	noErr(t, x.Close()) // double close: nothing happens
	var nilTensor *tessera.Tensor
	noErr(t, nilTensor.Close())

	_, err := x.Ndim()
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = x.Transpose(0, 1)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = x.Add(y)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = y.Add(x)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = y.Add(nilTensor)
	wantStatus(t, err, tessera.InvalidArgument)
	wantStatus(t, x.Fill(1), tessera.InvalidArgument)
	wantStatus(t, x.Backward(), tessera.InvalidArgument)
	_, err = x.Float64s()
	wantStatus(t, err, tessera.InvalidArgument)
	if x.Sizes() != nil || x.Strides() != nil {
		t.Error("Sizes/Strides of a closed tensor should be nil")
	}
	if s := x.String(); s != "Tensor(closed)" {
		t.Errorf("String of a closed tensor: %q", s)
	}
	g := got(tessera.NewGenerator(1)).ok(t)
	noErr(t, g.Close())
	noErr(t, g.Close())
	wantStatus(t, g.ManualSeed(2), tessera.InvalidArgument)
	_, err = tessera.Rand([]int64{2}, tessera.Float32, g)
	wantStatus(t, err, tessera.InvalidArgument)
}

func TestSplitChunkMax(t *testing.T) {
	x := arange(t, []int64{5, 2})
	defer x.Close()
	parts := got(x.Split(2, 0)).ok(t)
	if len(parts) != 3 || !equalInts(parts[2].Sizes(), []int64{1, 2}) {
		t.Fatalf("split: %v", parts)
	}
	for _, p := range parts {
		if !got(p.SharesStorage(x)).ok(t) {
			t.Error("split piece is not a view")
		}
		p.Close()
	}
	chunks := got(x.Chunk(2, 1)).ok(t)
	if len(chunks) != 2 || !equalInts(chunks[1].Strides(), []int64{2, 1}) {
		t.Fatalf("chunk: %v", chunks)
	}
	values, indices, err := x.MaxDim(1, false)
	noErr(t, err)
	defer values.Close()
	defer indices.Close()
	if v := got(values.Float64s()).ok(t); !closeTo(v, []float64{1, 3, 5, 7, 9}, 0) {
		t.Errorf("max values %v", v)
	}
	if v := got(indices.Int64s()).ok(t); !equalInts(v, []int64{1, 1, 1, 1, 1}) {
		t.Errorf("max indices %v", v)
	}
	_, err = x.Split(0, 0)
	if err == nil {
		t.Error("split size 0 accepted")
	}
}

func TestGeneratorIsDeterministic(t *testing.T) {
	draw := func() []float64 {
		g := got(tessera.NewGenerator(20240611)).ok(t)
		defer g.Close()
		r := got(tessera.Randn([]int64{8}, tessera.Float32, g)).ok(t)
		defer r.Close()
		return got(r.Float64s()).ok(t)
	}
	a, b := draw(), draw()
	if !closeTo(a, b, 0) {
		t.Fatalf("same seed, different draws: %v %v", a, b)
	}
	g := got(tessera.NewGenerator(1)).ok(t)
	defer g.Close()
	p := got(tessera.Randperm(10, g)).ok(t)
	defer p.Close()
	seen := map[int64]bool{}
	for _, v := range got(p.Int64s()).ok(t) {
		seen[v] = true
	}
	if len(seen) != 10 {
		t.Errorf("randperm is not a permutation: %v", seen)
	}
}

func TestStringsWithNULAreRefused(t *testing.T) {
	_, err := tessera.Load("no\x00such", nil)
	wantStatus(t, err, tessera.InvalidArgument)
	wantStatus(t, tessera.Save(t.TempDir()+"/x\x00y", nil, nil), tessera.InvalidArgument)
}
