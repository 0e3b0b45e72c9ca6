/* cnn.c — the network, written only against the public API. */
#include "cnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

const char* const cnn_param_names[CNN_NPARAMS] = {
    "conv1.weight", "conv1.bias", "bn1.weight", "bn1.bias", "conv2.weight",
    "conv2.bias",   "bn2.weight", "bn2.bias",   "fc.weight", "fc.bias"};
const char* const cnn_buffer_names[CNN_NBUFFERS] = {"bn1.running_mean", "bn1.running_var",
                                                    "bn2.running_mean", "bn2.running_var"};

enum { C1 = 32, C2 = 64, FC_IN = C2 * 7 * 7 };
static const double BN_MOMENTUM = 0.1, BN_EPS = 1e-5;
static const int64_t EVAL_BATCH = 1000;

static tsr_tensor* filled(int64_t ndim, const int64_t* sizes, double value) {
  tsr_tensor* t = NULL;
  CHECK(tsr_zeros(ndim, sizes, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &t));
  if (value != 0) CHECK(tsr_fill_(t, value));
  return t;
}

static tsr_tensor* parameter(tsr_tensor* t) {
  CHECK(tsr_set_requires_grad(t, true));
  return t;
}

/* nn.Conv2d / nn.Linear's reset_parameters for the weight: kaiming_uniform_
 * with a = sqrt(5), i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)). */
static tsr_tensor* weight(int64_t ndim, const int64_t* sizes, tsr_generator* g) {
  tsr_tensor* w = filled(ndim, sizes, 0);
  CHECK(tsr_init_kaiming_uniform_(w, sqrt(5.0), "fan_in", "leaky_relu", g));
  return parameter(w);
}

void cnn_init(cnn* m, tsr_generator* g) {
  memset(m, 0, sizeof *m);
  const int64_t w1[] = {C1, 1, 3, 3}, w2[] = {C2, C1, 3, 3}, wf[] = {CNN_CLASSES, FC_IN};
  const int64_t c1 = C1, c2 = C2, nc = CNN_CLASSES;
  m->params[CNN_CONV1_WEIGHT] = weight(4, w1, g);
  m->params[CNN_CONV1_BIAS] = parameter(filled(1, &c1, 0));
  m->params[CNN_BN1_WEIGHT] = parameter(filled(1, &c1, 1));
  m->params[CNN_BN1_BIAS] = parameter(filled(1, &c1, 0));
  m->params[CNN_CONV2_WEIGHT] = weight(4, w2, g);
  m->params[CNN_CONV2_BIAS] = parameter(filled(1, &c2, 0));
  m->params[CNN_BN2_WEIGHT] = parameter(filled(1, &c2, 1));
  m->params[CNN_BN2_BIAS] = parameter(filled(1, &c2, 0));
  m->params[CNN_FC_WEIGHT] = weight(2, wf, g);
  m->params[CNN_FC_BIAS] = parameter(filled(1, &nc, 0));
  m->buffers[CNN_BN1_MEAN] = filled(1, &c1, 0);
  m->buffers[CNN_BN1_VAR] = filled(1, &c1, 1);
  m->buffers[CNN_BN2_MEAN] = filled(1, &c2, 0);
  m->buffers[CNN_BN2_VAR] = filled(1, &c2, 1);
  m->memory_format = TSR_CONTIGUOUS_FORMAT;
  m->checkpoint_blocks = false;
  m->batch_norm = true;
}

void cnn_copy(cnn* dst, const cnn* src, tsr_memory_format memory_format) {
  /* Cloned under no_grad so each copy is a leaf of its own, not a result
   * of the source in the graph; 4-D tensors take the new format. */
  bool prev = tsr_set_grad_enabled(false);
  for (int i = 0; i < CNN_NPARAMS; ++i) {
    const tsr_tensor* p = src->params[i];
    tsr_memory_format f = tsr_tensor_ndim(p) == 4 ? memory_format : TSR_CONTIGUOUS_FORMAT;
    CHECK(tsr_clone(p, f, &dst->params[i]));
    parameter(dst->params[i]);
  }
  for (int i = 0; i < CNN_NBUFFERS; ++i)
    CHECK(tsr_clone(src->buffers[i], TSR_CONTIGUOUS_FORMAT, &dst->buffers[i]));
  tsr_set_grad_enabled(prev);
  dst->memory_format = memory_format;
  dst->checkpoint_blocks = src->checkpoint_blocks;
  dst->batch_norm = src->batch_norm;
}

static tsr_tensor* moved(tsr_tensor* t, tsr_device_type device) {
  tsr_tensor* there = NULL;
  CHECK(tsr_to_device(t, device, 0, false, &there));
  tsr_tensor_release(t);
  return there;
}

void cnn_to_device(cnn* m, tsr_device_type device) {
  /* Under no_grad: each moved parameter is a leaf of its own. */
  bool prev = tsr_set_grad_enabled(false);
  for (int i = 0; i < CNN_NPARAMS; ++i) m->params[i] = parameter(moved(m->params[i], device));
  for (int i = 0; i < CNN_NBUFFERS; ++i) m->buffers[i] = moved(m->buffers[i], device);
  tsr_set_grad_enabled(prev);
}

