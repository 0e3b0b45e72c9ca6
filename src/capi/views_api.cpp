// C API: views (views.h). Each entry point validates arguments, calls the
// differentiable view in ops/views.h, and boxes the result.
#include <tessera/views.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/views.h"
#include "ops/views.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
// Runs fn(tensor) -> Tensor and emits it.
template <typename Fn>
tsr_status view_call(const tsr_tensor* t, tsr_tensor** out, Fn&& fn) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    emit(out, fn(x));
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_view(const tsr_tensor* t, int64_t n, const int64_t* sizes, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::view(x, sizes_arg(n, sizes)); });
}
TSR_EXTERN tsr_status tsr_reshape(const tsr_tensor* t, int64_t n, const int64_t* sizes,
                                  tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::reshape(x, sizes_arg(n, sizes)); });
}
TSR_EXTERN tsr_status tsr_transpose(const tsr_tensor* t, int64_t d0, int64_t d1, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::transpose(x, d0, d1); });
}
TSR_EXTERN tsr_status tsr_t(const tsr_tensor* t, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::t(x); });
}
TSR_EXTERN tsr_status tsr_permute(const tsr_tensor* t, int64_t n, const int64_t* dims,
                                  tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::permute(x, sizes_arg(n, dims, "dims")); });
}
TSR_EXTERN tsr_status tsr_narrow(const tsr_tensor* t, int64_t dim, int64_t start, int64_t length,
                                 tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::narrow(x, dim, start, length); });
}
TSR_EXTERN tsr_status tsr_slice(const tsr_tensor* t, int64_t dim, int64_t start, int64_t end,
                                int64_t step, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::slice(x, dim, start, end, step); });
}
TSR_EXTERN tsr_status tsr_select(const tsr_tensor* t, int64_t dim, int64_t index, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::select(x, dim, index); });
}
TSR_EXTERN tsr_status tsr_expand(const tsr_tensor* t, int64_t n, const int64_t* sizes,
                                 tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::expand(x, sizes_arg(n, sizes)); });
}
TSR_EXTERN tsr_status tsr_squeeze(const tsr_tensor* t, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::squeeze(x); });
}
TSR_EXTERN tsr_status tsr_squeeze_dim(const tsr_tensor* t, int64_t dim, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::squeeze_dim(x, dim); });
}
TSR_EXTERN tsr_status tsr_unsqueeze(const tsr_tensor* t, int64_t dim, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::unsqueeze(x, dim); });
}
TSR_EXTERN tsr_status tsr_flatten(const tsr_tensor* t, int64_t start, int64_t end, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::flatten(x, start, end); });
}
TSR_EXTERN tsr_status tsr_unflatten(const tsr_tensor* t, int64_t dim, int64_t n, const int64_t* sizes,
                                    tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::unflatten(x, dim, sizes_arg(n, sizes)); });
}
TSR_EXTERN tsr_status tsr_movedim(const tsr_tensor* t, int64_t n, const int64_t* src,
                                  const int64_t* dst, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) {
    return ops::movedim(x, sizes_arg(n, src, "source"), sizes_arg(n, dst, "destination"));
  });
}
TSR_EXTERN tsr_status tsr_as_strided(const tsr_tensor* t, int64_t n, const int64_t* sizes,
                                     const int64_t* strides, int64_t offset, tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) {
    return ops::as_strided(x, sizes_arg(n, sizes), shape_from(n, strides, "strides", false), offset);
  });
}
TSR_EXTERN tsr_status tsr_unfold(const tsr_tensor* t, int64_t dim, int64_t size, int64_t step,
                                 tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::unfold(x, dim, size, step); });
}
TSR_EXTERN tsr_status tsr_diagonal(const tsr_tensor* t, int64_t offset, int64_t d1, int64_t d2,
                                   tsr_tensor** out) {
  return view_call(t, out, [&](const Tensor& x) { return ops::diagonal(x, offset, d1, d2); });
}

namespace {
// Emits the pieces of split/chunk into a caller array (see views.h). The
// count is known before anything is allocated, so a count query (capacity
// 0) costs the same for any count; the piece sizes are spelled out only
// once the caller's array has room for all of them.
tsr_status emit_pieces(const tsr_tensor* t, int64_t dim, tsr_tensor** outs, int64_t capacity,
                       int64_t* count, bool by_chunks, int64_t arg) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(count, "count");
    const views::Pieces cut =
        by_chunks ? views::chunk_pieces(x, arg, dim) : views::split_pieces(x, arg, dim);
    *count = cut.count;
    TSR_CHECK(capacity >= cut.count, TSR_ERR_INVALID_ARGUMENT, "capacity ", capacity,
              " is smaller than the ", cut.count, " pieces");
    const Shape sizes(cut.sizes());
    require(outs, "outs");
    std::vector<Tensor> pieces = ops::split(x, sizes, dim);
    std::vector<tsr_tensor*> handles;
    try {
      for (auto& p : pieces) handles.push_back(new tsr_tensor(p));
    } catch (...) {
      for (auto* h : handles) delete h;
      throw;
    }
    for (size_t i = 0; i < handles.size(); ++i) outs[i] = handles[i];
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_split(const tsr_tensor* t, int64_t split_size, int64_t dim,
                                tsr_tensor** outs, int64_t capacity, int64_t* count) {
  return emit_pieces(t, dim, outs, capacity, count, false, split_size);
}
TSR_EXTERN tsr_status tsr_chunk(const tsr_tensor* t, int64_t chunks, int64_t dim, tsr_tensor** outs,
                                int64_t capacity, int64_t* count) {
  return emit_pieces(t, dim, outs, capacity, count, true, chunks);
}
