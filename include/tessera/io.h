/**
 * @file tessera/io.h
 * @brief Saving and loading named tensors (safetensors files;
 * docs/FILE-FORMAT.md is the full description).
 *
 * A file holds named tensors plus string metadata in the safetensors layout
 * (huggingface/safetensors, safetensors/src/tensor.rs):
 *
 * @verbatim
   8 bytes   N, the header length, unsigned little-endian
   N bytes   UTF-8 JSON: {"__metadata__": {str: str},
                          name: {"dtype": "F32", "shape": [...],
                                 "data_offsets": [begin, end]}, ...}
             padded with spaces so the data starts 8-byte aligned
   the rest  the data buffer; offsets count bytes from its start; the
             tensors tile it exactly (no gaps, no overlaps, nothing after)
   @endverbatim
 *
 * dtype names: BOOL U8 I8 I16 I32 I64 F16 BF16 F32 F64. Data is C-order,
 * little-endian. Tensors are laid out as the reference writer lays them out
 * (by element alignment, largest first, then by name), so a plain file is
 * byte-identical to what safetensors' serialize() writes for the same
 * tensors and metadata.
 *
 * Checksums: __metadata__ also holds "tessera.checksum":
 * `"tessera-xxh3-64:<header>:<t0>,<t1>,...,"` (16 lowercase hex digits
 * each): the XXH3-64 of each tensor's stored bytes (its data_offsets range:
 * the C-order bytes, or the zstd frame; for TSR_COMPRESSION_ZSTD_PLANES its
 * chunk index, which holds each chunk's own XXH3-64) in file order, and of
 * the header text itself as stored (padding included) with its own 16
 * digits read as '0'. Other readers see an ordinary metadata string. tsr_load() verifies
 * both, so a single flipped bit anywhere in the file fails the load;
 * tsr_save_options.skip_checksums leaves the entry out.
 *
 * Three modes (tsr_compression):
 * - TSR_COMPRESSION_NONE: a plain safetensors file, readable by
 *   safetensors, torch, numpy-based readers.
 * - TSR_COMPRESSION_ZSTD: the same header and layout, but each tensor's
 *   bytes are one zstd frame (content size recorded, XXH64 checksum on)
 *   and data_offsets delimit the compressed frames. __metadata__ holds
 *   "tessera.compression": "zstd". Frames are streamed to the file, so the
 *   header is written last into space reserved first and may end in more
 *   padding spaces than alignment needs. A plain safetensors reader rejects
 *   such a file: for every tensor end - begin != numel*element_size (the
 *   reference's TensorInvalidInfo check), because the writer guarantees
 *   the frame length differs from the raw length (if they would be equal it
 *   compresses that frame again at a neighbouring level). A reader that
 *   ignores data_offsets' end and reads numel*element_size bytes at begin
 *   cannot be protected against; the metadata key tells it what the file
 *   is.
 *
 * - TSR_COMPRESSION_ZSTD_PLANES (file format 0.2): the same header, with
 *   "tessera.compression": "zstd-planes" and "tessera.format": "0.2" in
 *   __metadata__; each tensor's data_offsets range holds its bytes in
 *   independent chunks of 1 MiB. A float tensor's chunk is split into
 *   byte planes (byte j of every element together); each plane is one zstd
 *   frame, or stored raw where zstd would not save 1/32 of it. After the
 *   chunks come an index (each chunk's stored length and XXH3-64) and a
 *   24-byte footer (docs/FILE-FORMAT.md). Chunks are compressed and
 *   decompressed in parallel and the file does not depend on the thread
 *   count; tsr_open_file()'s tsr_file_get() decodes only that tensor's
 *   chunks. A load names the tensor, the chunk and its byte ranges when a
 *   chunk's checksum fails. The range never has the raw length, so plain
 *   readers refuse it as they refuse TSR_COMPRESSION_ZSTD files.
 *
 * Loading treats the file as untrusted: every inconsistency is
 * TSR_ERR_CORRUPT_FILE with a message naming the tensor and the numbers,
 * and nothing is allocated before the sizes it depends on were checked
 * against the file.
 */
