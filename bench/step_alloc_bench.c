/* tsr_step_alloc_bench (issue 12, item 4): heap allocations and time per
 * small training step through the C API.
 *
 * The step: an MLP 64-128-10 on a batch of 32 (tsr_linear, tsr_relu,
 * tsr_linear, tsr_cross_entropy, tsr_backward, AdamW step, zero_grad with
 * set_to_none), on the CPU, single-threaded as tessera is.
 *
 * Allocations are counted by this executable's own malloc family, which
 * interposes glibc's for the whole process (libtessera's operator new calls
 * malloc through the PLT), and forwards to glibc's __libc_* functions. The
 * count is deterministic: after warm-up (the caching allocator holds its
 * blocks), every step makes the same calls.
 *
 *   tsr_step_alloc_bench [steps]      default 2000 timed steps
 *
 * Under valgrind --tool=callgrind, run_steps() is the function to collect:
 *   valgrind --tool=callgrind --toggle-collect=run_steps tsr_step_alloc_bench 20
 * and callgrind_annotate --inclusive=yes shows who calls malloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tessera/tessera.h>

/* ---- counting malloc ---------------------------------------------------- */
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);

static unsigned long long g_allocs; /* single-threaded: no atomics needed */

void* malloc(size_t n) {
  ++g_allocs;
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  ++g_allocs;
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  ++g_allocs;
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
void* memalign(size_t al, size_t n) {
  ++g_allocs;
  return __libc_memalign(al, n);
}
void* aligned_alloc(size_t al, size_t n) {
  ++g_allocs;
  return __libc_memalign(al, n);
}
int posix_memalign(void** out, size_t al, size_t n) {
  ++g_allocs;
  void* p = __libc_memalign(al, n);
  if (!p && n) return ENOMEM;
  *out = p;
  return 0;
}

/* ---- the step ----------------------------------------------------------- */
#define CHECK(call)                                                        \
  do {                                                                     \
    tsr_status s_ = (call);                                                \
    if (s_ != TSR_OK) {                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
              tsr_last_error_message());                                   \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

enum { BATCH = 32, IN = 64, HIDDEN = 128, OUT = 10, NPARAMS = 4 };

typedef struct model {
  tsr_tensor* params[NPARAMS]; /* w1 [128,64], b1 [128], w2 [10,128], b2 [10] */
  tsr_optimizer* opt;
  tsr_tensor *x, *y;
} model;

static tsr_tensor* param(int64_t ndim, const int64_t* sizes, tsr_generator* g) {
  tsr_tensor* t = NULL;
  CHECK(tsr_randn(ndim, sizes, TSR_FLOAT32, g, &t));
  CHECK(tsr_mul_scalar_(t, 0.1));
  CHECK(tsr_set_requires_grad(t, true));
  return t;
}

static void model_init(model* m) {
  tsr_generator* g = NULL;
  CHECK(tsr_generator_create(1234, &g));
  int64_t w1[2] = {HIDDEN, IN}, b1 = HIDDEN, w2[2] = {OUT, HIDDEN}, b2 = OUT;
  m->params[0] = param(2, w1, g);
  m->params[1] = param(1, &b1, g);
  m->params[2] = param(2, w2, g);
  m->params[3] = param(1, &b2, g);
  int64_t xs[2] = {BATCH, IN}, n = BATCH;
  CHECK(tsr_randn(2, xs, TSR_FLOAT32, g, &m->x));
  int64_t labels[BATCH];
  for (int i = 0; i < BATCH; ++i) labels[i] = (i * 7) % OUT;
  CHECK(tsr_from_data(labels, sizeof labels, 1, &n, TSR_INT64, &m->y));
  tsr_generator_release(g);
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  o.weight_decay = 1e-2;
  CHECK(tsr_optimizer_adamw(m->params, NPARAMS, &o, &m->opt));
}

static double step(model* m) {
  tsr_tensor *z1 = NULL, *h = NULL, *logits = NULL, *loss = NULL;
  CHECK(tsr_optimizer_zero_grad(m->opt, true));
  CHECK(tsr_linear(m->x, m->params[0], m->params[1], &z1));
  CHECK(tsr_relu(z1, &h));
  CHECK(tsr_linear(h, m->params[2], m->params[3], &logits));
  CHECK(tsr_cross_entropy(logits, m->y, &loss));
  CHECK(tsr_backward(loss, NULL, false));
  CHECK(tsr_optimizer_step(m->opt));
  double v = 0;
  CHECK(tsr_item_double(loss, &v));
  tsr_tensor_release(loss);
  tsr_tensor_release(logits);
  tsr_tensor_release(h);
  tsr_tensor_release(z1);
  return v;
}

/* Not static, not inlined: callgrind's --toggle-collect target. */
__attribute__((noinline)) double run_steps(model* m, int n) {
  double v = 0;
  for (int i = 0; i < n; ++i) v = step(m);
  return v;
}

static double now_s(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 2000;
  if (steps < 1) steps = 1;
  model m;
  model_init(&m);
  double first = step(&m);
  run_steps(&m, 20); /* warm-up: caching allocator, lazy tables */

  unsigned long long a0 = g_allocs;
  run_steps(&m, 1);
  unsigned long long one = g_allocs - a0;

  a0 = g_allocs;
  double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
  double last = run_steps(&m, steps);
  double c1 = now_s(CLOCK_THREAD_CPUTIME_ID), w1 = now_s(CLOCK_MONOTONIC);
  unsigned long long total = g_allocs - a0;

  printf("tessera %s: MLP 64-128-10, batch 32, AdamW, CPU\n", tsr_version_string());
  /* %.9g: enough digits to tell a float32 loss that changed by one ulp. */
  printf("loss: first step %.9g, after %d steps %.9g\n", first, steps + 22, last);
  printf("heap allocations per step: %llu (one step), %.2f (mean of %d)\n", one,
         (double)total / steps, steps);
  printf("time per step: %.2f us cpu, %.2f us wall\n", 1e6 * (c1 - c0) / steps,
         1e6 * (w1 - w0) / steps);
  for (int i = 0; i < NPARAMS; ++i) tsr_tensor_release(m.params[i]);
  tsr_tensor_release(m.x);
  tsr_tensor_release(m.y);
  tsr_optimizer_release(m.opt);
  return 0;
}
