/* Streams, events and record_stream (stream.h) on the CPU, through the public
 * API only.
 *
 * CPU work is synchronous: every stream is always idle and an event has
 * completed when it is recorded. The stream rules of the caching allocator
 * still hold: each stream has its own pool of cached blocks, and memory
 * recorded on another stream is reused after that stream's event completed
 * (at once on the CPU). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc_helpers.h"

static int64_t stream_id(const tsr_stream* s) {
  int64_t id = -99;
  TSR_ASSERT_OK(tsr_stream_info(s, NULL, NULL, &id));
  return id;
}

static int64_t current_id(void) {
  tsr_stream* s = NULL;
  TSR_ASSERT_OK(tsr_stream_current(TSR_CPU, &s));
  int64_t id = stream_id(s);
  tsr_stream_release(s);
  return id;
}

/* Tests that change the current stream put the default back. */
static void restore_default_stream(void) {
  tsr_stream* d = NULL;
  if (tsr_stream_default(TSR_CPU, &d) == TSR_OK) {
    tsr_stream_set_current(d);
    tsr_stream_release(d);
  }
  tsr_empty_cache(TSR_CPU);
}

#define STREAM_SENTINEL ((tsr_stream*)(uintptr_t)0x5e5e5e5e)

/* ---- streams -------------------------------------------------------------- */

Test(streams, default_stream_is_id_0_and_current_by_default) {
  tsr_stream* d = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  tsr_device_type type = (tsr_device_type)0;
  int32_t index = -1;
  int64_t id = -1;
  TSR_ASSERT_OK(tsr_stream_info(d, &type, &index, &id));
  cr_assert_eq(type, TSR_DEVICE_CPU);
  cr_assert_eq(index, 0);
  cr_assert_eq(id, 0);
  cr_assert_eq(current_id(), 0);
  /* Every out may be NULL. */
  TSR_ASSERT_OK(tsr_stream_info(d, NULL, NULL, NULL));
  tsr_stream_release(d);
}

Test(streams, created_streams_are_distinct_and_not_default) {
  tsr_stream *a = NULL, *b = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &b));
  tsr_device_type type = (tsr_device_type)0;
  int32_t index = -1;
  TSR_ASSERT_OK(tsr_stream_info(a, &type, &index, NULL));
  cr_assert_eq(type, TSR_DEVICE_CPU);
  cr_assert_eq(index, 0);
  cr_assert_neq(stream_id(a), 0);
  cr_assert_neq(stream_id(b), 0);
  cr_assert_neq(stream_id(a), stream_id(b));
  /* Creating a stream does not make it current. */
  cr_assert_eq(current_id(), 0);
  tsr_stream_release(a);
  tsr_stream_release(b);
}

Test(streams, set_current_changes_this_threads_current_stream, .fini = restore_default_stream) {
  tsr_stream* a = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  const int64_t ida = stream_id(a);
  TSR_ASSERT_OK(tsr_stream_set_current(a));
  cr_assert_eq(current_id(), ida);
  /* The handle names the stream; releasing it keeps the stream current. */
  tsr_stream_release(a);
  cr_assert_eq(current_id(), ida);
  tsr_stream* d = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  TSR_ASSERT_OK(tsr_stream_set_current(d));
  cr_assert_eq(current_id(), 0);
  tsr_stream_release(d);
}

struct thread_view {
  int64_t seen_before; /* the thread's current stream when it starts */
  int64_t set_to;      /* the stream it makes current */
  int64_t seen_after;
  int ok;
};

static void* other_thread(void* arg) {
  struct thread_view* v = arg;
  tsr_stream* s = NULL;
  v->ok = 0;
  if (tsr_stream_current(TSR_CPU, &s) != TSR_OK) return NULL;
  tsr_stream_info(s, NULL, NULL, &v->seen_before);
  tsr_stream_release(s);
  if (tsr_stream_create(TSR_CPU, &s) != TSR_OK) return NULL;
  tsr_stream_info(s, NULL, NULL, &v->set_to);
  if (tsr_stream_set_current(s) != TSR_OK) return NULL;
  tsr_stream_release(s);
  if (tsr_stream_current(TSR_CPU, &s) != TSR_OK) return NULL;
  tsr_stream_info(s, NULL, NULL, &v->seen_after);
  tsr_stream_release(s);
  v->ok = 1;
  return NULL;
}

