/* mlp.c — the model and its SGD step, written only against the public API. */
#include "mlp.h"

#include <math.h>

#include "check.h"

const char* const mlp_param_names[MLP_NPARAMS] = {"w1", "b1", "w2", "b2"};

static tsr_tensor* he_weight(int64_t fan_in, int64_t fan_out, tsr_generator* g) {
  const int64_t sizes[] = {fan_in, fan_out};
  tsr_tensor* w = NULL;
  CHECK(tsr_randn(2, sizes, TSR_FLOAT32, g, &w));
  /* Scaled while it is still an ordinary tensor: once it requires grad, an
   * in-place write with grad mode on is an autograd error, as in PyTorch. */
  CHECK(tsr_mul_scalar_(w, sqrt(2.0 / (double)fan_in)));
  CHECK(tsr_set_requires_grad(w, true));
  return w;
}

static tsr_tensor* zero_bias(int64_t n) {
  tsr_tensor* b = NULL;
  CHECK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &b));
  CHECK(tsr_set_requires_grad(b, true));
  return b;
}

void mlp_init(mlp* m, tsr_generator* g) {
  m->params[MLP_W1] = he_weight(MLP_INPUTS, MLP_HIDDEN, g);
  m->params[MLP_B1] = zero_bias(MLP_HIDDEN);
  m->params[MLP_W2] = he_weight(MLP_HIDDEN, MLP_OUTPUTS, g);
  m->params[MLP_B2] = zero_bias(MLP_OUTPUTS);
  m->checkpoint_layers = MLP_NO_REGIONS;
}

void mlp_to_device(mlp* m, const digits_device* d) {
  /* Copied under no_grad: the copy is not a result of the CPU parameter in
   * the graph but a parameter of its own. */
  bool prev = tsr_set_grad_enabled(false);
  for (int i = 0; i < MLP_NPARAMS; ++i) {
    tsr_tensor* moved = digits_to_device(m->params[i], d);
    CHECK(tsr_set_requires_grad(moved, true)); /* already so where nothing moved */
    tsr_tensor_release(m->params[i]);
    m->params[i] = moved;
  }
  tsr_set_grad_enabled(prev);
}

/* x @ w + b: the bias row broadcasts over the batch. */
static tsr_tensor* linear(const tsr_tensor* x, const tsr_tensor* w, const tsr_tensor* b) {
  tsr_tensor *xw = NULL, *y = NULL;
  CHECK(tsr_matmul(x, w, &xw));
  CHECK(tsr_add(xw, b, &y));
  /* The graph keeps what backward needs; our handle is no longer needed. */
  tsr_tensor_release(xw);
  return y;
}

tsr_tensor* mlp_forward(const mlp* m, const tsr_tensor* x) {
  const bool per_layer = m->checkpoint_layers == MLP_REGION_PER_LAYER;
  if (m->checkpoint_layers != MLP_NO_REGIONS) CHECK(tsr_checkpoint_begin(NULL));
  tsr_tensor* z1 = linear(x, m->params[MLP_W1], m->params[MLP_B1]);
  tsr_tensor* h = NULL;
  CHECK(tsr_relu(z1, &h));
  tsr_tensor_release(z1);
  if (per_layer) {
    CHECK(tsr_checkpoint_end());
    CHECK(tsr_checkpoint_begin(NULL));
  }
  tsr_tensor* logits = linear(h, m->params[MLP_W2], m->params[MLP_B2]);
  if (m->checkpoint_layers != MLP_NO_REGIONS) CHECK(tsr_checkpoint_end());
  tsr_tensor_release(h);
  return logits;
}

void mlp_sgd_step(mlp* m, double lr) {
  bool prev = tsr_set_grad_enabled(false); /* torch.no_grad() */
  for (int i = 0; i < MLP_NPARAMS; ++i) {
    tsr_tensor* grad = NULL;
    CHECK(tsr_grad(m->params[i], &grad));
    if (grad) {
      CHECK(tsr_add_(m->params[i], grad, -lr));
      tsr_tensor_release(grad);
    }
  }
  tsr_set_grad_enabled(prev);
  for (int i = 0; i < MLP_NPARAMS; ++i) CHECK(tsr_zero_grad(m->params[i]));
}

void mlp_predict(const mlp* m, const tsr_tensor* x, int64_t* out) {
  bool prev = tsr_set_grad_enabled(false);
  tsr_tensor* logits = mlp_forward(m, x);
  tsr_tensor* classes = NULL;
  CHECK(tsr_argmax(logits, 1, false, &classes));
  size_t nbytes = (size_t)tsr_tensor_nbytes(classes);
  CHECK(tsr_copy_to_buffer(classes, out, nbytes, NULL));
  tsr_tensor_release(classes);
  tsr_tensor_release(logits);
  tsr_set_grad_enabled(prev);
}

void mlp_release(mlp* m) {
  for (int i = 0; i < MLP_NPARAMS; ++i) {
    tsr_tensor_release(m->params[i]);
    m->params[i] = NULL;
  }
  m->checkpoint_layers = MLP_NO_REGIONS;
}
