/* cuda_unavailable — checks how tessera behaves when the CUDA plugin cannot
 * be used, through the public C API only. Run by ctest once per cause
 * (tests/loader/CMakeLists.txt), with TSR_CUDA_PLUGIN naming a fake plugin,
 * a missing file, or unset (the real environment):
 *
 *   cuda_unavailable [--skip-if-available] PATTERN...
 *
 * Every PATTERN must occur in the failure's message; "a|b" accepts either.
 * Checks: tsr_cuda_is_available() and tsr_cuda_device_count() say 0 and
 * leave the last error alone; tsr_cuda_init, tsr_empty on CUDA (twice),
 * tsr_empty on pinned host memory, tsr_memory_stats and tsr_cuda_synchronize
 * all fail with TSR_ERR_UNSUPPORTED and the very same message (one load,
 * remembered), leave their outs untouched, and the CPU still works with no
 * memory left allocated. Exits 0 when all hold, 1 naming the first that does
 * not, 77 (ctest: skipped) with --skip-if-available where CUDA works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

/* Whether message contains one of the '|'-separated alternatives. */
static int matches(const char* message, const char* pattern) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", pattern);
  for (char* alt = strtok(buf, "|"); alt; alt = strtok(NULL, "|"))
    if (strstr(message, alt)) return 1;
  return 0;
}

/* The call failed as the first failure did: same status, same message. */
static void expect_same_failure(tsr_status st, const char* reference, const char* what) {
  char text[256];
  snprintf(text, sizeof text, "%s returns TSR_ERR_UNSUPPORTED (got %s)", what,
           tsr_status_name(st));
  expect(st == TSR_ERR_UNSUPPORTED, text);
  snprintf(text, sizeof text, "%s gives the first failure's message (got \"%s\")", what,
           tsr_last_error_message());
  expect(strcmp(tsr_last_error_message(), reference) == 0, text);
}

int main(int argc, char** argv) {
  int first_pattern = 1;
  if (argc > 1 && strcmp(argv[1], "--skip-if-available") == 0) {
    first_pattern = 2;
    if (tsr_cuda_is_available()) {
      printf("CUDA is available here (%d device(s)): nothing to check\n",
             (int)tsr_cuda_device_count());
      return 77;
    }
  }

  tsr_clear_last_error();
  expect(tsr_cuda_is_available() == 0, "tsr_cuda_is_available() == 0");
  expect(tsr_cuda_device_count() == 0, "tsr_cuda_device_count() == 0");
  expect(tsr_last_error_code() == TSR_OK, "the availability queries leave the last error alone");

  expect(tsr_cuda_init() == TSR_ERR_UNSUPPORTED, "tsr_cuda_init() returns TSR_ERR_UNSUPPORTED");
  char message[2048];
  snprintf(message, sizeof message, "%s", tsr_last_error_message());
  printf("tsr_cuda_init: %s\n", message);
  for (int i = first_pattern; i < argc; ++i) {
    char text[256];
    snprintf(text, sizeof text, "the message names the cause: \"%s\"", argv[i]);
    expect(matches(message, argv[i]), text);
  }

  /* Ops naming a CUDA device fail with the loader's message, which the
   * registry keeps: the plugin is not tried again. */
  const int64_t sizes[] = {2, 3};
  tsr_tensor* sentinel = (tsr_tensor*)&sizes; /* any non-NULL address */
  tsr_tensor* t = sentinel;
  expect_same_failure(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA, 0, &t), message,
                      "tsr_empty on cuda:0");
  expect(t == sentinel, "tsr_empty leaves its out untouched");
  expect_same_failure(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA, 0, &t), message,
                      "a second tsr_empty on cuda:0");
  /* One load serves both CUDA device types. */
  expect_same_failure(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA_HOST, 0, &t), message,
                      "tsr_empty on pinned host memory");
  expect(t == sentinel, "tsr_empty on pinned memory leaves its out untouched");
  tsr_memory_stats_t stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  expect_same_failure(tsr_memory_stats(TSR_DEVICE_CUDA, 0, &stats), message,
                      "tsr_memory_stats(cuda:0)");
  expect(stats.struct_size == sizeof stats, "tsr_memory_stats leaves its out untouched");
  expect_same_failure(tsr_cuda_synchronize(-1), message, "tsr_cuda_synchronize(-1)");
  expect(tsr_cuda_synchronize(-2) == TSR_ERR_INVALID_ARGUMENT,
         "tsr_cuda_synchronize(-2) returns TSR_ERR_INVALID_ARGUMENT");
  expect(tsr_cuda_is_available() == 0, "tsr_cuda_is_available() still 0 afterwards");

  /* The CPU is unaffected, and the failures allocated nothing. */
  tsr_tensor* cpu = NULL;
  expect(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &cpu) == TSR_OK,
         "tsr_empty on the CPU works");
  tsr_tensor_release(cpu);
  int64_t allocated = -1;
  expect(tsr_memory_allocated(TSR_DEVICE_CPU, 0, &allocated) == TSR_OK && allocated == 0,
         "no CPU memory left allocated");

  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