Test(streams, current_stream_is_per_thread, .fini = restore_default_stream) {
  tsr_stream* a = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  const int64_t ida = stream_id(a);
  TSR_ASSERT_OK(tsr_stream_set_current(a));
  tsr_stream_release(a);

  struct thread_view v = {-1, -1, -1, 0};
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, other_thread, &v), 0);
  pthread_join(th, NULL);
  cr_assert(v.ok, "the thread's calls failed");
  /* A new thread starts on the default stream, not this thread's. */
  cr_assert_eq(v.seen_before, 0);
  cr_assert_neq(v.set_to, 0);
  cr_assert_neq(v.set_to, ida);
  cr_assert_eq(v.seen_after, v.set_to);
  /* Its set_current did not change this thread's. */
  cr_assert_eq(current_id(), ida);
}

Test(streams, cpu_streams_are_always_done) {
  tsr_stream *d = NULL, *a = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  tsr_tensor* x = bytes_tensor(1000);
  tsr_tensor* y = NULL;
  TSR_ASSERT_OK(tsr_add(x, x, &y));
  bool done = false;
  TSR_ASSERT_OK(tsr_stream_query(d, &done));
  cr_assert(done);
  done = false;
  TSR_ASSERT_OK(tsr_stream_query(a, &done));
  cr_assert(done);
  TSR_ASSERT_OK(tsr_stream_synchronize(d));
  TSR_ASSERT_OK(tsr_stream_synchronize(a));
  TSR_ASSERT_OK(tsr_device_synchronize(TSR_CPU));
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_stream_release(d);
  tsr_stream_release(a);
}

Test(streams, retain_and_release_count_references) {
  tsr_stream* s = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &s));
  tsr_stream_retain(s);
  tsr_stream_retain(s);
  tsr_stream_release(s);
  tsr_stream_release(s);
  /* Still alive: one reference left. */
  cr_assert_neq(stream_id(s), 0);
  tsr_stream_release(s);
  tsr_stream_release(NULL);
  tsr_stream_retain(NULL);

  tsr_event* e = NULL;
  TSR_ASSERT_OK(tsr_event_create(false, &e));
  tsr_event_retain(e);
  tsr_event_release(e);
  bool done = false;
  TSR_ASSERT_OK(tsr_event_query(e, &done));
  cr_assert(done);
  tsr_event_release(e);
  tsr_event_release(NULL);
  tsr_event_retain(NULL);
}

/* ---- stream errors ---------------------------------------------------------- */

typedef tsr_status (*stream_factory)(tsr_device_type, int32_t, tsr_stream**);

