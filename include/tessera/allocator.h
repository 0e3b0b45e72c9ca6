/* tessera/allocator.h — the caching allocator: statistics, cache control,
 * memory limit.
 *
 * Every tensor storage tessera allocates (not tsr_from_blob memory) comes from
 * a caching allocator modelled on PyTorch's CUDACachingAllocator, here for CPU
 * memory. It obtains memory from the OS in segments and hands out blocks
 * carved from them; a freed block stays cached for reuse instead of going
 * back to the OS. The rules, which the statistics below expose:
 *   - A request of n bytes becomes a block of n rounded up to a multiple of
 *     512 bytes (at least 512). Blocks are 64-byte aligned.
 *   - Blocks of at most 1 MiB (1048576 bytes) share 2 MiB segments (the
 *     small pool). Larger blocks form the large pool: a block below 10 MiB
 *     gets a 20 MiB segment that later large blocks may share; a block of
 *     10 MiB or more a segment of its size rounded up to a multiple of 2 MiB
 *     (so a request of 10 MiB - 1 byte, whose block is 10 MiB, gets 10 MiB).
 *   - A request takes the smallest cached free block that fits (lowest address
 *     among equals). The rest of the block is split off when it is at least
 *     512 bytes (small pool) or more than 1 MiB (large pool); otherwise the
 *     whole block is allocated, so allocated bytes may exceed the rounded
 *     request.
 *   - A freed block merges with free neighbours in its segment.
 *   - When the OS refuses a segment, or the segment would pass the limit set
 *     by tsr_set_memory_limit, every cached segment with no allocated block is
 *     returned to the OS and the request is retried once; then the call that
 *     allocated fails with TSR_ERR_OUT_OF_MEMORY, whose message gives the
 *     requested bytes, the cause, and the reserved bytes split into allocated
 *     and "reserved but unallocated".
 * Freeing a tensor's memory happens when the last user of its storage is
 * released (tsr_tensor_release / tsr_storage_release).
 *
 * Every function takes (device_type, device_index) like the factories. This
 * build has one device, (TSR_DEVICE_CPU, 0). Common statuses, not repeated:
 *   TSR_ERR_INVALID_ARGUMENT  a device type outside the enum, a NULL out.
 *   TSR_ERR_UNSUPPORTED       TSR_DEVICE_CUDA, or a CPU device index other
 *                             than 0.
 * Out parameters are written only on TSR_OK. All functions are thread-safe;
 * the statistics are read under the allocator's lock, so one call returns a
 * consistent set.
 */
#ifndef TESSERA_ALLOCATOR_H
#define TESSERA_ALLOCATOR_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One tracked quantity, as a stat in torch.cuda.memory_stats. */
typedef struct tsr_memory_stat_t {
  int64_t current;   /* value now */
  int64_t peak;      /* highest value since start or tsr_reset_peak_memory_stats */
  int64_t allocated; /* sum of all increases since start or
                        tsr_reset_accumulated_memory_stats */
  int64_t freed;     /* sum of all decreases, same period */
} tsr_memory_stat_t;

/* The allocator's statistics for one device: torch.cuda.memory_stats()'s
 * "all" entries, with the same names and meanings. Set struct_size to
 * sizeof(tsr_memory_stats_t) before the call (fields are only ever appended;
 * see tsr_memory_stats). */
typedef struct tsr_memory_stats_t {
  size_t struct_size;
  /* Counts. */
  tsr_memory_stat_t allocation;     /* allocated blocks */
  tsr_memory_stat_t segment;        /* segments held (obtained from the OS) */
  tsr_memory_stat_t active;         /* blocks in use; equals allocation on CPU
                                       (CUDA counts blocks awaiting streams) */
  tsr_memory_stat_t inactive_split; /* free blocks inside segments that are
                                       partly in use (fragments) */
  /* Bytes. */
  tsr_memory_stat_t allocated_bytes;      /* sizes of allocated blocks (rounded) */
  tsr_memory_stat_t reserved_bytes;       /* sizes of segments held */
  tsr_memory_stat_t active_bytes;         /* sizes of active blocks */
  tsr_memory_stat_t inactive_split_bytes; /* sizes of inactive split blocks */
  tsr_memory_stat_t requested_bytes;      /* bytes asked for, before rounding */
  /* Events, counted since start or tsr_reset_accumulated_memory_stats. */
  int64_t num_alloc_retries; /* segment refusals retried after freeing cache */
  int64_t num_ooms;          /* TSR_ERR_OUT_OF_MEMORY failures raised */
  int64_t num_device_alloc;  /* segments obtained from the OS */
  int64_t num_device_free;   /* segments returned to the OS */
} tsr_memory_stats_t;

