/* TSR_ALLOC_CONF read from the environment at the first allocation. Run by
 * ctest (tests/CMakeLists.txt) with the variable set:
 *   alloc_conf_env invalid KEY   TSR_ALLOC_CONF is invalid and names KEY:
 *                                allocations and tsr_allocator_settings fail
 *                                with TSR_ERR_INVALID_ARGUMENT naming KEY
 *                                (out untouched) until
 *                                tsr_set_allocator_settings("") succeeds.
 *   alloc_conf_env valid         TSR_ALLOC_CONF=max_split_size_mb:20,
 *                                roundup_power2_divisions:4: a fixed sequence
 *                                of allocations gives the block sizes and
 *                                oversize counts of PyTorch's rules.
 * Exit status 0 on success, 1 with a message on the first failed check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "../power2_div.h"

#define MIB ((int64_t)1024 * 1024)

static int failures = 0;

#define CHECK(cond, ...)                                             \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                  \
      fprintf(stderr, "\n");                                         \
      ++failures;                                                    \
    }                                                                \
  } while (0)

static tsr_memory_stats_t stats(void) {
  tsr_memory_stats_t s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  tsr_status st = tsr_memory_stats(TSR_DEVICE_CPU, 0, &s);
  CHECK(st == TSR_OK, "tsr_memory_stats: %s", tsr_last_error_message());
  return s;
}

static tsr_status alloc_bytes(int64_t n, tsr_tensor** out) {
  return tsr_empty(1, &n, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, out);
}

static int invalid(const char* key) {
  const char* env = getenv("TSR_ALLOC_CONF");
  CHECK(env != NULL, "TSR_ALLOC_CONF is not set");
  if (!env) return 1;

  /* The statistics stay readable (allocator.h gives tsr_memory_stats no
   * such failure): nothing allocated, no max_split_size in force. */
  tsr_memory_stats_t s0 = stats();
  CHECK(s0.max_split_size == -1, "max_split_size %lld", (long long)s0.max_split_size);
  int64_t v = -5;
  CHECK(tsr_memory_allocated(TSR_DEVICE_CPU, 0, &v) == TSR_OK && v == 0, "memory_allocated");

  /* The settings report the parse error. */
  char* text = (char*)"untouched";
  tsr_status st = tsr_allocator_settings(&text);
  CHECK(st == TSR_ERR_INVALID_ARGUMENT, "tsr_allocator_settings: %s", tsr_status_name(st));
  CHECK(strstr(tsr_last_error_message(), key) != NULL, "message \"%s\" lacks %s",
        tsr_last_error_message(), key);
  CHECK(strcmp(text, "untouched") == 0, "out written on failure");

  /* Every allocation fails, naming the key; nothing is allocated. */
  for (int i = 0; i < 2; ++i) {
    tsr_tensor* t = (tsr_tensor*)&text;
    st = alloc_bytes(1000, &t);
    CHECK(st == TSR_ERR_INVALID_ARGUMENT, "allocation %d: %s", i, tsr_status_name(st));
    CHECK(strstr(tsr_last_error_message(), "TSR_ALLOC_CONF") != NULL, "message \"%s\"",
          tsr_last_error_message());
    CHECK(strstr(tsr_last_error_message(), key) != NULL, "message \"%s\" lacks %s",
          tsr_last_error_message(), key);
    CHECK(t == (tsr_tensor*)&text, "out written on failure");
  }
  tsr_memory_stats_t s = stats();
  CHECK(s.allocation.allocated == 0, "%lld allocations", (long long)s.allocation.allocated);
  CHECK(s.num_device_alloc == 0, "%lld segments", (long long)s.num_device_alloc);
  /* A zero-byte tensor needs no allocator. */
  int64_t zero = 0;
  tsr_tensor* z = NULL;
  st = tsr_empty(1, &zero, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &z);
  CHECK(st == TSR_OK, "zero-byte tensor: %s", tsr_last_error_message());
  tsr_tensor_release(z);
  /* The snapshot and summary still work. */
  char* json = NULL;
  st = tsr_memory_snapshot(TSR_DEVICE_CPU, 0, &json);
  CHECK(st == TSR_OK, "snapshot: %s", tsr_last_error_message());
  tsr_free_string(json);

  /* An invalid text set now fails too and leaves the error in place. */
  st = tsr_set_allocator_settings("nonsense:2");
  CHECK(st == TSR_ERR_INVALID_ARGUMENT, "set nonsense: %s", tsr_status_name(st));
  tsr_tensor* t = NULL;
  st = alloc_bytes(1000, &t);
  CHECK(st == TSR_ERR_INVALID_ARGUMENT && strstr(tsr_last_error_message(), key),
        "after a failed set: %s %s", tsr_status_name(st), tsr_last_error_message());

  /* A valid text replaces the environment's. */
  st = tsr_set_allocator_settings("");
  CHECK(st == TSR_OK, "set \"\": %s", tsr_last_error_message());
  st = tsr_allocator_settings(&text);
  CHECK(st == TSR_OK && strcmp(text, "") == 0, "settings after reset");
  if (st == TSR_OK) tsr_free_string(text);
  st = alloc_bytes(1000, &t);
  CHECK(st == TSR_OK, "allocation after reset: %s", tsr_last_error_message());
  s = stats();
  CHECK(s.allocated_bytes.current == 1024, "allocated %lld", (long long)s.allocated_bytes.current);
  tsr_tensor_release(t);
  return failures != 0;
}


