/* bench/checkpoint: one training step (forward + backward) of a residual
 * MLP, three ways: no checkpointing, one region per block, and regions of
 * ceil(sqrt(n)) blocks (sqrt(n) segments, Chen et al. 2016). For each it
 * prints the peak of tsr_max_memory_allocated above what was allocated
 * before the step (parameters, their gradients, input): activation memory, the median step time, and whether
 * every parameter gradient is bit-identical to the unchecked run's.
 * A fourth row keeps the linear outputs of each segment (selective
 * checkpointing: only gelu and dropout are recomputed).
 * usage: ckpt_bench [blocks width batch reps]; prints one line per mode:
 *   mode <name> peak_bytes <n> step_ms <median> identical <yes|no|->   */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    tsr_status st_ = (call);                                                          \
    if (st_ != TSR_OK) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

typedef struct {
  tsr_tensor *w1, *b1, *w2, *b2;
} block;

static int n_blocks, width, batch;
static block* blocks;
static tsr_generator* dropout_gen;

static tsr_tensor* uniform_param(tsr_generator* g, int64_t ndim, const int64_t* sizes, double bound) {
  tsr_tensor *r, *a, *p;
  CHECK(tsr_rand(ndim, sizes, TSR_FLOAT32, g, &r)); /* U(-bound, bound), torch.nn.Linear's init */
  CHECK(tsr_mul_scalar(r, 2 * bound, &a));
  CHECK(tsr_add_scalar(a, -bound, &p));
  tsr_tensor_release(r);
  tsr_tensor_release(a);
  CHECK(tsr_set_requires_grad(p, true));
  return p;
}

/* x + linear2(dropout(gelu(linear1(x)))), p = 0.1 */
static tsr_tensor* block_forward(const block* b, const tsr_tensor* x) {
  tsr_tensor *h1, *h2, *h3, *h4, *y;
  CHECK(tsr_linear(x, b->w1, b->b1, &h1));
  CHECK(tsr_gelu(h1, TSR_GELU_NONE, &h2));
  tsr_tensor_release(h1);
  CHECK(tsr_dropout(h2, 0.1, true, dropout_gen, &h3));
  tsr_tensor_release(h2);
  CHECK(tsr_linear(h3, b->w2, b->b2, &h4));
  tsr_tensor_release(h3);
  CHECK(tsr_add(x, h4, &y));
  tsr_tensor_release(h4);
  return y;
}

typedef enum { NONE, PER_BLOCK, SQRT_SEGMENTS, SQRT_KEEP_LINEAR } mode;
static const char* mode_names[] = {"none", "per_block", "sqrt_segments", "sqrt_keep_linear"};