Test(streams, bad_devices_and_null_outs) {
  static const stream_factory factories[] = {tsr_stream_create, tsr_stream_default,
                                             tsr_stream_current};
  for (size_t i = 0; i < sizeof factories / sizeof factories[0]; ++i) {
    tsr_stream* out = STREAM_SENTINEL;
    TSR_ASSERT_FAILS(factories[i](TSR_DEVICE_CUDA, 0, &out), TSR_ERR_UNSUPPORTED, "CUDA");
    TSR_ASSERT_FAILS(factories[i](TSR_DEVICE_CUDA_HOST, 0, &out), TSR_ERR_UNSUPPORTED, "CUDA");
    TSR_ASSERT_FAILS(factories[i]((tsr_device_type)7, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                     "invalid device type 7");
    TSR_ASSERT_FAILS(factories[i]((tsr_device_type)0, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                     "invalid device type 0");
    TSR_ASSERT_FAILS(factories[i](TSR_DEVICE_CPU, 1, &out), TSR_ERR_UNSUPPORTED,
                     "CPU device index must be 0, got 1");
    TSR_ASSERT_FAILS(factories[i](TSR_DEVICE_CPU, -1, &out), TSR_ERR_UNSUPPORTED, "got -1");
    cr_assert_eq(out, STREAM_SENTINEL, "factory %zu wrote its out on failure", i);
    TSR_ASSERT_FAILS(factories[i](TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  }
  TSR_ASSERT_FAILS(tsr_device_synchronize(TSR_DEVICE_CUDA, 0), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_device_synchronize(TSR_DEVICE_CUDA_HOST, 0), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_device_synchronize((tsr_device_type)9, 0), TSR_ERR_INVALID_ARGUMENT,
                   "invalid device type 9");
  TSR_ASSERT_FAILS(tsr_device_synchronize(TSR_DEVICE_CPU, 3), TSR_ERR_UNSUPPORTED, "got 3");
}

Test(streams, null_stream_handles_and_outs, .fini = restore_default_stream) {
  TSR_ASSERT_FAILS(tsr_stream_set_current(NULL), TSR_ERR_INVALID_ARGUMENT, "stream");
  cr_assert_eq(current_id(), 0);
  TSR_ASSERT_FAILS(tsr_stream_synchronize(NULL), TSR_ERR_INVALID_ARGUMENT, "stream");
  bool done = false;
  TSR_ASSERT_FAILS(tsr_stream_query(NULL, &done), TSR_ERR_INVALID_ARGUMENT, "stream");
  cr_assert(!done, "done written on failure");
  tsr_stream* d = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  TSR_ASSERT_FAILS(tsr_stream_query(d, NULL), TSR_ERR_INVALID_ARGUMENT, "done");
  tsr_device_type type = (tsr_device_type)42;
  int32_t index = 42;
  int64_t id = 42;
  TSR_ASSERT_FAILS(tsr_stream_info(NULL, &type, &index, &id), TSR_ERR_INVALID_ARGUMENT,
                   "stream");
  cr_assert_eq((int)type, 42);
  cr_assert_eq(index, 42);
  cr_assert_eq(id, 42);
  tsr_stream_release(d);
}

/* ---- events ----------------------------------------------------------------- */

Test(events, unrecorded_event_is_done_and_synchronizes_at_once) {
  tsr_event* e = NULL;
  TSR_ASSERT_OK(tsr_event_create(true, &e));
  bool done = false;
  TSR_ASSERT_OK(tsr_event_query(e, &done));
  cr_assert(done);
  TSR_ASSERT_OK(tsr_event_synchronize(e));
  tsr_event_release(e);
}

Test(events, recorded_cpu_event_has_completed) {
  tsr_stream *d = NULL, *a = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  tsr_event* e = NULL;
  TSR_ASSERT_OK(tsr_event_create(false, &e));
  TSR_ASSERT_OK(tsr_event_record(e, d));
  bool done = false;
  TSR_ASSERT_OK(tsr_event_query(e, &done));
  cr_assert(done);
  TSR_ASSERT_OK(tsr_event_synchronize(e));
  /* Recorded again, on another stream of the same device: fine. */
  TSR_ASSERT_OK(tsr_event_record(e, a));
  done = false;
  TSR_ASSERT_OK(tsr_event_query(e, &done));
  cr_assert(done);
  TSR_ASSERT_OK(tsr_event_synchronize(e));
  tsr_event_release(e);
  tsr_stream_release(d);
  tsr_stream_release(a);
}

/* Some CPU work between two records. */
static double busy_work(void) {
  int64_t n = 200000;
  tsr_tensor *x = NULL, *y = NULL;
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT64, TSR_CPU, &x));
  double acc = 0;
  for (int i = 0; i < 20; ++i) {
    TSR_ASSERT_OK(tsr_add(x, x, &y));
    acc += ((const double*)tsr_tensor_data_ptr(y))[i];
    tsr_tensor_release(y);
  }
  tsr_tensor_release(x);
  return acc;
}

Test(events, elapsed_time_between_two_timed_records) {
  tsr_stream* s = NULL;
  TSR_ASSERT_OK(tsr_stream_current(TSR_CPU, &s));
  tsr_event *start = NULL, *end = NULL;
  TSR_ASSERT_OK(tsr_event_create(true, &start));
  TSR_ASSERT_OK(tsr_event_create(true, &end));
  TSR_ASSERT_OK(tsr_event_record(start, s));
  cr_assert_eq(busy_work(), 40.0);
  TSR_ASSERT_OK(tsr_event_record(end, s));
  TSR_ASSERT_OK(tsr_event_synchronize(end));
  double ms = -1;
  TSR_ASSERT_OK(tsr_event_elapsed_time(start, end, &ms));
  cr_assert_geq(ms, 0.0);
  cr_assert_lt(ms, 60000.0);
  /* An event against itself: no time passed. */
  double self = -1;
  TSR_ASSERT_OK(tsr_event_elapsed_time(start, start, &self));
  cr_assert_eq(self, 0.0);
  /* The newest record counts. */
  TSR_ASSERT_OK(tsr_event_record(start, s));
  double later = 1;
  TSR_ASSERT_OK(tsr_event_elapsed_time(end, start, &later));
  cr_assert_geq(later, 0.0);
  tsr_event_release(start);
  tsr_event_release(end);
  tsr_stream_release(s);
}

Test(events, elapsed_time_errors_leave_ms_alone) {
  tsr_stream* s = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &s));
  tsr_event *timed = NULL, *timed2 = NULL, *plain = NULL, *unrecorded = NULL;
  TSR_ASSERT_OK(tsr_event_create(true, &timed));
  TSR_ASSERT_OK(tsr_event_create(true, &timed2));
  TSR_ASSERT_OK(tsr_event_create(false, &plain));
  TSR_ASSERT_OK(tsr_event_create(true, &unrecorded));
  TSR_ASSERT_OK(tsr_event_record(timed, s));
  TSR_ASSERT_OK(tsr_event_record(timed2, s));
  TSR_ASSERT_OK(tsr_event_record(plain, s));

  double ms = -7;
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(plain, timed, &ms), TSR_ERR_INVALID_ARGUMENT,
                   "enable_timing");
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(timed, plain, &ms), TSR_ERR_INVALID_ARGUMENT,
                   "enable_timing");
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(unrecorded, timed, &ms), TSR_ERR_INVALID_ARGUMENT,
                   "recorded");
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(timed, unrecorded, &ms), TSR_ERR_INVALID_ARGUMENT,
                   "recorded");
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(NULL, timed, &ms), TSR_ERR_INVALID_ARGUMENT, "start");
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(timed, NULL, &ms), TSR_ERR_INVALID_ARGUMENT, "end");
  cr_assert_eq(ms, -7.0, "ms written on failure");
  TSR_ASSERT_FAILS(tsr_event_elapsed_time(timed, timed2, NULL), TSR_ERR_INVALID_ARGUMENT, "ms");
  TSR_ASSERT_OK(tsr_event_elapsed_time(timed, timed2, &ms));
  cr_assert_geq(ms, 0.0);

  tsr_event_release(timed);
  tsr_event_release(timed2);
  tsr_event_release(plain);
  tsr_event_release(unrecorded);
  tsr_stream_release(s);
}