#ifndef TESSERA_IO_H
#define TESSERA_IO_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How tensor bytes are stored. Values are only appended. */
typedef enum tsr_compression {
  TSR_COMPRESSION_NONE = 0, /**< plain safetensors                      */
  TSR_COMPRESSION_ZSTD = 1, /**< one zstd frame per tensor (see above)  */
  /** Format 0.2: each tensor in independent chunks of 1 MiB, float
   * elements split into byte planes, each plane zstd-compressed where that
   * pays, with an index of chunk lengths and XXH3-64 checksums (see above).
   * Smaller than TSR_COMPRESSION_ZSTD on trained weights, compressed and
   * decompressed on tsr_set_num_threads() threads. */
  TSR_COMPRESSION_ZSTD_PLANES = 2
} tsr_compression;

/**
 * @brief Progress callback of a save or load (tsr_save_options.progress,
 * tsr_load_options.progress).
 *
 * Called on the calling thread: once with bytes_done == 0 before anything
 * is written or read, then after each tensor (and after each 16 MiB of a
 * larger plain tensor being written), the last call with bytes_done ==
 * bytes_total before a save replaces its file. Both count tensor bytes
 * (numel*element_size), not file bytes; for a tsr_saver, bytes_total is
 * the bytes of the tensors added so far (the saver cannot know what comes
 * next). Returning anything but TSR_OK cancels the call, which then returns
 * that status (TSR_ERR_CANCELLED is the one to use): a cancelled save leaves
 * any previous file untouched and no temporary file; a cancelled load
 * returns no map. The callback must not call tessera functions on the same
 * saver, file or map. Same idea as the callbacks of huggingface_hub's and
 * torch's checkpoint tools, with cancelling added.
 * @param bytes_done  tensor bytes written or read so far
 * @param bytes_total tensor bytes the call will write or read in all
 * @param user_data   the options' progress_user_data
 * @return TSR_OK to go on; any other status stops the call with it.
 */
typedef tsr_status (*tsr_progress_fn)(uint64_t bytes_done, uint64_t bytes_total, void* user_data);

/**
 * @brief Options for tsr_save().
 *
 * Set struct_size = sizeof(tsr_save_options) (or use
 * TSR_SAVE_OPTIONS_INIT). Fields are only ever appended: a library newer
 * than the caller's header reads only the fields that struct_size covers and
 * gives the rest their TSR_SAVE_OPTIONS_INIT values; one older than the
 * caller's header reads the fields it knows. A struct_size that does not
 * cover the first field (compression; 0, sizeof(size_t)) is
 * TSR_ERR_INVALID_ARGUMENT.
 */
typedef struct tsr_save_options {
  size_t struct_size;          /**< sizeof(tsr_save_options) */
  tsr_compression compression; /**< plain or zstd; default plain */
  /** zstd level for TSR_COMPRESSION_ZSTD and TSR_COMPRESSION_ZSTD_PLANES:
   * 0 means zstd's default (3), and 1 for TSR_COMPRESSION_ZSTD_PLANES;
   * otherwise in [-131072, 22] (negative: zstd's fast levels). Ignored for
   * TSR_COMPRESSION_NONE. */
  int32_t level;
  /** n_metadata string pairs written to "__metadata__" (keys unique,
   * non-empty, valid UTF-8; keys starting with "tessera." are reserved).
   * The arrays may be NULL when n_metadata == 0. */
  int64_t n_metadata;
  const char* const* metadata_keys;   /**< n_metadata keys */
  const char* const* metadata_values; /**< n_metadata values */
  /** Nonzero: write no "tessera.checksum" entry (see tsr_load()), so the
   * file is byte for byte what the reference writer makes of the same
   * tensors and metadata. 0 (default): checksums are written. */
  int32_t skip_checksums;
  /** Called as the save goes (see tsr_progress_fn): bytes_done and
   * bytes_total count the tensors' C-order bytes (numel*element_size, before
   * compression). NULL (default): none. Added in 0.2. */
  tsr_progress_fn progress;
  /** Passed to progress as user_data; not owned (the call is synchronous,
   * so no destructor is needed). Added in 0.2. */
  void* progress_user_data;
  /** Largest shard, in bytes of tensor data (the sum of numel*element_size
   * of its tensors, as Hugging Face's max_shard_size counts), or 0
   * (default): one file. When the tensors' total exceeds it, tsr_save()
   * writes a sharded checkpoint instead of path (path must end in
   * ".safetensors"; see tsr_save()). A tensor larger than the cap gets a
   * shard of its own. Negative: TSR_ERR_INVALID_ARGUMENT. tsr_saver_open()
   * refuses a nonzero value (TSR_ERR_UNSUPPORTED). Added in 0.2. */
  int64_t max_shard_size;
  /** Nonzero: save every tensor as its own C-order contents, as safetensors
   * does, even where tensors share a storage. 0 (default): tensors sharing a
   * storage (a weight and its transpose, tied embeddings, slices) are
   * written once, as their storage, and tsr_load() restores them as views of
   * one storage (see tsr_save()). Added in 0.2. */
  int32_t flatten_views;
} tsr_save_options;

