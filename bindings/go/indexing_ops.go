package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Indexing by tensors and masks, sorting and selection, extrema, factories
// and shape ops (issue 33; indexing.i, sorting.i, reductions.i, shape_ops.i)
// as Tensor methods and package functions. Results are new tensors to Close;
// in-place forms (the ...InPlace methods) write t and return only an error.
// Every index is checked before anything is written: a failure (an *Error
// with the library's status and torch's message) leaves t unchanged.

// ScatterReduction is how ScatterReduce combines the values at one position
// (torch's reduce strings; tsr_scatter_reduction).
type ScatterReduction int

// The values of tsr_scatter_reduction.
const (
	ScatterSum  ScatterReduction = 0 // "sum": added
	ScatterProd ScatterReduction = 1 // "prod": multiplied
	ScatterMean ScatterReduction = 2 // "mean": averaged (integers round down)
	ScatterAmax ScatterReduction = 3 // "amax": the largest (NaN wins)
	ScatterAmin ScatterReduction = 4 // "amin": the smallest (NaN wins)
)

// indexList runs f with a native list of indices (nil entries: full
// slices, torch's ":").
func indexList(indices []*Tensor, f func(list uintptr)) {
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	fillList(list, indices, true)
	f(list.Swigcptr())
}

// ---- advanced indexing ---------------------------------------------------------

// Index is t[indices] (aten::index): indices[i] indexes dim i (after the dims
// earlier masks took), an int64 tensor or a bool mask; nil is a full slice.
// The result is a copy.
func (t *Tensor) Index(indices ...*Tensor) (out *Tensor, err error) {
	defer recoverFailure(&err)
	indexList(indices, func(list uintptr) { out = newTensor(capi.Index(t.cptr(), list)) })
	runtime.KeepAlive(t)
	return out, nil
}

// IndexPutInPlace is t.index_put_(indices, values, accumulate) (t[indices] =
// values): values has t's dtype and broadcasts to t[indices]'s shape.
func (t *Tensor) IndexPutInPlace(indices []*Tensor, values *Tensor, accumulate bool) error {
	err := t.update(func(h capi.SwigcptrTensor) {
		indexList(indices, func(list uintptr) { capi.Index_put_(uintptr(h), list, values.cptr(), accumulate) })
	})
	runtime.KeepAlive(values)
	return err
}

// Nonzero is torch.nonzero: the [n, ndim] int64 coordinates of t's non-zero
// elements.
func (t *Tensor) Nonzero() (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Nonzero(uintptr(h)) })
}

// MaskedFill is t.masked_fill(mask, value): value where the bool mask
// (broadcast to t) is true.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Masked_fill(t.cptr(), mask.cptr(), value) }, t, mask)
}

// MaskedFillInPlace is t.masked_fill_(mask, value).
func (t *Tensor) MaskedFillInPlace(mask *Tensor, value float64) error {
	err := t.update(func(h capi.SwigcptrTensor) { capi.Masked_fill_(uintptr(h), mask.cptr(), value) })
	runtime.KeepAlive(mask)
	return err
}

// MaskedSelect is torch.masked_select: the elements where mask is true, 1-d.
func (t *Tensor) MaskedSelect(mask *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Masked_select(t.cptr(), mask.cptr()) }, t, mask)
}

// ---- scatter and updates along one dim --------------------------------------------

// Scatter is t.scatter(dim, index, src): a copy of t with src's values at
// index's positions along dim (index int64, t's ndim).
func (t *Tensor) Scatter(dim int64, index, src *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Scatter(t.cptr(), dim, index.cptr(), src.cptr()) }, t, index, src)
}

// ScatterValue is t.scatter(dim, index, value).
func (t *Tensor) ScatterValue(dim int64, index *Tensor, value float64) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Scatter_value(t.cptr(), dim, index.cptr(), value) }, t, index)
}

// ScatterAdd is t.scatter_add(dim, index, src): src added at index's
// positions (repeated positions add up).
func (t *Tensor) ScatterAdd(dim int64, index, src *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Scatter_add(t.cptr(), dim, index.cptr(), src.cptr()) },
		t, index, src)
}

// ScatterAddInPlace is t.scatter_add_(dim, index, src).
func (t *Tensor) ScatterAddInPlace(dim int64, index, src *Tensor) error {
	err := t.update(func(h capi.SwigcptrTensor) { capi.Scatter_add_(uintptr(h), dim, index.cptr(), src.cptr()) })
	runtime.KeepAlive(index)
	runtime.KeepAlive(src)
	return err
}

// ScatterReduce is t.scatter_reduce(dim, index, src, reduce,
// include_self=includeSelf).
func (t *Tensor) ScatterReduce(dim int64, index, src *Tensor, reduce ScatterReduction, includeSelf bool) (*Tensor, error) {
	return fromTensors(func() uintptr {
		return capi.Scatter_reduce(t.cptr(), dim, index.cptr(), src.cptr(), int(reduce), includeSelf)
	}, t, index, src)
}

// IndexAdd is t.index_add(dim, index, source, alpha=alpha): alpha * source's
// slices added to the slices index names.
func (t *Tensor) IndexAdd(dim int64, index, source *Tensor, alpha float64) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Index_add(t.cptr(), dim, index.cptr(), source.cptr(), alpha) },
		t, index, source)
}

