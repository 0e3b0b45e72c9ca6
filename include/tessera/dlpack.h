/**
 * @file tessera/dlpack.h
 * @brief Zero-copy exchange with other array libraries through DLPack
 * (https://dmlc.github.io/dlpack/latest/): PyTorch, NumPy, JAX, CuPy.
 *
 * Not included by tessera.h: only programs that include this header need
 * <tt>\<dlpack/dlpack.h\></tt> (Debian: libdlpack-dev; header only). The
 * functions exist in every build of libtessera; the *_versioned pair exists
 * only when the library and the caller were both compiled against a DLPack
 * >= 1.0 header (see TSR_HAS_DLPACK_VERSIONED below).
 *
 * Semantics are PyTorch's at::toDLPack / at::fromDLPack
 * (aten/src/ATen/DLConvertor.cpp), checked against torch 1.13:
 *
 * @verbatim
   dtype         DLPack {code, bits, lanes}
   uint8         {kDLUInt   1,  8, 1}
   int8/16/32/64 {kDLInt    0, bits, 1}
   float16/32/64 {kDLFloat  2, bits, 1}
   bfloat16      {kDLBfloat 4, 16, 1}   (as torch 1.13)
   bool          {kDLBool   6,  8, 1}   (DLPack >= 0.8 and torch >= 2.0;
                                         torch 1.13 refuses bool both ways)
   uint16/32/64  {kDLUInt   1, bits, 1} (torch >= 2.3)
   float8_e4m3fn {kDLFloat8_e4m3fn 10, 8, 1}  (DLPack >= 1.1 names these
   float8_e5m2   {kDLFloat8_e5m2   12, 8, 1}   codes; torch >= 2.x)
   @endverbatim
 *
 * Devices: DLPack numbers device types as tessera does: {kDLCPU 1, 0},
 * {kDLCUDA 2, index} (device memory; data is a device address) and
 * {kDLCUDAHost 3, 0} (pinned host memory, tsr_pin_memory()). Asking for a
 * CUDA device loads the CUDA plugin (tessera/cuda.h).
 *
 * @anchor dlpack_streams
 * Streams (DLPack's exchange protocol, the Python array API's
 * __dlpack__(stream=...)): memory on a CUDA device may still be written by
 * work queued on a stream. The consumer names the stream it will read on:
 * -1 no synchronization, 1 CUDA's legacy default stream, 2 its per-thread
 * default stream, else the cudaStream_t as an integer (0 is disallowed as
 * ambiguous). tsr_to_dlpack_for_stream() is the producer's half: that
 * stream waits for tessera's queued work. As a consumer, tessera reads
 * imported CUDA memory on the calling thread's current stream: pass its
 * handle (tsr_stream_native_handle() on tsr_stream_current(); 1 when that
 * is 0, the legacy default stream, as torch.utils.dlpack.from_dlpack does)
 * to the producer's export. A CPU or pinned tensor needs no stream (-1).
 *
 * What a tessera -> DLPack -> tessera round trip keeps: sizes, the strides
 * of every dim of size >= 2, dtype and the address of element [0,...,0]
 * (so writes through either side are seen through the other). What it does
 * not keep: storage_offset (the import starts its storage at element
 * [0,...,0], offset 0, spanning exactly the elements the view reaches), the
 * strides of dims of size 0 or 1 (exported as 1, as torch does since
 * gh-83069), requires_grad and autograd history. The reason: torch 1.13's
 * from_dlpack ignores DLTensor.byte_offset, so an export that put the
 * storage start in `data` and the offset in `byte_offset` would make torch
 * read the wrong elements; tessera therefore exports data = address of
 * element [0,...,0] and byte_offset = 0, exactly as at::toDLPack does.
 */
#ifndef TESSERA_DLPACK_H
#define TESSERA_DLPACK_H

#include <dlpack/dlpack.h>

#include "types.h"

/** @def TSR_HAS_DLPACK_VERSIONED
 * @brief 1 when <tt>\<dlpack/dlpack.h\></tt> defines
 * DLManagedTensorVersioned (DLPack >= 1.0; Debian 12's libdlpack-dev 0.6
 * does not), else 0. */
#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
#define TSR_HAS_DLPACK_VERSIONED 1
#else
#define TSR_HAS_DLPACK_VERSIONED 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Exports t as a DLManagedTensor without copying (at::toDLPack).
 *
 * *out is a new DLManagedTensor describing t: data = address of t's element
 * [0,...,0] (tsr_tensor_data_ptr(), so NULL where that is NULL),
 * byte_offset = 0, device {kDLCPU, 0}, ndim = t's ndim, shape = t's sizes,
 * strides = t's strides in elements (never NULL, also for ndim 0), except
 * that a dim of size 0 or 1 gets stride 1. shape and strides live inside the
 * managed allocation. dtype as in the table above.
 *
 * Ownership: the DLManagedTensor holds a tensor of its own over t's storage
 * (tsr_storage_use_count() counts it), so the memory stays valid after the
 * caller releases t, until the consumer calls (*out)->deleter(*out) exactly
 * once; that call frees the DLManagedTensor and drops its tensor. Writes
 * through the consumer are writes into t's storage (tessera's version
 * counter does not see them). requires_grad and grad history are not
 * exported.
 *
 * Streams: none are synchronized (as torch.utils.dlpack.to_dlpack); a
 * consumer of a CUDA tensor must order its reads after tessera's queued
 * work itself, or use tsr_to_dlpack_for_stream().
 * @param[in]  t   the tensor
 * @param[out] out the new DLManagedTensor; written only on TSR_OK
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL t or out;
 * TSR_ERR_UNSUPPORTED for a tensor on a device DLPack cannot name (none
 * today: CPU, CUDA and pinned host memory can); TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_to_dlpack(const tsr_tensor* t, DLManagedTensor** out);

