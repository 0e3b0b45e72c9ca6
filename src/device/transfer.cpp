#include "device/transfer.h"

#include "core/device_allocator.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/pinned_stream.h"
#include "cpu/kernels/copy.h"
#include "device/device_ops.h"

namespace tsr::device {

namespace {

// A pinned source read by a copy queued on s is not reused before the copy
// has run: its block is record_stream'ed for s (core/pinned_stream.h), as
// PyTorch's CachingHostAllocator records an event on the copy's stream.
// True when that holds; other host memory needs the copy waited for.
bool kept_until_copied(const Tensor& h, Stream s) {
  if (h.device() != kPinnedHost || !h.impl()->storage->from_allocator()) return false;
  allocator_for(kPinnedHost).record_stream(h.impl()->storage->data(), pinned_stream(s));
  return true;
}

bool dense(const Tensor& t) { return is_non_overlapping_and_dense(t.sizes(), t.strides()); }

void host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  DeviceBackend& b = backend_for(dst.device());
  DeviceKernels& k = kernels_for(dst.device());
  const Stream s = current_stream(dst.device());
  // Dense host data moves as one span of bytes; anything else is packed
  // first (broadcast sources included).
  Tensor h = dense(src) ? src : kernels::contiguous_copy(src, src.dtype());
  const bool direct = dst.dtype() == h.dtype() && dst.strides() == h.strides() && dense(dst);
  Tensor staging = direct ? dst : empty_strided(h.sizes(), h.strides(), h.dtype(), dst.device());
  b.copy_bytes(staging.data_ptr(), h.data_ptr(), size_t(h.nbytes()), CopyKind::HostToDevice, s);
  if (!direct) copy_into(k, dst, staging);
  if (!(non_blocking && kept_until_copied(h, s))) b.synchronize_stream(s);
}

void device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  DeviceBackend& b = backend_for(src.device());
  const Stream s = current_stream(src.device());
  const bool direct = dense(dst);
  const Shape strides = direct ? dst.strides() : contiguous_strides(dst.sizes());
  Tensor d = src;
  if (src.dtype() != dst.dtype() || src.strides() != strides) {
    d = empty_strided(dst.sizes(), strides, dst.dtype(), src.device());
    copy_into(kernels_for(src.device()), d, src);
  }
  Tensor h = direct ? dst : empty_strided(dst.sizes(), strides, dst.dtype(), kCpu);
  b.copy_bytes(h.data_ptr(), d.data_ptr(), size_t(d.nbytes()), CopyKind::DeviceToHost, s);
  if (non_blocking && direct && is_pinned(dst)) return;
  b.synchronize_stream(s);
  if (!direct) kernels::copy_strided(dst, h);
}

}  // namespace

bool is_host(Device d) { return d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_CUDA_HOST; }

bool is_pinned(const Tensor& t) {
  if (t.device().type == TSR_DEVICE_CUDA_HOST) return true;
  if (t.device().type != TSR_DEVICE_CPU) return false;
  DeviceBackend* cuda = find_backend(TSR_DEVICE_CUDA);
  return cuda && t.data_ptr() && cuda->is_pinned(t.data_ptr());
}

void copy_between(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.numel() == 0) return;
  const bool dst_host = is_host(dst.device()), src_host = is_host(src.device());
  if (dst_host && src_host) return kernels::copy_strided(dst, src);
  if (src_host) return host_to_device(dst, src, non_blocking);
  if (dst_host) return device_to_host(dst, src, non_blocking);
  if (dst.device() == src.device()) return copy_into(kernels_for(dst.device()), dst, src);
  // Two devices: through the host (no peer copies in the backend interface).
  host_to_device(dst, readable_on_host(src), false);
}

Tensor to_device(const Tensor& t, Device d, bool non_blocking) {
  Tensor out = dense(t) ? empty_strided(t.sizes(), t.strides(), t.dtype(), d)
                        : empty(t.sizes(), t.dtype(), TSR_CONTIGUOUS_FORMAT, d);
  copy_between(out, t, non_blocking);
  return out;
}

Tensor pin_memory(const Tensor& t) { return to_device(t, kPinnedHost, false); }

Tensor readable_on_host(const Tensor& t) {
  if (is_host(t.device())) return t;
  Tensor out = empty(t.sizes(), t.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu);
  copy_between(out, t, false);
  return out;
}

}  // namespace tsr::device
