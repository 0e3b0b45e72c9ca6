package tessera_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"tessera.dev/tessera"
)

func TestSaveThenLoad(t *testing.T) {
	dir := t.TempDir()
	w := arange(t, []int64{3, 4})
	defer w.Close()
	wt := got(w.T()).ok(t) // not contiguous: saved in C order all the same
	defer wt.Close()
	labels := got(tessera.FromInt64s([]int64{7, -1, 3}, []int64{3}, tessera.Int64)).ok(t)
	defer labels.Close()
	tensors := map[string]*tessera.Tensor{"weight_t": wt, "labels": labels}
	meta := map[string]string{"model": "go-test", "epoch": "3"}

	for _, c := range []struct {
		name string
		opts *tessera.SaveOptions
		// tessera records the compression in the metadata it writes.
		extraMetadata map[string]string
	}{
		{"plain", &tessera.SaveOptions{Metadata: meta}, nil},
		{"zstd", &tessera.SaveOptions{Compression: tessera.Zstd, Level: 5, Metadata: meta},
			map[string]string{"tessera.compression": "zstd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".safetensors")
			noErr(t, tessera.Save(path, tensors, c.opts))
			loaded := got(tessera.Load(path, nil)).ok(t)
			defer loaded.Close()
			if len(loaded.Names) != 2 || loaded.Names[0] != "labels" || loaded.Names[1] != "weight_t" {
				t.Errorf("names %v", loaded.Names)
			}
			want := map[string]string{}
			for _, m := range []map[string]string{meta, c.extraMetadata} {
				for k, v := range m {
					want[k] = v
				}
			}
			if !reflect.DeepEqual(loaded.Metadata, want) {
				t.Errorf("metadata %v, want %v", loaded.Metadata, want)
			}
			weight := loaded.Tensors["weight_t"]
			if !equalInts(weight.Sizes(), []int64{4, 3}) || got(weight.DType()).ok(t) != tessera.Float32 {
				t.Errorf("weight_t %v", weight)
			}
			if v, want := got(weight.Float64s()).ok(t), got(wt.Float64s()).ok(t); !closeTo(v, want, 0) {
				t.Errorf("weight_t values %v, saved %v", v, want)
			}
			if v := got(loaded.Tensors["labels"].Int64s()).ok(t); !equalInts(v, []int64{7, -1, 3}) {
				t.Errorf("labels %v", v)
			}
			// A cap below the file's tensor bytes is refused.
			_, err := tessera.Load(path, &tessera.LoadOptions{MaxBytes: 8})
			if err == nil {
				t.Error("MaxBytes 8 accepted")
			}
		})
	}

	_, err := tessera.Load(filepath.Join(dir, "missing"), nil)
	wantStatus(t, err, tessera.IOError)
	junk := filepath.Join(dir, "junk")
	noErr(t, os.WriteFile(junk, []byte("\xff\xff\xff\xff\xff\xff\xff\x7fnot a header"), 0o600))
	_, err = tessera.Load(junk, nil)
	wantStatus(t, err, tessera.CorruptFile)
	// A closed tensor cannot be saved, and nothing is written.
	closed := got(tessera.Zeros([]int64{1}, tessera.Float32)).ok(t)
	closed.Close()
	bad := filepath.Join(dir, "bad")
	wantStatus(t, tessera.Save(bad, map[string]*tessera.Tensor{"x": closed}, nil), tessera.InvalidArgument)
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed save left a file: %v", err)
	}
}
