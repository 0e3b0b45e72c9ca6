/**
 * @file tessera/tensor.h
 * @brief Tensors and storages: handles, queries, factories, element access.
 *
 * A tensor is (storage, storage_offset, sizes, strides, dtype, device), the
 * model of torch.Tensor. Sizes and strides count elements; storage_offset
 * counts elements from the start of the storage. Shapes go in as
 * (int64_t ndim, const int64_t* sizes), copied on entry; ndim may be 0 (a
 * scalar) and then sizes may be NULL. Strides NULL means contiguous.
 *
 * Common statuses, not repeated below:
 * - TSR_ERR_INVALID_ARGUMENT: a NULL handle/out pointer, ndim < 0 or > 64,
 *   a negative size, an unknown enum value, or an element/byte count that
 *   overflows int64_t.
 * - TSR_ERR_UNSUPPORTED: a device without a backend: TSR_DEVICE_CUDA when
 *   the CUDA plugin (libtessera_cuda.so, loaded on the first CUDA request)
 *   is missing or finds no driver or GPU (tsr_cuda_is_available() says
 *   which), a CUDA device_index at or past tsr_cuda_device_count(), or a
 *   CPU device_index other than 0.
 * - TSR_ERR_OUT_OF_MEMORY: the allocator could not provide the bytes.
 *
 * Out parameters are written only on TSR_OK.
 */
#ifndef TESSERA_TENSOR_H
#define TESSERA_TENSOR_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reference counting ------------------------------------------------ */

/**
 * @brief Adds one reference. NULL is ignored. Thread-safe.
 * @param[in] t the tensor, or NULL
 */
TSR_API void tsr_tensor_retain(tsr_tensor* t);
/**
 * @brief Drops one reference; the last one frees the handle, and the storage
 * when no other tensor uses it.
 *
 * NULL is ignored. Thread-safe (finalizer threads).
 * @param[in] t the tensor, or NULL
 */
TSR_API void tsr_tensor_release(tsr_tensor* t);
/**
 * @brief Adds one reference to a storage handle (from tsr_tensor_storage()).
 *
 * Storage handles follow the same rules as tensors: retain adds one
 * reference, release drops one; the memory goes back (to the caching
 * allocator, or to a from_blob deleter) when no tensor and no storage handle
 * uses it. NULL is ignored. Thread-safe.
 * @param[in] s the storage, or NULL
 */
TSR_API void tsr_storage_retain(tsr_storage* s);
/**
 * @brief Drops one reference to a storage handle.
 *
 * The memory goes back (to the caching allocator, or to a from_blob deleter)
 * when no tensor and no storage handle uses it. NULL is ignored. Thread-safe.
 * @param[in] s the storage, or NULL
 */
TSR_API void tsr_storage_release(tsr_storage* s);

/* ---- tensor queries ---------------------------------------------------- *
 * Queries never allocate. On a NULL handle they record
 * TSR_ERR_INVALID_ARGUMENT and return the sentinel named in each line. */

/**
 * @brief Number of dims.
 *
 * Queries never allocate. On a NULL handle they record
 * TSR_ERR_INVALID_ARGUMENT and return the sentinel named in each comment.
 * @param[in] t the tensor
 * @return ndim; -1 for NULL.
 */
TSR_API int64_t tsr_tensor_ndim(const tsr_tensor* t);
/**
 * @brief Sizes, ndim entries, in elements.
 * @param[in] t the tensor
 * @return Borrowed: valid while t lives (a tensor's sizes never change).
 * Never NULL for a live tensor, also when ndim == 0. NULL for a NULL handle.
 */
TSR_API const int64_t* tsr_tensor_sizes(const tsr_tensor* t);
/**
 * @brief Strides, ndim entries, in elements.
 * @param[in] t the tensor
 * @return Borrowed like sizes (valid while t lives; NULL for a NULL handle).
 */
TSR_API const int64_t* tsr_tensor_strides(const tsr_tensor* t);
/**
 * @brief Size of one dim; dim may be negative (counts from the end).
 * @param[in]  t   the tensor
 * @param[in]  dim the dim, in [-ndim, ndim)
 * @param[out] out the size, in elements
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT when dim is out of range (or a
 * NULL t/out).
 */