Test(events, null_handles_and_outs) {
  TSR_ASSERT_FAILS(tsr_event_create(true, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  tsr_stream* s = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &s));
  tsr_event* e = NULL;
  TSR_ASSERT_OK(tsr_event_create(false, &e));
  TSR_ASSERT_FAILS(tsr_event_record(NULL, s), TSR_ERR_INVALID_ARGUMENT, "event");
  TSR_ASSERT_FAILS(tsr_event_record(e, NULL), TSR_ERR_INVALID_ARGUMENT, "stream");
  bool done = false;
  TSR_ASSERT_FAILS(tsr_event_query(NULL, &done), TSR_ERR_INVALID_ARGUMENT, "event");
  cr_assert(!done, "done written on failure");
  TSR_ASSERT_FAILS(tsr_event_query(e, NULL), TSR_ERR_INVALID_ARGUMENT, "done");
  TSR_ASSERT_FAILS(tsr_event_synchronize(NULL), TSR_ERR_INVALID_ARGUMENT, "event");
  /* A failed record left e unrecorded: it is still done, no time to take. */
  TSR_ASSERT_OK(tsr_event_query(e, &done));
  cr_assert(done);
  tsr_event_release(e);
  tsr_stream_release(s);
}

/* ---- record_stream and per-stream pools -------------------------------------- */

