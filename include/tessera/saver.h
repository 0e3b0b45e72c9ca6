/**
 * @file tessera/saver.h
 * @brief Streaming save: open a file, add tensors as they are produced,
 * commit (docs/FILE-FORMAT.md, "Streaming saves").
 *
 * tsr_save() needs every tensor at once; a tsr_saver takes them one by
 * one, writing each tensor's bytes to the file as it is added, so a model
 * can be saved while it is being produced (or moved off a device layer by
 * layer) with memory bounded by one tensor's contiguous host copy (none
 * for a contiguous CPU tensor) and a few 4 MiB chunks (with
 * TSR_COMPRESSION_ZSTD_PLANES, also up to 8 MiB of copies of small
 * tensors, see tsr_saver_add()), never the whole model. The result is an ordinary tessera file (plain safetensors, or
 * zstd-compressed): tsr_load(), tsr_open_file() and other safetensors
 * readers read it. Same role as safetensors' wish-list "streaming
 * serialization" and torch.distributed.checkpoint's staged writes.
 *
 * The file appears at path atomically at tsr_saver_commit(), exactly as
 * tsr_save() replaces a file (temporary in path's directory, fsync,
 * rename, fsync of the directory); until then any file at path is
 * untouched. A saver released without commit, or one that failed, removes
 * its temporary file.
 *
 * Differences from tsr_save(): tensors are stored in the order they are
 * added (not the reference writer's order), so a tensor may start at an
 * offset not aligned to its element size (tsr_open_file() then reads it
 * instead of mapping it); the header is padded with spaces to the room
 * reserved for it (64 KiB at least). A sharded checkpoint
 * (tsr_save_options.max_shard_size) is not available through a saver.
 *
 * Thread-safety: one saver must be used by one thread at a time; different
 * savers are independent.
 */
#ifndef TESSERA_SAVER_H
#define TESSERA_SAVER_H

#include "io.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque handle to a save in progress (tsr_saver_open()); owned by
 * one caller and freed by tsr_saver_release(). */
typedef struct tsr_saver tsr_saver;

/**
 * @brief Starts a streaming save to path: checks the options and creates
 * the temporary file in path's directory.
 *
 * opts as for tsr_save() (compression, level, metadata, checksums,
 * progress); the progress callback is called once here with (0, 0), and
 * then as for tsr_progress_fn with bytes_total the bytes of the tensors
 * added so far.
 * @param[in]  path the file to write at commit
 * @param[in]  opts NULL means TSR_SAVE_OPTIONS_INIT
 * @param[out] out  the new saver (free it with tsr_saver_release());
 *                  untouched on failure
 * @return TSR_OK, or:
 * - TSR_ERR_INVALID_ARGUMENT: NULL path/out; options tsr_save() refuses
 *   (struct_size, compression, level, metadata keys, negative
 *   max_shard_size).
 * - TSR_ERR_UNSUPPORTED: opts->max_shard_size != 0.
 * - TSR_ERR_IO: path names something other than a regular file, or its
 *   directory refuses a new file.
 * - The progress callback's status (TSR_ERR_CANCELLED) when it cancels;
 *   no file is created.
 */
TSR_API tsr_status tsr_saver_open(const char* path, const tsr_save_options* opts,
                                  tsr_saver** out);

/**
 * @brief Writes tensor under name to the saver's file.
 *
 * The tensor's C-order contents are written now (a device tensor is copied
 * to the host first; a non-contiguous one through a contiguous copy), so
 * the caller may change or release it after the call. With
 * TSR_COMPRESSION_ZSTD_PLANES a tensor of at most 1 MiB (one chunk) is
 * copied instead and written with the next ones once 8 MiB of them wait, a
 * larger tensor is added, or at commit, so that their chunks compress in
 * parallel (most weights of a model are such small tensors); the file is
 * the same as if each were written at once, on any thread count.
 * @param[in] s      the saver
 * @param[in] name   non-empty UTF-8, not "__metadata__", not added before
 * @param[in] tensor any sizes, strides, storage_offset; bool tensors must
 *                   hold bytes 0 or 1 only
 * @return TSR_OK, or:
 * - TSR_ERR_INVALID_ARGUMENT: NULL s/name/tensor, a bad or duplicate name,
 *   a bool byte other than 0/1 (these change nothing: the saver goes on);
 *   a saver already committed or abandoned after a failure; a header that
 *   would pass safetensors' 100,000,000-byte limit (abandoned).
 * - TSR_ERR_OUT_OF_MEMORY: the contiguous host copy (the saver goes on).
 * - TSR_ERR_IO: writing failed (this tensor's bytes or, with
 *   TSR_COMPRESSION_ZSTD_PLANES, small tensors added before); the save is
 *   abandoned (temporary removed, any file at path untouched), later calls
 *   fail.
 * - The progress callback's status when it cancels: abandoned likewise.
 */
TSR_API tsr_status tsr_saver_add(tsr_saver* s, const char* name, tsr_tensor* tensor);

/**
 * @brief Finishes the file: writes its header (offsets, checksums) and
 * renames it over path, replacing any file there atomically.
 *
 * The saver stays allocated (release it); further adds and commits fail.
 * @param[in] s the saver
 * @return TSR_OK, or:
 * - TSR_ERR_INVALID_ARGUMENT: NULL s; already committed or abandoned.
 * - TSR_ERR_IO: writing, syncing or renaming failed (abandoned: any file
 *   at path untouched), or the directory fsync after the rename failed
 *   ("saved, but cannot fsync directory ...", the new file in place), as
 *   for tsr_save().
 * - The progress callback's status when its last call (bytes_done ==
 *   bytes_total) cancels: abandoned, nothing replaced.
 */
TSR_API tsr_status tsr_saver_commit(tsr_saver* s);

/**
 * @brief Frees the saver. An uncommitted save is abandoned: its temporary
 * file is removed and any file at path stays as it was. NULL is ignored.
 * @param[in] s the saver, or NULL
 */
TSR_API void tsr_saver_release(tsr_saver* s);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_SAVER_H */