/* conv 3x3 (padding 1) -> batch norm (unless !m->batch_norm) -> relu ->
 * max pool 2x2. */
static tsr_tensor* block(cnn* m, const tsr_tensor* x, int conv, int bn_buffers, bool training) {
  static const int64_t stride[2] = {1, 1}, padding[2] = {1, 1}, dilation[2] = {1, 1};
  static const int64_t pool[2] = {2, 2}, no_padding[2] = {0, 0};
  tsr_tensor *c = NULL, *n = NULL, *r = NULL, *p = NULL;
  CHECK(tsr_conv2d(x, m->params[conv], m->params[conv + 1], stride, padding, dilation, 1, &c));
  if (m->batch_norm)
    CHECK(tsr_batch_norm(c, m->buffers[bn_buffers], m->buffers[bn_buffers + 1],
                         m->params[conv + 2], m->params[conv + 3], training, BN_MOMENTUM, BN_EPS,
                         &n));
  else
    tsr_tensor_retain(n = c); /* released below as c is */
  CHECK(tsr_relu(n, &r));
  CHECK(tsr_max_pool2d(r, pool, pool, no_padding, dilation, false, &p, NULL));
  /* The graph keeps what backward needs; these handles are not needed. */
  tsr_tensor_release(r);
  tsr_tensor_release(n);
  tsr_tensor_release(c);
  return p;
}

static tsr_tensor* checkpointed_block(cnn* m, const tsr_tensor* x, int conv, int bn_buffers,
                                      bool training) {
  if (m->checkpoint_blocks) CHECK(tsr_checkpoint_begin(NULL));
  tsr_tensor* y = block(m, x, conv, bn_buffers, training);
  if (m->checkpoint_blocks) CHECK(tsr_checkpoint_end());
  return y;
}

tsr_tensor* cnn_forward(cnn* m, const tsr_tensor* x, bool training) {
  /* The batch in the model's format: for one channel NCHW strides already
   * satisfy NHWC, so this is x itself and costs nothing. */
  tsr_tensor* xf = NULL;
  CHECK(tsr_contiguous(x, m->memory_format, &xf));
  tsr_tensor* h1 = checkpointed_block(m, xf, CNN_CONV1_WEIGHT, CNN_BN1_MEAN, training);
  tsr_tensor* h2 = checkpointed_block(m, h1, CNN_CONV2_WEIGHT, CNN_BN2_MEAN, training);
  /* [B, 64, 7, 7] -> [B, 3136] in (c, h, w) order whatever the layout: a
   * view of NCHW memory, a copy of NHWC memory, as torch.flatten. */
  tsr_tensor *flat = NULL, *logits = NULL;
  CHECK(tsr_flatten(h2, 1, -1, &flat));
  CHECK(tsr_linear(flat, m->params[CNN_FC_WEIGHT], m->params[CNN_FC_BIAS], &logits));
  tsr_tensor_release(flat);
  tsr_tensor_release(h2);
  tsr_tensor_release(h1);
  tsr_tensor_release(xf);
  return logits;
}

void cnn_predict(cnn* m, const tsr_tensor* x, int64_t* out) {
  bool prev = tsr_set_grad_enabled(false);
  int64_t n = tsr_tensor_sizes(x)[0];
  for (int64_t start = 0; start < n; start += EVAL_BATCH) {
    int64_t len = n - start < EVAL_BATCH ? n - start : EVAL_BATCH;
    tsr_tensor *xb = NULL, *classes = NULL;
    CHECK(tsr_narrow(x, 0, start, len, &xb));
    tsr_tensor* logits = cnn_forward(m, xb, false);
    CHECK(tsr_argmax(logits, 1, false, &classes));
    CHECK(tsr_copy_to_buffer(classes, out + start, (size_t)len * sizeof *out, NULL));
    tsr_tensor_release(classes);
    tsr_tensor_release(logits);
    tsr_tensor_release(xb);
  }
  tsr_set_grad_enabled(prev);
}

int cnn_used_params(const cnn* m, int* out) {
  int n = 0;
  for (int i = 0; i < CNN_NPARAMS; ++i) {
    bool bn = i == CNN_BN1_WEIGHT || i == CNN_BN1_BIAS || i == CNN_BN2_WEIGHT || i == CNN_BN2_BIAS;
    if (m->batch_norm || !bn) out[n++] = i;
  }
  return n;
}

int64_t cnn_num_parameters(const cnn* m) {
  int64_t n = 0;
  for (int i = 0; i < CNN_NPARAMS; ++i) n += tsr_tensor_numel(m->params[i]);
  return n;
}

void cnn_release(cnn* m) {
  for (int i = 0; i < CNN_NPARAMS; ++i) {
    tsr_tensor_release(m->params[i]);
    m->params[i] = NULL;
  }
  for (int i = 0; i < CNN_NBUFFERS; ++i) {
    tsr_tensor_release(m->buffers[i]);
    m->buffers[i] = NULL;
  }
}
