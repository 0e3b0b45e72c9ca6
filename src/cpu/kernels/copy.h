// Copies and fills on CPU tensors, any strides, any dtype pair.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// dst[i] = convert(src[i]) with src already of dst's sizes (expanded) —
// no checks, no autograd, no version bump. Tiles 2-D blocks when the two
// layouts disagree on which dim is innermost (a transpose), so both sides
// stream through cache.
void copy_strided(const Tensor& dst, const Tensor& src);
// A 2-D transpose on one thread: for a < na, b < nb,
// d[a * es + b * dsb] = s[a * ssa + b * es] (byte offsets; elements of es
// = 1, 2, 4 or 8 bytes), through copy_strided's tiled blocks and register
// micro-tiles (transpose_tiles.h), with streaming stores where the
// destination rows are 32-byte aligned (ordinary ones elsewhere), fenced
// before it returns. For kernels that lay out a result they will not read
// back soon (result_scatter.h).
void transpose_copy_streamed(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa,
                             int64_t es);
// The same transpose for a small block that stays in cache (a kernel's
// scratch tile): one block of register micro-tiles, ordinary stores.
void transpose_block(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa, int64_t es);
// Every element of dst = value (converted from double).
void fill(const Tensor& dst, double value);
// A contiguous copy of t in the given dtype (no autograd).
Tensor contiguous_copy(const Tensor& t, tsr_dtype dtype);
// t itself when C-contiguous, else contiguous_copy(t, t.dtype()): for
// kernels that read their input as one flat C-order array.
Tensor contiguous_or_self(const Tensor& t);
// True when t certainly has elements sharing an address, by ATen's rule
// (has_internal_overlap == Yes): a dim of size > 1 with stride 0. Other
// overlapping layouts (unfold windows, small as_strided strides) are
// "too hard" for ATen and allowed, as in torch.
bool has_internal_overlap(const Tensor& t);
// ATen's get_overlap_status(a, b) == Partial: a and b are different,
// non-overlapping and dense views of one storage whose byte ranges intersect
// without being the same elements in the same order. In-place ops refuse
// that (assert_no_partial_overlap); other overlaps ("too hard" for ATen) are
// allowed and handled by reading through a temporary (may_overlap).
bool partial_overlap(const Tensor& a, const Tensor& b);
// True when the memory ranges of a and b intersect.
bool may_overlap(const Tensor& a, const Tensor& b);

}  // namespace tsr::kernels
