/* bench/amp_conv: one channels_last conv2d step, forward and backward
 * (the input's and the weight's gradients, no bias: a ResNet layer), as
 * torch's CPU autocast runs it: bfloat16 input and weight. The float32
 * step of the same shapes is timed too, for reference. Each step: y =
 * conv2d(x, w); y.backward(g); the gradients are cleared (set to none)
 * before the next step.
 * usage: amp_conv_bench THREADS REPS; prints one line per case and dtype:
 *   case <name> dtype <bf16|f32> ms <median> gflop <forward+backward GFLOP> */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    tsr_status st_ = (call);                                                                   \
    if (st_ != TSR_OK) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

typedef struct {
  const char* name;
  int64_t n, c, k, h, kernel, stride;
} conv_case;

/* The shapes of bench/amp_conv/torch_amp_conv.py (keep them alike). */
static const conv_case cases[] = {
    {"resnet 3x3 64->64 56x56", 16, 64, 64, 56, 3, 1},
    {"resnet 3x3 128->128 28x28", 16, 128, 128, 28, 3, 1},
    {"resnet 3x3 256->256 14x14", 16, 256, 256, 14, 3, 1},
    {"resnet 1x1 64->256 56x56", 16, 64, 256, 56, 1, 1},
    {"resnet 3x3 128->256 28x28 stride 2", 16, 128, 256, 28, 3, 2},
};

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* randn of `sizes` * scale in dtype, memory format fmt, requires_grad as asked. */
static tsr_tensor* make(tsr_generator* g, const int64_t sizes[4], double scale, tsr_dtype dtype,
                        tsr_memory_format fmt, bool requires_grad) {
  tsr_tensor *r, *s, *d, *out;
  CHECK(tsr_randn(4, sizes, TSR_FLOAT32, g, &r));
  CHECK(tsr_mul_scalar(r, scale, &s));
  CHECK(tsr_to_dtype(s, dtype, &d));
  CHECK(tsr_contiguous(d, fmt, &out));
  if (requires_grad) CHECK(tsr_set_requires_grad(out, true));
  tsr_tensor_release(r);
  tsr_tensor_release(s);
  tsr_tensor_release(d);
  return out;
}

static double step_ms(const conv_case* c, tsr_dtype dtype, tsr_generator* gen, int reps) {
  const int64_t pad = c->kernel / 2, oh = (c->h + 2 * pad - c->kernel) / c->stride + 1;
  const int64_t xs[4] = {c->n, c->c, c->h, c->h}, ws[4] = {c->k, c->c, c->kernel, c->kernel},
                gs[4] = {c->n, c->k, oh, oh};
  const int64_t stride[2] = {c->stride, c->stride}, padding[2] = {pad, pad}, dilation[2] = {1, 1};
  /* Input and gradient channels_last; the weight as a module keeps it
   * (contiguous), cast to the step's dtype as autocast casts it. */
  tsr_tensor* x = make(gen, xs, 1.0, dtype, TSR_CHANNELS_LAST, true);
  tsr_tensor* w = make(gen, ws, 0.05, dtype, TSR_CONTIGUOUS_FORMAT, true);
  tsr_tensor* g = make(gen, gs, 1.0, dtype, TSR_CHANNELS_LAST, false);
  double* t = malloc(sizeof(double) * (size_t)reps);
  for (int r = -2; r < reps; ++r) { /* two warm-up steps */
    const double t0 = now_ms();
    tsr_tensor* y;
    CHECK(tsr_conv2d(x, w, NULL, stride, padding, dilation, 1, &y));
    CHECK(tsr_backward(y, g, false));
    const double t1 = now_ms();
    tsr_tensor_release(y);
    CHECK(tsr_set_grad(x, NULL));
    CHECK(tsr_set_grad(w, NULL));
    if (r >= 0) t[r] = t1 - t0;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  const double median = t[reps / 2];
  free(t);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
  tsr_tensor_release(g);
  return median;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 15;
  CHECK(tsr_set_num_threads(threads));
  tsr_generator* gen;
  CHECK(tsr_generator_create(0, &gen));
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const conv_case* c = &cases[i];
    const int64_t pad = c->kernel / 2, oh = (c->h + 2 * pad - c->kernel) / c->stride + 1;
    /* forward, backward data, backward weights: 3 x 2 * N*K*OH*OW*C*kh*kw */
    const double gflop = 3.0 * 2.0 * c->n * c->k * oh * oh * c->c * c->kernel * c->kernel / 1e9;
    printf("case %s dtype bf16 ms %.3f gflop %.3f\n", c->name, step_ms(c, TSR_BFLOAT16, gen, reps), gflop);
    printf("case %s dtype f32 ms %.3f gflop %.3f\n", c->name, step_ms(c, TSR_FLOAT32, gen, reps), gflop);
    fflush(stdout);
  }
  tsr_generator_release(gen);
  return 0;
}
