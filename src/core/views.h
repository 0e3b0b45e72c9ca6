// View geometry: each function computes the sizes/strides/offset of a view of
// t and returns a new Tensor over t's storage (make_view). No copies, no
// autograd (ops/views.cpp records history on top of these). Rules and error
// messages are ATen's (TensorShape.cpp, TensorUtils.cpp computeStride).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace tsr::views {

// ATen's infer_size: resolves one -1 against numel.
Shape infer_size(const Shape& sizes, int64_t numel);
// ATen's computeStride: strides for viewing (old sizes, strides) as new
// sizes, or nullopt when a copy is needed.
std::optional<Shape> compute_stride(const Shape& old_sizes, const Shape& old_strides,
                                    const Shape& new_sizes);

Tensor view(const Tensor& t, const Shape& sizes);  // TSR_ERR_NOT_VIEWABLE
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& t);
Tensor permute(const Tensor& t, const Shape& dims);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor expand(const Tensor& t, const Shape& sizes);
// expand(t, sizes) for code that only reads the result (kernels, in-place
// sources): t itself when it already has those sizes, which spares a
// TensorImpl (an allocation) per call; else expand's view.
Tensor expand_or_self(const Tensor& t, const Shape& sizes);
// expand's checks and messages (TSR_ERR_SHAPE_MISMATCH,
// TSR_ERR_INVALID_ARGUMENT), without building the view.
void check_expand(const Tensor& t, const Shape& sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze_dim(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes);
Tensor movedim(const Tensor& t, const Shape& source, const Shape& destination);
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides,
                  int64_t storage_offset);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
// The pieces torch.split / torch.chunk cut along a dim: `count` pieces of
// `size` elements each but the last, which has `last` (<= size). Described,
// not materialised, so that a count query costs nothing whatever the count.
struct Pieces {
  int64_t count;
  int64_t size;
  int64_t last;
  // The count sizes, as torch.split_with_sizes takes them (count entries:
  // only once the count is known to be affordable).
  std::vector<int64_t> sizes() const {
    std::vector<int64_t> v(size_t(count), size);
    if (count > 0) v.back() = last;
    return v;
  }
};
// The most pieces split/chunk return: more handles than this fit in no
// array (PTRDIFF_MAX bytes). On 64-bit targets this is also PyTorch's limit, the
// max_size() of the std::vector of sizes or tensors it builds.
constexpr int64_t kMaxPieces = int64_t(PTRDIFF_MAX / sizeof(void*));
// ATen's split / chunk rules and messages; count > kMaxPieces, and chunks
// whose split size overflows int64, are TSR_ERR_INVALID_ARGUMENT.
Pieces split_pieces(const Tensor& t, int64_t split_size, int64_t dim);
Pieces chunk_pieces(const Tensor& t, int64_t chunks, int64_t dim);
// Shape flatten(start_dim, end_dim) produces (dims already wrapped).
Shape flatten_shape(const Tensor& t, int64_t start_dim, int64_t end_dim);
// Permutation movedim applies: out dim i is input dim perm[i].
Shape movedim_perm(int64_t ndim, const Shape& source, const Shape& destination);

}  // namespace tsr::views