/** @brief Initializer of a tsr_save_options holding the defaults (plain, no
 * metadata, checksums, no progress callback, one file). */
#define TSR_SAVE_OPTIONS_INIT \
  { sizeof(tsr_save_options), TSR_COMPRESSION_NONE, 0, 0, NULL, NULL, 0, NULL, NULL, 0, 0 }

/**
 * @brief Options for tsr_load() and tsr_open_file(); struct_size as for
 * tsr_save_options (the first field is max_bytes; missing fields take
 * TSR_LOAD_OPTIONS_INIT values).
 */
typedef struct tsr_load_options {
  size_t struct_size; /**< sizeof(tsr_load_options) */
  /** Most bytes of tensor data (sum of numel*element_size over the file) the
   * load may allocate. 0 = the default: 64 times the file's size plus
   * 64 MiB. A plain file can never ask for more than its own size; a
   * compressed one could ask for up to ~32768 times its size (zstd's RLE
   * blocks), which the default refuses. TSR_LOAD_MAX_BYTES_UNLIMITED: no
   * cap (for trusted files of highly compressible tensors). */
  int64_t max_bytes;
  /** Nonzero: do not verify the checksums a file carries (trusted files;
   * saves the hashing, about a tenth of a plain load). 0 (default): verify. */
  int32_t skip_checksums;
  /** Called as tsr_load() reads (see tsr_progress_fn); bytes count the
   * tensors' bytes as loaded (numel*element_size), over all shards of a
   * sharded checkpoint. NULL (default): none. tsr_open_file() ignores it.
   * Added in 0.2. */
  tsr_progress_fn progress;
  /** Passed to progress as user_data; not owned. Added in 0.2. */
  void* progress_user_data;
} tsr_load_options;

/** @brief Initializer of a tsr_load_options holding the defaults. */
#define TSR_LOAD_OPTIONS_INIT { sizeof(tsr_load_options), 0, 0, NULL, NULL }
/** @brief max_bytes value meaning no cap at all. */
#define TSR_LOAD_MAX_BYTES_UNLIMITED INT64_MAX

/**
 * @brief The tensors of a loaded file, in file order (by data offset;
 * tensors at the same offset, which are empty, by name), and its metadata.
 *
 * Immutable: safe to read from several threads at once. Reference-counted.
 */
typedef struct tsr_tensor_map tsr_tensor_map;