TSR_API tsr_status tsr_tensor_size(const tsr_tensor* t, int64_t dim, int64_t* out);
/**
 * @brief Stride of one dim; dim may be negative (counts from the end).
 * @param[in]  t   the tensor
 * @param[in]  dim the dim, in [-ndim, ndim)
 * @param[out] out the stride, in elements
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT when dim is out of range (or a
 * NULL t/out).
 */
TSR_API tsr_status tsr_tensor_stride(const tsr_tensor* t, int64_t dim, int64_t* out);
/**
 * @brief Offset of element [0,...,0] from the storage start, in elements.
 * @param[in] t the tensor
 * @return the offset; -1 for NULL.
 */
TSR_API int64_t tsr_tensor_storage_offset(const tsr_tensor* t);
/**
 * @brief Product of sizes (1 for a scalar).
 * @param[in] t the tensor
 * @return numel; -1 for NULL.
 */
TSR_API int64_t tsr_tensor_numel(const tsr_tensor* t);
/**
 * @brief Bytes per element.
 * @param[in] t the tensor
 * @return the element size in bytes; -1 for NULL.
 */
TSR_API int64_t tsr_tensor_element_size(const tsr_tensor* t);
/**
 * @brief numel * element_size, in bytes (what a contiguous copy occupies).
 * @param[in] t the tensor
 * @return the byte count; -1 for NULL.
 */
TSR_API int64_t tsr_tensor_nbytes(const tsr_tensor* t);
/**
 * @brief dtype of t.
 * @param[in] t the tensor
 * @return the dtype; (tsr_dtype)-1 for NULL.
 */
TSR_API tsr_dtype tsr_tensor_dtype(const tsr_tensor* t);
/**
 * @brief Device type of t.
 * @param[in] t the tensor
 * @return the device type; (tsr_device_type)-1 for NULL.
 */
TSR_API tsr_device_type tsr_tensor_device_type(const tsr_tensor* t);
/**
 * @brief Device index (0 for CPU, n for cuda:n).
 * @param[in] t the tensor
 * @return the index; -1 for NULL.
 */
TSR_API int32_t tsr_tensor_device_index(const tsr_tensor* t);
/**
 * @brief Address of element [0,...,0] (storage data +
 * storage_offset*element_size), in t's device's address space.
 *
 * For a CUDA tensor a device address (as torch.Tensor.data_ptr()) that host
 * code must not dereference; pass it to CUDA code, or read the values with
 * tsr_copy_to_buffer().
 * @param[in] t the tensor
 * @return Borrowed: valid while t or another user of its storage lives. NULL
 * for a NULL handle, may be NULL for a tensor over an empty storage, and is
 * NULL for a tensor without elements whose storage_offset lies past the end
 * of its storage (as_strided allows any offset then; PyTorch's data_ptr is 0
 * for every tensor without elements).
 */
TSR_API void* tsr_tensor_data_ptr(const tsr_tensor* t);

/**
 * @brief The storage under t.
 * @param[in]  t   the tensor
 * @param[out] out new reference to the storage
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL t/out.
 */
TSR_API tsr_status tsr_tensor_storage(const tsr_tensor* t, tsr_storage** out);
/**
 * @brief Storage size in bytes.
 * @param[in] s the storage
 * @return the byte count; -1 for NULL.
 */
TSR_API int64_t tsr_storage_nbytes(const tsr_storage* s);
/**
 * @brief Start of the storage's memory, in its device's address space (see
 * tsr_tensor_data_ptr()).
 * @param[in] s the storage
 * @return Borrowed: valid while s lives. May be NULL for an empty storage;
 * NULL for a NULL handle.
 */
TSR_API void* tsr_storage_data_ptr(const tsr_storage* s);
/**
 * @brief Device type of the storage.
 * @param[in] s the storage
 * @return the device type; (tsr_device_type)-1 for NULL.
 */
TSR_API tsr_device_type tsr_storage_device_type(const tsr_storage* s);
/**
 * @brief Number of tensors (not handles) currently using the storage, like
 * torch's storage use_count minus the storage handles.
 * @param[in] s the storage
 * @return the count; -1 for NULL.
 */
