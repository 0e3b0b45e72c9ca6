package tessera_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"tessera.dev/tessera"
	"tessera.dev/tessera/internal/capi"
)

// Checkpoint files 2: Saver (Close/Commit), progress callbacks (cancel by
// false or by a panic), shards through the index, views, zstd-planes, the
// storage-only dtypes, File (lazy, memory-mapped); every error path with its
// status and message, and nothing left behind.

func listing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	noErr(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func writeOld(t *testing.T, path string) []byte {
	t.Helper()
	old := got(tessera.Full([]int64{1}, 7, tessera.Float32)).ok(t)
	defer old.Close()
	noErr(t, tessera.Save(path, map[string]*tessera.Tensor{"old": old}, nil))
	data, err := os.ReadFile(path)
	noErr(t, err)
	return data
}

func sameFile(t *testing.T, path string, want []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	noErr(t, err)
	if !bytes.Equal(data, want) {
		t.Errorf("%s changed", path)
	}
}

func wantMessage(t *testing.T, e *tessera.Error, part string) {
	t.Helper()
	if !strings.Contains(e.Message(), part) {
		t.Errorf("message %q lacks %q", e.Message(), part)
	}
}

func TestSaverCommitAndAbandon(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.safetensors")
	w := arange(t, []int64{2, 3})
	defer w.Close()
	wt := got(w.T()).ok(t)
	defer wt.Close()
	s := got(tessera.OpenSaver(path, &tessera.SaveOptions{Compression: tessera.ZstdPlanes,
		Metadata: map[string]string{"step": "4"}})).ok(t)
	noErr(t, s.Add("wt", wt))
	noErr(t, s.Add("w", w))
	if _, err := os.Stat(path); err == nil {
		t.Error("file exists before Commit")
	}
	noErr(t, s.Commit())
	noErr(t, s.Close())
	if l := listing(t, dir); !reflect.DeepEqual(l, []string{"s.safetensors"}) {
		t.Errorf("left behind: %v", l)
	}
	loaded := got(tessera.Load(path, nil)).ok(t)
	defer loaded.Close()
	if !reflect.DeepEqual(loaded.Names, []string{"wt", "w"}) {
		t.Errorf("names %v, want the order added", loaded.Names)
	}
	if loaded.Metadata["tessera.compression"] != "zstd-planes" || loaded.Metadata["step"] != "4" {
		t.Errorf("metadata %v", loaded.Metadata)
	}
	if v := got(loaded.Tensors["wt"].Float64s()).ok(t); !reflect.DeepEqual(v, []float64{0, 3, 1, 4, 2, 5}) {
		t.Errorf("values %v", v)
	}

	before := writeOld(t, path)
	s = got(tessera.OpenSaver(path, nil)).ok(t)
	noErr(t, s.Add("a", w))
	noErr(t, s.Close()) // no Commit: abandoned
	noErr(t, s.Close())
	sameFile(t, path, before)
	if l := listing(t, dir); !reflect.DeepEqual(l, []string{"s.safetensors"}) {
		t.Errorf("left behind: %v", l)
	}
}

func TestSaverErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.safetensors")
	a := got(tessera.Zeros([]int64{2}, tessera.Float32)).ok(t)
	defer a.Close()
	s := got(tessera.OpenSaver(path, nil)).ok(t)
	noErr(t, s.Add("a", a))
	wantMessage(t, wantStatus(t, s.Add("a", a), tessera.InvalidArgument), `duplicate tensor name "a"`)
	noErr(t, s.Commit())
	wantMessage(t, wantStatus(t, s.Commit(), tessera.InvalidArgument), "already committed")
	wantMessage(t, wantStatus(t, s.Add("b", a), tessera.InvalidArgument), "already committed")
	noErr(t, s.Close())
	wantMessage(t, wantStatus(t, s.Add("b", a), tessera.InvalidArgument), "the saver is closed")
	wantMessage(t, wantStatus(t, s.Commit(), tessera.InvalidArgument), "the saver is closed")
	wantStatus(t, s.Add("x\x00y", a), tessera.InvalidArgument)

	_, err := tessera.OpenSaver(filepath.Join(dir, "missing", "x.safetensors"), nil)
	wantMessage(t, wantStatus(t, err, tessera.IOError), "missing")
	_, err = tessera.OpenSaver(filepath.Join(dir, "x.safetensors"),
		&tessera.SaveOptions{Metadata: map[string]string{"tessera.x": "1"}})
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.OpenSaver(filepath.Join(dir, "x.safetensors"), &tessera.SaveOptions{MaxShardSize: 10})
	wantMessage(t, wantStatus(t, err, tessera.Unsupported), "max_shard_size must be 0")
	if l := listing(t, dir); !reflect.DeepEqual(l, []string{"s.safetensors"}) {
		t.Errorf("left behind: %v", l)
	}
}

