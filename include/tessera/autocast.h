/**
 * @file tessera/autocast.h
 * @brief Automatic mixed precision: torch.autocast regions.
 *
 * Inside a region opened by tsr_autocast_begin() on a thread, each op whose
 * tensors live on the region's device type follows torch 1.13's cast policy
 * for that device (the table is in docs/AMP.md):
 * - lower precision: matmul, bmm, baddbmm, linear, conv2d (and what runs
 *   through them, such as einsum's products) cast their floating inputs to
 *   the region's dtype (bfloat16 or float16) and return that dtype;
 * - float32: the losses, prod and the ops torch lists run in float32 cast
 *   float16/bfloat16 inputs to float32;
 * - promote: cat, stack and index_copy cast their floating inputs to the
 *   widest of them;
 * - every other op runs in the dtypes it is given.
 * float64 tensors are never cast. The casts are ordinary recorded ops
 * (grad_fn ToCopyBackward0), so gradients reach the float32 tensors in
 * their own dtype, and a checkpoint region's tape holds them: replay runs
 * under the autocast state the forward had, whatever the state at backward.
 *
 * While a region is open, the lower-precision copy of a float32 leaf that
 * requires grad (a weight) is made once and reused (torch's cache_enabled),
 * until the outermost region ends or the weight is written in place.
 *
 * torch 1.13's CPU autocast accepts bfloat16 only; tessera also accepts
 * float16 on the CPU (torch 2.x's behaviour, with the same op lists).
 * Regions are per thread and nest; the state of a device type is that of
 * its innermost open region.
 */
#ifndef TESSERA_AUTOCAST_H
#define TESSERA_AUTOCAST_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Opens an autocast region on this thread (entering
 * torch.autocast(device_type, dtype=dtype, enabled=enabled)).
 *
 * Until the matching tsr_autocast_end(), ops on device_type's tensors follow
 * the cast policy with dtype as the lower precision; enabled = false opens
 * a region that turns autocast off for device_type (nested inside an
 * enabled one, say). The regions of other device types are not affected.
 * @param[in] device_type TSR_DEVICE_CPU or TSR_DEVICE_CUDA
 * @param[in] dtype       TSR_BFLOAT16 or TSR_FLOAT16: the lower precision
 * @param[in] enabled     whether the region casts
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for another device type or
 *         dtype (nothing opened).
 */
TSR_API tsr_status tsr_autocast_begin(tsr_device_type device_type, tsr_dtype dtype, bool enabled);

/**
 * @brief Closes this thread's innermost autocast region (leaving
 * torch.autocast), restoring its device type's previous state. Closing the
 * outermost region drops the cached weight casts
 * (torch.clear_autocast_cache()).
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT when no region is open on this
 *         thread.
 */
TSR_API tsr_status tsr_autocast_end(void);

/**
 * @brief Whether ops on device_type's tensors are autocast on this thread
 * now (torch.is_autocast_cpu_enabled() for TSR_DEVICE_CPU,
 * torch.is_autocast_enabled() for TSR_DEVICE_CUDA).
 * @param[in] device_type a device type
 * @return the answer; false for device types that have no autocast.
 */
TSR_API bool tsr_is_autocast_enabled(tsr_device_type device_type);

/**
 * @brief The lower-precision dtype of device_type's autocast on this
 * thread (torch.get_autocast_cpu_dtype() / get_autocast_gpu_dtype()):
 * that of the innermost region, or the default, TSR_BFLOAT16 for the CPU
 * and TSR_FLOAT16 for CUDA, outside any region.
 * @param[in] device_type a device type
 * @return the dtype; TSR_FLOAT32 for device types that have no autocast.
 */
TSR_API tsr_dtype tsr_get_autocast_dtype(tsr_device_type device_type);

/**
 * @brief Turns the weight-cast cache on or off for this thread
 * (torch.set_autocast_cache_enabled; the cache_enabled argument of
 * torch.autocast). On by default.
 * @param[in] enabled the new setting
 * @return the previous setting. Never fails.
 */
TSR_API bool tsr_set_autocast_cache_enabled(bool enabled);

/**
 * @brief Whether the weight-cast cache is on for this thread
 * (torch.is_autocast_cache_enabled()).
 * @return the setting. Never fails.
 */
TSR_API bool tsr_is_autocast_cache_enabled(void);

/**
 * @brief Drops this thread's cached weight casts now
 * (torch.clear_autocast_cache()). Never fails.
 */
TSR_API void tsr_clear_autocast_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_AUTOCAST_H */
