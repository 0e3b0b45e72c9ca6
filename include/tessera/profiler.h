/**
 * @file tessera/profiler.h
 * @brief A profiler modelled on torch.profiler.
 *
 * @code
 *   tsr_profiler_options o;
 *   tsr_profiler_options_init(&o);
 *   o.record_shapes = true;
 *   tsr_profiler_start(&o);
 *   ... forward, backward, optimizer steps, on any threads ...
 *   tsr_profiler_result* r;
 *   tsr_profiler_stop(&r);
 *   char* text;
 *   tsr_profiler_table(r, "cpu_time_total", 10, &text);   // prof.key_averages().table()
 *   puts(text); tsr_free_string(text);
 *   tsr_profiler_export_chrome_trace(r, "trace.json");    // open in ui.perfetto.dev
 *   tsr_profiler_result_release(r);
 * @endcode
 *
 * While a session runs, every primitive run is one event named as torch
 * names the aten op ("aten::mul", "aten::matmul", "aten::add_"), and every
 * backward node the engine applies is one event named as torch's grad_fn
 * ("MulBackward0", "MmBackward0"; a leaf's accumulation is
 * "torch::autograd::AccumulateGrad"), with the ops of its formula nested
 * inside it. An event has: name; with record_shapes, each input's sizes and
 * strides (elements) and memory format; the device; start and duration
 * (nanoseconds, steady clock); with profile_memory, the net change of the
 * device caching allocator's allocated bytes (rounded block sizes, like
 * memory_stats' allocated_bytes) during it, children included; the OS
 * thread id. Events come from every thread. The allocator's counters are
 * per device, not per thread: with several threads working at once an
 * event's bytes include the other threads' allocations.
 *
 * Cost: with no session running, one relaxed atomic load per primitive run.
 * Only one session runs at a time in a process; start and stop may be called
 * from any thread (thread-safe). Ops still running on other threads when
 * the session stops are not in the result.
 */
#ifndef TESSERA_PROFILER_H
#define TESSERA_PROFILER_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque handle to the events of one profiling session
 * (tsr_profiler_stop()); freed with tsr_profiler_result_release(). */
typedef struct tsr_profiler_result tsr_profiler_result;

/**
 * @brief What a session records (torch.profiler.ProfilerActivity), or-ed
 * into tsr_profiler_options::activities.
 */
typedef enum tsr_profiler_activity {
  /** Ops' host times (always needed: device times hang on the ops) */
  TSR_PROFILER_ACTIVITY_CPU = 1,
  /** The device time of each op on a CUDA tensor: timing events on the
   * current stream around the op's launches (torch's cuda_time_total from
   * CUDA events rather than CUPTI's kernel records); no cost without a
   * CUDA device */
  TSR_PROFILER_ACTIVITY_CUDA = 2
} tsr_profiler_activity;

/**
 * @brief Options of tsr_profiler_start() (torch.profiler.profile's
 * arguments).
 *
 * Set struct_size = sizeof(tsr_profiler_options) or call
 * tsr_profiler_options_init(); fields are only ever appended, a struct_size
 * that does not cover record_shapes is TSR_ERR_INVALID_ARGUMENT.
 */
typedef struct tsr_profiler_options {
  size_t struct_size;  /**< sizeof(tsr_profiler_options) */
  bool record_shapes;  /**< keep inputs' sizes, strides, memory formats; default false */
  bool profile_memory; /**< keep bytes allocated per event; default false */
  /** tsr_profiler_activity bits; default CPU | CUDA (torch's default with a
   * GPU). Appended in 0.3: an older struct_size gets the default. */
  uint32_t activities;
} tsr_profiler_options;

/**
 * @brief Sets the defaults (record_shapes and profile_memory false,
 * activities CPU | CUDA) and struct_size. NULL o is ignored.
 * @param[out] o the options
 */
TSR_API void tsr_profiler_options_init(tsr_profiler_options* o);
/**
 * @brief Starts a session.
 * @param[in] o NULL: the defaults
 * @return TSR_OK; a session already running, a bad struct_size, or
 * activities with bits other than tsr_profiler_activity's:
 * TSR_ERR_INVALID_ARGUMENT (the running session goes on); activities
 * without TSR_PROFILER_ACTIVITY_CPU: TSR_ERR_UNSUPPORTED.
 */
