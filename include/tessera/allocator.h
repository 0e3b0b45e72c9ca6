/**
 * @file tessera/allocator.h
 * @brief The caching allocator: statistics, cache control, memory limit.
 *
 * Every tensor storage tessera allocates (not tsr_from_blob() memory) comes
 * from a caching allocator modelled on PyTorch's CUDACachingAllocator, here
 * for CPU memory. It obtains memory from the OS in segments and hands out
 * blocks carved from them; a freed block stays cached for reuse instead of
 * going back to the OS. The rules, which the statistics below expose:
 * - A request of n bytes becomes a block of n rounded up to a multiple of
 *   512 bytes (at least 512). Blocks are 64-byte aligned.
 * - Blocks of at most 1 MiB (1048576 bytes) share 2 MiB segments (the
 *   small pool). Larger blocks form the large pool: a block below 10 MiB
 *   gets a 20 MiB segment that later large blocks may share; a block of
 *   10 MiB or more a segment of its size rounded up to a multiple of 2 MiB
 *   (so a request of 10 MiB - 1 byte, whose block is 10 MiB, gets 10 MiB).
 * - A request takes the smallest cached free block that fits (lowest
 *   address among equals). The rest of the block is split off when it is at
 *   least 512 bytes (small pool) or more than 1 MiB (large pool); otherwise
 *   the whole block is allocated, so allocated bytes may exceed the rounded
 *   request.
 * - A freed block merges with free neighbours in its segment.
 * - When the OS refuses a segment, or the segment would pass the limit set
 *   by tsr_set_memory_limit(), every cached segment with no allocated block
 *   is returned to the OS and the request is retried once; then the call
 *   that allocated fails with TSR_ERR_OUT_OF_MEMORY, whose message gives the
 *   requested bytes, the cause, and the reserved bytes split into allocated
 *   and "reserved but unallocated".
 *
 * Freeing a tensor's memory happens when the last user of its storage is
 * released (tsr_tensor_release() / tsr_storage_release()).
 *
 * Every function takes (device_type, device_index) like the factories: the
 * CPU is (TSR_DEVICE_CPU, 0); each CUDA device the plugin sees has its own
 * allocator, (TSR_DEVICE_CUDA, i). Common statuses, not repeated:
 * - TSR_ERR_INVALID_ARGUMENT: a device type outside the enum, a NULL out.
 * - TSR_ERR_UNSUPPORTED: TSR_DEVICE_CUDA without a usable CUDA plugin (no
 *   plugin, driver or GPU; tsr_cuda_is_available()) or with an index at or
 *   past tsr_cuda_device_count(), or a CPU device index other than 0.
 *
 * Out parameters are written only on TSR_OK. All functions are thread-safe;
 * the statistics are read under the allocator's lock, so one call returns a
 * consistent set.
 *
 * @anchor alloc_conf
 * <b>Settings (TSR_ALLOC_CONF).</b> The caching allocator's settings,
 * PyTorch's PYTORCH_CUDA_ALLOC_CONF keys and syntax, "key:value,key:value",
 * for every device:
 * - `max_split_size_mb:N`: blocks of N MiB or more are never split, and
 *   serve only requests within 20 MiB of their size (N >= 20; default
 *   unlimited).
 * - `roundup_power2_divisions:D | [S:D,S:D,...,>:D]`: round requests up to
 *   one of D equal steps between two powers of two (D a power of two; 0 or
 *   1: no rounding), for all sizes or per size interval of S MiB (S a power
 *   of two; '>' means every larger interval).
 * - `garbage_collection_threshold:T`: 0 < T < 1: while a memory limit is
 *   set (tsr_set_memory_limit()), reserved memory above T * limit makes the
 *   allocator return cached whole segments, least recently used first,
 *   without waiting for streams.
 * - `expandable_segments:True|False`: one growing segment per stream and
 *   pool: address space reserved once, pages mapped as needed and unmapped
 *   by tsr_empty_cache(), so memory freed in one place serves requests of
 *   any size later.
 *
 * The environment variable TSR_ALLOC_CONF is read at the first allocation;
 * while it is invalid, every allocation fails with TSR_ERR_INVALID_ARGUMENT
 * and its message (naming the key), until tsr_set_allocator_settings() sets
 * a valid text.
 */
#ifndef TESSERA_ALLOCATOR_H
#define TESSERA_ALLOCATOR_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One tracked quantity, as a stat in torch.cuda.memory_stats. */
typedef struct tsr_memory_stat_t {
  int64_t current;   /**< value now */
  int64_t peak;      /**< highest value since start or tsr_reset_peak_memory_stats */
  int64_t allocated; /**< sum of all increases since start or
                        tsr_reset_accumulated_memory_stats */
  int64_t freed;     /**< sum of all decreases, same period */
} tsr_memory_stat_t;

/**
 * @brief The allocator's statistics for one device: torch.cuda.memory_stats()'s
 * "all" entries, with the same names and meanings.
 *
 * Set struct_size to sizeof(tsr_memory_stats_t) before the call (fields are
 * only ever appended; see tsr_memory_stats()). Per-pool statistics are in
 * the "stats" object of tsr_memory_snapshot(), under PyTorch's flat key
 * names.
 */