/**
 * @brief Writes n named tensors to path, replacing any file there
 * atomically.
 *
 * tensors may have any sizes (0-dim and empty included), strides and
 * storage_offset; what is written is their C-order contents, bit for bit.
 * Tensors on a device (CUDA, pinned host memory) are copied to the host one
 * at a time as they are written, as torch.save moves each storage to the
 * CPU; loading gives CPU tensors (move them with tsr_to_device()). n == 0
 * writes a file with no tensors. Bool tensors must hold bytes 0 or 1 only.
 *
 * Tensors that share a storage (a weight and its transpose, tied
 * embeddings, slices of one buffer) are written once, as one ordinary
 * tensor entry holding the storage's elements they span (the first of them
 * that is exactly that span, under its name and shape, or else an entry
 * "tessera.storage.<k>"), and the others as "tessera.view.<name>" metadata
 * entries ({"storage", "sizes", "strides", "storage_offset"}, JSON), which
 * tsr_load() and tsr_open_file() turn back into views of one storage with
 * the same sizes, strides and offsets, as torch.save / torch.load keep
 * views. Other safetensors readers see the storage entries only.
 * opts->flatten_views writes each tensor's own contents instead (what
 * safetensors' save_file would, were it not refusing shared tensors).
 *
 * opts->max_shard_size > 0 below the tensors' total bytes: a sharded
 * checkpoint as Hugging Face writes it instead of path, which must end in
 * ".safetensors": "<stem>-00001-of-0000N.safetensors", ... and
 * "<stem>.safetensors.index.json" ({"metadata": {"total_size": bytes},
 * "weight_map": {name: shard file}}); shards filled greedily in the
 * tensors' order, all written before any is renamed, the index renamed
 * last, then shards of an earlier save to the stem that the index does not
 * name removed (docs/FILE-FORMAT.md, "Sharded checkpoints", says what a
 * crash during the renames leaves).
 *
 * opts->progress, if set, is called as tsr_progress_fn says; its returning
 * anything but TSR_OK cancels the save with nothing changed.
 *
 * The file is written to an unnamed temporary file in path's directory
 * (O_TMPFILE), fsync'ed, named, renamed over path, and the directory
 * fsync'ed; on any failure before the rename the temporary is removed and
 * an existing file at path is left untouched. A process killed during a
 * save leaves the old file or the new one, complete; a temporary can be
 * left only if it dies between naming the file and the rename (or
 * anywhere, on filesystems without O_TMPFILE, where the temporary is named
 * from the start): it is named `.<name>.tmp.<host>.<pid>.<n>`, and the next
 * save to the same path removes those of this host whose process is gone.
 * Only a regular file (or a symbolic link to one) at path is replaced: a
 * directory, FIFO, socket or device node there is TSR_ERR_IO and stays as
 * it is. A failure to open or fsync the directory after the rename is
 * still TSR_ERR_IO ("saved, but cannot fsync directory ..."), with the new
 * file already in place (it may not survive a crash). If path is a
 * symbolic link, the file it points to is replaced (the link stays). A new
 * file gets mode 0666 & ~umask; a replaced file keeps its permission bits.
 *
 * Thread-safety: tensors must not be written by other threads meanwhile.
 * @param[in] path    the file to write
 * @param[in] n       number of tensors (>= 0)
 * @param[in] names   names[i] names tensors[i]; each is a non-empty UTF-8
 *                    string other than "__metadata__", all distinct
 * @param[in] tensors n tensors
 * @param[in] opts    NULL means TSR_SAVE_OPTIONS_INIT (plain, no metadata)
 * @return TSR_OK, or:
 * - TSR_ERR_INVALID_ARGUMENT: NULL path, n < 0, NULL names/tensors (n > 0)
 *   or entries, an empty/duplicate/reserved/non-UTF-8 name or metadata key,
 *   an opts->struct_size that does not cover compression (see
 *   tsr_save_options), a bad compression or level, a bool tensor holding a
 *   byte other than 0/1.
 * - TSR_ERR_IO: path names something other than a regular file; creating,
 *   writing, syncing or renaming failed (the message has the path and
 *   strerror; see above for the directory fsync).
 * - TSR_ERR_OUT_OF_MEMORY: buffers for a contiguous copy or compression.
 * - TSR_ERR_INVALID_ARGUMENT also: a negative max_shard_size; a sharded
 *   save to a path not ending in ".safetensors".
 * - The progress callback's status (TSR_ERR_CANCELLED) when it cancels.
 */
