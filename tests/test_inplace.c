/* In-place ops (ops.h): add_ (alpha, broadcasting, conversion, views,
 * overlap), fill_, zero_, mul_scalar_; version counters shared by views
 * (torch's _version); the overlap (internal and partial) and autograd
 * refusals. Expected values and
 * versions from PyTorch 1.13 (tests/golden/gen_ops.py -> inplace_golden.h). */
#include <stdint.h>

#include "golden/inplace_golden.h"
#include "helpers.h"
#include "ops_program.h"

#define N(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

static tsr_tensor* from(const double* v, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t i = 0; i < ndim; ++i) n *= sizes[i];
  tsr_tensor *flat = tg_from_doubles(v, n, dtype), *t;
  TSR_ASSERT_OK(tsr_reshape(flat, ndim, sizes, &t));
  tsr_tensor_release(flat);
  return t;
}

static void expect_values(const tsr_tensor* t, const double* want, int64_t n, double tol,
                          const char* what) {
  cr_assert_eq(tsr_tensor_numel(t), n, "%s: numel", what);
  double* v = tg_values(t);
  for (int64_t i = 0; i < n; ++i)
    cr_expect(tg_close(v[i], want[i], tol, tol), "%s[%lld] = %.9g, torch says %.9g", what,
              (long long)i, v[i], want[i]);
  free(v);
}

Test(inplace, add_alpha_broadcast) {
  const int64_t s[] = {2, 3}, so[] = {3};
  tsr_tensor *x = from(ip_add_x, 2, s, TSR_FLOAT32), *o = from(ip_add_other, 1, so, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_add_(x, o, -0.5));
  expect_values(x, ip_add_result, 6, 1e-6, "x.add_(o, alpha=-0.5)");
  cr_expect_eq(tsr_version(x), 1);
  cr_expect_eq(tsr_version(o), 0, "other is only read");
  expect_values(o, ip_add_other, 3, 0, "other");
  tsr_tensor_release(x);
  tsr_tensor_release(o);
}

/* base.t().narrow(0, 1, 2).add_(other, alpha=2): written through to base. */
Test(inplace, add_through_view) {
  const int64_t s[] = {3, 4}, so[] = {2, 3};
  tsr_tensor *b = from(ip_view_base, 2, s, TSR_FLOAT32), *o = from(ip_view_other, 2, so, TSR_FLOAT32);
  tsr_tensor *t, *v;
  TSR_ASSERT_OK(tsr_t(b, &t));
  TSR_ASSERT_OK(tsr_narrow(t, 0, 1, 2, &v));
  TSR_ASSERT_OK(tsr_add_(v, o, 2.0));
  expect_values(b, ip_view_result, 12, 1e-6, "base");
  cr_expect_eq(tsr_version(b), 1, "views share the base's counter");
  cr_expect_eq(tsr_version(t), 1);
  cr_expect_eq(tsr_version(v), 1);
  tsr_tensor_release(v);
  tsr_tensor_release(t);
  tsr_tensor_release(b);
  tsr_tensor_release(o);
}

/* float32 self += int32 other: other converted to self's dtype. */
Test(inplace, add_converts_other) {
  const int64_t s[] = {2, 3}, so[] = {3};
  tsr_tensor *x = from(ip_add_x, 2, s, TSR_FLOAT32), *o = from(ip_int_other, 1, so, TSR_INT32);
  TSR_ASSERT_OK(tsr_add_(x, o, 1.0));
  cr_expect_eq(tsr_tensor_dtype(x), TSR_FLOAT32);
  expect_values(x, ip_int_result, 6, 1e-6, "x.add_(int32)");
  tsr_tensor_release(x);
  tsr_tensor_release(o);
}

/* self = base[1:], other = base[:-1]: dense views that partly share
 * memory. torch refuses (ATen's assert_no_partial_overlap); base unchanged. */