TSR_API tsr_status tsr_profiler_start(const tsr_profiler_options* o);
/**
 * @brief Ends the session.
 * @param[out] out its events (new result, free with
 *                 tsr_profiler_result_release())
 * @return TSR_OK; no session running or NULL out: TSR_ERR_INVALID_ARGUMENT
 * (*out untouched; with NULL out the session goes on);
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_profiler_stop(tsr_profiler_result** out);
/**
 * @brief prof.key_averages(group_by_input_shape=record_shapes).table(sort_by,
 * row_limit) as torch 1.13 prints it.
 *
 * Rows per event name (and per input shapes when the session recorded them)
 * with the columns Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU
 * time avg, [Self CUDA, Self CUDA %, CUDA total, CUDA time avg when an op
 * has device time (CUDA activity)], [CPU Mem, Self CPU Mem with profile_memory; CUDA Mem, Self CUDA
 * Mem when device events allocated], # of Calls, [Input Shapes with
 * record_shapes], then "Self CPU time total: ..." [and "Self CUDA time
 * total: ..."]. An op's CUDA total includes its nested ops' device time;
 * Self CUDA excludes it. Times in torch's format
 * (us/ms/s, 3 decimals), memory in b/Kb/Mb/Gb. "Self" excludes the nested
 * events (a backward node's ops). No events: an empty string.
 * @param[in]  r         the result
 * @param[in]  sort_by   (descending) "self_cpu_time_total" (also for NULL),
 *                       "cpu_time_total", "cpu_time" (average),
 *                       "self_cuda_time_total", "cuda_time_total",
 *                       "cuda_time" (average), "count",
 *                       "cpu_memory_usage", "self_cpu_memory_usage",
 *                       "cuda_memory_usage", "self_cuda_memory_usage"; ties
 *                       keep first-appearance order
 * @param[in]  row_limit < 0: all rows
 * @param[out] text      a NUL-terminated string the caller frees with
 *                       tsr_free_string()
 * @return TSR_OK; NULL r/text or another sort_by: TSR_ERR_INVALID_ARGUMENT
 * (*text untouched); TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_profiler_table(const tsr_profiler_result* r, const char* sort_by, int64_t row_limit,
                                      char** text);

/**
 * @brief prof.key_averages(group_by_input_shape).table(sort_by, row_limit)
 * with torch's default grouping: as tsr_profiler_table(), except that rows
 * are per input shapes, with the "Input Shapes" column, only when
 * group_by_input_shape is true and the session recorded shapes (torch's
 * key_averages() without arguments averages over shapes).
 * @param[in]  r                    the result
 * @param[in]  group_by_input_shape rows per (name, input shapes)
 * @param[in]  sort_by              as tsr_profiler_table()
 * @param[in]  row_limit            < 0: all rows
 * @param[out] text                 freed with tsr_free_string()
 * @return as tsr_profiler_table().
 */
TSR_API tsr_status tsr_profiler_key_averages_table(const tsr_profiler_result* r, bool group_by_input_shape,
                                                   const char* sort_by, int64_t row_limit, char** text);
/**
 * @brief prof.export_chrome_trace(path): Chrome Trace Event JSON.
 *
 * {"traceEvents": [...], "displayTimeUnit": "ns"} with one "ph": "X" event
 * per recorded event (sorted by start): name, cat ("cpu_op" or
 * "backward"), pid, tid, ts and dur in microseconds (fractional), args
 * {"Device", "Backward", and with record_shapes "Input Dims", "Input
 * Strides", "Memory Formats", with profile_memory "Bytes Allocated", "Self
 * Bytes Allocated"}. With CUDA activity, each op's device time is also a
 * "kernel" event on its own track: pid 2^32 + the device index (named
 * "CUDA <index>" by a process_name metadata event), tid the stream id,
 * ts placed by the stream's first device event of the session.
 * chrome://tracing and ui.perfetto.dev open it. The file
 * is written to a temporary in the same directory and renamed over path, so
 * on failure no file (and no partial one) is there and an old file is
 * untouched.
 * @param[in] r    the result
 * @param[in] path the file to write
 * @return TSR_OK; NULL r/path: TSR_ERR_INVALID_ARGUMENT; a path that cannot
 * be written (missing directory, a directory, no permission): TSR_ERR_IO
 * with the path and the system's reason.
 */
TSR_API tsr_status tsr_profiler_export_chrome_trace(const tsr_profiler_result* r, const char* path);
/**
 * @brief Number of events in r.
 * @param[in] r the result
 * @return the count; -1 for NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_profiler_result_num_events(const tsr_profiler_result* r);
/**
 * @brief Frees r; NULL is ignored.
 * @param[in] r the result, or NULL
 */
TSR_API void tsr_profiler_result_release(tsr_profiler_result* r);

/**
 * @brief torch.profiler.record_function(name).__enter__: opens a user range
 * on the calling thread, one event named name (category "user_annotation"
 * in the chrome trace) from here to the matching
 * tsr_profiler_record_function_end(). Ops run in between are its children,
 * so its self time excludes theirs (as torch's).
 *
 * Ranges nest and belong to the thread that opened them; close them on
 * that thread, innermost first. Outside a session a range records nothing
 * but must still be closed, so begin/end pairs stay balanced whether or not
 * a session starts or stops in between (a range open when the session
 * stops is not in its result).
 * @param[in] name the event's name (UTF-8, copied)
 * @return TSR_OK; NULL or empty name: TSR_ERR_INVALID_ARGUMENT (no range is
 * opened); TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_profiler_record_function_begin(const char* name);

/**
 * @brief torch.profiler.record_function's __exit__: closes the calling
 * thread's innermost range (tsr_profiler_record_function_begin()).
 * @return TSR_OK; no range open on this thread: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_profiler_record_function_end(void);

#ifdef __cplusplus
}
#endif
#endif