TSR_API int64_t tsr_storage_use_count(const tsr_storage* s);

/* ---- factories --------------------------------------------------------- *
 * Each returns a new tensor in *out (one reference), requires_grad false.
 * Semantics of torch.empty/zeros/ones/full/arange/empty_strided. */

/**
 * @brief Uninitialised tensor, as torch.empty.
 *
 * Factories return a new tensor in *out (one reference), requires_grad false.
 * @param[in]  ndim          number of dims (0 to 64)
 * @param[in]  sizes         ndim sizes, in elements (NULL when ndim == 0)
 * @param[in]  dtype         element type
 * @param[in]  memory_format TSR_CONTIGUOUS_FORMAT, or TSR_CHANNELS_LAST (ndim
 *                           must be 4) / TSR_CHANNELS_LAST_3D (ndim must be 5)
 * @param[in]  device_type   device type
 * @param[in]  device_index  device index
 * @param[out] out           new tensor (one reference)
 * @return TSR_OK; TSR_PRESERVE_FORMAT is TSR_ERR_INVALID_ARGUMENT, as in
 * torch.empty; the common statuses of this header.
 */
TSR_API tsr_status tsr_empty(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                             tsr_memory_format memory_format,
                             tsr_device_type device_type, int32_t device_index,
                             tsr_tensor** out);
/**
 * @brief Uninitialised tensor with the given strides, as
 * torch.empty_strided.
 *
 * Storage holds exactly the elements the strides reach.
 * @param[in]  ndim         number of dims
 * @param[in]  sizes        ndim sizes, in elements
 * @param[in]  strides      ndim strides, in elements; may be 0 or any order
 * @param[in]  dtype        element type
 * @param[in]  device_type  device type
 * @param[in]  device_index device index
 * @param[out] out          new tensor (one reference), requires_grad false
 * @return TSR_OK; a negative stride is TSR_ERR_INVALID_ARGUMENT; the common
 * statuses of this header.
 */
TSR_API tsr_status tsr_empty_strided(int64_t ndim, const int64_t* sizes,
                                     const int64_t* strides, tsr_dtype dtype,
                                     tsr_device_type device_type, int32_t device_index,
                                     tsr_tensor** out);
/**
 * @brief Tensor of zeros, as torch.zeros.
 * @param[in]  ndim         number of dims
 * @param[in]  sizes        ndim sizes, in elements
 * @param[in]  dtype        element type
 * @param[in]  device_type  device type
 * @param[in]  device_index device index
 * @param[out] out          new contiguous tensor (one reference),
 *                          requires_grad false
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_zeros(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                             tsr_device_type device_type, int32_t device_index,
                             tsr_tensor** out);
/**
 * @brief Tensor of ones, as torch.ones.
 * @param[in]  ndim         number of dims
 * @param[in]  sizes        ndim sizes, in elements
 * @param[in]  dtype        element type
 * @param[in]  device_type  device type
 * @param[in]  device_index device index
 * @param[out] out          new contiguous tensor (one reference),
 *                          requires_grad false
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_ones(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                            tsr_device_type device_type, int32_t device_index,
                            tsr_tensor** out);
/**
 * @brief Every element = value converted to dtype (C conversion; bool:
 * value != 0), as torch.full.
 * @param[in]  ndim         number of dims
 * @param[in]  sizes        ndim sizes, in elements
 * @param[in]  value        the fill value
 * @param[in]  dtype        element type
 * @param[in]  device_type  device type
 * @param[in]  device_index device index
 * @param[out] out          new tensor (one reference), requires_grad false
 * @return TSR_OK; a value outside dtype's finite range (NaN for integer
 * dtypes) is TSR_ERR_INVALID_ARGUMENT ("value cannot be converted to type
 * int8_t without overflow"), as torch.full; the common statuses of this
 * header.
 */
TSR_API tsr_status tsr_full(int64_t ndim, const int64_t* sizes, double value,
                            tsr_dtype dtype, tsr_device_type device_type,
                            int32_t device_index, tsr_tensor** out);
