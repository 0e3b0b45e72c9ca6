#include "core/views.h"

#include <algorithm>

namespace tsr::views {

namespace {
// base + index * stride, the storage offset of a view that starts `index`
// steps along a dim of t. Only a tensor without elements can have strides
// that make this leave int64 (as_strided checks none then); PyTorch wraps
// the arithmetic there and fails ("invalid storage offset", negative or
// unrepresentable strides). TSR_ERR_INVALID_ARGUMENT here, naming `what`.
int64_t moved_offset(const char* what, int64_t base, int64_t index, int64_t stride, int64_t dim) {
  int64_t shift, out;
  TSR_CHECK(!__builtin_mul_overflow(index, stride, &shift) && !__builtin_add_overflow(base, shift, &out),
            TSR_ERR_INVALID_ARGUMENT, what, " ", index, " of dim ", dim, " with stride ", stride,
            " moves storage offset ", base, " past int64");
  return out;
}

// a * b for the stride of a new or merged dim; TSR_ERR_INVALID_ARGUMENT
// naming `what` when it leaves int64 (again only possible without elements).
int64_t stride_product(const char* what, int64_t a, int64_t b) {
  int64_t out;
  TSR_CHECK(!__builtin_mul_overflow(a, b, &out), TSR_ERR_INVALID_ARGUMENT, what, " (", a, " * ", b,
            ") overflows int64");
  return out;
}
}  // namespace

Shape infer_size(const Shape& sizes, int64_t numel) {
  Shape res = sizes;
  int64_t newsize = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TSR_CHECK(!infer, TSR_ERR_INVALID_ARGUMENT, "only one dimension can be inferred");
      infer = i;
    } else {
      TSR_CHECK(sizes[i] >= 0, TSR_ERR_INVALID_ARGUMENT, "invalid shape dimension ", sizes[i]);
      newsize = checked_mul(newsize, sizes[i], "shape");
    }
  }
  bool ok = numel == newsize || (infer && newsize > 0 && numel % newsize == 0);
  TSR_CHECK(ok, TSR_ERR_SHAPE_MISMATCH, "shape '", sizes, "' is invalid for input of size ",
            numel);
  if (infer) {
    TSR_CHECK(newsize != 0, TSR_ERR_SHAPE_MISMATCH, "cannot reshape tensor of 0 elements into shape ",
              sizes, " because the unspecified dimension size -1 can be any value and is ambiguous");
    res[*infer] = numel / newsize;
  }
  return res;
}