typedef struct tsr_memory_stats_t {
  size_t struct_size; /**< sizeof(tsr_memory_stats_t); set by the caller */
  /* Counts. */
  tsr_memory_stat_t allocation;     /**< count: allocated blocks */
  tsr_memory_stat_t segment;        /**< count: segments held (obtained from the OS) */
  tsr_memory_stat_t active;         /**< count: blocks in use; equals allocation on CPU
                                       (CUDA counts blocks awaiting streams) */
  tsr_memory_stat_t inactive_split; /**< count: free blocks inside segments that are
                                       partly in use (fragments) */
  /* Bytes. */
  tsr_memory_stat_t allocated_bytes;      /**< bytes: sizes of allocated blocks (rounded) */
  tsr_memory_stat_t reserved_bytes;       /**< bytes: sizes of segments held */
  tsr_memory_stat_t active_bytes;         /**< bytes: sizes of active blocks */
  tsr_memory_stat_t inactive_split_bytes; /**< bytes: sizes of inactive split blocks */
  tsr_memory_stat_t requested_bytes;      /**< bytes asked for, before rounding */
  /* Events, counted since start or tsr_reset_accumulated_memory_stats. */
  int64_t num_alloc_retries; /**< event count (since start or tsr_reset_accumulated_memory_stats):
                                  segment refusals retried after freeing cache */
  int64_t num_ooms;          /**< event count: TSR_ERR_OUT_OF_MEMORY failures raised */
  int64_t num_device_alloc;  /**< event count: segments obtained from the OS */
  int64_t num_device_free;   /**< event count: segments returned to the OS */
  /** Appended in 0.2: blocks of at least max_split_size bytes
   * (TSR_ALLOC_CONF max_split_size_mb), which are never split. */
  tsr_memory_stat_t oversize_allocations;
  /** Appended in 0.2: segments of at least max_split_size bytes. */
  tsr_memory_stat_t oversize_segments;
  int64_t num_sync_all_streams; /**< waits for every outstanding stream event
                                   (tsr_empty_cache, out-of-memory retries) */
  int64_t max_split_size;       /**< bytes; -1 when unlimited (the default) */
} tsr_memory_stats_t;

/**
 * @brief torch.cuda.memory_stats.
 *
 * The library writes min(out->struct_size, its own struct size) bytes,
 * never more, and sets out->struct_size to that number: a caller built
 * against an older header gets the fields its struct has, and one built
 * against a newer header can tell which fields an older library filled
 * (bytes past them are left alone).
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[in,out] out       the caller sets out->struct_size to the size of
 *                          its struct (sizeof(tsr_memory_stats_t) of the
 *                          header it compiled with)
 * @return TSR_OK; besides the common statuses: out->struct_size smaller than
 * the end of the first field, offsetof(tsr_memory_stats_t, allocation) +
 * sizeof(tsr_memory_stat_t) = 40 (say, struct_size left 0):
 * TSR_ERR_INVALID_ARGUMENT, *out untouched.
 */
TSR_API tsr_status tsr_memory_stats(tsr_device_type device_type, int32_t device_index,
                                    tsr_memory_stats_t* out);

/**
 * @brief torch.cuda.memory_allocated: bytes in allocated blocks now
 * (allocated_bytes.current). Rounded sizes: a 1-byte tensor counts 512.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          the bytes
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_memory_allocated(tsr_device_type device_type, int32_t device_index,
                                        int64_t* out);
/**
 * @brief torch.cuda.max_memory_allocated: allocated_bytes.peak, in bytes.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          the bytes
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_max_memory_allocated(tsr_device_type device_type,
                                            int32_t device_index, int64_t* out);
/**
 * @brief torch.cuda.memory_reserved: bytes in segments held now, allocated
 * or cached (reserved_bytes.current).
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          the bytes
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_memory_reserved(tsr_device_type device_type, int32_t device_index,
                                       int64_t* out);
/**
 * @brief torch.cuda.max_memory_reserved: reserved_bytes.peak, in bytes.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          the bytes
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_max_memory_reserved(tsr_device_type device_type,
                                           int32_t device_index, int64_t* out);

/**
 * @brief torch.cuda.reset_peak_memory_stats: every stat's peak becomes its
 * current value.
 * @param[in] device_type  the device type
 * @param[in] device_index the device index
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_reset_peak_memory_stats(tsr_device_type device_type,
                                               int32_t device_index);
/**
 * @brief torch.cuda.reset_accumulated_memory_stats: every stat's allocated
 * and freed totals and the four event counters become 0.
 * @param[in] device_type  the device type
 * @param[in] device_index the device index
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_reset_accumulated_memory_stats(tsr_device_type device_type,
                                                      int32_t device_index);

/**
 * @brief torch.cuda.empty_cache: returns every cached segment that holds no
 * allocated block to the OS.
 *
 * Memory in use is untouched; a segment partly in use stays whole.
 * Afterwards memory_reserved covers only segments with allocated blocks.
 * @param[in] device_type  the device type
 * @param[in] device_index the device index
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_empty_cache(tsr_device_type device_type, int32_t device_index);

/**
 * @brief Caps the device's reserved bytes (the bytes of all segments held),
 * like torch.cuda.set_per_process_memory_fraction but in bytes.
 *
 * A new segment that would take reserved bytes above the cap is treated as
 * refused by the OS (cached segments are freed and the request retried, then
 * TSR_ERR_OUT_OF_MEMORY). A cap below what is reserved frees nothing by
 * itself; it stops growth. Process-wide.
 * @param[in] device_type  the device type
 * @param[in] device_index the device index
 * @param[in] bytes        the cap; 0 removes the cap (the default)
 * @return TSR_OK; negative bytes: TSR_ERR_INVALID_ARGUMENT, cap unchanged;
 * the common statuses.
 */
