/* custom_op — a fused swish, y = x * sigmoid(x), as a custom
 * differentiable function over raw float32 memory (include/tessera/function.h):
 * forward and backward are single loops over the elements instead of the
 * four ops (and three temporaries) of the composed version.
 *
 *   swish [N]
 *
 * It checks the custom gradient against autograd's gradient of the composed
 * ops (sigmoid, mul), uses the op inside a checkpointed block and checks
 * that the block's gradients are bit-identical to the same block run
 * without the region (the region replays the custom forward during
 * backward), prints both, and exits 1 when a check fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    tsr_status s_ = (call);                                                                      \
    if (s_ != TSR_OK) {                                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, tsr_status_name(s_), tsr_last_error_message()); \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

/* Counts forward calls: the checkpoint region replays the forward once. */
static int forward_calls;

static tsr_status swish_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                int64_t* n_out, tsr_tensor** out, void* user) {
  (void)n_in;
  (void)max_out;
  (void)user;
  forward_calls++;
  if (tsr_tensor_dtype(in[0]) != TSR_FLOAT32) {
    tsr_set_last_error(TSR_ERR_DTYPE_MISMATCH, "swish takes float32");
    return TSR_ERR_DTYPE_MISMATCH;
  }
  /* raw loops want dense memory: a contiguous copy when the input is not */
  tsr_tensor* x = NULL;
  tsr_status s = tsr_contiguous(in[0], TSR_CONTIGUOUS_FORMAT, &x);
  if (s != TSR_OK) return s;
  tsr_tensor* y = NULL;
  s = tsr_empty(tsr_tensor_ndim(x), tsr_tensor_sizes(x), TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &y);
  if (s == TSR_OK) {
    const float* xs = tsr_tensor_data_ptr(x);
    float* ys = tsr_tensor_data_ptr(y);
    for (int64_t i = 0, n = tsr_tensor_numel(x); i < n; ++i) ys[i] = xs[i] / (1.0f + expf(-xs[i]));
    s = tsr_function_ctx_save_for_backward(ctx, 1, &x); /* backward reads x */
  }
  tsr_tensor_release(x);
  if (s != TSR_OK) {
    tsr_tensor_release(y);
    return s;
  }
  out[0] = y;
  *n_out = 1;
  return TSR_OK;
}

/* dx = dy * (s + x * s * (1 - s)), s = sigmoid(x), in one loop. */
static tsr_status swish_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads, int64_t n_in,
                                 tsr_tensor** grad_in, void* user) {
  (void)n_grads;
  (void)n_in;
  (void)user;
  tsr_tensor *x = NULL, *dy = NULL, *dx = NULL;
  int64_t n = 0;
  tsr_status s = tsr_function_ctx_saved_tensors(ctx, 1, &n, &x);
  if (s == TSR_OK) s = tsr_contiguous(grads[0], TSR_CONTIGUOUS_FORMAT, &dy);
  if (s == TSR_OK)
    s = tsr_empty(tsr_tensor_ndim(x), tsr_tensor_sizes(x), TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &dx);
  if (s == TSR_OK) {
    const float *xs = tsr_tensor_data_ptr(x), *g = tsr_tensor_data_ptr(dy);
    float* out = tsr_tensor_data_ptr(dx);
    for (int64_t i = 0, m = tsr_tensor_numel(x); i < m; ++i) {
      const float sg = 1.0f / (1.0f + expf(-xs[i]));
      out[i] = g[i] * (sg + xs[i] * sg * (1.0f - sg));
    }
    grad_in[0] = dx;
    dx = NULL;
  }
  tsr_tensor_release(x);
  tsr_tensor_release(dy);
  tsr_tensor_release(dx);
  return s;
}

static tsr_tensor* swish(tsr_tensor* x) {
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = "Swish";
  def.forward = swish_forward;
  def.backward = swish_backward;
  tsr_tensor* y = NULL;
  int64_t n = 0;
  CHECK(tsr_function_apply(&def, 1, &x, 1, &n, &y));
  return y;
}

static tsr_tensor* composed_swish(tsr_tensor* x) {
  tsr_tensor *s, *y;
  CHECK(tsr_sigmoid(x, &s));
  CHECK(tsr_mul(x, s, &y));
  tsr_tensor_release(s);
  return y;
}

/* The block: L = sum(swish(x @ w)^2); returns dL/dx and dL/dw. The square
 * reads swish's output in backward, so a checkpointed block must recompute
 * it: the region calls the custom forward again. */
