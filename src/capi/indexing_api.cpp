// C API: indexing by tensors and masks (indexing.h). Arguments are checked,
// then the differentiable op runs; out values are written last, so a
// failing call leaves them untouched.
#include <tessera/indexing.h>

#include <optional>
#include <vector>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/indexing_ops.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

// The index list: n entries, NULL ones full slices.
std::vector<Tensor> indices_arg(int64_t n, const tsr_tensor* const* indices) {
  TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "n must be non-negative (got ", n, ")");
  if (n > 0) require(indices, "indices");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(indices[i] ? indices[i]->tensor : Tensor());
  return out;
}

ops::ScatterReduce reduction_arg(const tsr_scatter_reduction& r) {
  switch (enum_arg(r)) {
    case TSR_SCATTER_SUM: return ops::ScatterReduce::Sum;
    case TSR_SCATTER_PROD: return ops::ScatterReduce::Prod;
    case TSR_SCATTER_MEAN: return ops::ScatterReduce::Mean;
    case TSR_SCATTER_AMAX: return ops::ScatterReduce::Amax;
    case TSR_SCATTER_AMIN: return ops::ScatterReduce::Amin;
    default:
      fail(TSR_ERR_INVALID_ARGUMENT, "reduce argument must be either sum, prod, mean, amax or amin (got ",
           enum_arg(r), ")");
  }
}

}  // namespace

TSR_EXTERN tsr_status tsr_index(const tsr_tensor* self, int64_t n, const tsr_tensor* const* indices,
                                tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const auto idx = indices_arg(n, indices);
    require(out, "out");
    emit(out, ops::index(x, idx));
  });
}

TSR_EXTERN tsr_status tsr_index_put(const tsr_tensor* self, int64_t n, const tsr_tensor* const* indices,
                                    const tsr_tensor* values, bool accumulate, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const auto idx = indices_arg(n, indices);
    const Tensor& v = tensor_of(values, "values");
    require(out, "out");
    emit(out, ops::index_put(x, idx, v, accumulate));
  });
}

TSR_EXTERN tsr_status tsr_index_put_(tsr_tensor* self, int64_t n, const tsr_tensor* const* indices,
                                     const tsr_tensor* values, bool accumulate) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const auto idx = indices_arg(n, indices);
    ops::index_put_(x, idx, tensor_of(values, "values"), accumulate);
  });
}

TSR_EXTERN tsr_status tsr_nonzero(const tsr_tensor* x, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(out, "out");
    emit(out, ops::nonzero(t));
  });
}

TSR_EXTERN tsr_status tsr_masked_fill(const tsr_tensor* self, const tsr_tensor* mask, double value,
                                      tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& m = tensor_of(mask, "mask");
    require(out, "out");
    emit(out, ops::masked_fill(x, m, value));
  });
}

TSR_EXTERN tsr_status tsr_masked_fill_(tsr_tensor* self, const tsr_tensor* mask, double value) {
  return guarded([&] { ops::masked_fill_(tensor_of(self, "self"), tensor_of(mask, "mask"), value); });
}

TSR_EXTERN tsr_status tsr_masked_fill_tensor(const tsr_tensor* self, const tsr_tensor* mask, const tsr_tensor* value,
                                             tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& m = tensor_of(mask, "mask");
    const Tensor& v = tensor_of(value, "value");
    require(out, "out");
    emit(out, ops::masked_fill(x, m, v));
  });
}

TSR_EXTERN tsr_status tsr_masked_fill_tensor_(tsr_tensor* self, const tsr_tensor* mask, const tsr_tensor* value) {
  return guarded([&] {
    ops::masked_fill_(tensor_of(self, "self"), tensor_of(mask, "mask"), tensor_of(value, "value"));
  });
}

TSR_EXTERN tsr_status tsr_masked_select(const tsr_tensor* x, const tsr_tensor* mask, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Tensor& m = tensor_of(mask, "mask");
    require(out, "out");
    emit(out, ops::masked_select(t, m));
  });
}

