package tessera_test

import (
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// Indexing, sorting, extrema, factories and shape ops in their Go forms,
// against PyTorch 1.13 (testdata/torch_golden.json's op_ix_* cases, from
// bindings/support/training_ops_golden_cases.py, which holds each torch
// expression).

// first and second keep one of a two-tensor result (closing the other).
func first(a, b *tessera.Tensor, err error) (*tessera.Tensor, error) {
	b.Close()
	return a, err
}

func second(a, b *tessera.Tensor, err error) (*tessera.Tensor, error) {
	a.Close()
	return b, err
}

func TestIndexingOpsMatchPyTorch(t *testing.T) {
	x, r, p, lo, mask := opIn(t, "x"), opIn(t, "r"), opIn(t, "p"), opIn(t, "lo"), opIn(t, "mask")
	idx, cols, rows00, rows11 := opIn(t, "ix_idx"), opIn(t, "ix_cols"), opIn(t, "ix_rows00"), opIn(t, "ix_rows11")
	idx2, pos, v3 := opIn(t, "ix_idx2"), opIn(t, "ix_pos"), opIn(t, "ix_v3")
	zeros := func() *tessera.Tensor { return got(tessera.Zeros([]int64{2, 3}, tessera.Float32)).ok(t) }
	matchAll(t, []namedOp{
		{"ix_index", func() (*tessera.Tensor, error) { return x.Index(idx) }},            // x[idx]
		{"ix_index_mask", func() (*tessera.Tensor, error) { return x.Index(pos) }},       // x[x > 0]
		{"ix_index_cols", func() (*tessera.Tensor, error) { return x.Index(nil, cols) }}, // x[:, cols]
		{"ix_masked_fill", func() (*tessera.Tensor, error) { return x.MaskedFill(mask, -1) }},
		{"ix_masked_select", func() (*tessera.Tensor, error) { return x.MaskedSelect(pos) }},
		{"ix_index_put", func() (*tessera.Tensor, error) { // x.index_put((rows00,), v3, accumulate=True)
			y := got(x.Clone(tessera.ContiguousFormat)).ok(t)
			return y, y.IndexPutInPlace([]*tessera.Tensor{rows00}, v3, true)
		}},
		{"ix_scatter_add", func() (*tessera.Tensor, error) { return zeros().ScatterAdd(1, idx2, x) }},
		{"ix_scatter_reduce_amax", func() (*tessera.Tensor, error) { return x.ScatterReduce(1, idx2, r, tessera.ScatterAmax, false) }},
		{"ix_index_add", func() (*tessera.Tensor, error) { return x.IndexAdd(0, rows11, p, 0.5) }},
		{"ix_take_along_dim", func() (*tessera.Tensor, error) { return x.TakeAlongDim(idx2, 1) }},
		{"ix_sort_values", func() (*tessera.Tensor, error) { return first(x.Sort(1, true)) }},
		{"ix_sort_indices", func() (*tessera.Tensor, error) { return second(x.Sort(1, true)) }},
		{"ix_topk_values", func() (*tessera.Tensor, error) { return first(x.Topk(2, 1, true)) }},
		{"ix_topk_indices", func() (*tessera.Tensor, error) { return second(x.Topk(2, 1, true)) }},
		{"ix_kthvalue", func() (*tessera.Tensor, error) { return first(x.Kthvalue(2, 1, false)) }},
		{"ix_maximum", func() (*tessera.Tensor, error) { return x.Maximum(lo) }},
		{"ix_amax", func() (*tessera.Tensor, error) { return x.Amax([]int64{1}, false) }},
		{"ix_norm", func() (*tessera.Tensor, error) { return x.Norm(1, []int64{1}, false) }},
		{"ix_linspace", func() (*tessera.Tensor, error) { return tessera.Linspace(0, 1, 5, tessera.Float32) }},
		{"ix_eye", func() (*tessera.Tensor, error) { return tessera.Eye(2, 3, tessera.Float32) }},
		{"ix_triu", func() (*tessera.Tensor, error) { // torch.triu(torch.ones(3, 3, dtype=bool), 1)
			ones := got(tessera.Ones([]int64{3, 3}, tessera.Bool)).ok(t)
			defer ones.Close()
			return ones.Triu(1)
		}},
		{"ix_flip", func() (*tessera.Tensor, error) { return x.Flip(1) }},
		{"ix_roll", func() (*tessera.Tensor, error) { return x.Roll([]int64{1}, []int64{1}) }},
		{"ix_repeat", func() (*tessera.Tensor, error) { return x.Repeat(2, 1) }},
		{"ix_einsum", func() (*tessera.Tensor, error) { return tessera.Einsum("ij,kj->ik", x, r) }},
	})
}

func TestIndexingErrorsLeaveTensorsUnchanged(t *testing.T) {
	x := got(tessera.Zeros([]int64{3, 4}, tessera.Float32)).ok(t)
	defer x.Close()
	bad := got(tessera.FromFloat64s([]float64{0, 7}, []int64{2}, tessera.Int64)).ok(t)
	defer bad.Close()
	row := got(tessera.Ones([]int64{4}, tessera.Float32)).ok(t)
	defer row.Close()
	err := x.IndexPutInPlace([]*tessera.Tensor{bad}, row, false)
	e := wantStatus(t, err, tessera.IndexOutOfRange)
	if !strings.Contains(e.Message(), "index 7 is out of bounds for dimension 0 with size 3") {
		t.Errorf("message %q", e.Message())
	}
	if v, _ := x.Version(); v != 0 {
		t.Errorf("version %d after a failed write", v)
	}
	out, err := tessera.Einsum("ij,jk", x, x)
	out.Close()
	e = wantStatus(t, err, tessera.InvalidArgument)
	if !strings.Contains(e.Message(), "subscript j has size 3 for operand 1") {
		t.Errorf("message %q", e.Message())
	}
	_, _, err = x.Topk(5, 0, true)
	wantStatus(t, err, tessera.InvalidArgument)
}