Test(inplace, add_partial_overlap_refused) {
  tsr_tensor *b, *self, *other, *even, *odd;
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_narrow(b, 0, 1, 5, &self));
  TSR_ASSERT_OK(tsr_narrow(b, 0, 0, 5, &other));
  TSR_ASSERT_FAILS(tsr_add_(self, other, 1.0), TSR_ERR_INVALID_ARGUMENT,
                   "unsupported operation: some elements of the input tensor and the written-to "
                   "tensor refer to a single memory location. Please clone() the tensor before "
                   "performing the operation.");
  cr_expect_eq(tsr_version(b), 0);
  for (int64_t i = 0; i < 6; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(b, 1, &i, &v));
    cr_expect_eq(v, (double)i);
  }
  /* Full overlap (x += x) is fine, as in torch. */
  TSR_ASSERT_OK(tsr_add_(b, b, 1.0));
  for (int64_t i = 0; i < 6; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(b, 1, &i, &v));
    cr_expect_eq(v, 2.0 * (double)i);
  }
  /* Interleaved non-dense views of one storage: allowed (torch: "too hard"
   * to prove, not refused). b = arange(6); b[0::2] += b[1::2]. */
  tsr_tensor_release(b);
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_slice(b, 0, 0, INT64_MAX, 2, &even));
  TSR_ASSERT_OK(tsr_slice(b, 0, 1, INT64_MAX, 2, &odd));
  TSR_ASSERT_OK(tsr_add_(even, odd, 1.0));
  expect_values(b, ip_interleaved_add_result, 6, 0, "base");
  tsr_tensor* all[] = {self, other, b, even, odd};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

/* f[:, ::2].fill_(-1.5); f.select(0, 1).zero_(); f.t().mul_(3). */
Test(inplace, fill_zero_mul_on_views) {
  tsr_tensor *flat, *f, *cols, *row, *ft;
  const int64_t s[] = {3, 4};
  TSR_ASSERT_OK(tsr_arange(0, 12, 1, TSR_FLOAT32, TSR_CPU, &flat));
  TSR_ASSERT_OK(tsr_reshape(flat, 2, s, &f));
  TSR_ASSERT_OK(tsr_slice(f, 1, 0, INT64_MAX, 2, &cols));
  TSR_ASSERT_OK(tsr_fill_(cols, -1.5));
  TSR_ASSERT_OK(tsr_select(f, 0, 1, &row));
  TSR_ASSERT_OK(tsr_zero_(row));
  TSR_ASSERT_OK(tsr_t(f, &ft));
  TSR_ASSERT_OK(tsr_mul_scalar_(ft, 3.0));
  expect_values(f, ip_fill_zero_mul_result, 12, 0, "f");
  cr_expect_eq(tsr_version(flat), 3);
  tsr_tensor* all[] = {flat, f, cols, row, ft};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

/* Integer self wraps like the out-of-place ops (and is not UB). */
Test(inplace, int64_wraps) {
  const int64_t a[] = {INT64_MAX, INT64_MIN, 5}, b[] = {1, -1, INT64_MAX},
                m[] = {INT64_C(1) << 62, -3};
  const int64_t n3 = 3, n2 = 2;
  tsr_tensor *x, *y, *z;
  TSR_ASSERT_OK(tsr_from_data(a, sizeof a, 1, &n3, TSR_INT64, &x));
  TSR_ASSERT_OK(tsr_from_data(b, sizeof b, 1, &n3, TSR_INT64, &y));
  TSR_ASSERT_OK(tsr_from_data(m, sizeof m, 1, &n2, TSR_INT64, &z));
  TSR_ASSERT_OK(tsr_add_(x, y, 1.0));
  TSR_ASSERT_OK(tsr_mul_scalar_(z, 4.0));
  int64_t got[3];
  TSR_ASSERT_OK(tsr_copy_to_buffer(x, got, sizeof got, NULL));
  for (int i = 0; i < 3; ++i) cr_expect_eq(got[i], ip_int64_wrap_result[i]);
  TSR_ASSERT_OK(tsr_copy_to_buffer(z, got, sizeof got, NULL));
  for (int i = 0; i < 2; ++i) cr_expect_eq(got[i], ip_int64_mul_wrap_result[i]);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(z);
}

/* torch's _version after: v = x.t(); v.add_; x.fill_; x.select(0,1).zero_;
 * x.mul_; d = x.detach(); d.add_; x + 1 (no bump). */
Test(inplace, version_counter_shared_by_views) {
  const int64_t s[] = {3, 4}, st[] = {4, 3};
  tsr_tensor *x, *v, *d, *row, *ones_t, *ones, *y;
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_t(x, &v));
  TSR_ASSERT_OK(tsr_detach(x, &d));
  TSR_ASSERT_OK(tsr_ones(2, st, TSR_FLOAT32, TSR_CPU, &ones_t));
  TSR_ASSERT_OK(tsr_ones(2, s, TSR_FLOAT32, TSR_CPU, &ones));
  int64_t got[7];
  got[0] = tsr_version(x);
  TSR_ASSERT_OK(tsr_add_(v, ones_t, 1.0));
  got[1] = tsr_version(x);
  TSR_ASSERT_OK(tsr_fill_(x, 2.0));
  got[2] = tsr_version(v);
  TSR_ASSERT_OK(tsr_select(x, 0, 1, &row));
  TSR_ASSERT_OK(tsr_zero_(row));
  got[3] = tsr_version(x);
  TSR_ASSERT_OK(tsr_mul_scalar_(x, 2.0));
  got[4] = tsr_version(d);
  TSR_ASSERT_OK(tsr_add_(d, ones, 0.5));
  got[5] = tsr_version(x);
  TSR_ASSERT_OK(tsr_add_scalar(x, 1.0, &y));
  got[6] = tsr_version(x);
  for (int i = 0; i < 7; ++i)
    cr_expect_eq(got[i], ip_versions[i], "version %d: %lld, torch says %lld", i,
                 (long long)got[i], (long long)ip_versions[i]);
  cr_expect_eq(tsr_version(y), 0, "a fresh result has its own counter");
  expect_values(x, ip_versions_final, 12, 0, "x");
  cr_expect_eq(tsr_version(NULL), -1);
  tsr_tensor* all[] = {x, v, d, row, ones_t, ones, y};
  for (int k = 0; k < 7; ++k) tsr_tensor_release(all[k]);
}

