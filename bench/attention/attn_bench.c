/* bench/attention: scaled dot-product attention, tessera's fused kernel
 * (tsr_scaled_dot_product_attention) against the composed form written
 * with tessera's own ops (matmul, mul by the scale, softmax, matmul), on
 * float32 q, k, v of (1, heads, L, E). For each L: forward under no_grad,
 * and forward + backward (sum of the output) with grad; the median wall
 * time of `reps` runs and the peak of tsr_max_memory_allocated above what
 * was allocated before the run (the inputs and their gradients excluded:
 * gradients of a previous run are dropped first). The floor: the forward's
 * two batched products alone (q k^T into a preallocated (heads, L, L)
 * tensor's worth of matmul, then P v with P preallocated), no softmax.
 * usage: attn_bench heads E reps L...; prints one line per measurement:
 *   L <n> impl <fused|composed|floor> phase <fwd|fwdbwd> ms <median> peak_bytes <n>
 * (the floor: phase fwd only, peak_bytes 0). Note: the fused kernel's
 * per-thread tiles (under 1 MiB a thread) come from the heap, not the
 * tensor allocator, and are not in its peak. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    tsr_status st_ = (call);                                                                    \
    if (st_ != TSR_OK) {                                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static tsr_tensor* composed(const tsr_tensor* q, const tsr_tensor* k, const tsr_tensor* v, double scale) {
  tsr_tensor *kt, *s, *ss, *p, *o;
  CHECK(tsr_transpose(k, -2, -1, &kt));
  CHECK(tsr_matmul(q, kt, &s));
  CHECK(tsr_mul_scalar(s, scale, &ss));
  tsr_tensor_release(s);
  CHECK(tsr_softmax(ss, -1, &p));
  tsr_tensor_release(ss);
  CHECK(tsr_matmul(p, v, &o));
  tsr_tensor_release(p);
  tsr_tensor_release(kt);
  return o;
}

static tsr_tensor* run_once(int fused, tsr_tensor* const* in, double scale) {
  if (!fused) return composed(in[0], in[1], in[2], scale);
  tsr_tensor* o;
  CHECK(tsr_scaled_dot_product_attention(in[0], in[1], in[2], NULL, 0.0, false, NAN, NULL, &o));
  return o;
}

/* One measurement: returns the time in ms, *peak the bytes above the start. */
static double measure(int fused, int backward, tsr_tensor* const* in, double scale, int64_t* peak) {
  for (int i = 0; i < 3; ++i) CHECK(tsr_set_grad(in[i], NULL));
  int64_t base, top;
  CHECK(tsr_memory_allocated(TSR_DEVICE_CPU, 0, &base));
  CHECK(tsr_reset_peak_memory_stats(TSR_DEVICE_CPU, 0));
  bool prev = tsr_set_grad_enabled(backward);
  double t0 = now_ms();
  tsr_tensor* o = run_once(fused, in, scale);
  if (backward) {
    tsr_tensor* s;
    CHECK(tsr_sum(o, 0, NULL, false, &s));
    CHECK(tsr_backward(s, NULL, false));
    tsr_tensor_release(s);
  }
  tsr_tensor_release(o);
  double t = now_ms() - t0;
  tsr_set_grad_enabled(prev);
  CHECK(tsr_max_memory_allocated(TSR_DEVICE_CPU, 0, &top));
  *peak = top - base;
  return t;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s heads E reps L...\n", argv[0]);
    return 2;
  }
  const int64_t heads = atoll(argv[1]), E = atoll(argv[2]);
  const int reps = atoi(argv[3]);
  tsr_generator* g;
  CHECK(tsr_generator_create(0, &g));
  for (int a = 4; a < argc; ++a) {
    const int64_t L = atoll(argv[a]);
    const int64_t sizes[] = {1, heads, L, E};
    tsr_tensor* in[3];
    for (int i = 0; i < 3; ++i) {
      CHECK(tsr_randn(4, sizes, TSR_FLOAT32, g, &in[i]));
      CHECK(tsr_set_requires_grad(in[i], true));
    }
    const double scale = 1.0 / sqrt((double)E);
    {
      /* The floor: the two products of the forward, no softmax. */
      tsr_tensor *kt, *p, *o, *s;
      const int64_t ps[] = {1, heads, L, L};
      CHECK(tsr_transpose(in[1], -2, -1, &kt));
      CHECK(tsr_full(4, ps, 1.0 / (double)L, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &p));
      bool prev = tsr_set_grad_enabled(false);
      double times[64];
      const int n = reps < 64 ? reps : 64;
      for (int r = -1; r < n; ++r) {
        double t0 = now_ms();
        CHECK(tsr_matmul(in[0], kt, &s));
        CHECK(tsr_matmul(p, in[2], &o));
        double t = now_ms() - t0;
        if (r >= 0) times[r] = t;
        tsr_tensor_release(s);
        tsr_tensor_release(o);
      }
      tsr_set_grad_enabled(prev);
      qsort(times, (size_t)n, sizeof(double), cmp_double);
      printf("L %lld impl floor phase fwd ms %.2f peak_bytes 0\n", (long long)L, times[n / 2]);
      tsr_tensor_release(kt);
      tsr_tensor_release(p);
    }
    for (int backward = 0; backward < 2; ++backward) {
      double times[2][64];
      int64_t peak[2] = {0, 0};
      const int n = reps < 64 ? reps : 64;
      /* One warm-up each, then the two interleaved. */
      for (int fused = 0; fused < 2; ++fused) measure(fused, backward, in, scale, &peak[fused]);
      for (int r = 0; r < n; ++r)
        for (int fused = 0; fused < 2; ++fused) times[fused][r] = measure(fused, backward, in, scale, &peak[fused]);
      for (int fused = 1; fused >= 0; --fused) {
        qsort(times[fused], (size_t)n, sizeof(double), cmp_double);
        printf("L %lld impl %s phase %s ms %.2f peak_bytes %lld\n", (long long)L, fused ? "fused" : "composed",
               backward ? "fwdbwd" : "fwd", times[fused][n / 2], (long long)peak[fused]);
        fflush(stdout);
      }
    }
    for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
  }
  tsr_generator_release(g);
  return 0;
}