/**
 * @brief 1-D tensor [start, start+step, ...) below end (above end if
 * step < 0), as torch.arange.
 *
 * Length ceil((end-start)/step). For integer dtypes start, end and step are
 * first truncated to int64, as torch does (so arange(0.5, 5, 1.5, int32) is
 * [0, 1, 2]).
 * @param[in]  start        first value
 * @param[in]  end          bound, not included
 * @param[in]  step         increment
 * @param[in]  dtype        element type
 * @param[in]  device_type  device type
 * @param[in]  device_index device index
 * @param[out] out          new tensor (one reference), requires_grad false
 * @return TSR_OK; step == 0 (after truncation), a non-finite bound, or a
 * direction that never reaches end with elements: TSR_ERR_INVALID_ARGUMENT.
 * TSR_BOOL: TSR_ERR_DTYPE_MISMATCH. The common statuses of this header.
 */
TSR_API tsr_status tsr_arange(double start, double end, double step, tsr_dtype dtype,
                              tsr_device_type device_type, int32_t device_index,
                              tsr_tensor** out);
/**
 * @brief Contiguous CPU tensor holding a copy of data: C-order,
 * native-endian elements of dtype.
 * @param[in]  data   the elements; may be NULL only when nbytes == 0
 * @param[in]  nbytes size of data in bytes; must equal numel*element_size
 * @param[in]  ndim   number of dims
 * @param[in]  sizes  ndim sizes, in elements
 * @param[in]  dtype  element type
 * @param[out] out    new tensor (one reference), requires_grad false
 * @return TSR_OK; nbytes != numel*element_size: TSR_ERR_SHAPE_MISMATCH; the
 * common statuses of this header.
 */
TSR_API tsr_status tsr_from_data(const void* data, size_t nbytes, int64_t ndim,
                                 const int64_t* sizes, tsr_dtype dtype, tsr_tensor** out);
/**
 * @brief Tensor over caller memory, no copy (torch.from_blob).
 *
 * storage_offset is 0 and the storage spans the elements the strides reach.
 * @param[in]  data        the caller's memory
 * @param[in]  ndim        number of dims
 * @param[in]  sizes       ndim sizes, in elements
 * @param[in]  strides     ndim strides in elements; NULL means contiguous
 * @param[in]  dtype       element type
 * @param[in]  device_type device the memory is on
 * @param[in]  deleter     may be NULL; runs exactly once with (data, ctx):
 *                         when the storage dies, or before this function
 *                         returns a failure
 * @param[in]  ctx         passed to deleter
 * @param[out] out         new tensor (one reference), requires_grad false
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_from_blob(void* data, int64_t ndim, const int64_t* sizes,
                                 const int64_t* strides, tsr_dtype dtype,
                                 tsr_device_type device_type, tsr_deleter deleter,
                                 void* ctx, tsr_tensor** out);

/* ---- element access ---------------------------------------------------- */

/**
 * @brief Value of a one-element tensor (any ndim) converted to double, as
 * torch.item.
 * @param[in]  t   the tensor
 * @param[out] out the value
 * @return TSR_OK; numel != 1: TSR_ERR_SHAPE_MISMATCH ("a Tensor with N
 * elements cannot be converted to Scalar"); the common statuses.
 */
TSR_API tsr_status tsr_item_double(const tsr_tensor* t, double* out);
/**
 * @brief Value of a one-element tensor (any ndim) converted to int64 (C
 * conversion, truncation toward zero for floats), as torch.item.
 * @param[in]  t   the tensor
 * @param[out] out the value
 * @return TSR_OK; NaN/inf to int64 is TSR_ERR_INVALID_ARGUMENT; numel != 1:
 * TSR_ERR_SHAPE_MISMATCH ("a Tensor with N elements cannot be converted to
 * Scalar"); the common statuses.
 */
