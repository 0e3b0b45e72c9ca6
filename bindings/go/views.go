package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Views: new tensors over the same storage (a write through one is seen
// through the other), with torch's rules and messages. Each is a new handle
// to Close.

// View is t with new sizes and no copy (torch.Tensor.view); NotViewable when
// t's strides do not allow it (use Reshape). One size may be -1.
func (t *Tensor) View(sizes ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.View(sizes) })
}

// Reshape is View when possible, else a copy (torch.Tensor.reshape).
func (t *Tensor) Reshape(sizes ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Reshape(sizes) })
}

// Transpose swaps dims dim0 and dim1 (torch.Tensor.transpose).
func (t *Tensor) Transpose(dim0, dim1 int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Transpose(dim0, dim1) })
}

// T is the transpose of a tensor of at most 2 dims (torch.Tensor.t).
func (t *Tensor) T() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.T) }

// Permute reorders the dims (torch.Tensor.permute).
func (t *Tensor) Permute(dims ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Permute(dims) })
}

// Narrow is length elements of dim from start (torch.Tensor.narrow).
func (t *Tensor) Narrow(dim, start, length int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Narrow(dim, start, length) })
}

// Slice is t[..., start:end:step, ...] along dim (step >= 1).
func (t *Tensor) Slice(dim, start, end, step int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Slice(dim, start, end, step) })
}

// Select is t[..., index, ...] along dim, dropping dim (torch.Tensor.select).
func (t *Tensor) Select(dim, index int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Select(dim, index) })
}

// Expand broadcasts size-1 dims to sizes with stride 0 (torch.Tensor.expand).
func (t *Tensor) Expand(sizes ...int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Expand(sizes) })
}

// Squeeze drops every size-1 dim.
func (t *Tensor) Squeeze() (*Tensor, error) { return t.derive(capi.SwigcptrTensor.Squeeze) }

// SqueezeDim drops dim if its size is 1 (torch.Tensor.squeeze(dim)).
func (t *Tensor) SqueezeDim(dim int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Squeeze_dim(dim) })
}

// Unsqueeze inserts a size-1 dim at dim.
func (t *Tensor) Unsqueeze(dim int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Unsqueeze(dim) })
}

// Flatten merges dims startDim..endDim (inclusive; torch.flatten).
func (t *Tensor) Flatten(startDim, endDim int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Flatten(startDim, endDim) })
}

// Unflatten splits dim into sizes (torch.Tensor.unflatten).
func (t *Tensor) Unflatten(dim int64, sizes []int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Unflatten(dim, sizes) })
}

// Movedim moves dims source to positions destination (torch.movedim).
func (t *Tensor) Movedim(source, destination []int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Movedim(source, destination) })
}

// AsStrided is a view with explicit sizes, strides and storage offset, in
// elements (torch.as_strided); it must stay inside the storage.
func (t *Tensor) AsStrided(sizes, strides []int64, storageOffset int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.As_strided(sizes, strides, storageOffset) })
}

// Unfold is every size-long window of dim, step apart, as a new last dim
// (torch.Tensor.unfold).
func (t *Tensor) Unfold(dim, size, step int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Unfold(dim, size, step) })
}

// Diagonal is the diagonal offset from the main one of dims dim1 and dim2
// (torch.diagonal).
func (t *Tensor) Diagonal(offset, dim1, dim2 int64) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.Diagonal(offset, dim1, dim2) })
}

// Split is views of splitSize along dim, the last one shorter
// (torch.Tensor.split).
func (t *Tensor) Split(splitSize, dim int64) ([]*Tensor, error) {
	return t.pieces(func(h capi.SwigcptrTensor) uintptr { return h.Split(splitSize, dim) })
}

// Chunk is chunks views along dim, as torch.Tensor.chunk divides.
func (t *Tensor) Chunk(chunks, dim int64) ([]*Tensor, error) {
	return t.pieces(func(h capi.SwigcptrTensor) uintptr { return h.Chunk(chunks, dim) })
}

// pieces runs f, which returns a TensorList, and turns it into tensors.
func (t *Tensor) pieces(f func(capi.SwigcptrTensor) uintptr) ([]*Tensor, error) {
	list, err := query(t, f)
	if err != nil {
		return nil, err
	}
	return takeList(capi.SwigcptrTensorList(list))
}

// takeList moves the tensors of a wrapper TensorList into Go and frees it.
func takeList(list capi.SwigcptrTensorList) (out []*Tensor, err error) {
	defer capi.DeleteTensorList(list)
	defer recoverFailure(&err)
	n := list.Size()
	out = make([]*Tensor, n)
	for i := range out {
		out[i] = newTensor(list.Get(int64(i)))
	}
	return out, nil
}

// ---- layout ---------------------------------------------------------------

// IsContiguous says whether t is dense in format's order
// (torch.Tensor.is_contiguous(memory_format=format)).
func (t *Tensor) IsContiguous(format MemoryFormat) (bool, error) {
	return query(t, func(h capi.SwigcptrTensor) bool {
		return h.Is_contiguous(capi.Enum_SS_tsr_memory_format(format))
	})
}

// IsNonOverlappingAndDense says whether t's elements fill a block of storage
// exactly once, in some dim order.
func (t *Tensor) IsNonOverlappingAndDense() (bool, error) {
	return query(t, capi.SwigcptrTensor.Is_non_overlapping_and_dense)
}

// SuggestMemoryFormat is the format t's strides follow (ChannelsLast for NHWC
// strides, else ContiguousFormat).
func (t *Tensor) SuggestMemoryFormat() (MemoryFormat, error) {
	return query(t, func(h capi.SwigcptrTensor) MemoryFormat { return MemoryFormat(h.Suggest_memory_format()) })
}

// Contiguous is t if it is already dense in format, else a copy that is
// (torch.Tensor.contiguous). Either way a new handle to Close.
func (t *Tensor) Contiguous(format MemoryFormat) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr {
		return h.Contiguous(capi.Enum_SS_tsr_memory_format(format))
	})
}

// Clone is a copy laid out in format (PreserveFormat keeps dense layouts).
func (t *Tensor) Clone(format MemoryFormat) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr {
		return h.Clone(capi.Enum_SS_tsr_memory_format(format))
	})
}

// To is t converted to dtype (t itself, as a new handle, if it has it).
func (t *Tensor) To(dtype DType) (*Tensor, error) {
	return t.derive(func(h capi.SwigcptrTensor) uintptr { return h.To(dt(dtype)) })
}

// CopyFrom writes src, broadcast and converted, into t (torch.Tensor.copy_).
func (t *Tensor) CopyFrom(src *Tensor) error {
	err := t.update(func(h capi.SwigcptrTensor) { h.Copy_(src.cptr()) })
	runtime.KeepAlive(src)
	return err
}

// SharesStorage says whether t and other view the same storage.
func (t *Tensor) SharesStorage(other *Tensor) (bool, error) {
	out, err := query(t, func(h capi.SwigcptrTensor) bool { return h.Shares_storage(other.cptr()) })
	runtime.KeepAlive(other)
	return out, err
}