TSR_API tsr_status tsr_save(const char* path, int64_t n, const char* const* names,
                            tsr_tensor* const* tensors, const tsr_save_options* opts);

/**
 * @brief Reads the file at path (plain or zstd-compressed, detected from
 * "__metadata__") into a new tensor map.
 *
 * Every tensor is a new contiguous CPU tensor with its own storage, dtype
 * and sizes as in the file, contents bit-exact. Fields of a tensor entry
 * other than dtype, shape and data_offsets are ignored, as the reference
 * reader does. A file carrying "tessera.checksum" (any file tessera wrote)
 * is verified unless opts->skip_checksums: the header before anything is
 * allocated, each tensor once read; that entry is not listed among the
 * map's metadata.
 *
 * Views (see tsr_save()): each "tessera.view.<name>" entry becomes a view
 * of the tensor it names, sharing its storage, listed after the file's
 * tensors in name order; neither those metadata entries nor the
 * "tessera.storage.<k>" entries the views use are listed.
 *
 * A path ending in ".json" is read as a Hugging Face index
 * ("model.safetensors.index.json"): every shard its "weight_map" names
 * (file names in the index's directory, without '/') is loaded, shard
 * after shard, into one map whose metadata are the first shard's.
 * An index written by tsr_save_sharded() (distributed.h; it has a
 * "format" member) gives each tensor whole, put together from every
 * rank's rows, the tensors by name, the metadata of the save.
 *
 * opts->progress, if set, is called as tsr_progress_fn says (over all
 * shards of an index); its returning anything but TSR_OK stops the load,
 * which returns that status and no map.
 * @param[in]  path the file
 * @param[in]  opts NULL means TSR_LOAD_OPTIONS_INIT
 * @param[out] out  the new map, one reference
 * @return TSR_OK, or:
 * - TSR_ERR_INVALID_ARGUMENT: NULL path/out, an opts->struct_size that does
 *   not cover max_bytes, or a negative max_bytes.
 * - TSR_ERR_IO: path cannot be opened or read, or is not a regular file
 *   (message has strerror).
 * - TSR_ERR_CORRUPT_FILE: shorter than 8 bytes; header length above
 *   100000000 bytes (the reference's cap) or past the end of the file;
 *   header not UTF-8 JSON, not an object, with duplicate keys, a name or
 *   metadata text holding NUL (`\u0000`); a dtype that is no safetensors
 *   dtype; shape entries that are not integers in [0, 2^63) or whose
 *   product (times the element size) overflows int64; offsets that are not
 *   [begin, end] with begin <= end, that leave gaps or overlap, or do not
 *   end where the file ends; end - begin != numel*element_size (plain); a
 *   zstd frame that is malformed, fails its checksum or does not
 *   decompress to exactly numel*element_size bytes; a bool byte other than
 *   0/1; a checksum mismatch (the message names the header or the tensor
 *   and its file bytes) or a malformed or misplaced "tessera.checksum"
 *   value; the data needing more than opts->max_bytes (or the default cap,
 *   see tsr_load_options). The file changing size while being read reads
 *   as truncated.
 * - TSR_ERR_UNSUPPORTED: a safetensors dtype tessera lacks (U16, U32, U64,
 *   F8_*, ...), or an unknown "tessera.compression" codec.
 * - TSR_ERR_OUT_OF_MEMORY: the allocator could not provide the bytes.
 * - TSR_ERR_CORRUPT_FILE also: a "tessera.view.*" entry that is not the
 *   JSON described at tsr_save(), names a tensor the file lacks, has the
 *   name of a tensor of the file, or reaches outside its storage; an index
 *   that is not a JSON object with a "weight_map" object of file names,
 *   a shard holding a tensor the index does not put there or lacking one it
 *   does (the message names the shard and the index).
 * - TSR_ERR_IO also: a shard named by an index cannot be opened.
 * - The progress callback's status (TSR_ERR_CANCELLED) when it cancels.
 */