TSR_API tsr_status tsr_item_int64(const tsr_tensor* t, int64_t* out);
/**
 * @brief Reads one element at index, converted to double.
 *
 * Rules for tsr_get_double(), tsr_set_double(), tsr_get_int64() and
 * tsr_set_int64(): index has ndim entries, negative counts from the end like
 * Python. Writes convert value to t's dtype (a value outside the dtype's
 * range: TSR_ERR_INVALID_ARGUMENT, as torch's t[i] = v; tsr_set_int64 lets
 * negative values wrap into unsigned dtypes down to -max, as torch) and bump
 * t's version counter; a write into a tensor that requires grad (leaf) while
 * grad mode is on is TSR_ERR_AUTOGRAD. On a device (CUDA) the element is
 * copied to or from the host through the device's current stream,
 * synchronously, as torch's t[i] and t[i] = v on a CUDA tensor; each call is
 * one transfer, so read many elements with tsr_copy_to_buffer() instead.
 * A uint64 element above INT64_MAX reads through tsr_get_int64() as its
 * two's complement (wrapped, as a C cast); tsr_get_double() gives its value.
 * @param[in]  t     the tensor
 * @param[in]  ndim  number of index entries; must equal t's ndim
 * @param[in]  index ndim indices
 * @param[out] out   the value
 * @return TSR_OK; index count != t's ndim: TSR_ERR_INVALID_ARGUMENT; an
 * entry outside its size: TSR_ERR_INDEX_OUT_OF_RANGE; the common statuses.
 */
TSR_API tsr_status tsr_get_double(const tsr_tensor* t, int64_t ndim, const int64_t* index,
                                  double* out);
/**
 * @brief Writes one element at index (rules at tsr_get_double()).
 * @param[in,out] t     the tensor; its version counter is bumped
 * @param[in]     ndim  number of index entries; must equal t's ndim
 * @param[in]     index ndim indices, negative counts from the end
 * @param[in]     value converted to t's dtype
 * @return TSR_OK; index count != t's ndim, or a value outside the dtype's
 * range: TSR_ERR_INVALID_ARGUMENT; an entry outside its size:
 * TSR_ERR_INDEX_OUT_OF_RANGE; t a leaf that requires grad while grad mode is
 * on: TSR_ERR_AUTOGRAD; the common statuses.
 */
TSR_API tsr_status tsr_set_double(tsr_tensor* t, int64_t ndim, const int64_t* index,
                                  double value);
/**
 * @brief Reads one element at index, converted to int64 (rules at
 * tsr_get_double()).
 * @param[in]  t     the tensor
 * @param[in]  ndim  number of index entries; must equal t's ndim
 * @param[in]  index ndim indices, negative counts from the end
 * @param[out] out   the value
 * @return TSR_OK; index count != t's ndim: TSR_ERR_INVALID_ARGUMENT; an
 * entry outside its size: TSR_ERR_INDEX_OUT_OF_RANGE; the common statuses.
 */
TSR_API tsr_status tsr_get_int64(const tsr_tensor* t, int64_t ndim, const int64_t* index,
                                 int64_t* out);
/**
 * @brief Writes one element at index (rules at tsr_get_double()).
 *
 * Negative values wrap into unsigned dtypes down to -max, as torch.
 * @param[in,out] t     the tensor; its version counter is bumped
 * @param[in]     ndim  number of index entries; must equal t's ndim
 * @param[in]     index ndim indices, negative counts from the end
 * @param[in]     value converted to t's dtype
 * @return TSR_OK; index count != t's ndim, or a value outside the dtype's
 * range: TSR_ERR_INVALID_ARGUMENT; an entry outside its size:
 * TSR_ERR_INDEX_OUT_OF_RANGE; t a leaf that requires grad while grad mode is
 * on: TSR_ERR_AUTOGRAD; the common statuses.
 */
TSR_API tsr_status tsr_set_int64(tsr_tensor* t, int64_t ndim, const int64_t* index,
                                 int64_t value);
/**
 * @brief Copies t's elements, whatever its strides, into dst as a C-order
 * array of t's dtype.
 * @param[in]  t              the tensor
 * @param[out] dst            the caller's buffer
 * @param[in]  capacity_bytes size of dst in bytes
 * @param[out] needed_bytes   may be NULL; receives nbytes(t) always, so a
 *                            call with capacity 0 asks for the size
 * @return TSR_OK; capacity_bytes < nbytes(t): TSR_ERR_INVALID_ARGUMENT and
 * nothing is written to dst; the common statuses.
 */
TSR_API tsr_status tsr_copy_to_buffer(const tsr_tensor* t, void* dst, size_t capacity_bytes,
                                      size_t* needed_bytes);

#ifdef __cplusplus
}
#endif
#endif
