/* bench/bindings/c/call_bench.c — the C baseline of the per-call benchmark
 * the language bindings run (bench/bindings/<lang>/): the same five cases on
 * a float32 [4, 4] tensor, the same protocol (median over 15 batches of
 * 200,000 calls after one warm-up batch, monotonic clock), the same output
 * line per case:
 *   tessera-bench c CASE MEDIAN_NS
 * bench/bindings/run puts the languages side by side as ratios to these. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tessera/tessera.h>

enum { BATCHES = 15, CALLS = 200000 };

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static tsr_tensor* subject;
static volatile int64_t sink; /* keeps results observable */

/* Each case does one call's worth of work, as a binding's user would see it. */
static void case_view(void) {
  tsr_tensor* out = NULL;
  tsr_transpose(subject, 0, 1, &out);
  tsr_tensor_release(out);
}
static void case_shape(void) {
  /* A binding returns a fresh native array; C copies into its own. */
  int64_t sizes[8];
  int64_t n = tsr_tensor_ndim(subject);
  memcpy(sizes, tsr_tensor_sizes(subject), (size_t)n * sizeof(int64_t));
  sink = sizes[0];
}
static void case_ndim(void) { sink = tsr_tensor_ndim(subject); }
static void case_create_release(void) {
  static const int64_t sizes[2] = {4, 4};
  tsr_tensor* out = NULL;
  tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &out);
  tsr_tensor_release(out);
}
static void case_error(void) {
  /* 16 elements cannot be viewed as [7]: TSR_ERR_SHAPE_MISMATCH, and the
   * caller reads the message as a binding does. */
  static const int64_t sizes[1] = {7};
  tsr_tensor* out = NULL;
  if (tsr_view(subject, 1, sizes, &out) != TSR_OK) sink = (int64_t)strlen(tsr_last_error_message());
}

static void measure(const char* name, void (*fn)(void)) {
  double per_call[BATCHES];
  for (int i = 0; i < CALLS; ++i) fn(); /* warm-up: caches, allocator, branch predictors */
  for (int b = 0; b < BATCHES; ++b) {
    double start = now_ns();
    for (int i = 0; i < CALLS; ++i) fn();
    per_call[b] = (now_ns() - start) / CALLS;
  }
  qsort(per_call, BATCHES, sizeof(double), by_value);
  printf("tessera-bench c %s %.1f\n", name, per_call[BATCHES / 2]);
}

int main(void) {
  const int64_t sizes[2] = {4, 4};
  if (tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &subject) != TSR_OK) {
    fprintf(stderr, "call_bench: %s\n", tsr_last_error_message());
    return 1;
  }
  measure("view", case_view);
  measure("shape", case_shape);
  measure("ndim", case_ndim);
  measure("create_release", case_create_release);
  measure("error", case_error);
  tsr_tensor_release(subject);
  return 0;
}