/* as_strided((2,3), (3,2)) of 8 zeros touches 0 2 4 / 3 5 7: no overlap,
 * so writing through it is allowed, as in torch. */
Test(inplace, interleaved_strides_are_not_overlap) {
  const int64_t n = 8, sz[] = {2, 3}, st[] = {3, 2}, s3[] = {3};
  tsr_tensor *z, *v, *one;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &z));
  TSR_ASSERT_OK(tsr_as_strided(z, 2, sz, st, 0, &v));
  TSR_ASSERT_OK(tsr_ones(1, s3, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_add_(v, one, 1.0));
  expect_values(z, ip_interleaved_result, 8, 0, "z");
  tsr_tensor_release(one);
  tsr_tensor_release(v);
  tsr_tensor_release(z);
}

/* ---- refusals: status, torch's message, nothing written, no bump ---- */

static void expect_all(const tsr_tensor* t, double v, int64_t version) {
  cr_expect_eq(tsr_version(t), version, "version %lld", (long long)tsr_version(t));
  double* got = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i) cr_expect_eq(got[i], v);
  free(got);
}

#define OVERLAP_MSG                                                                          \
  "unsupported operation: more than one element of the written-to tensor refers to a single " \
  "memory location. Please clone() the tensor before performing the operation."

Test(inplace, expanded_self_refused) {
  const int64_t s1[] = {3}, s2[] = {2, 3};
  tsr_tensor *base, *e, *o;
  TSR_ASSERT_OK(tsr_full(1, s1, 7, TSR_FLOAT32, TSR_CPU, &base));
  TSR_ASSERT_OK(tsr_expand(base, 2, s2, &e));
  TSR_ASSERT_OK(tsr_ones(1, s1, TSR_FLOAT32, TSR_CPU, &o));
  TSR_ASSERT_FAILS(tsr_add_(e, o, 1.0), TSR_ERR_INVALID_ARGUMENT, OVERLAP_MSG);
  TSR_ASSERT_FAILS(tsr_fill_(e, 1.0), TSR_ERR_INVALID_ARGUMENT, OVERLAP_MSG);
  TSR_ASSERT_FAILS(tsr_zero_(e), TSR_ERR_INVALID_ARGUMENT, OVERLAP_MSG);
  TSR_ASSERT_FAILS(tsr_mul_scalar_(e, 2.0), TSR_ERR_INVALID_ARGUMENT, OVERLAP_MSG);
  /* as_strided with a zero stride is the same. */
  const int64_t z[] = {0, 1};
  tsr_tensor* a;
  TSR_ASSERT_OK(tsr_as_strided(base, 2, s2, z, 0, &a));
  TSR_ASSERT_FAILS(tsr_fill_(a, 1.0), TSR_ERR_INVALID_ARGUMENT, OVERLAP_MSG);
  expect_all(base, 7, 0);
  tsr_tensor_release(a);
  tsr_tensor_release(e);
  tsr_tensor_release(o);
  tsr_tensor_release(base);
}

