/**
 * @file tessera/file.h
 * @brief A checkpoint opened without reading it: names, dtypes, shapes and
 * metadata at once, each tensor when asked for.
 *
 * The model is safetensors' safe_open(path, framework) with get_tensor,
 * and torch.load(mmap=True): for a plain file, a tensor is a view of a
 * read-only memory mapping of the file (no copy; the first tensor of a
 * large file is available in microseconds); for a compressed file, only
 * that tensor's frame is read and decompressed. The mapping lives while
 * the file handle or any tensor from it does.
 *
 * Tensors from a mapping are read-only: in-place ops, tsr_set_double() /
 * tsr_set_int64(), copy_ into them and optimizer steps on them fail with
 * TSR_ERR_INVALID_ARGUMENT ("... read-only view of a memory-mapped file
 * ..."); tsr_clone() gives a writable copy. The mapping is private: a write
 * through tsr_tensor_data_ptr() changes a copy of the page in this process,
 * never the file. Tensors saved as views of one storage (tsr_save()) are
 * listed under their names (after the file's tensors) and come back as
 * views of one tensor made once per open file, as from tsr_load(); the
 * "tessera.storage.<k>" entries they use and the "tessera.view.*" metadata
 * are not listed. A file truncated by another process while mapped
 * faults when the lost pages are read, as with every mmap reader; tessera's
 * own saves replace files by rename and never do that.
 */
#ifndef TESSERA_FILE_H
#define TESSERA_FILE_H

#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque, reference-counted handle to an opened checkpoint
 * (tsr_open_file()). */
typedef struct tsr_file tsr_file;

/**
 * @brief Opens path: reads and validates its header and, for a plain file,
 * maps it.
 *
 * The header checks are every check of tsr_load() that does not need the
 * tensors' bytes: header JSON, dtypes, shapes, offsets, the size budget of
 * opts->max_bytes or the default cap, the header's checksum.
 * @param[in]  path the file
 * @param[in]  opts NULL means TSR_LOAD_OPTIONS_INIT
 * @param[out] out  one reference; untouched on failure
 * @return TSR_OK; statuses as tsr_load()'s (TSR_ERR_INVALID_ARGUMENT,
 * TSR_ERR_IO, TSR_ERR_CORRUPT_FILE, TSR_ERR_UNSUPPORTED), TSR_ERR_IO also
 * when mmap fails.
 */
TSR_API tsr_status tsr_open_file(const char* path, const tsr_load_options* opts, tsr_file** out);

/**
 * @brief Adds one reference; NULL is ignored; thread-safe.
 * @param[in] f the file, or NULL
 */
TSR_API void tsr_file_retain(tsr_file* f);
/**
 * @brief Drops one reference; NULL is ignored; thread-safe. Tensors from
 * the file keep what they need alive after the last release.
 * @param[in] f the file, or NULL
 */
TSR_API void tsr_file_release(tsr_file* f);

/**
 * @brief Number of tensors.
 * @param[in] f the file
 * @return the count; -1 (TSR_ERR_INVALID_ARGUMENT recorded) for NULL.
 */
TSR_API int64_t tsr_file_count(const tsr_file* f);
/**
 * @brief Name of tensor i in file order, 0 <= i < count.
 * @param[in] f the file
 * @param[in] i the index
 * @return Borrowed: valid while f lives. NULL on a NULL f
 * (TSR_ERR_INVALID_ARGUMENT recorded) or i out of range
 * (TSR_ERR_INDEX_OUT_OF_RANGE recorded).
 */
TSR_API const char* tsr_file_name(const tsr_file* f, int64_t i);
/**
 * @brief Index of the tensor called name.
 * @param[in] f    the file
 * @param[in] name the name
 * @return the index, or -1 when there is none (nothing recorded) or f/name
 * is NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_file_find(const tsr_file* f, const char* name);
/**
 * @brief Tensor i's dtype, number of dims and sizes, without reading it.
 *
 * Any out pointer may be NULL; outs untouched on failure.
 * @param[in]  f     the file
 * @param[in]  i     the index
 * @param[out] dtype the dtype
 * @param[out] ndim  the number of dims
 * @param[out] sizes the sizes, in elements; borrowed, valid while f lives
 * @return TSR_OK; TSR_ERR_INDEX_OUT_OF_RANGE for i out of range,
 * TSR_ERR_INVALID_ARGUMENT for NULL f.
 */
TSR_API tsr_status tsr_file_tensor_info(const tsr_file* f, int64_t i, tsr_dtype* dtype,
                                        int64_t* ndim, const int64_t** sizes);