std::optional<Shape> compute_stride(const Shape& oldshape, const Shape& oldstride,
                                    const Shape& newshape) {
  if (oldshape.empty()) return Shape(newshape.size(), 1);
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape == newshape) return oldstride;
  Shape newstride(newshape.size());
  if (numel == 0) {
    for (int64_t d = int64_t(newshape.size()) - 1; d >= 0; --d)
      newstride[d] = d == int64_t(newshape.size()) - 1
                         ? 1
                         : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
    return newstride;
  }
  int64_t view_d = int64_t(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = int64_t(oldshape.size()) - 1; td >= 0; --td) {
    tensor_numel *= oldshape[td];
    if (td == 0 ||
        (oldshape[td - 1] != 1 && oldstride[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (td > 0) {
        chunk_base_stride = oldstride[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

Tensor view(const Tensor& t, const Shape& sizes) {
  Shape shape = infer_size(sizes, t.numel());
  auto strides = compute_stride(t.sizes(), t.strides(), shape);
  TSR_CHECK(strides, TSR_ERR_NOT_VIEWABLE,
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces): cannot view sizes ", t.sizes(),
            " with strides ", t.strides(), " as sizes ", shape, ". Use .reshape(...) instead.");
  return make_view(t, shape, *strides, t.storage_offset());
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  int64_t n = t.ndim();
  dim0 = wrap_dim(dim0, n);
  dim1 = wrap_dim(dim1, n);
  Shape sizes = t.sizes(), strides = t.strides();
  if (n > 0) {
    std::swap(sizes[dim0], sizes[dim1]);
    std::swap(strides[dim0], strides[dim1]);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor t(const Tensor& x) {
  TSR_CHECK(x.ndim() <= 2, TSR_ERR_INVALID_ARGUMENT, "t() expects a tensor with <= 2 dimensions, but self is ",
            x.ndim(), "D");
  return x.ndim() < 2 ? make_view(x, x.sizes(), x.strides(), x.storage_offset())
                      : transpose(x, 0, 1);
}

Tensor permute(const Tensor& t, const Shape& dims) {
  int64_t n = t.ndim();
  TSR_CHECK(int64_t(dims.size()) == n, TSR_ERR_INVALID_ARGUMENT,
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = ", n,
            " is not equal to len(dims) = ", dims.size());
  Shape sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n);
    TSR_CHECK(!seen[d], TSR_ERR_INVALID_ARGUMENT, "permute(): duplicate dims are not allowed: ",
              dims);
    seen[d] = true;
    sizes[i] = t.sizes()[d];
    strides[i] = t.strides()[d];
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  TSR_CHECK(t.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.ndim());
  int64_t cur = t.sizes()[dim];
  if (start != cur) start = wrap_dim(start, cur);  // start == size is allowed (empty)
  TSR_CHECK(length >= 0 && start <= cur - length, TSR_ERR_INVALID_ARGUMENT, "start (", start,
            ") + length (", length, ") exceeds dimension size (", cur, ").");
  return slice(t, dim, start, start + length, 1);
}

Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  TSR_CHECK(t.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "slice() cannot be applied to a 0-dim tensor.");
  TSR_CHECK(step > 0, TSR_ERR_INVALID_ARGUMENT, "slice step must be positive, got ", step);
  dim = wrap_dim(dim, t.ndim());
  int64_t size = t.sizes()[dim];
  if (start < 0) start = start < -size ? 0 : start + size;
  if (end < 0) end = end < -size ? 0 : end + size;
  start = std::min(start, size);
  end = std::clamp(end, start, size);
  // ATen computes the size as (end - start + step - 1) / step and the stride
  // as stride * step in int64. Where either overflows (a step within
  // end - start of INT64_MAX, or stride * step past INT64_MAX), PyTorch
  // 1.13's answer is wrapped-around arithmetic: an empty slice where Python
  // takes one element, a garbage stride, or an error about a negative size
  // or stride. Those steps are TSR_ERR_INVALID_ARGUMENT here; every other
  // step gives PyTorch's result.
  const int64_t len = end - start;
  const int64_t stride = t.strides()[dim];
  int64_t span, new_stride, shift, offset;
  TSR_CHECK(!__builtin_add_overflow(len, step - 1, &span), TSR_ERR_INVALID_ARGUMENT,
            "slice step ", step, " is too large for the ", len, " elements from ", start, " to ",
            end, " of dim ", dim, ": end - start + step - 1 overflows int64");
  TSR_CHECK(!__builtin_mul_overflow(stride, step, &new_stride), TSR_ERR_INVALID_ARGUMENT,
            "slice step ", step, " is too large for dim ", dim, " with stride ", stride,
            ": stride * step overflows int64");
  // A tensor without elements may have any strides, so the new storage
  // offset can overflow too (PyTorch wraps it: "Tensor: invalid storage
  // offset -4611686018427387904").
  TSR_CHECK(!__builtin_mul_overflow(start, stride, &shift) &&
                !__builtin_add_overflow(t.storage_offset(), shift, &offset),
            TSR_ERR_INVALID_ARGUMENT, "slice start ", start, " of dim ", dim, " with stride ",
            stride, " moves storage offset ", t.storage_offset(), " past int64");
  Shape sizes = t.sizes(), strides = t.strides();
  sizes[dim] = span / step;
  strides[dim] = new_stride;
  return make_view(t, sizes, strides, offset);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  TSR_CHECK(t.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.ndim());
  int64_t size = t.sizes()[dim];
  TSR_CHECK(index >= -size && index < size, TSR_ERR_INDEX_OUT_OF_RANGE, "select(): index ", index,
            " out of range for tensor of size ", t.sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t offset = moved_offset("select(): index", t.storage_offset(), index, strides[dim], dim);
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(t, sizes, strides, offset);
}

namespace {

// expand's sizes and strides (ATen's inferExpandGeometry), with its checks.
void expand_geometry(const Tensor& t, const Shape& target, Shape& sizes, Shape& strides) {
  int64_t n = int64_t(target.size()), tn = t.ndim();
  TSR_CHECK(n >= tn, TSR_ERR_SHAPE_MISMATCH, "expand: the number of sizes provided (", n,
            ") must be greater or equal to the number of dimensions in the tensor (", tn, ")");
  sizes.assign(size_t(n), 0);
  strides.assign(size_t(n), 0);
  for (int64_t i = n - 1; i >= 0; --i) {  // ATen's inferExpandGeometry
    int64_t offset = n - 1 - i, d = tn - 1 - offset;
    int64_t size = d >= 0 ? t.sizes()[d] : 1;
    int64_t want = target[i];
    if (want == -1) {
      TSR_CHECK(d >= 0, TSR_ERR_SHAPE_MISMATCH, "The expanded size of the tensor (-1) isn't allowed in a "
                "leading, non-existing dimension ", i);
      want = size;
    }
    TSR_CHECK(want >= 0, TSR_ERR_INVALID_ARGUMENT, "expand: invalid size ", want);
    const bool expanded = size != want;
    if (expanded) {
      TSR_CHECK(size == 1, TSR_ERR_SHAPE_MISMATCH, "The expanded size of the tensor (", want,
                ") must match the existing size (", size, ") at non-singleton dimension ", i,
                ".  Target sizes: ", target, ".  Tensor sizes: ", t.sizes());
      size = want;
    }
    // An expanded dim gets stride 0. A new dim of size 1 takes the stride of
    // the dim inside it times its size (computed only then: for a tensor
    // without elements that product may leave int64, where PyTorch fails on
    // the negative stride it wraps to). For a 0-dim input the innermost dim is
    // new too: ATen then reads one past the end of its (zeroed) buffers and
    // PyTorch 1.13 reports stride 0, so a scalar expands with stride 0
    // everywhere (torch.tensor(5.).expand(1)).
    int64_t stride = 0;
    if (!expanded && d >= 0) stride = t.strides()[d];
    else if (!expanded && i + 1 < n)
      stride = stride_product("expand: the new dim's stride size * stride", sizes[i + 1],
                              strides[i + 1]);
    sizes[i] = size;
    strides[i] = stride;
  }
  checked_numel(sizes);
}

}  // namespace

Tensor expand(const Tensor& t, const Shape& target) {
  Shape sizes, strides;
  expand_geometry(t, target, sizes, strides);
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor expand_or_self(const Tensor& t, const Shape& target) {
  if (t.sizes() == target) return t;
  return expand(t, target);
}

void check_expand(const Tensor& t, const Shape& target) {
  Shape sizes, strides;
  expand_geometry(t, target, sizes, strides);
}

Tensor squeeze(const Tensor& t) {
  Shape sizes, strides;
  for (int64_t i = 0; i < t.ndim(); ++i)
    if (t.sizes()[i] != 1) {
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
    }
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor squeeze_dim(const Tensor& t, int64_t dim) {
  dim = wrap_dim(dim, t.ndim());
  Shape sizes = t.sizes(), strides = t.strides();
  if (t.ndim() > 0 && sizes[dim] == 1) {
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  dim = wrap_dim(dim, t.ndim() + 1);
  TSR_CHECK(t.ndim() < kMaxDims, TSR_ERR_INVALID_ARGUMENT, "unsqueeze: too many dims");
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t stride =
      dim >= t.ndim() ? 1 : stride_product("unsqueeze: the new dim's stride size * stride",
                                           sizes[dim], strides[dim]);
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes) {
  TSR_CHECK(t.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "unflatten: Dimension size must be non-zero (0-dim input)");
  dim = wrap_dim(dim, t.ndim());
  TSR_CHECK(!sizes.empty(), TSR_ERR_INVALID_ARGUMENT, "unflatten: sizes must be non-empty");
  TSR_CHECK(t.ndim() - 1 + int64_t(sizes.size()) <= kMaxDims, TSR_ERR_INVALID_ARGUMENT,
            "unflatten: too many dims");
  int64_t dsize = t.sizes()[dim];
  Shape inferred;
  try {
    inferred = infer_size(sizes, dsize);
  } catch (const Error&) {
    fail(TSR_ERR_SHAPE_MISMATCH, "unflatten: Provided sizes ", sizes,
         " don't multiply up to the size of dim ", dim, " (", dsize, ") in the input tensor");
  }
  // ATen's unflatten is self.view(shape): strides come from computeStride,
  // which also re-strides size-1 dims elsewhere in the tensor and uses
  // contiguous strides when the tensor has no elements.
  Shape shape = t.sizes();
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, inferred.begin(), inferred.end());
  return view(t, shape);
}

Shape movedim_perm(int64_t n, const Shape& src, const Shape& dst) {
  TSR_CHECK(src.size() == dst.size(), TSR_ERR_INVALID_ARGUMENT,
            "movedim: Invalid source or destination dims: source (", src,
            " dims) should contain the same number of dims as destination (", dst, " dims)");
  // ATen's order: wrap every source dim, then every destination dim, then
  // check each list for repeats. A 0-dim tensor accepts dims -1 and 0
  // (wrap_dim's scalar rule) and has nothing to permute.
  Shape s(src.size()), d(dst.size());
  for (size_t i = 0; i < src.size(); ++i) s[i] = wrap_dim(src[i], n);
  for (size_t i = 0; i < dst.size(); ++i) d[i] = wrap_dim(dst[i], n);
  std::vector<bool> src_used(std::max<int64_t>(n, 1), false), dst_used(src_used);
  for (int64_t v : s) {
    TSR_CHECK(!src_used[v], TSR_ERR_INVALID_ARGUMENT, "movedim: repeated dim in `source` (", src, ")");
    src_used[v] = true;
  }
  for (int64_t v : d) {
    TSR_CHECK(!dst_used[v], TSR_ERR_INVALID_ARGUMENT, "movedim: repeated dim in `destination` (", dst, ")");
    dst_used[v] = true;
  }
  Shape perm(n, -1);
  if (n == 0) return perm;
  for (size_t i = 0; i < s.size(); ++i) perm[d[i]] = s[i];
  int64_t next_src = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (perm[d] != -1) continue;
    while (src_used[next_src]) ++next_src;
    perm[d] = next_src++;
  }
  return perm;
}

Tensor movedim(const Tensor& t, const Shape& source, const Shape& destination) {
  if (t.ndim() == 0) {
    movedim_perm(0, source, destination);  // validates
    return make_view(t, t.sizes(), t.strides(), t.storage_offset());
  }
  return permute(t, movedim_perm(t.ndim(), source, destination));
}

Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  TSR_CHECK(sizes.size() == strides.size(), TSR_ERR_INVALID_ARGUMENT, "mismatch in length of strides and shape");
  for (int64_t s : strides)
    TSR_CHECK(s >= 0, TSR_ERR_INVALID_ARGUMENT,
              "as_strided: Negative strides are not supported at the moment, got strides: ", strides);
  TSR_CHECK(offset >= 0, TSR_ERR_INVALID_ARGUMENT, "Tensor: invalid storage offset ", offset);
  checked_numel(sizes);
  int64_t extent = storage_extent(sizes, strides);
  int64_t need = 0;
  if (extent > 0) {
    int64_t elems;
    TSR_CHECK(!__builtin_add_overflow(extent, offset, &elems), TSR_ERR_INVALID_ARGUMENT,
              "as_strided: storage extent overflows");
    need = checked_mul(elems, t.element_size(), "storage bytes");
  }
  TSR_CHECK(need <= t.storage()->nbytes(), TSR_ERR_INVALID_ARGUMENT, "setStorage: sizes ", sizes,
            ", strides ", strides, ", storage offset ", offset, ", and itemsize ", t.element_size(),
            " requiring a storage size of ", need, " are out of bounds for storage of size ",
            t.storage()->nbytes());
  return make_view(t, sizes, strides, offset);
}

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  int64_t n = t.ndim();
  dim = wrap_dim(dim, n);
  int64_t max_size = n == 0 ? 1 : t.sizes()[dim];
  TSR_CHECK(size >= 0 && size <= max_size, TSR_ERR_INVALID_ARGUMENT, "maximum size for tensor at dimension ",
            dim, " is ", max_size, " but size is ", size);
  TSR_CHECK(step > 0, TSR_ERR_INVALID_ARGUMENT, "step is ", step, " but must be > 0");
  TSR_CHECK(n < kMaxDims, TSR_ERR_INVALID_ARGUMENT, "unfold: too many dims");
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t dstride = n == 0 ? 1 : strides[dim];
  if (n > 0) {
    sizes[dim] = (sizes[dim] - size) / step + 1;
    strides[dim] = checked_mul(step, strides[dim], "unfold stride");
  }
  sizes.push_back(size);
  strides.push_back(dstride);
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  // ATen wraps both dims first (a 0-D or 1-D input fails there with "Dimension
  // out of range") and names the dims as given when they coincide.
  int64_t n = t.ndim();
  const int64_t dim1_arg = dim1, dim2_arg = dim2;
  dim1 = wrap_dim(dim1, n);
  dim2 = wrap_dim(dim2, n);
  TSR_CHECK(dim1 != dim2, TSR_ERR_INVALID_ARGUMENT, "diagonal dimensions cannot be identical ",
            dim1_arg, ", ", dim2_arg);
  const Shape& sz = t.sizes();
  const Shape& st = t.strides();
  int64_t diag, storage_offset = t.storage_offset();
  if (offset >= 0) diag = std::max<int64_t>(std::min(sz[dim1], sz[dim2] - offset), 0);
  else diag = std::max<int64_t>(std::min(sz[dim1] + offset, sz[dim2]), 0);
  if (diag > 0) {  // |offset| < the dim's size, yet its stride may be huge
    if (offset >= 0)
      storage_offset = moved_offset("diagonal: offset", storage_offset, offset, st[dim2], dim2);
    else
      storage_offset = moved_offset("diagonal: offset", storage_offset, -offset, st[dim1], dim1);
  }
  int64_t diag_stride;
  TSR_CHECK(!__builtin_add_overflow(st[dim1], st[dim2], &diag_stride), TSR_ERR_INVALID_ARGUMENT,
            "diagonal: the strides ", st[dim1], " and ", st[dim2], " of dims ", dim1, " and ", dim2,
            " add up past int64");
  Shape sizes = sz, strides = st;
  int64_t hi = std::max(dim1, dim2), lo = std::min(dim1, dim2);
  sizes.erase(sizes.begin() + hi);
  strides.erase(strides.begin() + hi);
  sizes.erase(sizes.begin() + lo);
  strides.erase(strides.begin() + lo);
  sizes.push_back(diag);
  strides.push_back(diag_stride);
  return make_view(t, sizes, strides, storage_offset);
}

Pieces split_pieces(const Tensor& t, int64_t split_size, int64_t dim) {
  TSR_CHECK(t.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "split expects at least a 1-dimensional tensor");
  dim = wrap_dim(dim, t.ndim());
  TSR_CHECK(split_size >= 0, TSR_ERR_INVALID_ARGUMENT,
            "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t size = t.sizes()[dim];
  TSR_CHECK(split_size > 0 || size == 0, TSR_ERR_INVALID_ARGUMENT,
            "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  // ATen: max((size + split_size - 1) / split_size, 1) pieces, the last one
  // split_size - (split_size * pieces - size) long. That sum overflows for a
  // split_size near INT64_MAX, yet ATen's wrapped result is still the one
  // piece meant; here it is computed without overflow.
  if (size == 0) return {1, 0, 0};
  const int64_t count = (size - 1) / split_size + 1;
  TSR_CHECK(count <= kMaxPieces, TSR_ERR_INVALID_ARGUMENT, "split: split_size ", split_size,
            " cuts dim ", dim, " of size ", size, " into ", count,
            " pieces, more handles than an array can hold (", kMaxPieces, ")");
  return {count, split_size, size - split_size * (count - 1)};
}

Pieces chunk_pieces(const Tensor& t, int64_t chunks, int64_t dim) {
  TSR_CHECK(t.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "chunk expects at least a 1-dimensional tensor");
  TSR_CHECK(chunks > 0, TSR_ERR_INVALID_ARGUMENT, "chunk expects `chunks` to be greater than 0, got: ",
            chunks);
  dim = wrap_dim(dim, t.ndim());
  const int64_t size = t.sizes()[dim];
  // ATen's chunk goes through split_with_sizes when the dim is empty, so an
  // empty dim gives `chunks` empty pieces (split would give one). PyTorch
  // builds a vector of `chunks` sizes for that; here nothing is allocated
  // until the caller's array has room for the handles.
  if (size == 0) {
    TSR_CHECK(chunks <= kMaxPieces, TSR_ERR_INVALID_ARGUMENT, "chunk: ", chunks,
              " empty pieces of dim ", dim, " are more handles than an array can hold (",
              kMaxPieces, ")");
    return {chunks, 0, 0};
  }
  // ATen's split size (size + chunks - 1) / chunks overflows int64 for
  // chunks > INT64_MAX - size + 1, and PyTorch then fails ("split_size can
  // only be 0 ..." or "... non-negative, but got split_size=-1").
  TSR_CHECK(size - 1 <= INT64_MAX - chunks, TSR_ERR_INVALID_ARGUMENT, "chunk: chunks ", chunks,
            " is too large for dim ", dim, " of size ", size,
            ": the split size (size + chunks - 1) / chunks overflows int64 (at most ",
            INT64_MAX - (size - 1), " chunks)");
  return split_pieces(t, (size - 1) / chunks + 1, dim);  // ceil(size / chunks)
}

Shape flatten_shape(const Tensor& t, int64_t start, int64_t end) {
  if (t.ndim() == 0) return {1};
  TSR_CHECK(start <= end, TSR_ERR_INVALID_ARGUMENT,
            "flatten() has invalid args: start_dim cannot come after end_dim");
  Shape shape(t.sizes().begin(), t.sizes().begin() + start);
  int64_t prod = 1;
  for (int64_t i = start; i <= end; ++i) prod *= t.sizes()[i];
  shape.push_back(prod);
  shape.insert(shape.end(), t.sizes().begin() + end + 1, t.sizes().end());
  return shape;
}

}  // namespace tsr::views