Test(record_stream, cpu_memory_is_reused_at_once_after_release, .fini = restore_default_stream) {
  tsr_memory_stats_t b = baseline();
  tsr_stream* other = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &other));
  tsr_tensor* t = bytes_tensor(4 * KIB);
  void* p = tsr_tensor_data_ptr(t);
  TSR_ASSERT_OK(tsr_record_stream(t, other));
  TSR_ASSERT_OK(tsr_record_stream(t, other)); /* twice: the same stream once */
  tsr_tensor_release(t);

  /* The CPU event recorded at free time has completed: the block is free,
   * as if record_stream had not been called (allocator.h: active equals
   * allocation on the CPU). */
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.allocation.current, b.allocation.current);
  cr_assert_eq(s.allocated_bytes.current, b.allocated_bytes.current);
  cr_assert_eq(s.active.current, s.allocation.current, "active %lld, allocation %lld",
               (long long)s.active.current, (long long)s.allocation.current);
  cr_assert_eq(s.active_bytes.current, s.allocated_bytes.current);
  cr_assert_eq(s.requested_bytes.current, b.requested_bytes.current);

  tsr_tensor* u = bytes_tensor(4 * KIB);
  cr_assert_eq(tsr_tensor_data_ptr(u), p, "the block was not reused");
  s = stats();
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 1);
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current, 4 * KIB);
  cr_assert_eq(s.active_bytes.current, s.allocated_bytes.current);
  cr_assert_eq(s.active.current, s.allocation.current);
  tsr_tensor_release(u);

  /* Nothing was left waiting: empty_cache has no events to wait for. */
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.num_sync_all_streams, b.num_sync_all_streams);
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
  cr_assert_eq(s.active.current, b.active.current);
  tsr_stream_release(other);
}

Test(record_stream, own_stream_does_nothing_and_views_share_storage) {
  tsr_memory_stats_t b = baseline();
  tsr_stream* d = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  tsr_tensor* t = bytes_tensor(8 * KIB);
  void* p = tsr_tensor_data_ptr(t);
  int64_t n = 2 * KIB;
  tsr_tensor* v = NULL;
  TSR_ASSERT_OK(tsr_narrow(t, 0, 1024, n, &v));
  TSR_ASSERT_OK(tsr_record_stream(v, d)); /* the allocation's own stream */
  tsr_tensor_release(t);
  tsr_tensor_release(v);
  tsr_tensor* u = bytes_tensor(8 * KIB);
  cr_assert_eq(tsr_tensor_data_ptr(u), p);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.active.current - b.active.current, 1);
  tsr_tensor_release(u);
  tsr_stream_release(d);
}

static void noop_deleter(void* data, void* ctx) {
  (void)data;
  (void)ctx;
}

