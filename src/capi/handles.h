// The structs behind the opaque C handles, and helpers to read arguments.
// A handle is a refcounted box around a core value; several handles may box
// the same TensorImpl (tsr_grad returns a new handle to the same gradient).
#pragma once

#include <atomic>
#include <cstring>
#include <type_traits>

#include <tessera/types.h>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"

struct tsr_tensor {
  explicit tsr_tensor(tsr::Tensor t) : tensor(std::move(t)) {}
  std::atomic<int64_t> refs{1};
  tsr::Tensor tensor;
};

struct tsr_storage {
  explicit tsr_storage(tsr::StoragePtr s) : storage(std::move(s)) {}
  std::atomic<int64_t> refs{1};
  tsr::StoragePtr storage;
};

namespace tsr::capi {

// Retain / release for any handle with a `refs` member.
template <typename H>
void retain(H* h) {
  if (h) h->refs.fetch_add(1, std::memory_order_relaxed);
}
template <typename H>
void release(H* h) {
  if (h && h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete h;
}

// Throws TSR_ERR_INVALID_ARGUMENT naming `what` when p is NULL.
template <typename P>
P* require(P* p, const char* what) {
  TSR_CHECK(p != nullptr, TSR_ERR_INVALID_ARGUMENT, what, " is NULL");
  return p;
}

inline const Tensor& tensor_of(const tsr_tensor* h, const char* what = "tensor") {
  return require(h, what)->tensor;
}

// The int value of an enum argument from C, read through its bytes. A C
// caller may pass any int as a tsr_dtype/tsr_memory_format/...; loading a
// value outside the enum's range as the C++ enum type is undefined (UBSan's
// -fsanitize=enum aborts on it), so entry points take such arguments by
// reference and validate enum_arg(x) before any other use of x.
template <typename E>
int enum_arg(const E& e) {
  std::underlying_type_t<E> v;
  static_assert(sizeof v == sizeof e && sizeof v <= sizeof(int));
  std::memcpy(&v, &e, sizeof v);
  return static_cast<int>(v);
}
// Boxes t in a new handle and stores it in *out (the last step of a call, so
// a failure before it leaves *out untouched).
inline void emit(tsr_tensor** out, Tensor t) { *out = new tsr_tensor(std::move(t)); }

inline Shape sizes_arg(int64_t ndim, const int64_t* p, const char* what = "sizes") {
  return shape_from(ndim, p, what, /*nonnegative=*/false);
}

}  // namespace tsr::capi