/**
 * @brief tsr_to_dlpack() for a consumer that will read on `stream`
 * (Tensor.__dlpack__(stream)).
 *
 * For a CUDA tensor, work queued on `stream` after this call waits until
 * the work tessera queued so far on the calling thread's current stream of
 * t's device has finished (an event recorded there, cudaStreamWaitEvent on
 * `stream`); the host does not wait. Ownership and *out as tsr_to_dlpack().
 * @param[in]  t      the tensor
 * @param[in]  stream DLPack's stream encoding (@ref dlpack_streams
 *                    "above"); -1: no synchronization (tsr_to_dlpack())
 * @param[out] out    the new DLManagedTensor
 * @return TSR_OK. Failures (*out untouched, nothing queued):
 * TSR_ERR_INVALID_ARGUMENT for a NULL t or out, stream 0 or another
 * negative value than -1 for a CUDA tensor, or a stream other than -1 for a
 * host tensor (CPU or pinned: the host reads it directly); TSR_ERR_INTERNAL
 * when the CUDA runtime refuses the stream (the message has its error);
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_to_dlpack_for_stream(const tsr_tensor* t, int64_t stream,
                                            DLManagedTensor** out);

/**
 * @brief Imports a DLManagedTensor without copying (at::fromDLPack).
 *
 * *out is a new tensor (one reference, requires_grad false, its own version
 * counter) over the producer's memory, on the device DLPack names (CPU,
 * `cuda:<device_id>`, or pinned host memory): element [0,...,0] at
 * src->dl_tensor.data + byte_offset (byte_offset is honoured, as the DLPack
 * spec says; torch 1.13 ignores it), sizes = shape, strides = strides in
 * elements (NULL strides mean compact row-major, as DLPack <= 0.6 allows),
 * storage_offset 0, and a storage spanning exactly the elements the strides
 * reach (as tsr_from_blob()). Sizes with 0 elements work (data may be
 * NULL).
 *
 * CUDA memory is read and written by work tessera queues on the calling
 * thread's current stream: ask the producer to order its work before that
 * stream (see @ref dlpack_streams "Streams" above).
 *
 * Ownership: tessera takes src in every case except src == NULL. On TSR_OK,
 * src->deleter(src) (when not NULL) runs exactly once, when the last tessera
 * tensor or storage handle using that storage is released. On any failure
 * it runs exactly once before this function returns, so the caller never
 * calls it. The producer's memory must stay valid and must not be freed
 * until then.
 * @param[in]  src the producer's tensor; tessera takes it
 * @param[out] out the new tensor; untouched on failure
 * @return TSR_OK, or (message names the numbers):
 * - TSR_ERR_INVALID_ARGUMENT: src NULL (nothing is called), out NULL,
 *   ndim < 0 or > 64, shape NULL with ndim > 0, a negative size, an element
 *   count or byte extent overflowing int64, data NULL for a tensor with
 *   elements, data + byte_offset not aligned to the element size or
 *   wrapping around.
 * - TSR_ERR_UNSUPPORTED: lanes != 1; a {code, bits} outside the table above
 *   (complex, the other float8/6/4 formats, ...); a device type other than kDLCPU,
 *   kDLCUDA, kDLCUDAHost; a CPU or CUDA host device id other than 0; CUDA
 *   where it cannot be used (no plugin, driver or such device: the message
 *   says which); a negative stride (tessera has none).
 * - TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_from_dlpack(DLManagedTensor* src, tsr_tensor** out);

#if TSR_HAS_DLPACK_VERSIONED
/**
 * @brief As tsr_to_dlpack(), for DLPack >= 1.0's DLManagedTensorVersioned
 * (at::toDLPackVersioned).
 *
 * version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION} of the header
 * libtessera was built with, flags 0 (writable, not a copy). Only when
 * TSR_HAS_DLPACK_VERSIONED.
 * @param[in]  t   the tensor
 * @param[out] out the new DLManagedTensorVersioned
 * @return as tsr_to_dlpack().
 */
TSR_API tsr_status tsr_to_dlpack_versioned(const tsr_tensor* t,
                                           DLManagedTensorVersioned** out);
/**
 * @brief As tsr_from_dlpack(), for DLManagedTensorVersioned. Only when
 * TSR_HAS_DLPACK_VERSIONED.
 * @param[in]  src the producer's tensor; tessera takes it
 * @param[out] out the new tensor
 * @return as tsr_from_dlpack(); also refused, after the deleter ran once: a
 * version.major other than the DLPACK_MAJOR_VERSION libtessera was built
 * with (the DLPack spec forbids reading the other fields then), and
 * DLPACK_FLAG_BITMASK_READ_ONLY (tessera tensors are always writable):
 * TSR_ERR_UNSUPPORTED.
 */
TSR_API tsr_status tsr_from_dlpack_versioned(DLManagedTensorVersioned* src, tsr_tensor** out);
#endif

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_DLPACK_H */
