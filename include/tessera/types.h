/**
 * @file tessera/types.h
 * @brief The plain data types of the tessera C ABI: statuses, dtypes,
 * devices, memory formats and the opaque handle types.
 *
 * Every enum value is written out and only ever appended (tests/test_abi.c
 * pins them). Numbering follows the field where one exists: dtypes use
 * c10::ScalarType's numbers, device types use DLPack's DLDeviceType, memory
 * formats use c10::MemoryFormat's.
 */
#ifndef TESSERA_TYPES_H
#define TESSERA_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Export macro: every public function carries TSR_API. */
#if defined(TSR_BUILDING_LIBRARY)
#define TSR_API __attribute__((visibility("default")))
#else
#define TSR_API
#endif

/**
 * @brief Result of every call that can fail.
 *
 * Distinct codes for what a caller may handle differently. The message for
 * the last failure on this thread is tsr_last_error_message().
 */
typedef enum tsr_status {
  TSR_OK = 0,                    /**< success */
  TSR_ERR_INVALID_ARGUMENT = 1,  /**< NULL pointer, bad dim, bad enum, overflow */
  TSR_ERR_SHAPE_MISMATCH = 2,    /**< sizes that do not broadcast/match        */
  TSR_ERR_DTYPE_MISMATCH = 3,    /**< dtype not accepted by the operation      */
  TSR_ERR_DEVICE_MISMATCH = 4,   /**< tensors on different devices             */
  TSR_ERR_OUT_OF_MEMORY = 5,     /**< an allocation failed                      */
  TSR_ERR_NOT_VIEWABLE = 6,      /**< view needs a copy: use reshape            */
  TSR_ERR_AUTOGRAD = 7,          /**< autograd misuse (in-place on saved, ...)  */
  TSR_ERR_IO = 8,                /**< open/read/write/rename failed            */
  TSR_ERR_CORRUPT_FILE = 9,      /**< truncated, inconsistent or crafted file  */
  TSR_ERR_UNSUPPORTED = 10,      /**< valid request this build cannot do       */
  TSR_ERR_INTERNAL = 11,         /**< a bug in tessera: please report          */
  TSR_ERR_INDEX_OUT_OF_RANGE = 12, /**< element index outside the sizes        */
  TSR_ERR_CANCELLED = 13,          /**< a progress callback stopped the call    */
  TSR_ERR_DISTRIBUTED = 14         /**< a collective or rendezvous failed: a peer
                                        died or hung, the store is unreachable
                                        (torch's DistBackendError)            */
} tsr_status;

/** @brief Element types. Values are c10::ScalarType's. */
typedef enum tsr_dtype {
  TSR_UINT8 = 0,     /**< torch.uint8 */
  TSR_INT8 = 1,      /**< torch.int8 */
  TSR_INT16 = 2,     /**< torch.int16 */
  TSR_INT32 = 3,     /**< torch.int32 */
  TSR_INT64 = 4,     /**< torch.int64 */
  TSR_FLOAT16 = 5,   /**< torch.float16 (IEEE half) */
  TSR_FLOAT32 = 6,   /**< torch.float32 */
  TSR_FLOAT64 = 7,   /**< torch.float64 */
  TSR_BOOL = 11,     /**< torch.bool */
  TSR_BFLOAT16 = 15, /**< torch.bfloat16 */
  /** torch.float8_e5m2 (OCP FP8 E5M2: bias 15, infinities, round to nearest
   *  even); storage only: creation, views, copy, to(dtype), save and load. */
  TSR_FLOAT8_E5M2 = 23,
  /** torch.float8_e4m3fn (OCP FP8 E4M3: bias 7, no infinities, NaN 0x7F and
   *  0xFF, largest finite 448; a float above 464 becomes NaN, as in c10);
   *  storage only, as TSR_FLOAT8_E5M2. */
  TSR_FLOAT8_E4M3FN = 24,
  /** torch.uint16; storage only: creation, views, copy, to(dtype), save and
   *  load. */
  TSR_UINT16 = 27,
  TSR_UINT32 = 28, /**< torch.uint32; storage only, as TSR_UINT16 */
  TSR_UINT64 = 29  /**< torch.uint64; storage only, as TSR_UINT16 */
} tsr_dtype;

/**
 * @brief Device types. Values are DLPack's DLDeviceType (kDLCPU = 1,
 * kDLCUDA = 2, kDLCUDAHost = 3).
 *
 * This build supports TSR_DEVICE_CPU; CUDA and pinned host memory
 * (TSR_DEVICE_CUDA_HOST, page-locked CPU memory that CUDA copies from
 * asynchronously) are reserved for the CUDA plugin.
 */
typedef enum tsr_device_type {
  TSR_DEVICE_CPU = 1,        /**< the CPU (kDLCPU) */
  TSR_DEVICE_CUDA = 2,       /**< a CUDA GPU (kDLCUDA) */
  TSR_DEVICE_CUDA_HOST = 3,  /**< pinned host memory (kDLCUDAHost) */
  /** DLPack's kDLExtDev: a device outside this list. No build of tessera
   * offers it through the C API; tessera's own tests register their
   * simulated device under it. */
  TSR_DEVICE_EXT = 12
} tsr_device_type;

/** @brief Memory formats. Values are c10::MemoryFormat's. */
typedef enum tsr_memory_format {
  TSR_CONTIGUOUS_FORMAT = 0, /**< row-major (C order) strides */
  TSR_PRESERVE_FORMAT = 1,   /**< keep the input's layout (clone, to_dtype) */
  TSR_CHANNELS_LAST = 2,   /**< 4-D: logical NCHW, physical NHWC   */
  TSR_CHANNELS_LAST_3D = 3 /**< 5-D: logical NCDHW, physical NDHWC */
} tsr_memory_format;

/**
 * @brief Opaque, reference-counted tensor handle.
 *
 * A function that produces one gives the caller one reference;
 * tsr_*_retain adds one, tsr_*_release drops one (here tsr_tensor_retain(),
 * tsr_tensor_release()).
 */
typedef struct tsr_tensor tsr_tensor;
/** @brief Opaque, reference-counted storage handle (same rules as
 * tsr_tensor; tsr_storage_retain(), tsr_storage_release()). */
typedef struct tsr_storage tsr_storage;
/** @brief Opaque, reference-counted random generator handle (same rules as
 * tsr_tensor; see random.h). */
typedef struct tsr_generator tsr_generator;

/**
 * @brief Runs exactly once when memory handed to tessera (tsr_from_blob())
 * is no longer used, also when the call that received it fails.
 * @param[in] data the memory given to tessera
 * @param[in] ctx  the context pointer given with it
 */
typedef void (*tsr_deleter)(void* data, void* ctx);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_TYPES_H */
