/* Shared by the training tests (test_clip_grad.c, test_lr_scheduler.c,
 * test_optim_groups.c): the three golden parameters of
 * golden/training_golden.h (shapes [3, 4], [5], [2, 2], 21 elements in all),
 * tensors from doubles and back. */
#ifndef TSR_TRAINING_HELPERS_H
#define TSR_TRAINING_HELPERS_H

#include <math.h>

#include "helpers.h"

static const int64_t kTrShape0[] = {3, 4}, kTrShape1[] = {5}, kTrShape2[] = {2, 2};
static const int64_t* const kTrShapes[3] = {kTrShape0, kTrShape1, kTrShape2};
static const int64_t kTrNdims[3] = {2, 1, 2};
static const int64_t kTrOffsets[3] = {0, 12, 17};
static const int64_t kTrNumel[3] = {12, 5, 4};

/* A contiguous tensor of dtype holding vals (C order). */
static inline tsr_tensor* tr_tensor(const double* vals, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(vals, (size_t)n * sizeof(double), ndim, sizes, TSR_FLOAT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

/* t's elements in C order as doubles; returns numel. */
static inline int64_t tr_values(const tsr_tensor* t, double* out) {
  tsr_tensor* t64;
  TSR_ASSERT_OK(tsr_to_dtype(t, TSR_FLOAT64, &t64));
  int64_t n = tsr_tensor_numel(t64);
  TSR_ASSERT_OK(tsr_copy_to_buffer(t64, out, (size_t)n * sizeof(double), NULL));
  tsr_tensor_release(t64);
  return n;
}

/* Leaves of zeros requiring grad, of the three shapes. */
static inline void tr_params(tsr_dtype dtype, tsr_tensor* ps[3]) {
  for (int i = 0; i < 3; ++i) {
    TSR_ASSERT_OK(tsr_zeros(kTrNdims[i], kTrShapes[i], dtype, TSR_DEVICE_CPU, 0, &ps[i]));
    TSR_ASSERT_OK(tsr_set_requires_grad(ps[i], true));
  }
}

/* ps[i].grad = vals[kTrOffsets[i]...] * scale, in dtype. */
static inline void tr_set_grad(tsr_tensor* p, int i, const double* vals, double scale, tsr_dtype dtype) {
  double buf[12];
  for (int64_t k = 0; k < kTrNumel[i]; ++k) buf[k] = vals[kTrOffsets[i] + k] * scale;
  tsr_tensor* g = tr_tensor(buf, kTrNdims[i], kTrShapes[i], dtype);
  TSR_ASSERT_OK(tsr_set_grad(p, g));
  tsr_tensor_release(g);
}

/* The grads (or params) of all three, concatenated. */
static inline void tr_gather(tsr_tensor* ps[3], bool grads, double out[21]) {
  for (int i = 0; i < 3; ++i) {
    tsr_tensor* t = ps[i];
    if (grads) TSR_ASSERT_OK(tsr_grad(ps[i], &t));
    if (!t) {
      for (int64_t k = 0; k < kTrNumel[i]; ++k) out[kTrOffsets[i] + k] = NAN;
      continue;
    }
    tr_values(t, out + kTrOffsets[i]);
    if (grads) tsr_tensor_release(t);
  }
}

static inline void tr_release3(tsr_tensor* ps[3]) {
  for (int i = 0; i < 3; ++i) tsr_tensor_release(ps[i]);
}

#endif