static int valid(void) {
  const char* expected = "max_split_size_mb:20,roundup_power2_divisions:4";
  const char* env = getenv("TSR_ALLOC_CONF");
  CHECK(env && strcmp(env, expected) == 0, "TSR_ALLOC_CONF is %s", env ? env : "unset");
  char* text = NULL;
  tsr_status st = tsr_allocator_settings(&text);
  CHECK(st == TSR_OK && strcmp(text, expected) == 0, "settings: %s",
        st == TSR_OK ? text : tsr_last_error_message());
  if (st == TSR_OK) tsr_free_string(text);
  CHECK(stats().max_split_size == 20 * MIB, "max_split_size %lld",
        (long long)stats().max_split_size);

  /* Request -> block under PyTorch's rules with divisions 4, and whether
   * it reuses the block freed just before (the 50 MiB one). */
  tsr_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *f = NULL;
  if (alloc_bytes(1000, &a) || alloc_bytes(5000, &b) || alloc_bytes(3 * MIB + 1, &c) ||
      alloc_bytes(50 * MIB, &d)) {
    fprintf(stderr, "allocation failed: %s\n", tsr_last_error_message());
    return 1;
  }
  const int64_t ba = 1024;                       /* 1000 <= 512 * 4: 512 steps */
  const int64_t bb = power2_div(5000, 4);        /* 5120 */
  const int64_t bc = power2_div(3 * MIB + 1, 4); /* 3.5 MiB */
  const int64_t bd = power2_div(50 * MIB, 4);    /* 56 MiB */
  CHECK(bb == 5120 && bc == 3 * MIB + MIB / 2 && bd == 56 * MIB, "power2_div");
  tsr_memory_stats_t s = stats();
  CHECK(s.allocated_bytes.current == ba + bb + bc + bd, "allocated %lld",
        (long long)s.allocated_bytes.current);
  CHECK(s.requested_bytes.current == 1000 + 5000 + 3 * MIB + 1 + 50 * MIB, "requested %lld",
        (long long)s.requested_bytes.current);
  /* Segments: 2 MiB small, 20 MiB shared large, the 56 MiB oversize one. */
  CHECK(s.reserved_bytes.current == 2 * MIB + 20 * MIB + 56 * MIB, "reserved %lld",
        (long long)s.reserved_bytes.current);
  CHECK(s.oversize_allocations.current == 1 && s.oversize_segments.current == 2,
        "oversize %lld %lld", (long long)s.oversize_allocations.current,
        (long long)s.oversize_segments.current);

  void* pd = tsr_tensor_data_ptr(d);
  tsr_tensor_release(d);
  /* The 20 MiB segment of the 3.5 MiB block is oversize too (>= 20 MiB).
   * 10 MiB (a power2 step already) < 20 MiB: not from the cached oversize
   * block, but from the 16.5 MiB left of the shared 20 MiB segment (best
   * fit among the blocks it may use). */
  if (alloc_bytes(10 * MIB, &e)) return 1;
  CHECK(tsr_tensor_data_ptr(e) != pd, "10 MiB reused the oversize block");
  CHECK((char*)tsr_tensor_data_ptr(e) == (char*)tsr_tensor_data_ptr(c) + bc,
        "10 MiB not carved after the 3.5 MiB block");
  /* 45 MiB -> 48 MiB >= 20 MiB and 56 < 48 + 20: takes the whole block. */
  if (alloc_bytes(45 * MIB, &f)) return 1;
  CHECK(tsr_tensor_data_ptr(f) == pd, "45 MiB did not reuse the oversize block");
  s = stats();
  CHECK(s.allocated_bytes.current == ba + bb + bc + 10 * MIB + bd, "allocated %lld",
        (long long)s.allocated_bytes.current);
  CHECK(s.requested_bytes.current == 1000 + 5000 + 3 * MIB + 1 + 10 * MIB + 45 * MIB,
        "requested %lld", (long long)s.requested_bytes.current);
  CHECK(s.reserved_bytes.current == 2 * MIB + 20 * MIB + 56 * MIB, "reserved %lld",
        (long long)s.reserved_bytes.current);
  CHECK(s.num_device_alloc == 3, "num_device_alloc %lld", (long long)s.num_device_alloc);
  CHECK(s.oversize_allocations.current == 1 && s.oversize_allocations.allocated == 2,
        "oversize allocations %lld/%lld", (long long)s.oversize_allocations.current,
        (long long)s.oversize_allocations.allocated);
  CHECK(s.oversize_segments.current == 2, "oversize segments %lld",
        (long long)s.oversize_segments.current);

  /* 30 MiB -> 32 MiB: below max_split_size, and nothing cached fits
   * (the 56 MiB block is in use): its own 32 MiB segment, not oversize. */
  tsr_tensor* g = NULL;
  if (alloc_bytes(30 * MIB, &g)) return 1;
  s = stats();
  CHECK(s.allocated_bytes.current == ba + bb + bc + 10 * MIB + bd + 32 * MIB, "allocated %lld",
        (long long)s.allocated_bytes.current);
  CHECK(s.reserved_bytes.current == 2 * MIB + 20 * MIB + 56 * MIB + 32 * MIB, "reserved %lld",
        (long long)s.reserved_bytes.current);
  CHECK(s.oversize_segments.current == 3, "oversize segments %lld",
        (long long)s.oversize_segments.current);
  tsr_tensor_release(g);

  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
  tsr_tensor_release(e);
  tsr_tensor_release(f);
  tsr_empty_cache(TSR_DEVICE_CPU, 0);
  s = stats();
  CHECK(s.reserved_bytes.current == 0 && s.oversize_segments.current == 0,
        "after empty_cache: reserved %lld", (long long)s.reserved_bytes.current);
  return failures != 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "invalid") == 0) return invalid(argv[2]);
  if (argc == 2 && strcmp(argv[1], "valid") == 0) return valid();
  fprintf(stderr, "usage: %s invalid KEY | valid\n", argv[0]);
  return 2;
}
