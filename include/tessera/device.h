/**
 * @file tessera/device.h
 * @brief Moving tensors between devices (Tensor.to(device), Tensor.copy_
 * across devices, Tensor.pin_memory, Tensor.is_pinned).
 *
 * Devices are (device_type, device_index) as everywhere in tessera:
 * TSR_DEVICE_CPU, TSR_DEVICE_CUDA (the libtessera_cuda.so plugin, loaded on
 * first use), TSR_DEVICE_CUDA_HOST (pinned host memory: page-locked CPU
 * memory the device copies from asynchronously). Copies use the calling
 * thread's current stream of the device side (tessera/stream.h).
 *
 * Common statuses, not repeated: TSR_ERR_INVALID_ARGUMENT for NULL handles
 * or outs, or a device type outside the enum; TSR_ERR_UNSUPPORTED for a
 * device with no backend in this process (CUDA without the plugin or
 * driver: the loader's message says which) or an index it does not have.
 * Out parameters are written only on TSR_OK; on failure nothing changes.
 */
#ifndef TESSERA_DEVICE_H
#define TESSERA_DEVICE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.Tensor.to(device, non_blocking=non_blocking).
 *
 * When t is already on the device, *out is a new handle onto the same
 * tensor (same storage, no copy), as PyTorch returns self. Otherwise a copy
 * with t's sizes and dtype: t's strides when t is non-overlapping and dense
 * (preserve_format, channels_last included), else contiguous.
 * Differentiable: the copy's grad_fn is ToCopyBackward0 and the gradient
 * goes back to t's device. A pinned source's memory is not reused before
 * the copy has run, even if released at once (its caching allocator keeps
 * the block for that stream, as PyTorch's CachingHostAllocator does). Other
 * host memory is copied synchronously, as PyTorch copies from pageable
 * memory.
 * @param[in]  t            the tensor
 * @param[in]  device_type  target device type
 * @param[in]  device_index target device index
 * @param[in]  non_blocking != 0 with a pinned source (TSR_DEVICE_CUDA_HOST,
 *                          from tsr_pin_memory()) or a pinned destination
 *                          queues the copy on the current stream and
 *                          returns at once
 * @param[out] out          a new handle, released with tsr_tensor_release()
 * @return TSR_OK, or a common status of this header (or
 * TSR_ERR_OUT_OF_MEMORY when the copy cannot be allocated).
 */
TSR_API tsr_status tsr_to_device(const tsr_tensor* t, tsr_device_type device_type,
                                 int32_t device_index, int non_blocking, tsr_tensor** out);

/**
 * @brief torch.Tensor.pin_memory(): a copy of t (on the host) in pinned
 * memory (TSR_DEVICE_CUDA_HOST, index 0) with t's strides when dense, else
 * contiguous.
 * @param[in]  t   the host tensor
 * @param[out] out a new handle
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT when t is not host memory
 * (PyTorch: "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can
 * be pinned"); TSR_ERR_UNSUPPORTED when no pinned-memory backend is
 * registered (no CUDA plugin); the common statuses.
 */
TSR_API tsr_status tsr_pin_memory(const tsr_tensor* t, tsr_tensor** out);

/**
 * @brief torch.Tensor.is_pinned().
 * @param[in]  t   the tensor
 * @param[out] out 1 when t's memory is pinned host memory, else 0 (device
 *                 tensors included)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_is_pinned(const tsr_tensor* t, int* out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_DEVICE_H */