Test(inplace, add_shape_and_null_errors) {
  const int64_t s3[] = {3}, s23[] = {2, 3}, s4[] = {4};
  tsr_tensor *x, *big, *four;
  TSR_ASSERT_OK(tsr_full(1, s3, 5, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_ones(2, s23, TSR_FLOAT32, TSR_CPU, &big));
  TSR_ASSERT_OK(tsr_ones(1, s4, TSR_FLOAT32, TSR_CPU, &four));
  /* torch: "output with shape [3] doesn't match the broadcast shape [2, 3]" */
  TSR_ASSERT_FAILS(tsr_add_(x, big, 1.0), TSR_ERR_SHAPE_MISMATCH,
                   "output with shape [3] doesn't match the broadcast shape [2, 3]");
  /* torch: "The size of tensor a (3) must match the size of tensor b (4) at
   * non-singleton dimension 0" */
  TSR_ASSERT_FAILS(tsr_add_(x, four, 1.0), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (3) must match the size of tensor b (4) at "
                   "non-singleton dimension 0");
  TSR_ASSERT_FAILS(tsr_add_(NULL, four, 1.0), TSR_ERR_INVALID_ARGUMENT, "self is NULL");
  TSR_ASSERT_FAILS(tsr_add_(x, NULL, 1.0), TSR_ERR_INVALID_ARGUMENT, "other is NULL");
  TSR_ASSERT_FAILS(tsr_fill_(NULL, 1.0), TSR_ERR_INVALID_ARGUMENT, "self is NULL");
  TSR_ASSERT_FAILS(tsr_zero_(NULL), TSR_ERR_INVALID_ARGUMENT, "self is NULL");
  TSR_ASSERT_FAILS(tsr_mul_scalar_(NULL, 1.0), TSR_ERR_INVALID_ARGUMENT, "self is NULL");
  expect_all(x, 5, 0);
  expect_all(big, 1, 0);
  tsr_tensor_release(x);
  tsr_tensor_release(big);
  tsr_tensor_release(four);
}

#define LEAF_MSG "a leaf Variable that requires grad is being used in an in-place operation."

/* torch refuses in-place writes to a leaf that requires grad while grad
 * mode is on, and allows them under no_grad (how optimizers update). */
Test(inplace, leaf_requiring_grad) {
  const int64_t s[] = {3};
  tsr_tensor *w, *o;
  TSR_ASSERT_OK(tsr_full(1, s, 2, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &o));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_FAILS(tsr_add_(w, o, -0.1), TSR_ERR_AUTOGRAD, LEAF_MSG);
  TSR_ASSERT_FAILS(tsr_fill_(w, 1.0), TSR_ERR_AUTOGRAD, LEAF_MSG);
  TSR_ASSERT_FAILS(tsr_zero_(w), TSR_ERR_AUTOGRAD, LEAF_MSG);
  TSR_ASSERT_FAILS(tsr_mul_scalar_(w, 0.5), TSR_ERR_AUTOGRAD, LEAF_MSG);
  expect_all(w, 2, 0);
  cr_expect(tsr_is_leaf(w) && tsr_requires_grad(w));

  bool prev = tsr_set_grad_enabled(false);
  cr_expect(prev);
  TSR_ASSERT_OK(tsr_add_(w, o, -0.5));
  TSR_ASSERT_OK(tsr_mul_scalar_(w, 2.0));
  tsr_set_grad_enabled(prev);
  expect_all(w, 3, 2);
  cr_expect(tsr_is_leaf(w) && tsr_requires_grad(w), "still a leaf requiring grad");
  cr_expect_null(tsr_grad_fn_name(w));
  tsr_tensor_release(w);
  tsr_tensor_release(o);
}

/* In-place ops on tensors with history record it, as torch does:
 *   w = torch.full((3,), 2., requires_grad=True)
 *   y = w * 2; y.add_(torch.ones(3))  -> AddBackward0, y = 5, d sum(y)/dw = 2
 *   w[:2].zero_()                     -> "a view of a leaf Variable ..."
 *   x = torch.zeros(3); x.add_(w)     -> AddBackward0 on x, d sum(x)/dw = 1
 *   x2 = torch.zeros(3); x2.copy_(w)  -> CopyBackwards */
Test(inplace, tensors_with_history_record_it) {
  const int64_t s[] = {3};
  tsr_tensor *w, *o, *y, *view, *x, *x2, *total, *g;
  TSR_ASSERT_OK(tsr_full(1, s, 2, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &o));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_mul_scalar(w, 2.0, &y));
  TSR_ASSERT_OK(tsr_add_(y, o, 1.0));
  cr_expect_str_eq(tsr_grad_fn_name(y), "AddBackward0");
  expect_all(y, 5, 1);
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  TSR_ASSERT_OK(tsr_grad(w, &g));
  expect_all(g, 2, 0);
  tsr_tensor_release(g);
  tsr_tensor_release(total);
  TSR_ASSERT_OK(tsr_set_grad(w, NULL));
  /* A view of the leaf: refused, nothing written. */
  TSR_ASSERT_OK(tsr_narrow(w, 0, 0, 2, &view));
  TSR_ASSERT_FAILS(tsr_zero_(view), TSR_ERR_AUTOGRAD,
                   "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  expect_all(w, 2, 0);
  /* x (no grad) += w (requires grad): x takes history. */
  TSR_ASSERT_OK(tsr_zeros(1, s, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_add_(x, w, 1.0));
  cr_expect(tsr_requires_grad(x) && !tsr_is_leaf(x));
  cr_expect_str_eq(tsr_grad_fn_name(x), "AddBackward0");
  expect_all(x, 2, 1);
  TSR_ASSERT_OK(tsr_sum(x, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  TSR_ASSERT_OK(tsr_grad(w, &g));
  expect_all(g, 1, 0);
  tsr_tensor_release(g);
  tsr_tensor_release(total);
  TSR_ASSERT_OK(tsr_zeros(1, s, TSR_FLOAT32, TSR_CPU, &x2));
  TSR_ASSERT_OK(tsr_copy_(x2, w));
  cr_expect_str_eq(tsr_grad_fn_name(x2), "CopyBackwards");
  tsr_tensor* all[] = {w, o, y, view, x, x2};
  for (int k = 0; k < 6; ++k) tsr_tensor_release(all[k]);
}

static tsr_tensor* x34(void) {
  const double v[] = {-1, 2, -3, 4, 5, -6, 7, -8, 1, 1, 1, 1};
  const int64_t s[] = {3, 4};
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 2, s, TSR_FLOAT64, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  return x;
}

static void expect_grad(tsr_tensor* t, const double* expected, int64_t n) {
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(t, &g));
  double got[12];
  TSR_ASSERT_OK(tsr_copy_to_buffer(g, got, sizeof got, NULL));
  for (int64_t i = 0; i < n; ++i) cr_expect_eq(got[i], expected[i], "grad[%lld] = %g, expected %g", (long long)i, got[i], expected[i]);
  tsr_tensor_release(g);
}

/* torch:
 *   y = x * 2; v = y.t(); o = torch.ones(4, 3, requires_grad=True)
 *   v.add_(o, alpha=2)  -> v AsStridedBackward0, y CopySlices; (y*y).sum().backward()
 *   y = x * 2; v = y[0]; v.relu_() -> same names; (y*y).sum().backward()  */
Test(inplace, views_rebase_their_base_as_copy_slices) {
  tsr_tensor *x = x34(), *y, *v, *o, *yy, *total, *t2;
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2, &y));
  TSR_ASSERT_OK(tsr_t(y, &v));
  const int64_t s43[] = {4, 3};
  TSR_ASSERT_OK(tsr_ones(2, s43, TSR_FLOAT64, TSR_CPU, &o));
  TSR_ASSERT_OK(tsr_set_requires_grad(o, true));
  TSR_ASSERT_OK(tsr_add_(v, o, 2.0));
  cr_expect_str_eq(tsr_grad_fn_name(v), "AsStridedBackward0");
  cr_expect_str_eq(tsr_grad_fn_name(y), "CopySlices");
  TSR_ASSERT_OK(tsr_mul(y, y, &yy));
  TSR_ASSERT_OK(tsr_sum(yy, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  const double gx[] = {0, 24, -16, 40, 48, -40, 64, -56, 16, 16, 16, 16};
  const double go[] = {0, 48, 16, 24, -40, 16, -16, 64, 16, 40, -56, 16};
  expect_grad(x, gx, 12);
  expect_grad(o, go, 12);
  tsr_tensor* all[] = {y, v, o, yy, total};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);

  TSR_ASSERT_OK(tsr_set_grad(x, NULL));
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2, &y));
  TSR_ASSERT_OK(tsr_select(y, 0, 0, &v));
  TSR_ASSERT_OK(tsr_select(y, 0, 1, &t2)); /* another view, made before the write */
  TSR_ASSERT_OK(tsr_relu_(v));
  cr_expect_str_eq(tsr_grad_fn_name(v), "AsStridedBackward0");
  cr_expect_str_eq(tsr_grad_fn_name(t2), "AsStridedBackward0", "stale views are regenerated from the base");
  cr_expect_str_eq(tsr_grad_fn_name(y), "CopySlices");
  TSR_ASSERT_OK(tsr_mul(y, y, &yy));
  TSR_ASSERT_OK(tsr_sum(yy, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  const double gr[] = {0, 16, 0, 32, 40, -48, 56, -64, 8, 8, 8, 8};
  expect_grad(x, gr, 12);
  tsr_tensor* all2[] = {x, y, v, t2, yy, total};
  for (int k = 0; k < 6; ++k) tsr_tensor_release(all2[k]);
}

/* torch: y = x * 2; y.relu_() -> ReluBackward0; an exp result written in
 * place after being saved fails backward with the version message. */
Test(inplace, relu_on_a_non_leaf_and_saved_tensors_written_after) {
  tsr_tensor *x = x34(), *y, *total, *a, *s2;
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2, &y));
  TSR_ASSERT_OK(tsr_relu_(y));
  cr_expect_str_eq(tsr_grad_fn_name(y), "ReluBackward0");
  cr_expect_eq(tsr_version(y), 1);
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  const double g[] = {0, 2, 0, 2, 2, 0, 2, 0, 2, 2, 2, 2};
  expect_grad(x, g, 12);
  TSR_ASSERT_OK(tsr_set_grad(x, NULL));
  TSR_ASSERT_OK(tsr_exp(x, &a));
  TSR_ASSERT_OK(tsr_sum(a, 0, NULL, false, &s2));
  TSR_ASSERT_OK(tsr_mul_scalar_(a, 2.0));
  TSR_ASSERT_FAILS(tsr_backward(s2, NULL, false), TSR_ERR_AUTOGRAD,
                   "which is output 0 of ExpBackward0, is at version 1; expected version 0 instead.");
  tsr_tensor* none;
  TSR_ASSERT_OK(tsr_grad(x, &none));
  cr_expect_null(none);
  tsr_tensor* all[] = {x, y, total, a, s2};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}
