package tessera_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"tessera.dev/tessera"
)

// torchGolden is testdata/torch_golden.json, written by PyTorch 1.13 through
// testdata/gen_torch_golden.py.
type torchGolden struct {
	Layout []struct {
		Name           string
		Base           []int64
		Ops            [][]json.RawMessage
		Sizes          []int64
		Strides        []int64
		StorageOffset  int64 `json:"storage_offset"`
		IsContiguous   bool  `json:"is_contiguous"`
		IsChannelsLast bool  `json:"is_channels_last"`
		Values         []float64
	}
	ViewError struct {
		Base, View []int64
		Message    string
	} `json:"view_error"`
	Autograd struct {
		X, W   [][]float64
		B      []float64
		Target []int64
		Loss   float64
		GradX  [][]float64 `json:"grad_x"`
		GradW  [][]float64 `json:"grad_w"`
		GradB  []float64   `json:"grad_b"`
	}
	// The nn ops: inputs and torch's results (nn_cases()), and one torch
	// error message per family (nn_errors()).
	Nn []struct {
		Name   string
		DType  string
		Sizes  []int64
		Values []float64
	}
	NnErrors map[string]string `json:"nn_errors"`
}

var (
	goldenOnce sync.Once
	goldenData torchGolden
	goldenErr  error
)

func golden(t *testing.T) *torchGolden {
	t.Helper()
	goldenOnce.Do(func() {
		var raw []byte
		raw, goldenErr = os.ReadFile("testdata/torch_golden.json")
		if goldenErr == nil {
			goldenErr = json.Unmarshal(raw, &goldenData)
		}
	})
	if goldenErr != nil {
		t.Fatalf("reading the PyTorch goldens: %v", goldenErr)
	}
	return &goldenData
}

// applyOp replays one op of gen_torch_golden.py on x.
func applyOp(x *tessera.Tensor, op []json.RawMessage) (*tessera.Tensor, error) {
	var name string
	if err := json.Unmarshal(op[0], &name); err != nil {
		return nil, err
	}
	ints := func(i int) int64 {
		var v int64
		if err := json.Unmarshal(op[i], &v); err != nil {
			panic(err)
		}
		return v
	}
	list := func(i int) []int64 {
		var v []int64
		if err := json.Unmarshal(op[i], &v); err != nil {
			panic(err)
		}
		return v
	}
	rest := func() []int64 {
		var v []int64
		for i := 1; i < len(op); i++ {
			v = append(v, ints(i))
		}
		return v
	}
	switch name {
	case "transpose":
		return x.Transpose(ints(1), ints(2))
	case "permute":
		return x.Permute(rest()...)
	case "clone_channels_last":
		return x.Clone(tessera.ChannelsLast)
	case "narrow":
		return x.Narrow(ints(1), ints(2), ints(3))
	case "select":
		return x.Select(ints(1), ints(2))
	case "slice":
		return x.Slice(ints(1), ints(2), ints(3), ints(4))
	case "expand":
		return x.Expand(rest()...)
	case "unsqueeze":
		return x.Unsqueeze(ints(1))
	case "t":
		return x.T()
	case "diagonal":
		return x.Diagonal(ints(1), ints(2), ints(3))
	case "unfold":
		return x.Unfold(ints(1), ints(2), ints(3))
	case "movedim":
		return x.Movedim([]int64{ints(1)}, []int64{ints(2)})
	case "flatten":
		return x.Flatten(ints(1), ints(2))
	case "view":
		return x.View(rest()...)
	case "as_strided":
		return x.AsStrided(list(1), list(2), ints(3))
	}
	return nil, fmt.Errorf("unknown op %q", name)
}

func TestLayoutMatchesPyTorch(t *testing.T) {
	for _, c := range golden(t).Layout {
		t.Run(c.Name, func(t *testing.T) {
			x := arange(t, c.Base)
			for _, op := range c.Ops {
				next := got(applyOp(x, op)).ok(t)
				x.Close()
				x = next
			}
			defer x.Close()
			if got := x.Sizes(); !equalInts(got, c.Sizes) {
				t.Errorf("sizes %v, torch %v", got, c.Sizes)
			}
			if got := x.Strides(); !equalInts(got, c.Strides) {
				t.Errorf("strides %v, torch %v", got, c.Strides)
			}
			if got := got(x.StorageOffset()).ok(t); got != c.StorageOffset {
				t.Errorf("storage_offset %d, torch %d", got, c.StorageOffset)
			}
			if got := got(x.IsContiguous(tessera.ContiguousFormat)).ok(t); got != c.IsContiguous {
				t.Errorf("is_contiguous %v, torch %v", got, c.IsContiguous)
			}
			if got := got(x.IsContiguous(tessera.ChannelsLast)).ok(t); got != c.IsChannelsLast {
				t.Errorf("is_contiguous(channels_last) %v, torch %v", got, c.IsChannelsLast)
			}
			if got := got(x.Float64s()).ok(t); !closeTo(got, c.Values, 0) {
				t.Errorf("values %v, torch %v", got, c.Values)
			}
		})
	}
}