Test(record_stream, errors) {
  tsr_stream* d = NULL;
  TSR_ASSERT_OK(tsr_stream_default(TSR_CPU, &d));
  static float buf[16];
  int64_t n = 16;
  tsr_tensor* blob = NULL;
  TSR_ASSERT_OK(tsr_from_blob(buf, 1, &n, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, noop_deleter, NULL,
                              &blob));
  TSR_ASSERT_FAILS(tsr_record_stream(blob, d), TSR_ERR_INVALID_ARGUMENT,
                   "not allocated by tessera");
  tsr_tensor* t = bytes_tensor(100);
  TSR_ASSERT_FAILS(tsr_record_stream(NULL, d), TSR_ERR_INVALID_ARGUMENT, "");
  TSR_ASSERT_FAILS(tsr_record_stream(t, NULL), TSR_ERR_INVALID_ARGUMENT, "stream");
  tsr_tensor_release(t);
  tsr_tensor_release(blob);
  tsr_stream_release(d);
}

Test(record_stream, zero_byte_tensor_is_fine) {
  tsr_stream* a = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  int64_t zero = 0;
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_empty(1, &zero, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_record_stream(t, a));
  tsr_tensor_release(t);
  tsr_stream_release(a);
}

/* Each stream has its own cached blocks: a block freed while stream A was
 * current is not handed out while B is current (a new segment for B), and
 * serves A again. */
Test(record_stream, allocations_come_from_the_current_streams_pool,
     .fini = restore_default_stream) {
  tsr_memory_stats_t b = baseline();
  tsr_stream *a = NULL, *bs = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &bs));

  TSR_ASSERT_OK(tsr_stream_set_current(a));
  tsr_tensor* x = bytes_tensor(4 * KIB);
  void* pa = tsr_tensor_data_ptr(x);
  tsr_tensor_release(x);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 2 * MIB);

  TSR_ASSERT_OK(tsr_stream_set_current(bs));
  tsr_tensor* y = bytes_tensor(4 * KIB);
  s = stats();
  cr_assert_neq(tsr_tensor_data_ptr(y), pa, "stream B got stream A's cached block");
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB);
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 2);
  /* A large request on B does not take A's cached memory either. */
  tsr_tensor* big = bytes_tensor(3 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB + 20 * MIB);

  TSR_ASSERT_OK(tsr_stream_set_current(a));
  tsr_tensor* z = bytes_tensor(4 * KIB);
  cr_assert_eq(tsr_tensor_data_ptr(z), pa, "stream A's cached block was not reused");
  s = stats();
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 3);

  /* Memory stays with the stream it was allocated on: y, freed while A is
   * current, still serves B only. */
  void* pb = tsr_tensor_data_ptr(y);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_stream_set_current(bs));
  tsr_tensor* w = bytes_tensor(4 * KIB);
  cr_assert_eq(tsr_tensor_data_ptr(w), pb);
  s = stats();
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 3);

  tsr_tensor_release(w);
  tsr_tensor_release(z);
  tsr_tensor_release(big);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
  tsr_stream_release(a);
  tsr_stream_release(bs);
}

/* A tensor allocated on A and recorded on B, freed while B is current: it
 * returns to A's pool once B's (completed) event is seen. */
Test(record_stream, recorded_block_returns_to_its_own_stream, .fini = restore_default_stream) {
  tsr_memory_stats_t b = baseline();
  tsr_stream *a = NULL, *bs = NULL;
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_stream_create(TSR_CPU, &bs));
  TSR_ASSERT_OK(tsr_stream_set_current(a));
  tsr_tensor* x = bytes_tensor(64 * KIB);
  void* pa = tsr_tensor_data_ptr(x);
  TSR_ASSERT_OK(tsr_record_stream(x, bs));
  TSR_ASSERT_OK(tsr_stream_set_current(bs));
  tsr_tensor_release(x);
  tsr_tensor* y = bytes_tensor(64 * KIB);
  cr_assert_neq(tsr_tensor_data_ptr(y), pa);
  TSR_ASSERT_OK(tsr_stream_set_current(a));
  tsr_tensor* z = bytes_tensor(64 * KIB);
  cr_assert_eq(tsr_tensor_data_ptr(z), pa);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 2);
  cr_assert_eq(s.active.current - b.active.current, 2);
  tsr_tensor_release(y);
  tsr_tensor_release(z);
  tsr_stream_release(a);
  tsr_stream_release(bs);
}