func TestProgressReportsAndCancels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.safetensors")
	a := got(tessera.Zeros([]int64{100}, tessera.Float32)).ok(t)
	defer a.Close()
	b := got(tessera.Zeros([]int64{50}, tessera.Float64)).ok(t)
	defer b.Close()
	tensors := map[string]*tessera.Tensor{"a": a, "b": b}
	var calls [][2]uint64
	record := func(done, total uint64) bool { calls = append(calls, [2]uint64{done, total}); return true }
	noErr(t, tessera.Save(path, tensors, &tessera.SaveOptions{Progress: record}))
	if calls[0] != [2]uint64{0, 800} || calls[len(calls)-1] != [2]uint64{800, 800} {
		t.Errorf("save calls %v", calls)
	}
	calls = nil
	loaded := got(tessera.Load(path, &tessera.LoadOptions{Progress: record})).ok(t)
	loaded.Close()
	if calls[len(calls)-1] != [2]uint64{800, 800} {
		t.Errorf("load calls %v", calls)
	}

	before, _ := os.ReadFile(path)
	err := tessera.Save(path, tensors, &tessera.SaveOptions{Progress: func(done, _ uint64) bool { return done == 0 }})
	e := wantStatus(t, err, tessera.Cancelled)
	wantMessage(t, e, "cancelled by the progress callback")
	if errors.Unwrap(e) != nil {
		t.Errorf("a false return has no cause: %v", errors.Unwrap(e))
	}
	sameFile(t, path, before)
	_, err = tessera.Load(path, &tessera.LoadOptions{Progress: func(_, _ uint64) bool { return false }})
	wantStatus(t, err, tessera.Cancelled)

	boom := errors.New("from the callback")
	err = tessera.Save(path, tensors, &tessera.SaveOptions{Compression: tessera.Zstd,
		Progress: func(_, _ uint64) bool { panic(boom) }})
	wantStatus(t, err, tessera.Cancelled)
	var p *tessera.ProgressPanic
	if !errors.As(err, &p) || !errors.Is(err, boom) {
		t.Errorf("the panic is not the cause: %v", err)
	}
	sameFile(t, path, before)
	_, err = tessera.Load(path, &tessera.LoadOptions{Progress: func(_, _ uint64) bool { panic("plain value") }})
	wantStatus(t, err, tessera.Cancelled)
	if !errors.As(err, &p) || p.Value != "plain value" {
		t.Errorf("load: the panic is not the cause: %v", err)
	}

	_, err = tessera.OpenSaver(filepath.Join(dir, "n.safetensors"),
		&tessera.SaveOptions{Progress: func(_, _ uint64) bool { return false }})
	wantStatus(t, err, tessera.Cancelled)
	s := got(tessera.OpenSaver(path, &tessera.SaveOptions{Progress: func(done, _ uint64) bool {
		if done > 0 {
			panic("enough")
		}
		return true
	}})).ok(t)
	err = s.Add("a", a)
	wantStatus(t, err, tessera.Cancelled)
	if !errors.As(err, &p) {
		t.Errorf("saver: the panic is not the cause: %v", err)
	}
	wantMessage(t, wantStatus(t, s.Commit(), tessera.InvalidArgument), "abandoned")
	noErr(t, s.Close())
	sameFile(t, path, before)
	if l := listing(t, dir); !reflect.DeepEqual(l, []string{"p.safetensors"}) {
		t.Errorf("left behind: %v", l)
	}
}

