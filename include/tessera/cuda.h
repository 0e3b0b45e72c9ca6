/**
 * @file tessera/cuda.h
 * @brief Whether CUDA can be used, and waiting for it
 * (torch.cuda.is_available, device_count, init, synchronize).
 *
 * libtessera.so never links CUDA. The CUDA backend is a plugin,
 * libtessera_cuda.so, loaded the first time a CUDA device
 * (TSR_DEVICE_CUDA) or pinned host memory (TSR_DEVICE_CUDA_HOST) is asked
 * for, by these functions or by any other call naming such a device. It is
 * looked for at the path in the environment variable TSR_CUDA_PLUGIN when
 * set, else next to libtessera.so. The load happens once per process: when
 * it fails (plugin missing, built for another tessera, no CUDA driver, no
 * device), every later request for a CUDA device fails with
 * TSR_ERR_UNSUPPORTED and the same message, which says which of these it
 * was. Once loaded, the plugin stays loaded until the process exits.
 *
 * All functions here are thread-safe; the first call of any of them from
 * any thread does the load and the others wait for it.
 */
#ifndef TESSERA_CUDA_H
#define TESSERA_CUDA_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.cuda.is_available(). Loads the plugin if needed.
 *
 * Never fails and leaves the thread's last error alone; tsr_cuda_init()
 * says why not.
 * @return 1 when the CUDA plugin loads and at least one CUDA device can be
 * used, else 0.
 */
TSR_API int tsr_cuda_is_available(void);

/**
 * @brief torch.cuda.device_count(). Loads the plugin if needed.
 *
 * Never fails and leaves the thread's last error alone.
 * @return the number of CUDA devices, 0 when CUDA is not available (for any
 * reason).
 */
TSR_API int32_t tsr_cuda_device_count(void);

/**
 * @brief torch.cuda.init(): loads the plugin and starts CUDA on device 0, so
 * that a program can find out at startup whether CUDA works and why not.
 *
 * Calling it again gives the same answer.
 * @return TSR_OK when at least one CUDA device can be used.
 * TSR_ERR_UNSUPPORTED otherwise, with the reason in
 * tsr_last_error_message(): the plugin was not found (the path tried and
 * the dynamic loader's message), it is not a tessera plugin or was built
 * for another tessera (both version or ABI numbers), the CUDA driver is
 * missing or too old (the CUDA error, e.g. 35, cudaErrorInsufficientDriver),
 * or the machine has no CUDA device.
 */
TSR_API tsr_status tsr_cuda_init(void);

/**
 * @brief torch.cuda.synchronize(device): waits until all work queued on
 * every stream of CUDA device device_index has finished.
 *
 * Same as tsr_device_synchronize(TSR_DEVICE_CUDA, index).
 * @param[in] device_index the device; -1 means the current device, which is
 *                         device 0 (tessera has no device switching)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for an index below -1;
 * TSR_ERR_UNSUPPORTED when CUDA is not available (the message as
 * tsr_cuda_init()'s) or the index is not one of this machine's devices; an
 * error of the device while waiting (a kernel that failed) as the plugin
 * reports it.
 */
TSR_API tsr_status tsr_cuda_synchronize(int32_t device_index);

/**
 * @brief torch.backends.cudnn.benchmark = on: convolutions on CUDA tensors
 * time cuDNN's candidate algorithms the first time they meet a shape
 * (sizes, strides, dtype, padding, stride, dilation, groups and the other
 * flags) and use the fastest for that shape from then on; off (the
 * default) takes cuDNN's heuristic choice, without timing.
 *
 * Process-wide; read by every convolution queued after the call. Never fails.
 * @param[in] on the new setting
 * @return the previous setting
 */
TSR_API bool tsr_cudnn_set_benchmark(bool on);
/**
 * @brief torch.backends.cudnn.benchmark: the current setting (default false).
 * @return true when benchmark mode is on
 */
TSR_API bool tsr_cudnn_benchmark(void);
/**
 * @brief torch.backends.cudnn.deterministic = on: convolutions on CUDA
 * tensors use only algorithms cuDNN marks deterministic (the same bits on
 * every run), in benchmark mode and out of it.
 *
 * Process-wide; read by every convolution queued after the call. Never fails.
 * @param[in] on the new setting
 * @return the previous setting
 */
TSR_API bool tsr_cudnn_set_deterministic(bool on);
/**
 * @brief torch.backends.cudnn.deterministic: the current setting (default false).
 * @return true when only deterministic algorithms are used
 */
TSR_API bool tsr_cudnn_deterministic(void);
/**
 * @brief torch.backends.cudnn.allow_tf32 = on: float32 convolutions on CUDA
 * tensors may run on tensor cores in TF32 (cuDNN's default math); off asks
 * cuDNN for full float32 arithmetic (CUDNN_FMA_MATH).
 *
 * Process-wide; read by every convolution queued after the call. Never fails.
 * @param[in] on the new setting
 * @return the previous setting
 */
TSR_API bool tsr_cudnn_set_allow_tf32(bool on);
/**
 * @brief torch.backends.cudnn.allow_tf32: the current setting (default true, as torch's).
 * @return true when TF32 is allowed
 */
TSR_API bool tsr_cudnn_allow_tf32(void);

#ifdef __cplusplus
}
#endif
#endif