TSR_API tsr_status tsr_set_memory_limit(tsr_device_type device_type, int32_t device_index,
                                        int64_t bytes);
/**
 * @brief The cap set by tsr_set_memory_limit(), in bytes; 0 when there is
 * none.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] out          the cap
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_memory_limit(tsr_device_type device_type, int32_t device_index,
                                    int64_t* out);

/* ---- settings (TSR_ALLOC_CONF): see the file comment ----------------------- */

/**
 * @brief torch.cuda.memory._set_allocator_settings: replaces all settings
 * with those of text (see @ref alloc_conf "TSR_ALLOC_CONF").
 *
 * Keys not named take their defaults; "" restores every default. Applies to
 * later allocations on every device; blocks already cached keep their
 * sizes.
 * @param[in] text "key:value,key:value"
 * @return TSR_OK; unknown keys, bad values and malformed text:
 * TSR_ERR_INVALID_ARGUMENT naming the key and the accepted values; nothing
 * changes. NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_set_allocator_settings(const char* text);
/**
 * @brief The text of the settings in force ("" for the defaults).
 * @param[out] out caller frees with tsr_free_string()
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT with the parse error while
 * TSR_ALLOC_CONF is invalid and nothing was set; NULL out:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_allocator_settings(char** out);

/* ---- history, snapshots, summary ------------------------------------------ */

/**
 * @brief torch.cuda.memory._record_memory_history(enabled, max_entries).
 *
 * While enabled, the device's allocator keeps the newest max_entries trace
 * entries (alloc, free_requested, free_completed, segment_alloc,
 * segment_free, segment_map, segment_unmap, oom, snapshot) with address,
 * size in bytes, stream, time and label. Disabling drops the entries.
 * @param[in] device_type  the device type
 * @param[in] device_index the device index
 * @param[in] enabled      on or off
 * @param[in] max_entries  entries kept, >= 1 when enabled
 * @return TSR_OK; enabled with max_entries < 1: TSR_ERR_INVALID_ARGUMENT;
 * the common statuses.
 */
TSR_API tsr_status tsr_memory_record_history(tsr_device_type device_type, int32_t device_index,
                                             bool enabled, int64_t max_entries);
/**
 * @brief The label of the calling thread's later trace entries (PyTorch's
 * _set_memory_metadata), e.g. a phase or layer name.
 *
 * Without a label, entries carry the op that allocated ("matmul", "mul").
 * @param[in] label NUL-terminated UTF-8 (copied; invalid bytes show as
 *                  U+FFFD in the snapshot JSON); NULL or "" clears it
 * @return TSR_OK; fails only when the copy cannot be allocated
 * (TSR_ERR_OUT_OF_MEMORY).
 */
TSR_API tsr_status tsr_memory_set_trace_label(const char* label);

/**
 * @brief torch.cuda.memory._snapshot() as UTF-8 JSON.
 *
 * The device's segments (address, total_size, stream, segment_type
 * "small"/"large", is_expandable, allocated/active/requested sizes) with
 * every block (address, size, requested_size, state "active_allocated" /
 * "active_pending_free" / "inactive"), the trace ("device_traces"), the
 * settings ("allocator_settings") and the statistics ("stats",
 * torch.cuda.memory_stats' flat keys). Block sizes of all segments sum to
 * reserved_bytes.current; those of active_allocated blocks to
 * allocated_bytes.current. docs/MEMORY.md lists every field. Adds a
 * "snapshot" trace entry. tessera-memviz turns it into a page.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] json         caller frees with tsr_free_string()
 * @return TSR_OK; the common statuses; TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_memory_snapshot(tsr_device_type device_type, int32_t device_index,
                                       char** json);
/**
 * @brief torch.cuda.memory_summary(): the statistics as a text table, rows
 * per quantity and pool, columns current / peak / allocated / freed.
 * @param[in]  device_type  the device type
 * @param[in]  device_index the device index
 * @param[out] text         caller frees with tsr_free_string()
 * @return TSR_OK; the common statuses; TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_memory_summary(tsr_device_type device_type, int32_t device_index,
                                      char** text);

#ifdef __cplusplus
}
#endif
#endif