func TestShardsViewsCompressionDtypes(t *testing.T) {
	dir := t.TempDir()
	tensors := map[string]*tessera.Tensor{}
	for i := 0; i < 5; i++ {
		x := got(tessera.Full([]int64{64}, float64(i), tessera.Float32)).ok(t)
		defer x.Close()
		tensors["layer"+string(rune('0'+i))] = x
	}
	noErr(t, tessera.Save(filepath.Join(dir, "model.safetensors"), tensors, &tessera.SaveOptions{MaxShardSize: 600}))
	shards := 0
	for _, n := range listing(t, dir) {
		if strings.HasPrefix(n, "model-") {
			shards++
		}
	}
	if shards != 3 {
		t.Errorf("%d shards: %v", shards, listing(t, dir))
	}
	loaded := got(tessera.Load(filepath.Join(dir, "model.safetensors.index.json"), nil)).ok(t)
	if len(loaded.Names) != 5 {
		t.Errorf("names %v", loaded.Names)
	}
	if v := got(loaded.Tensors["layer3"].Float64s()).ok(t); v[63] != 3 {
		t.Errorf("values %v", v)
	}
	loaded.Close()
	err := tessera.Save(filepath.Join(dir, "m.bin"), tensors, &tessera.SaveOptions{MaxShardSize: 600})
	wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), ".safetensors")

	w := arange(t, []int64{2, 3})
	defer w.Close()
	wt := got(w.T()).ok(t)
	defer wt.Close()
	pair := map[string]*tessera.Tensor{"w": w, "wt": wt}
	noErr(t, tessera.Save(filepath.Join(dir, "v.safetensors"), pair, nil))
	views := got(tessera.Load(filepath.Join(dir, "v.safetensors"), nil)).ok(t)
	defer views.Close()
	if s := views.Tensors["wt"].Strides(); !equalInts(s, []int64{1, 3}) {
		t.Errorf("strides %v, want a view", s)
	}
	s1 := got(views.Tensors["w"].Storage()).ok(t)
	defer s1.Close()
	s2 := got(views.Tensors["wt"].Storage()).ok(t)
	defer s2.Close()
	if got(s1.DataPtr()).ok(t) != got(s2.DataPtr()).ok(t) {
		t.Error("views do not share one storage")
	}
	noErr(t, tessera.Save(filepath.Join(dir, "f.safetensors"), pair, &tessera.SaveOptions{FlattenViews: true}))
	flat := got(tessera.Load(filepath.Join(dir, "f.safetensors"), nil)).ok(t)
	defer flat.Close()
	if s := flat.Tensors["wt"].Strides(); !equalInts(s, []int64{2, 1}) {
		t.Errorf("flattened strides %v", s)
	}

	dtypes := []tessera.DType{tessera.Uint16, tessera.Uint32, tessera.Uint64, tessera.Float8E4M3FN, tessera.Float8E5M2}
	base := got(tessera.Arange(0, 5, 1, tessera.Int64)).ok(t)
	defer base.Close()
	typed := map[string]*tessera.Tensor{}
	for _, d := range dtypes {
		x := got(base.To(d)).ok(t)
		defer x.Close()
		typed[d.String()] = x
	}
	for _, c := range []tessera.Compression{tessera.NoCompression, tessera.Zstd, tessera.ZstdPlanes} {
		path := filepath.Join(dir, "d.safetensors")
		noErr(t, tessera.Save(path, typed, &tessera.SaveOptions{Compression: c, SkipChecksums: true}))
		m := got(tessera.Load(path, &tessera.LoadOptions{SkipChecksums: true})).ok(t)
		for _, d := range dtypes {
			x := m.Tensors[d.String()]
			if got(x.DType()).ok(t) != d || !reflect.DeepEqual(got(x.Float64s()).ok(t), []float64{0, 1, 2, 3, 4}) {
				t.Errorf("compression %d dtype %v: %v", c, d, got(x.Float64s()).ok(t))
			}
		}
		if _, has := m.Metadata["tessera.checksum"]; has {
			t.Error("SkipChecksums wrote a checksum")
		}
		m.Close()
	}
}

func TestFileLazyAndReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "o.safetensors")
	w := arange(t, []int64{2, 3})
	defer w.Close()
	base := got(tessera.Arange(0, 2, 1, tessera.Int64)).ok(t)
	defer base.Close()
	n := got(base.To(tessera.Uint16)).ok(t)
	defer n.Close()
	noErr(t, tessera.Save(path, map[string]*tessera.Tensor{"w": w, "n": n},
		&tessera.SaveOptions{Metadata: map[string]string{"k": "v"}}))

	f := got(tessera.OpenFile(path, nil)).ok(t)
	names := got(f.Names()).ok(t)
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"n", "w"}) {
		t.Errorf("names %v", names)
	}
	if s := got(f.Shape("w")).ok(t); !equalInts(s, []int64{2, 3}) {
		t.Errorf("shape %v", s)
	}
	if d := got(f.DType("n")).ok(t); d != tessera.Uint16 {
		t.Errorf("dtype %v", d)
	}
	if m := got(f.Metadata()).ok(t); !reflect.DeepEqual(m, map[string]string{"k": "v"}) {
		t.Errorf("metadata %v", m)
	}
	_, err := f.Get("x")
	wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), "no tensor named")
	_, err = f.Shape("x")
	wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), "no tensor named")
	mapped := got(f.Get("w")).ok(t)
	defer mapped.Close()
	noErr(t, f.Close())
	noErr(t, f.Close())
	_, err = f.Names()
	wantStatus(t, err, tessera.InvalidArgument)
	if v := got(mapped.Float64s()).ok(t); !reflect.DeepEqual(v, []float64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("the mapping did not outlive the file: %v", v)
	}
	wantMessage(t, wantStatus(t, mapped.MulScalarInPlace(2), tessera.InvalidArgument), "read-only")
	c := got(mapped.Clone(tessera.ContiguousFormat)).ok(t)
	defer c.Close()
	noErr(t, c.MulScalarInPlace(2))
	if v := got(c.Float64s()).ok(t); !reflect.DeepEqual(v, []float64{0, 2, 4, 6, 8, 10}) {
		t.Errorf("clone %v", v)
	}

	_, err = tessera.OpenFile(filepath.Join(dir, "missing.safetensors"), nil)
	wantMessage(t, wantStatus(t, err, tessera.IOError), "missing.safetensors")
	junk := filepath.Join(dir, "junk.safetensors")
	noErr(t, os.WriteFile(junk, []byte{5, 0}, 0o644))
	_, err = tessera.OpenFile(junk, nil)
	wantStatus(t, err, tessera.CorruptFile)
	data, _ := os.ReadFile(path)
	data[len(data)-3] ^= 1
	noErr(t, os.WriteFile(path, data, 0o644))
	f = got(tessera.OpenFile(path, nil)).ok(t)
	defer f.Close()
	last := got(f.Names()).ok(t)
	_, err = f.Get(last[len(last)-1])
	wantMessage(t, wantStatus(t, err, tessera.CorruptFile), "checksum")
	g := got(tessera.OpenFile(path, &tessera.LoadOptions{SkipChecksums: true})).ok(t)
	defer g.Close()
	x := got(g.Get(last[len(last)-1])).ok(t)
	x.Close()
}