TSR_EXTERN tsr_status tsr_scatter(const tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src,
                                  tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    const Tensor& s = tensor_of(src, "src");
    require(out, "out");
    emit(out, ops::scatter(x, dim, i, s, ops::ScatterReduce::Assign));
  });
}

TSR_EXTERN tsr_status tsr_scatter_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src) {
  return guarded([&] {
    ops::scatter_(tensor_of(self, "self"), dim, tensor_of(index, "index"), tensor_of(src, "src"),
                  ops::ScatterReduce::Assign);
  });
}

TSR_EXTERN tsr_status tsr_scatter_value(const tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value,
                                        tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    require(out, "out");
    emit(out, ops::scatter_value(x, dim, i, value, ops::ScatterReduce::Assign));
  });
}

TSR_EXTERN tsr_status tsr_scatter_value_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value) {
  return guarded([&] {
    ops::scatter_value_(tensor_of(self, "self"), dim, tensor_of(index, "index"), value, ops::ScatterReduce::Assign);
  });
}

TSR_EXTERN tsr_status tsr_scatter_add(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                      const tsr_tensor* src, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    const Tensor& s = tensor_of(src, "src");
    require(out, "out");
    emit(out, ops::scatter_add(x, dim, i, s));
  });
}

TSR_EXTERN tsr_status tsr_scatter_add_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src) {
  return guarded([&] {
    ops::scatter_add_(tensor_of(self, "self"), dim, tensor_of(index, "index"), tensor_of(src, "src"));
  });
}

TSR_EXTERN tsr_status tsr_scatter_reduce(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                         const tsr_tensor* src, tsr_scatter_reduction reduce, bool include_self,
                                         tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    const Tensor& s = tensor_of(src, "src");
    const ops::ScatterReduce r = reduction_arg(reduce);
    require(out, "out");
    emit(out, ops::scatter_reduce(x, dim, i, s, r, include_self));
  });
}

TSR_EXTERN tsr_status tsr_scatter_reduce_(tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                          const tsr_tensor* src, tsr_scatter_reduction reduce, bool include_self) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    const Tensor& s = tensor_of(src, "src");
    ops::scatter_reduce_(x, dim, i, s, reduction_arg(reduce), include_self);
  });
}

TSR_EXTERN tsr_status tsr_index_add(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                    const tsr_tensor* source, double alpha, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    const Tensor& s = tensor_of(source, "source");
    require(out, "out");
    emit(out, ops::index_add(x, dim, i, s, alpha));
  });
}

TSR_EXTERN tsr_status tsr_index_add_(tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                     const tsr_tensor* source, double alpha) {
  return guarded([&] {
    ops::index_add_(tensor_of(self, "self"), dim, tensor_of(index, "index"), tensor_of(source, "source"), alpha);
  });
}

TSR_EXTERN tsr_status tsr_index_copy(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                     const tsr_tensor* source, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    const Tensor& s = tensor_of(source, "source");
    require(out, "out");
    emit(out, ops::index_copy(x, dim, i, s));
  });
}

TSR_EXTERN tsr_status tsr_index_copy_(tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                      const tsr_tensor* source) {
  return guarded([&] {
    ops::index_copy_(tensor_of(self, "self"), dim, tensor_of(index, "index"), tensor_of(source, "source"));
  });
}

TSR_EXTERN tsr_status tsr_index_fill(const tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value,
                                     tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(self, "self");
    const Tensor& i = tensor_of(index, "index");
    require(out, "out");
    emit(out, ops::index_fill(x, dim, i, value));
  });
}

TSR_EXTERN tsr_status tsr_index_fill_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value) {
  return guarded([&] { ops::index_fill_(tensor_of(self, "self"), dim, tensor_of(index, "index"), value); });
}

TSR_EXTERN tsr_status tsr_take_along_dim(const tsr_tensor* x, const tsr_tensor* indices, const int64_t* dim,
                                         tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Tensor& i = tensor_of(indices, "indices");
    require(out, "out");
    emit(out, ops::take_along_dim(t, i, dim ? std::optional<int64_t>(*dim) : std::nullopt));
  });
}