// IndexCopy is t.index_copy(dim, index, source).
func (t *Tensor) IndexCopy(dim int64, index, source *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Index_copy(t.cptr(), dim, index.cptr(), source.cptr()) },
		t, index, source)
}

// IndexFill is t.index_fill(dim, index, value).
func (t *Tensor) IndexFill(dim int64, index *Tensor, value float64) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Index_fill(t.cptr(), dim, index.cptr(), value) }, t, index)
}

// TakeAlongDim is torch.take_along_dim(t, indices, dim).
func (t *Tensor) TakeAlongDim(indices *Tensor, dim int64) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Take_along_dim(t.cptr(), indices.cptr(), dim, true) }, t, indices)
}

// ---- sorting, selection, extrema --------------------------------------------------

// Sort is torch.sort(t, dim, descending, stable=true): the values in order
// and their int64 positions (ties keep their order; NaN is the largest).
func (t *Tensor) Sort(dim int64, descending bool) (values, indices *Tensor, err error) {
	return t.pair(func(h capi.SwigcptrTensor) uintptr { return capi.Sort(uintptr(h), dim, descending, true) })
}

// Argsort is torch.argsort: Sort's indices.
func (t *Tensor) Argsort(dim int64, descending bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Argsort(uintptr(h), dim, descending) })
}

// Topk is torch.topk(t, k, dim, largest): the k largest (or smallest) values
// along dim, in order, and their positions.
func (t *Tensor) Topk(k, dim int64, largest bool) (values, indices *Tensor, err error) {
	return t.pair(func(h capi.SwigcptrTensor) uintptr { return capi.Topk(uintptr(h), k, dim, largest) })
}

// Kthvalue is torch.kthvalue(t, k, dim, keepdim): the k-th smallest (k from
// 1) along dim and its position.
func (t *Tensor) Kthvalue(k, dim int64, keepdim bool) (values, indices *Tensor, err error) {
	return t.pair(func(h capi.SwigcptrTensor) uintptr { return capi.Kthvalue(uintptr(h), k, dim, keepdim) })
}

// Maximum is torch.maximum(t, other): the larger of each broadcast pair.
func (t *Tensor) Maximum(other *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Maximum(t.cptr(), other.cptr()) }, t, other)
}

// Minimum is torch.minimum(t, other).
func (t *Tensor) Minimum(other *Tensor) (*Tensor, error) {
	return fromTensors(func() uintptr { return capi.Minimum(t.cptr(), other.cptr()) }, t, other)
}

// Amax is torch.amax(t, dims, keepdim) (no dims: all).
func (t *Tensor) Amax(dims []int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Amax(uintptr(h), dims, keepdim) })
}

// Amin is torch.amin(t, dims, keepdim).
func (t *Tensor) Amin(dims []int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Amin(uintptr(h), dims, keepdim) })
}

// Norm is torch.norm(t, p, dims, keepdim): the p-norm (math.Inf(1) for the
// largest |t|, 0 for the count of non-zeros) over dims (none: all).
func (t *Tensor) Norm(p float64, dims []int64, keepdim bool) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Norm(uintptr(h), p, dims, keepdim) })
}

// ---- factories and shape ops --------------------------------------------------------

// Linspace is torch.linspace(start, end, steps, dtype=dtype).
func Linspace(start, end float64, steps int64, dtype DType) (out *Tensor, err error) {
	defer recoverFailure(&err)
	return newTensor(capi.Linspace(start, end, steps, int(dtype))), nil
}

// Eye is torch.eye(n, m, dtype=dtype).
func Eye(n, m int64, dtype DType) (out *Tensor, err error) {
	defer recoverFailure(&err)
	return newTensor(capi.Eye(n, m, int(dtype))), nil
}

// Tril is torch.tril(t, diagonal): zeros above the diagonal-th diagonal.
func (t *Tensor) Tril(diagonal int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Tril(uintptr(h), diagonal) })
}

// Triu is torch.triu(t, diagonal): zeros below the diagonal-th diagonal
// (Triu(1) of a bool ones matrix is the causal mask).
func (t *Tensor) Triu(diagonal int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Triu(uintptr(h), diagonal) })
}

// Flip is torch.flip(t, dims).
func (t *Tensor) Flip(dims ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Flip(uintptr(h), dims) })
}

// Roll is torch.roll(t, shifts, dims) (no dims: t flattened, rolled by
// shifts[0], viewed back).
func (t *Tensor) Roll(shifts, dims []int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Roll(uintptr(h), shifts, dims) })
}

// Repeat is t.repeat(repeats...).
func (t *Tensor) Repeat(repeats ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Repeat(uintptr(h), repeats) })
}

// Tile is torch.tile(t, reps).
func (t *Tensor) Tile(reps ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return capi.Tile(uintptr(h), reps) })
}

// Einsum is torch.einsum(equation, operands...).
func Einsum(equation string, operands ...*Tensor) (out *Tensor, err error) {
	defer recoverFailure(&err)
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	fillList(list, operands, false)
	return newTensor(capi.Einsum(equation, list.Swigcptr())), nil
}