static tsr_tensor* model_forward(const tsr_tensor* x0, mode m) {
  const int seg = (int)ceil(sqrt((double)n_blocks));
  tsr_checkpoint_options o = TSR_CHECKPOINT_OPTIONS_INIT;
  if (m == SQRT_KEEP_LINEAR) o.keep_ops = "linear";
  tsr_tensor* x = (tsr_tensor*)x0;
  tsr_tensor_retain(x);
  for (int i = 0; i < n_blocks; ++i) {
    int opens = m == PER_BLOCK || ((m == SQRT_SEGMENTS || m == SQRT_KEEP_LINEAR) && i % seg == 0);
    int closes = m == PER_BLOCK || ((m == SQRT_SEGMENTS || m == SQRT_KEEP_LINEAR) &&
                                    (i % seg == seg - 1 || i == n_blocks - 1));
    if (opens) CHECK(tsr_checkpoint_begin(&o));
    tsr_tensor* y = block_forward(&blocks[i], x);
    if (closes) CHECK(tsr_checkpoint_end());
    tsr_tensor_release(x);
    x = y;
  }
  tsr_tensor* loss;
  CHECK(tsr_mean(x, 0, NULL, false, &loss));
  tsr_tensor_release(x);
  return loss;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Gradients stay allocated (zeroed in place), so the peak above the start
 * of a step is activation memory, not the parameters' gradients. */
static void zero_grads(void) {
  for (int i = 0; i < n_blocks; ++i) {
    tsr_tensor* ps[] = {blocks[i].w1, blocks[i].b1, blocks[i].w2, blocks[i].b2};
    for (int k = 0; k < 4; ++k) CHECK(tsr_zero_grad(ps[k]));
  }
}

/* Every gradient's bytes, concatenated. */
static float* grads(size_t* n) {
  float* all = NULL;
  *n = 0;
  for (int i = 0; i < n_blocks; ++i) {
    tsr_tensor* ps[] = {blocks[i].w1, blocks[i].b1, blocks[i].w2, blocks[i].b2};
    for (int k = 0; k < 4; ++k) {
      tsr_tensor* g;
      CHECK(tsr_grad(ps[k], &g));
      size_t len = (size_t)tsr_tensor_numel(g);
      all = realloc(all, (*n + len) * sizeof(float));
      CHECK(tsr_copy_to_buffer(g, all + *n, len * sizeof(float), NULL));
      *n += len;
      tsr_tensor_release(g);
    }
  }
  return all;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  n_blocks = argc > 1 ? atoi(argv[1]) : 32;
  width = argc > 2 ? atoi(argv[2]) : 512;
  batch = argc > 3 ? atoi(argv[3]) : 256;
  int reps = argc > 4 ? atoi(argv[4]) : 5;
  tsr_generator* g;
  CHECK(tsr_generator_create(0, &g));
  blocks = calloc((size_t)n_blocks, sizeof *blocks);
  const int64_t wsz[] = {width, width}, bsz[] = {width}, xsz[] = {batch, width};
  const double bound = 1.0 / sqrt((double)width);
  for (int i = 0; i < n_blocks; ++i) {
    blocks[i].w1 = uniform_param(g, 2, wsz, bound);
    blocks[i].b1 = uniform_param(g, 1, bsz, bound);
    blocks[i].w2 = uniform_param(g, 2, wsz, bound);
    blocks[i].b2 = uniform_param(g, 1, bsz, bound);
  }
  tsr_tensor* x;
  CHECK(tsr_randn(2, xsz, TSR_FLOAT32, g, &x));
  CHECK(tsr_generator_create(1, &dropout_gen));

  float* reference = NULL;
  size_t n_ref = 0;
  { /* one step to allocate every .grad */
    tsr_tensor* loss = model_forward(x, NONE);
    CHECK(tsr_backward(loss, NULL, false));
    tsr_tensor_release(loss);
  }
  for (mode m = NONE; m <= SQRT_KEEP_LINEAR; ++m) {
    double times[64];
    int64_t peak_above = 0;
    char identical[4] = "-";
    for (int r = 0; r < reps + 1 && r < 64; ++r) { /* run 0 warms up and gives peak and gradients */
      zero_grads();
      CHECK(tsr_generator_set_state(dropout_gen, 1, 0));
      int64_t base, peak;
      CHECK(tsr_memory_allocated(TSR_DEVICE_CPU, 0, &base));
      CHECK(tsr_reset_peak_memory_stats(TSR_DEVICE_CPU, 0));
      double t0 = now_ms();
      tsr_tensor* loss = model_forward(x, m);
      CHECK(tsr_backward(loss, NULL, false));
      double t1 = now_ms();
      CHECK(tsr_max_memory_allocated(TSR_DEVICE_CPU, 0, &peak));
      tsr_tensor_release(loss);
      if (r == 0) {
        peak_above = peak - base;
        size_t n;
        float* gr = grads(&n);
        if (m == NONE) {
          reference = gr;
          n_ref = n;
        } else {
          strcpy(identical, n == n_ref && memcmp(gr, reference, n * sizeof(float)) == 0 ? "yes" : "no");
          free(gr);
        }
      } else {
        times[r - 1] = t1 - t0;
      }
    }
    qsort(times, (size_t)reps, sizeof(double), cmp_double);
    printf("mode %s peak_bytes %lld step_ms %.2f identical %s\n", mode_names[m], (long long)peak_above,
           times[reps / 2], identical);
    fflush(stdout);
  }
  free(reference);
  for (int i = 0; i < n_blocks; ++i) {
    tsr_tensor_release(blocks[i].w1);
    tsr_tensor_release(blocks[i].b1);
    tsr_tensor_release(blocks[i].w2);
    tsr_tensor_release(blocks[i].b2);
  }
  free(blocks);
  tsr_tensor_release(x);
  tsr_generator_release(g);
  tsr_generator_release(dropout_gen);
  return 0;
}