/* torch.cuda.memory_stats. The caller sets out->struct_size to the size of
 * its struct (sizeof(tsr_memory_stats_t) of the header it compiled with).
 * The library writes min(out->struct_size, its own struct size) bytes, never
 * more, and sets out->struct_size to that number: a caller built against an
 * older header gets the fields its struct has, and one built against a newer
 * header can tell which fields an older library filled (bytes past them are
 * left alone). Besides the common statuses: out->struct_size smaller than
 * the end of the first field, offsetof(tsr_memory_stats_t, allocation) +
 * sizeof(tsr_memory_stat_t) = 40 (say, struct_size left 0):
 * TSR_ERR_INVALID_ARGUMENT, *out untouched. */
TSR_API tsr_status tsr_memory_stats(tsr_device_type device_type, int32_t device_index,
                                    tsr_memory_stats_t* out);

/* torch.cuda.memory_allocated: bytes in allocated blocks now
 * (allocated_bytes.current). Rounded sizes: a 1-byte tensor counts 512. */
TSR_API tsr_status tsr_memory_allocated(tsr_device_type device_type, int32_t device_index,
                                        int64_t* out);
/* torch.cuda.max_memory_allocated: allocated_bytes.peak, in bytes. */
TSR_API tsr_status tsr_max_memory_allocated(tsr_device_type device_type,
                                            int32_t device_index, int64_t* out);
/* torch.cuda.memory_reserved: bytes in segments held now, allocated or
 * cached (reserved_bytes.current). */
TSR_API tsr_status tsr_memory_reserved(tsr_device_type device_type, int32_t device_index,
                                       int64_t* out);
/* torch.cuda.max_memory_reserved: reserved_bytes.peak, in bytes. */
TSR_API tsr_status tsr_max_memory_reserved(tsr_device_type device_type,
                                           int32_t device_index, int64_t* out);

/* torch.cuda.reset_peak_memory_stats: every stat's peak becomes its current
 * value. */
TSR_API tsr_status tsr_reset_peak_memory_stats(tsr_device_type device_type,
                                               int32_t device_index);
/* torch.cuda.reset_accumulated_memory_stats: every stat's allocated and freed
 * totals and the four event counters become 0. */
TSR_API tsr_status tsr_reset_accumulated_memory_stats(tsr_device_type device_type,
                                                      int32_t device_index);

/* torch.cuda.empty_cache: returns every cached segment that holds no
 * allocated block to the OS. Memory in use is untouched; a segment partly in
 * use stays whole. Afterwards memory_reserved covers only segments with
 * allocated blocks. */
TSR_API tsr_status tsr_empty_cache(tsr_device_type device_type, int32_t device_index);

/* Caps the device's reserved bytes (the bytes of all segments held), like
 * torch.cuda.set_per_process_memory_fraction but in bytes: a new segment that
 * would take reserved bytes above the cap is treated as refused by the OS
 * (cached segments are freed and the request retried, then
 * TSR_ERR_OUT_OF_MEMORY). bytes == 0 removes the cap (the default). A cap
 * below what is reserved frees nothing by itself; it stops growth. Negative
 * bytes: TSR_ERR_INVALID_ARGUMENT, cap unchanged. Process-wide. */
TSR_API tsr_status tsr_set_memory_limit(tsr_device_type device_type, int32_t device_index,
                                        int64_t bytes);
/* The cap set by tsr_set_memory_limit, in bytes; 0 when there is none. */
TSR_API tsr_status tsr_memory_limit(tsr_device_type device_type, int32_t device_index,
                                    int64_t* out);

#ifdef __cplusplus
}
#endif
#endif