/**
 * @brief Tensor i as a CPU tensor with the file's dtype and sizes,
 * contiguous.
 *
 * Plain file: a read-only view of the mapping (a new copy instead when the
 * tensor's bytes are not aligned to its element size, which files tessera
 * writes never are). Compressed file: a new tensor decompressed from its
 * frame. Its checksum is verified first (unless opts->skip_checksums was set
 * at open; for a view that reads its bytes once), and bool bytes checked.
 * Thread-safe: several threads may get tensors from one file.
 * @param[in]  f   the file
 * @param[in]  i   the index
 * @param[out] out one reference
 * @return TSR_OK; TSR_ERR_INDEX_OUT_OF_RANGE, TSR_ERR_INVALID_ARGUMENT (NULL
 * f/out), TSR_ERR_CORRUPT_FILE (checksum mismatch naming the tensor and its
 * file bytes, a bad frame or bool byte), TSR_ERR_IO, TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_file_get(const tsr_file* f, int64_t i, tsr_tensor** out);
/**
 * @brief tsr_file_get() of the tensor called name.
 * @param[in]  f    the file
 * @param[in]  name the name
 * @param[out] out  one reference
 * @return TSR_OK; no such tensor: TSR_ERR_INVALID_ARGUMENT ("no tensor named
 * ..."); otherwise as tsr_file_get().
 */
TSR_API tsr_status tsr_file_get_by_name(const tsr_file* f, const char* name, tsr_tensor** out);
/**
 * @brief Rows [start, stop) of dim 0 of tensor i, reading only what they
 * need: a partial read, as safetensors' get_slice(name)[start:stop].
 *
 * The result has sizes [stop - start, sizes[1], ...] (elements), the
 * file's dtype, on the CPU, equal to tsr_narrow(tsr_file_get(i), 0, start,
 * stop - start). Plain file: a read-only view of the mapping, as
 * tsr_file_get() gives (the whole tensor's checksum is verified, which
 * reads its bytes once). zstd-planes file (format 0.2): a new contiguous,
 * writable tensor; only the chunks (about 1 MiB of raw bytes each) that
 * hold those rows are read, checked against their XXH3-64 and decoded, so
 * a damaged chunk elsewhere in the tensor does not fail it. A "zstd" (0.1)
 * tensor is one frame, decompressed whole. Tensors that views share, and
 * the views (tsr_save() of views of one storage), are narrowed views of
 * the tensor tsr_file_get() gives. start == stop gives zero rows. Unlike
 * tsr_narrow(), negative positions are not counted from the end.
 * Thread-safe.
 * @param[in]  f     the file
 * @param[in]  i     the tensor's index, 0 <= i < tsr_file_count(f)
 * @param[in]  start first row, 0 <= start <= stop
 * @param[in]  stop  row after the last, stop <= sizes[0]
 * @param[out] out   one reference; untouched on failure
 * @return TSR_OK; TSR_ERR_INDEX_OUT_OF_RANGE for i out of range (as
 * tsr_file_get()); TSR_ERR_INVALID_ARGUMENT for NULL f/out, a 0-dim
 * tensor, a negative start or stop, start > stop or stop > sizes[0] (as
 * tsr_narrow() names a range beyond the size), the message naming the
 * tensor and the rows; TSR_ERR_CORRUPT_FILE (a chunk read whose checksum
 * or data is bad, naming the chunk and its file bytes; the tensor's index
 * or checksum), TSR_ERR_IO, TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_file_get_slice(const tsr_file* f, int64_t i, int64_t start, int64_t stop,
                                      tsr_tensor** out);

/**
 * @brief Number of the file's "__metadata__" pairs, as tsr_tensor_map's
 * (sorted by key, the checksum entry left out).
 * @param[in] f the file
 * @return the count; -1 for NULL f.
 */
TSR_API int64_t tsr_file_metadata_count(const tsr_file* f);
/**
 * @brief Key of metadata pair i.
 * @param[in] f the file
 * @param[in] i the index
 * @return Borrowed while f lives; NULL with the error recorded when out of
 * range.
 */
TSR_API const char* tsr_file_metadata_key(const tsr_file* f, int64_t i);
/**
 * @brief Value of metadata pair i.
 * @param[in] f the file
 * @param[in] i the index
 * @return Borrowed while f lives; NULL with the error recorded when out of
 * range.
 */
TSR_API const char* tsr_file_metadata_value(const tsr_file* f, int64_t i);
/**
 * @brief Metadata value for key.
 * @param[in] f   the file
 * @param[in] key the key
 * @return Borrowed while f lives; NULL when absent.
 */
TSR_API const char* tsr_file_metadata_get(const tsr_file* f, const char* key);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_FILE_H */
