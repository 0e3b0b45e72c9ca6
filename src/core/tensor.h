// Tensor: a value-semantics handle (shared_ptr) to a TensorImpl, the model of
// at::Tensor. A TensorImpl is a view: storage, storage_offset, sizes and
// strides (elements), dtype. Views made from one another share the storage
// and one version counter (bumped by in-place writes, checked by autograd).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <tessera/types.h>

#include "core/dtype.h"
#include "core/inline_vector.h"
#include "core/shape.h"
#include "core/storage.h"

namespace tsr {
namespace autograd { struct AutogradMeta; }

struct TensorImpl {
  TensorImpl(StoragePtr storage, int64_t storage_offset, Shape sizes, Shape strides,
             tsr_dtype dtype, std::shared_ptr<VersionCounter> version);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  StoragePtr storage;
  int64_t storage_offset;
  Shape sizes;
  Shape strides;
  tsr_dtype dtype;
  int64_t numel;
  std::shared_ptr<VersionCounter> version;
  // Null for tensors that never took part in autograd.
  std::shared_ptr<autograd::AutogradMeta> autograd;
  // Where a checkpoint region's tape (autograd/checkpoint.h) produced this
  // tensor: the region frame's serial and the value's index on its tape.
  // 0 / -1 for tensors made outside any region.
  uint64_t tape_frame = 0;
  int64_t tape_value = -1;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  int64_t ndim() const { return int64_t(impl_->sizes.size()); }
  const Shape& sizes() const { return impl_->sizes; }
  const Shape& strides() const { return impl_->strides; }
  int64_t size(int64_t dim) const;    // dim may be negative
  int64_t stride(int64_t dim) const;  // dim may be negative
  int64_t storage_offset() const { return impl_->storage_offset; }
  int64_t numel() const { return impl_->numel; }
  tsr_dtype dtype() const { return impl_->dtype; }
  int64_t element_size() const { return tsr::element_size(impl_->dtype); }
  int64_t nbytes() const { return numel() * element_size(); }
  Device device() const { return impl_->storage->device(); }
  const StoragePtr& storage() const { return impl_->storage; }
  // Address of element [0,...,0]; NULL over an empty storage. A tensor
  // without elements may have any storage_offset (as_strided checks no
  // bounds for it, as PyTorch), so its offset is applied only when it lands
  // inside the storage or at its end; further out there is no such address
  // and data_ptr is NULL (as PyTorch's is for every tensor without
  // elements), never an overflowed pointer.
  void* data_ptr() const {
    char* base = static_cast<char*>(impl_->storage->data());
    if (!base) return nullptr;
    if (impl_->numel == 0) {
      int64_t bytes;
      if (__builtin_mul_overflow(impl_->storage_offset, element_size(), &bytes) ||
          bytes < 0 || bytes > impl_->storage->nbytes())
        return nullptr;
      return base + bytes;
    }
    return base + impl_->storage_offset * element_size();
  }
  template <typename T> T* data() const { return static_cast<T*>(data_ptr()); }

  int64_t version() const { return impl_->version->version.load(); }
  void bump_version() const {
    if (!impl_->version->inference) impl_->version->version.fetch_add(1);
  }
  bool is_inference() const { return impl_->version->inference; }

  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// A list of tensors that holds up to 4 without a heap block: the inputs and
// outputs of a primitive run (prim::Tensors) and the gradients a node takes
// and gives.
using TensorList = InlineVector<Tensor, 4>;

// A new TensorImpl over `base`'s storage and version counter with new
// geometry (no checks: callers validate). No autograd history.
Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t storage_offset);

}  // namespace tsr