static void block_grads(tsr_tensor* x, tsr_tensor* w, bool checkpointed, tsr_tensor** gx, tsr_tensor** gw) {
  tsr_tensor *a, *h, *h2, *loss;
  if (checkpointed) CHECK(tsr_checkpoint_begin(NULL));
  CHECK(tsr_matmul(x, w, &a));
  h = swish(a);
  CHECK(tsr_mul(h, h, &h2));
  if (checkpointed) CHECK(tsr_checkpoint_end());
  CHECK(tsr_sum(h2, 0, NULL, false, &loss));
  tsr_tensor_release(a); /* the region keeps nothing: backward recomputes a and h */
  tsr_tensor_release(h);
  tsr_tensor_release(h2);
  CHECK(tsr_backward(loss, NULL, false));
  CHECK(tsr_grad(x, gx));
  CHECK(tsr_grad(w, gw));
  CHECK(tsr_set_grad(x, NULL));
  CHECK(tsr_set_grad(w, NULL));
  tsr_tensor_release(loss);
}

static double max_abs_diff(const tsr_tensor* a, const tsr_tensor* b) {
  const float *p = tsr_tensor_data_ptr(a), *q = tsr_tensor_data_ptr(b);
  double m = 0;
  for (int64_t i = 0, n = tsr_tensor_numel(a); i < n; ++i) m = fmax(m, fabs((double)p[i] - q[i]));
  return m;
}

static bool bit_identical(const tsr_tensor* a, const tsr_tensor* b) {
  const float *p = tsr_tensor_data_ptr(a), *q = tsr_tensor_data_ptr(b);
  for (int64_t i = 0, n = tsr_tensor_numel(a); i < n; ++i)
    if (p[i] != q[i]) return false;
  return true;
}

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
  if (n < 1) {
    fprintf(stderr, "usage: swish [N >= 1]\n");
    return 2;
  }
  tsr_generator* g;
  CHECK(tsr_generator_create(7, &g));
  const int64_t xs[] = {n}, ms[] = {8, 16}, ws[] = {16, 4};
  tsr_tensor *x, *y, *yc, *l, *lc, *gx, *gxc;
  CHECK(tsr_randn(1, xs, TSR_FLOAT32, g, &x));
  CHECK(tsr_set_requires_grad(x, true));

  /* 1. the custom op against the composed ops */
  y = swish(x);
  yc = composed_swish(x);
  CHECK(tsr_sum(y, 0, NULL, false, &l));
  CHECK(tsr_backward(l, NULL, false));
  CHECK(tsr_grad(x, &gx));
  CHECK(tsr_set_grad(x, NULL));
  CHECK(tsr_sum(yc, 0, NULL, false, &lc));
  CHECK(tsr_backward(lc, NULL, false));
  CHECK(tsr_grad(x, &gxc));
  const double dy = max_abs_diff(y, yc), dg = max_abs_diff(gx, gxc);
  printf("swish over %lld float32 elements: grad_fn %s\n", (long long)n, tsr_grad_fn_name(y));
  printf("  max |custom - composed|: values %.3g, gradients %.3g\n", dy, dg);

  /* 2. inside a checkpointed block */
  tsr_tensor *m, *w, *gm0, *gw0, *gm1, *gw1;
  CHECK(tsr_randn(2, ms, TSR_FLOAT32, g, &m));
  CHECK(tsr_randn(2, ws, TSR_FLOAT32, g, &w));
  CHECK(tsr_set_requires_grad(m, true));
  CHECK(tsr_set_requires_grad(w, true));
  forward_calls = 0;
  block_grads(m, w, false, &gm0, &gw0);
  const int plain_calls = forward_calls;
  forward_calls = 0;
  block_grads(m, w, true, &gm1, &gw1);
  const bool same = bit_identical(gm0, gm1) && bit_identical(gw0, gw1);
  printf("checkpointed block: forward ran %d time(s) plain, %d checkpointed (the replay); gradients %s\n",
         plain_calls, forward_calls, same ? "bit-identical" : "DIFFER");

  tsr_tensor* all[] = {x, y, yc, l, lc, gx, gxc, m, w, gm0, gw0, gm1, gw1};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
  /* float32: the two formulas round differently, a few ulps */
  if (dy > 1e-5 || dg > 1e-5 || !same || plain_calls != 1 || forward_calls != 2) {
    fprintf(stderr, "FAILED\n");
    return 1;
  }
  return 0;
}
