#include "core/tensor.h"

#include "core/inference_mode.h"
#include "core/shape.h"

namespace tsr {

namespace {
// A new tensor's counter: an inference tensor's when made in inference mode.
std::shared_ptr<VersionCounter> fresh_version_counter() {
  auto v = std::make_shared<VersionCounter>();
  v->inference = is_inference_mode_enabled();
  return v;
}
}  // namespace

TensorImpl::TensorImpl(StoragePtr storage_, int64_t storage_offset_, Shape sizes_,
                       Shape strides_, tsr_dtype dtype_,
                       std::shared_ptr<VersionCounter> version_)
    : storage(std::move(storage_)),
      storage_offset(storage_offset_),
      sizes(std::move(sizes_)),
      strides(std::move(strides_)),
      dtype(dtype_),
      numel(checked_numel(sizes)),
      version(version_ ? std::move(version_) : fresh_version_counter()) {
  storage->add_user();
}

TensorImpl::~TensorImpl() { storage->remove_user(); }

int64_t Tensor::size(int64_t dim) const { return sizes()[wrap_dim(dim, ndim())]; }
int64_t Tensor::stride(int64_t dim) const { return strides()[wrap_dim(dim, ndim())]; }

Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t storage_offset) {
  return Tensor(std::make_shared<TensorImpl>(base.storage(), storage_offset, std::move(sizes),
                                             std::move(strides), base.dtype(),
                                             base.impl()->version));
}

}  // namespace tsr