TSR_API tsr_status tsr_load(const char* path, const tsr_load_options* opts,
                            tsr_tensor_map** out);

/**
 * @brief Adds one reference. NULL is ignored. Thread-safe.
 * @param[in] m the map, or NULL
 */
TSR_API void tsr_tensor_map_retain(tsr_tensor_map* m);
/**
 * @brief Drops one reference; the last release frees the map and drops its
 * references to the tensors. NULL is ignored. Thread-safe.
 * @param[in] m the map, or NULL
 */
TSR_API void tsr_tensor_map_release(tsr_tensor_map* m);

/**
 * @brief Number of tensors.
 * @param[in] m the map
 * @return the count; -1 (and TSR_ERR_INVALID_ARGUMENT recorded) for NULL.
 */
TSR_API int64_t tsr_tensor_map_count(const tsr_tensor_map* m);
/**
 * @brief Name of tensor i, 0 <= i < count.
 * @param[in] m the map
 * @param[in] i the index
 * @return Borrowed: valid while m lives. NULL on a NULL map
 * (TSR_ERR_INVALID_ARGUMENT recorded) or i out of range
 * (TSR_ERR_INDEX_OUT_OF_RANGE recorded).
 */
TSR_API const char* tsr_tensor_map_name(const tsr_tensor_map* m, int64_t i);
/**
 * @brief Index of the tensor called name.
 * @param[in] m    the map
 * @param[in] name the name
 * @return the index, or -1 when there is none (nothing recorded) or m/name
 * is NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_tensor_map_find(const tsr_tensor_map* m, const char* name);
/**
 * @brief Tensor i.
 * @param[in]  m   the map
 * @param[in]  i   the index
 * @param[out] out a new handle (one reference) to the map's tensor, so
 *                 writes through it are seen by later gets, as with a
 *                 state_dict's tensors
 * @return TSR_OK; i out of range: TSR_ERR_INDEX_OUT_OF_RANGE; NULL m/out:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_tensor_map_get(const tsr_tensor_map* m, int64_t i, tsr_tensor** out);
/**
 * @brief The tensor called name, as tsr_tensor_map_get().
 * @param[in]  m    the map
 * @param[in]  name the name
 * @param[out] out  a new handle (one reference) to the map's tensor
 * @return TSR_OK; no such tensor: TSR_ERR_INVALID_ARGUMENT ("no tensor named
 * ..."); NULL m/name/out: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_tensor_map_get_by_name(const tsr_tensor_map* m, const char* name,
                                              tsr_tensor** out);

/**
 * @brief Number of the file's "__metadata__" pairs, including the
 * "tessera.compression" entry of a compressed file.
 *
 * The pairs are sorted by key (bytewise).
 * @param[in] m the map
 * @return the count; -1 for NULL m.
 */
TSR_API int64_t tsr_tensor_map_metadata_count(const tsr_tensor_map* m);
/**
 * @brief Key of metadata pair i (pairs sorted by key, bytewise).
 * @param[in] m the map
 * @param[in] i the index
 * @return Borrowed, valid while m lives; NULL (error recorded as for
 * tsr_tensor_map_name()) on a NULL map or i out of range.
 */
TSR_API const char* tsr_tensor_map_metadata_key(const tsr_tensor_map* m, int64_t i);
/**
 * @brief Value of metadata pair i (pairs sorted by key, bytewise).
 * @param[in] m the map
 * @param[in] i the index
 * @return Borrowed, valid while m lives; NULL (error recorded as for
 * tsr_tensor_map_name()) on a NULL map or i out of range.
 */
TSR_API const char* tsr_tensor_map_metadata_value(const tsr_tensor_map* m, int64_t i);
/**
 * @brief Metadata value for key.
 * @param[in] m   the map
 * @param[in] key the key
 * @return Borrowed while m lives; NULL when absent (nothing recorded) or
 * m/key NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API const char* tsr_tensor_map_metadata_get(const tsr_tensor_map* m, const char* key);

#ifdef __cplusplus
}
#endif
#endif /* TESSERA_IO_H */