// Every progress func registered for a call is unregistered when the call
// returns (success, cancel or panic), and a Saver's when it is closed.
func TestFileGetSliceRowsEqualTheWholeTensors(t *testing.T) {
	dir := t.TempDir()
	// 600 x 700 float32 rows of 2,800 bytes: two 1 MiB zstd-planes chunks, row 374 across both.
	w := arange(t, []int64{600, 700})
	defer w.Close()
	cases := []struct {
		name string
		c    tessera.Compression
	}{{"plain", tessera.NoCompression}, {"zstd-planes", tessera.ZstdPlanes}}
	for _, tc := range cases {
		c := tc.name
		path := filepath.Join(dir, c+".safetensors")
		noErr(t, tessera.Save(path, map[string]*tessera.Tensor{"w": w}, &tessera.SaveOptions{Compression: tc.c}))
		f := got(tessera.OpenFile(path, nil)).ok(t)
		full := got(f.Get("w")).ok(t)
		for _, r := range [][2]int64{{0, 600}, {0, 1}, {370, 380}, {374, 375}, {599, 600}, {5, 5}} {
			rows := got(f.GetSlice("w", r[0], r[1])).ok(t)
			want := got(full.Narrow(0, r[0], r[1]-r[0])).ok(t)
			if s := rows.Sizes(); !equalInts(s, []int64{r[1] - r[0], 700}) {
				t.Errorf("%s rows %v: sizes %v", c, r, s)
			}
			if d := got(rows.DType()).ok(t); d != tessera.Float32 {
				t.Errorf("%s rows %v: dtype %v", c, r, d)
			}
			if a, b := got(rows.Float64s()).ok(t), got(want.Float64s()).ok(t); !reflect.DeepEqual(a, b) {
				t.Errorf("%s rows %v differ from the whole tensor's", c, r)
			}
			noErr(t, rows.Close())
			noErr(t, want.Close())
		}
		row := got(f.GetSlice("w", 1, 2)).ok(t)
		if v := got(row.Float64s()).ok(t); v[699] != 1399 {
			t.Errorf("%s: row 1 ends in %v, want 1399", c, v[699])
		}
		noErr(t, row.Close())
		s, err := f.GetSlice("w", 5, 4)
		if s != nil {
			t.Errorf("%s: a tensor with the error", c)
		}
		wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), `rows [5, 4) of tensor "w": start is after stop`)
		_, err = f.GetSlice("x", 0, 1)
		wantMessage(t, wantStatus(t, err, tessera.InvalidArgument), "no tensor named")
		again := got(f.GetSlice("w", 0, 2)).ok(t)
		if v := got(again.Float64s()).ok(t); len(v) != 1400 || v[1399] != 1399 {
			t.Errorf("%s: not usable after the errors", c)
		}
		noErr(t, again.Close())
		noErr(t, full.Close())
		noErr(t, f.Close())
		_, err = f.GetSlice("w", 0, 1)
		wantStatus(t, err, tessera.InvalidArgument) // closed
	}
}

func TestProgressHandlesDoNotLeak(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.safetensors")
	a := got(tessera.Zeros([]int64{4}, tessera.Float32)).ok(t)
	defer a.Close()
	base := capi.ProgressRegistered()
	yes := func(_, _ uint64) bool { return true }
	no := func(_, _ uint64) bool { return false }
	boom := func(_, _ uint64) bool { panic("boom") }
	for _, fn := range []tessera.ProgressFunc{yes, no, boom} {
		_ = tessera.Save(path, map[string]*tessera.Tensor{"a": a}, &tessera.SaveOptions{Progress: fn})
		if c, err := tessera.Load(path, &tessera.LoadOptions{Progress: fn}); err == nil {
			c.Close()
		}
		if s, err := tessera.OpenSaver(path, &tessera.SaveOptions{Progress: fn}); err == nil {
			_ = s.Add("a", a)
			if n := capi.ProgressRegistered(); n != base+1 {
				t.Errorf("an open saver holds %d ids, want %d", n, base+1)
			}
			noErr(t, s.Close())
		}
		if n := capi.ProgressRegistered(); n != base {
			t.Errorf("%d progress ids registered after the calls, want %d", n, base)
		}
	}
}
