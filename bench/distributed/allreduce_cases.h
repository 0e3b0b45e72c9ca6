/* The measuring protocol every all_reduce contender of bench/distributed
 * follows (allreduce_tessera.c, gloo/allreduce_gloo.cpp; torch_allreduce.py
 * repeats it in Python), so that the three differ only in the call timed.
 * Plain C (also included from C++); it uses no library, so the raw Gloo
 * harness stays free of tessera.
 *
 * Arguments: WARMUP BYTES:ITERS [BYTES:ITERS ...]. Per case, every rank:
 *   1. fills a fresh float32 buffer of BYTES/4 elements with 1, reduces it
 *      once (SUM) and checks that its first and last elements equal the
 *      world size (the harness really reduces);
 *   2. zeroes it (the values stay finite however many rounds run), runs
 *      WARMUP more all_reduces, then a barrier;
 *   3. times ITERS back-to-back all_reduces, each on its own (monotonic
 *      clock around the synchronous call);
 *   4. takes, per iteration, the largest time over the ranks (an all_reduce
 *      MAX of the float64 times, not timed): the collective is done when
 *      its last rank is done.
 * Rank 0 prints one line per case (ar_report): the median of those
 * per-iteration times, in microseconds. */
#ifndef TSR_BENCH_ALLREDUCE_CASES_H
#define TSR_BENCH_ALLREDUCE_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ar_case {
  size_t bytes; /* a multiple of 4 (float32) */
  int iters;
} ar_case;

enum { AR_MAX_CASES = 64 };

/* Reads WARMUP and the cases from argv[first..argc); exits with a usage
 * line on a malformed argument. Returns the number of cases. */
static inline int ar_parse(int argc, char** argv, int first, int* warmup, ar_case* cases) {
  if (argc - first < 2) {
    fprintf(stderr, "usage: %s%s WARMUP BYTES:ITERS [BYTES:ITERS ...]\n", argv[0], first > 1 ? " STORE_DIR" : "");
    exit(2);
  }
  *warmup = atoi(argv[first]);
  int n = 0;
  for (int i = first + 1; i < argc && n < AR_MAX_CASES; ++i) {
    unsigned long long bytes = 0;
    int iters = 0;
    if (sscanf(argv[i], "%llu:%d", &bytes, &iters) != 2 || bytes < 4 || bytes % 4 != 0 || iters < 1) {
      fprintf(stderr, "%s: bad case '%s' (BYTES:ITERS, BYTES a multiple of 4)\n", argv[0], argv[i]);
      exit(2);
    }
    cases[n].bytes = (size_t)bytes;
    cases[n].iters = iters;
    ++n;
  }
  return n;
}

/* An integer from the environment (tessera-run and torchrun set RANK and
 * WORLD_SIZE); exits when it is missing. */
static inline int ar_env_int(const char* name) {
  const char* v = getenv(name);
  if (!v || !*v) {
    fprintf(stderr, "%s is not set: start the ranks with tessera-run\n", name);
    exit(2);
  }
  return atoi(v);
}

static inline double ar_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline int ar_cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double ar_median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, ar_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Exits when the check of step 1 fails. */
static inline void ar_check_sum(const char* impl, const float* p, size_t n, int world) {
  if (p[0] != (float)world || p[n - 1] != (float)world) {
    fprintf(stderr, "%s: all_reduce of ones over %d ranks gave %g ... %g, not %d\n", impl, world, (double)p[0],
            (double)p[n - 1], world);
    exit(1);
  }
}

/* The line the run script reads: fields in name/value pairs. */
static inline void ar_report(const char* impl, int world, const ar_case* c, double median_us) {
  printf("impl %s world %d bytes %zu iters %d median_us %.3f\n", impl, world, c->bytes, c->iters, median_us);
  fflush(stdout);
}

#endif
