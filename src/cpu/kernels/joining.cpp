#include "cpu/kernels/joining.h"

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/layout.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"

namespace tsr::kernels {

namespace {
bool legacy_empty(const Tensor& t) { return t.ndim() == 1 && t.numel() == 0; }
}  // namespace

CatPlan cat_plan(const std::vector<Tensor>& ts, int64_t dim) {
  TSR_CHECK(!ts.empty(), TSR_ERR_INVALID_ARGUMENT, "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < ts.size(); ++i)
    TSR_CHECK(ts[i].ndim() > 0, TSR_ERR_SHAPE_MISMATCH, "zero-dimensional tensor (at position ", i,
              ") cannot be concatenated");
  CatPlan p;
  p.dtype = ts[0].dtype();
  for (const Tensor& t : ts) p.dtype = promote_types(p.dtype, t.dtype());
  // The output layout: the format every input suggests, else contiguous.
  p.format = suggest_memory_format(ts[0].sizes(), ts[0].strides());
  for (const Tensor& t : ts)
    if (suggest_memory_format(t.sizes(), t.strides()) != p.format) p.format = TSR_CONTIGUOUS_FORMAT;
  for (const Tensor& t : ts) p.skip.push_back(legacy_empty(t));
  size_t first = 0;
  while (first < ts.size() && p.skip[first]) ++first;
  if (first == ts.size()) {  // only legacy empty tensors: an empty [0], dim unchecked
    p.sizes = {0};
    p.dim = 0;
    p.format = TSR_CONTIGUOUS_FORMAT;
    return p;
  }
  const Tensor& ref = ts[first];
  p.dim = wrap_dim(dim, ref.ndim());
  p.sizes = ref.sizes();
  p.sizes[size_t(p.dim)] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (p.skip[i]) continue;
    const Tensor& t = ts[i];
    TSR_CHECK(t.ndim() == ref.ndim(), TSR_ERR_SHAPE_MISMATCH,
              "Tensors must have same number of dimensions: got ", ref.ndim(), " and ", t.ndim());
    for (int64_t d = 0; d < ref.ndim(); ++d)
      TSR_CHECK(d == p.dim || t.sizes()[d] == ref.sizes()[d], TSR_ERR_SHAPE_MISMATCH,
                "Sizes of tensors must match except in dimension ", p.dim, ". Expected size ",
                ref.sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i, " in the list.");
    int64_t& total = p.sizes[size_t(p.dim)];
    TSR_CHECK(!__builtin_add_overflow(total, t.sizes()[size_t(p.dim)], &total), TSR_ERR_INVALID_ARGUMENT,
              "cat: the output size along dim ", p.dim, " overflows int64");
  }
  checked_numel(p.sizes);
  return p;
}

Tensor cat(const std::vector<Tensor>& ts, int64_t dim, Device device, const CopyInto& copy) {
  CatPlan p = cat_plan(ts, dim);
  Tensor out = empty(p.sizes, p.dtype, p.format, device);
  int64_t offset = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (p.skip[i]) continue;
    const int64_t n = ts[i].sizes()[size_t(p.dim)];
    if (n > 0 && ts[i].numel() > 0) copy(views::narrow(out, p.dim, offset, n), ts[i]);
    offset += n;
  }
  return out;
}

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) { return cat(ts, dim, kCpu, copy_strided); }

StackPlan stack_plan(const std::vector<Tensor>& ts, int64_t dim) {
  TSR_CHECK(!ts.empty(), TSR_ERR_INVALID_ARGUMENT, "stack expects a non-empty TensorList");
  StackPlan p;
  p.dim = wrap_dim(dim, ts[0].ndim() + 1);
  for (size_t i = 1; i < ts.size(); ++i)
    TSR_CHECK(ts[i].sizes() == ts[0].sizes(), TSR_ERR_SHAPE_MISMATCH,
              "stack expects each tensor to be equal size, but got ", ts[0].sizes(), " at entry 0 and ",
              ts[i].sizes(), " at entry ", i);
  p.dtype = ts[0].dtype();
  for (const Tensor& t : ts) p.dtype = promote_types(p.dtype, t.dtype());
  p.sizes = ts[0].sizes();
  p.sizes.insert(p.sizes.begin() + p.dim, int64_t(ts.size()));
  checked_numel(p.sizes);
  return p;
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim, Device device, const CopyInto& copy) {
  StackPlan p = stack_plan(ts, dim);
  if (p.dim < ts[0].ndim()) {  // cat along dim, then split it: a view
    Tensor c = cat(ts, p.dim, device, copy);
    auto strides = views::compute_stride(c.sizes(), c.strides(), p.sizes);
    TSR_CHECK(strides.has_value(), TSR_ERR_INTERNAL, "stack: cat result not viewable as ", p.sizes);
    return make_view(c, p.sizes, *strides, c.storage_offset());
  }
  std::vector<Tensor> unsqueezed;
  for (const Tensor& t : ts) unsqueezed.push_back(views::unsqueeze(t, p.dim));
  return cat(unsqueezed, p.dim, device, copy);
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) { return stack(ts, dim, kCpu, copy_strided); }

}  // namespace tsr::kernels
