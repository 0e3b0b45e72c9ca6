/* Indexing by tensors and masks (indexing.h) against PyTorch 1.13: goldens
 * from tests/golden/gen_indexing.py (values, grad_fn names, the gradient of
 * sum(out * cos(k)) wrt x) for each op, float64 gradcheck, the in-place
 * forms, and every error path: a failing call changes nothing (values,
 * version) and writes no out value. The Python tests
 * (bindings/python/tests/test_indexing.py) compare with a live torch. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/indexing.h>

#include "golden/indexing_golden.h"
#include "gradcheck.h"

/* x[k] = ((k * 7) % n) / 4 - 2 in C order: the generator's inputs. */
static tsr_tensor* xleaf(int64_t ndim, const int64_t* sizes) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  double* v = malloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int64_t k = 0; k < n; ++k) v[k] = (double)((k * 7) % n) / 4 - 2;
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(double) * (size_t)n, ndim, sizes, TSR_FLOAT64, &x));
  free(v);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  return x;
}

static tsr_tensor* longs(tg_arena* ar, int64_t n, const int64_t* v, int64_t ndim, const int64_t* sizes) {
  tsr_tensor* t;
  int64_t flat = n;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(int64_t) * (size_t)n, ndim ? ndim : 1, ndim ? sizes : &flat, TSR_INT64, &t));
  return tg_keep(ar, t);
}
#define LONGS(...) longs(ar, sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t), (int64_t[]){__VA_ARGS__}, 0, NULL)
#define LONGS2(r, c, ...) longs(ar, (r) * (c), (int64_t[]){__VA_ARGS__}, 2, (int64_t[]){r, c})

static tsr_tensor* bools(tg_arena* ar, int64_t ndim, const int64_t* sizes, const bool* v) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n, ndim, sizes, TSR_BOOL, &t));
  return tg_keep(ar, t);
}

static tsr_tensor* scalar(tg_arena* ar, double v) {
  return T(tsr_full(0, NULL, v, TSR_FLOAT64, TSR_CPU, &o_));
}

/* x compared with c, no history (the generator's x.detach() > c). */
static tsr_tensor* cmp(tg_arena* ar, tsr_tensor* x, double c, bool greater) {
  tsr_tensor* d = T(tsr_detach(x, &o_));
  return greater ? T(tsr_gt(d, scalar(ar, c), &o_)) : T(tsr_lt(d, scalar(ar, c), &o_));
}

static tsr_tensor* rows(tg_arena* ar, tsr_tensor* x, int64_t a, int64_t b) {
  return T(tsr_slice(x, 0, a, b, 1, &o_));
}
static tsr_tensor* scaled(tg_arena* ar, tsr_tensor* x, double s) { return T(tsr_mul_scalar(x, s, &o_)); }
static tsr_tensor* idx24(tg_arena* ar) { return LONGS2(2, 4, 0, 1, 2, 0, 2, 0, 0, 1); }

/* One function per golden case, the same op as the generator's. */
static tsr_tensor* run_case(tg_arena* ar, const char* name, tsr_tensor* x) {
#define IS(s) (strcmp(name, s) == 0)
  if (IS("index_rows")) return T(tsr_index(x, 1, (const tsr_tensor*[]){LONGS(3, 0, 3)}, &o_));
  if (IS("index_negative")) return T(tsr_index(x, 1, (const tsr_tensor*[]){LONGS(-1, -4)}, &o_));
  if (IS("index_cols_2d")) return T(tsr_index(x, 2, (const tsr_tensor*[]){NULL, LONGS2(2, 2, 2, 0, 2, 1)}, &o_));
  if (IS("index_adjacent"))
    return T(tsr_index(x, 3, (const tsr_tensor*[]){NULL, LONGS(2, 0), LONGS(3, 1)}, &o_));
  if (IS("index_separated"))
    return T(tsr_index(x, 3, (const tsr_tensor*[]){LONGS(1, 0), NULL, LONGS(3, 1)}, &o_));
  if (IS("index_broadcast"))
    return T(tsr_index(x, 2, (const tsr_tensor*[]){LONGS2(2, 1, 1, 0), LONGS(0, 2, 1)}, &o_));
  if (IS("index_mask")) return T(tsr_index(x, 1, (const tsr_tensor*[]){cmp(ar, x, 0, true)}, &o_));
  if (IS("index_mask_rows"))
    return T(tsr_index(x, 1, (const tsr_tensor*[]){bools(ar, 1, (int64_t[]){3}, (bool[]){1, 0, 1})}, &o_));
  if (IS("index_empty")) return T(tsr_index(x, 1, (const tsr_tensor*[]){longs(ar, 0, NULL, 0, NULL)}, &o_));
  if (IS("index_transposed"))
    return T(tsr_index(T(tsr_t(x, &o_)), 1, (const tsr_tensor*[]){LONGS(1, 2)}, &o_));
  if (IS("index_put"))
    return T(tsr_index_put(x, 1, (const tsr_tensor*[]){LONGS(0, 2)}, scaled(ar, T(tsr_select(x, 0, 1, &o_)), 2),
                           false, &o_));
  if (IS("index_put_accumulate"))
    return T(tsr_index_put(x, 2, (const tsr_tensor*[]){LONGS(0, 0, 3), LONGS(1, 1, 2)},
                           scaled(ar, T(tsr_select(x, 0, 2, &o_)), 3), true, &o_));
  if (IS("index_put_mask"))
    return T(tsr_index_put(x, 1, (const tsr_tensor*[]){cmp(ar, x, 0, false)}, scalar(ar, 9), false, &o_));
  if (IS("masked_fill")) return T(tsr_masked_fill(x, cmp(ar, x, 0.5, true), -1.0, &o_));
  if (IS("masked_fill_bcast"))
    return T(tsr_masked_fill(x, bools(ar, 1, (int64_t[]){4}, (bool[]){1, 0, 0, 1}), 2.0, &o_));
  if (IS("masked_select")) return T(tsr_masked_select(x, cmp(ar, x, 0.3, false), &o_));
  if (IS("masked_select_bcast"))
    return T(tsr_masked_select(x, bools(ar, 2, (int64_t[]){3, 1}, (bool[]){1, 0, 1}), &o_));
  if (IS("scatter")) return T(tsr_scatter(x, 0, idx24(ar), scaled(ar, rows(ar, x, 0, 2), 3), &o_));
  if (IS("scatter_value")) return T(tsr_scatter_value(x, 0, idx24(ar), 1.5, &o_));
  if (IS("scatter_add")) return T(tsr_scatter_add(x, 0, idx24(ar), scaled(ar, rows(ar, x, 1, 3), 3), &o_));
  if (IS("scatter_add_dim1")) {
    tsr_tensor* i = T(tsr_slice(T(tsr_slice(T(tsr_t(idx24(ar), &o_)), 0, 0, 3, 1, &o_)), 1, 0, 2, 1, &o_));
    return T(tsr_scatter_add(x, 1, i, T(tsr_slice(x, 1, 0, 2, 1, &o_)), &o_));
  }
  static const struct {
    const char* name;
    tsr_scatter_reduction r;
    bool include_self;
  } reduce[] = {{"scatter_reduce_sum", TSR_SCATTER_SUM, true},           {"scatter_reduce_prod", TSR_SCATTER_PROD, true},
                {"scatter_reduce_mean", TSR_SCATTER_MEAN, true},         {"scatter_reduce_amax", TSR_SCATTER_AMAX, true},
                {"scatter_reduce_amin", TSR_SCATTER_AMIN, true},         {"scatter_reduce_mean_noself", TSR_SCATTER_MEAN, false},
                {"scatter_reduce_amax_noself", TSR_SCATTER_AMAX, false}};
  for (size_t k = 0; k < sizeof reduce / sizeof reduce[0]; ++k)
    if (IS(reduce[k].name))
      return T(tsr_scatter_reduce(x, 0, idx24(ar), scaled(ar, rows(ar, x, 1, 3), 3), reduce[k].r,
                                  reduce[k].include_self, &o_));
  if (IS("index_add")) return T(tsr_index_add(x, 0, LONGS(2, 0, 2), scaled(ar, x, 2), 0.5, &o_));
  if (IS("index_copy"))
    return T(tsr_index_copy(x, 1, LONGS(3, 0), scaled(ar, T(tsr_slice(x, 1, 1, 3, 1, &o_)), 2), &o_));
  if (IS("index_fill")) return T(tsr_index_fill(x, 1, LONGS(1, -1), 7.0, &o_));
  if (IS("take_along_dim")) return T(tsr_take_along_dim(x, LONGS2(3, 1, 3, 0, 1), &(int64_t){1}, &o_));
  if (IS("take_along_dim_bcast")) return T(tsr_take_along_dim(x, LONGS2(1, 2, 2, 0), &(int64_t){1}, &o_));
  if (IS("take_along_dim_flat")) return T(tsr_take_along_dim(x, LONGS(11, 0, 5), NULL, &o_));
#undef IS
  cr_assert_fail("no C form of golden case %s", name);
  return NULL;
}

static void expect_values(const char* name, const tsr_tensor* t, const double* want, int64_t n) {
  cr_assert_eq(tsr_tensor_numel(t), n, "%s: numel %lld, torch %lld", name, (long long)tsr_tensor_numel(t),
               (long long)n);
  double* v = tg_values(t);
  for (int64_t k = 0; k < n; ++k)
    cr_expect(fabs(v[k] - want[k]) <= 1e-12 * (1 + fabs(want[k])), "%s[%lld]: %.17g, torch %.17g", name,
              (long long)k, v[k], want[k]);
  free(v);
}

Test(indexing, goldens) {
  for (size_t c = 0; c < sizeof INDEXING_GOLDEN / sizeof INDEXING_GOLDEN[0]; ++c) {
    const indexing_golden* g = &INDEXING_GOLDEN[c];
    tsr_tensor* x = xleaf(g->x_ndim, g->x_sizes);
    tg_arena a = {.n = 0}, *ar = &a;
    tsr_tensor* out = run_case(ar, g->name, x);
    tsr_assert_geometry(out, g->ndim, g->sizes, NULL);
    expect_values(g->name, out, g->values, g->numel);
    cr_expect_str_eq(tsr_grad_fn_name(out), g->grad_fn, "%s: grad_fn", g->name);
    /* backward of sum(out * cos(k)) */
    double* w = malloc(sizeof(double) * (size_t)(g->numel ? g->numel : 1));
    for (int64_t k = 0; k < g->numel; ++k) w[k] = cos((double)k);
    tsr_tensor* wt = T(tsr_from_data(w, sizeof(double) * (size_t)g->numel, g->ndim, g->sizes, TSR_FLOAT64, &o_));
    free(w);
    TSR_ASSERT_OK(tsr_backward(T(tsr_sum(T(tsr_mul(out, wt, &o_)), 0, NULL, false, &o_)), NULL, false));
    tsr_tensor* grad;
    TSR_ASSERT_OK(tsr_grad(x, &grad));
    if (grad) {
      expect_values(g->name, grad, g->grad, tsr_tensor_numel(x));
      tsr_tensor_release(grad);
    } else {
      for (int64_t k = 0; k < tsr_tensor_numel(x); ++k) cr_expect(g->grad[k] == 0, "%s: no grad", g->name);
    }
    tg_arena_release(ar);
    tsr_tensor_release(x);
  }
}

/* ---- float64 gradcheck ------------------------------------------------------ */

static tsr_tensor* gc_index_put_acc(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_index_put(in[0], 1, (const tsr_tensor*[]){LONGS(0, 2, 0)}, in[1], true, &o_));
}
static tsr_tensor* gc_scatter_reduce(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  return T(tsr_scatter_reduce(in[0], 0, idx24(ar), in[1], *(const tsr_scatter_reduction*)ctx, false, &o_));
}
static tsr_tensor* gc_masked_fill_tensor(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor* m = bools(ar, 1, (int64_t[]){4}, (bool[]){1, 0, 1, 0});
  return T(tsr_masked_fill_tensor(in[0], m, in[1], &o_));
}
static tsr_tensor* gc_index_copy(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_index_copy(in[0], 0, LONGS(2, 0), in[1], &o_));
}

Test(indexing, gradcheck) {
  const int64_t s34[] = {3, 4}, s24[] = {2, 4}, s14[] = {1, 4};
  tsr_tensor *x = tg_leaf(2, s34, 1, 1.0, 0.0), *v = tg_leaf(1, s14 + 1, 2, 1.0, 0.0);
  cr_expect_gt(tg_gradcheck("index_put accumulate", gc_index_put_acc, 2, (tsr_tensor* []){x, v}, NULL), 0);
  tsr_tensor* src = tg_leaf(2, s24, 3, 1.0, 0.0);
  const tsr_scatter_reduction rs[] = {TSR_SCATTER_SUM, TSR_SCATTER_MEAN, TSR_SCATTER_AMAX, TSR_SCATTER_PROD};
  for (size_t k = 0; k < 4; ++k)
    cr_expect_gt(tg_gradcheck("scatter_reduce", gc_scatter_reduce, 2, (tsr_tensor* []){x, src}, &rs[k]), 0);
  tsr_tensor* value;
  TSR_ASSERT_OK(tsr_full(0, NULL, 0.5, TSR_FLOAT64, TSR_CPU, &value));
  TSR_ASSERT_OK(tsr_set_requires_grad(value, true));
  cr_expect_gt(tg_gradcheck("masked_fill value", gc_masked_fill_tensor, 2, (tsr_tensor* []){x, value}, NULL), 0);
  tsr_tensor* rows2 = tg_leaf(2, s24, 4, 1.0, 0.0);
  cr_expect_gt(tg_gradcheck("index_copy", gc_index_copy, 2, (tsr_tensor* []){x, rows2}, NULL), 0);
  tsr_tensor_release(x);
  tsr_tensor_release(v);
  tsr_tensor_release(src);
  tsr_tensor_release(value);
  tsr_tensor_release(rows2);
}

/* A 0-dim self adds every source element into its one element; each gets
 * the whole gradient (torch 1.13: source.grad is ones(3), self.grad 1). */
Test(indexing, index_add_into_a_0_dim_self_gives_every_source_element_the_gradient) {
  tg_arena a = {.n = 0}, *ar = &a;
  tsr_tensor* x = T(tsr_full(0, NULL, 0.5, TSR_FLOAT64, TSR_CPU, &o_));
  tsr_tensor* src = T(tsr_full(1, (int64_t[]){3}, 2, TSR_FLOAT64, TSR_CPU, &o_));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_set_requires_grad(src, true));
  tsr_tensor* y = T(tsr_index_add(x, 0, LONGS(0, 0, 0), src, 1, &o_));
  double* v = tg_values(y);
  cr_expect_eq(v[0], 6.5);
  free(v);
  TSR_ASSERT_OK(tsr_backward(y, NULL, false));
  tsr_tensor *gx = NULL, *gs = NULL;
  TSR_ASSERT_OK(tsr_grad(x, &gx));
  TSR_ASSERT_OK(tsr_grad(src, &gs));
  cr_assert_not_null(gs);
  cr_expect_eq(tsr_tensor_ndim(gs), 1);
  double* g = tg_values(gs);
  for (int k = 0; k < 3; ++k) cr_expect_eq(g[k], 1.0, "source grad %d: %g", k, g[k]);
  free(g);
  double* g0 = tg_values(gx);
  cr_expect_eq(g0[0], 1.0);
  free(g0);
  tsr_tensor_release(gx);
  tsr_tensor_release(gs);
  tg_arena_release(ar);
}

/* A backward whose gradient cannot have its input's shape fails with
 * torch 1.13's message (the engine's validate_outputs), instead of writing
 * a [3, 4] gradient into src's [3, 6] .grad: scatter's source larger than
 * its index, and an empty index. .grad stays undefined. */
Test(indexing, a_gradient_of_the_wrong_shape_is_torchs_error) {
  tg_arena a = {.n = 0}, *ar = &a;
  const char* const want[2] = {"Function ScatterBackward0 returned an invalid gradient at index 1 - got [3, 4] "
                               "but expected shape compatible with [3, 6]",
                               "Function ScatterBackward0 returned an invalid gradient at index 1 - got [3, 0] "
                               "but expected shape compatible with [3, 6]"};
  for (int k = 0; k < 2; ++k) {
    tsr_tensor* x = T(tsr_zeros(2, (int64_t[]){3, 6}, TSR_FLOAT32, TSR_CPU, &o_));
    tsr_tensor* src = T(tsr_ones(2, (int64_t[]){3, 6}, TSR_FLOAT32, TSR_CPU, &o_));
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_set_requires_grad(src, true));
    tsr_tensor* idx = k == 0 ? LONGS2(3, 4, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3)
                             : T(tsr_zeros(2, (int64_t[]){3, 0}, TSR_INT64, TSR_CPU, &o_));
    tsr_tensor* y = T(tsr_scatter(x, 1, idx, src, &o_));
    tsr_tensor* total = T(tsr_sum(y, 0, NULL, false, &o_));
    TSR_ASSERT_FAILS(tsr_backward(total, NULL, false), TSR_ERR_SHAPE_MISMATCH, want[k]);
    tsr_tensor* g = (tsr_tensor*)0x1;
    TSR_ASSERT_OK(tsr_grad(src, &g));
    cr_expect_null(g, "src.grad stays undefined");
  }
  tg_arena_release(ar);
}

/* ---- in place ------------------------------------------------------------------ */

Test(indexing, in_place_forms_write_self_and_bump_its_version) {
  tg_arena a = {.n = 0}, *ar = &a;
  tsr_tensor* x = T(tsr_zeros(2, (int64_t[]){3, 4}, TSR_FLOAT32, TSR_CPU, &o_));
  TSR_ASSERT_OK(tsr_index_put_(x, 1, (const tsr_tensor*[]){LONGS(1)}, T(tsr_full(0, NULL, 2, TSR_FLOAT32, TSR_CPU, &o_)), false));
  TSR_ASSERT_OK(tsr_masked_fill_(x, bools(ar, 1, (int64_t[]){4}, (bool[]){0, 0, 0, 1}), 5));
  TSR_ASSERT_OK(tsr_scatter_value_(x, 0, LONGS2(1, 4, 2, 2, 2, 2), 1));
  TSR_ASSERT_OK(tsr_scatter_add_(x, 1, LONGS2(3, 1, 0, 0, 0), T(tsr_full(2, (int64_t[]){3, 1}, 10, TSR_FLOAT32, TSR_CPU, &o_))));
  TSR_ASSERT_OK(tsr_index_fill_(x, 1, LONGS(2), -1));
  TSR_ASSERT_OK(tsr_index_add_(x, 0, LONGS(0, 0), T(tsr_full(2, (int64_t[]){2, 4}, 1, TSR_FLOAT32, TSR_CPU, &o_)), 2));
  cr_expect_eq(tsr_version(x), 6);
  /* torch 1.13 */
  const double want[] = {14, 4, 3, 9, 12, 2, -1, 5, 11, 1, -1, 1};
  double* v = tg_values(x);
  for (int k = 0; k < 12; ++k) cr_expect_eq(v[k], want[k], "element %d: %g != %g", k, v[k], want[k]);
  free(v);
  /* a source sharing self's memory is refused, as torch */
  tsr_tensor* r = T(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &o_));
  TSR_ASSERT_FAILS(tsr_index_put_(r, 1, (const tsr_tensor*[]){LONGS(3, 2, 1, 0)}, r, false), TSR_ERR_INVALID_ARGUMENT,
                   "some elements of the input tensor and the written-to tensor refer to a single memory location");
  TSR_ASSERT_FAILS(tsr_scatter_(r, 0, LONGS(1, 0), r), TSR_ERR_INVALID_ARGUMENT, "refer to a single memory location");
  cr_expect_eq(tsr_version(r), 0);
  tg_arena_release(ar);
}

Test(indexing, integer_bool_and_16_bit_dtypes) {
  tg_arena a = {.n = 0}, *ar = &a;
  /* int64 scatter_add wraps; bool index_put; bfloat16 masked_select */
  tsr_tensor* i = T(tsr_full(1, (int64_t[]){2}, 9223372036854775807.0, TSR_INT64, TSR_CPU, &o_));
  tsr_tensor* s = T(tsr_scatter_add(i, 0, LONGS(0), T(tsr_full(1, (int64_t[]){1}, 1, TSR_INT64, TSR_CPU, &o_)), &o_));
  int64_t first;
  TSR_ASSERT_OK(tsr_get_int64(s, 1, (int64_t[]){0}, &first));
  cr_expect_eq(first, INT64_MIN);
  tsr_tensor* b = T(tsr_zeros(1, (int64_t[]){3}, TSR_BOOL, TSR_CPU, &o_));
  tsr_tensor* bp = T(tsr_index_put(b, 1, (const tsr_tensor*[]){LONGS(2)}, T(tsr_full(0, NULL, 1, TSR_BOOL, TSR_CPU, &o_)), false, &o_));
  double* v = tg_values(bp);
  cr_expect(v[0] == 0 && v[1] == 0 && v[2] == 1);
  free(v);
  tsr_tensor* h = T(tsr_arange(0, 6, 1, TSR_BFLOAT16, TSR_CPU, &o_));
  tsr_tensor* sel = T(tsr_masked_select(h, bools(ar, 1, (int64_t[]){6}, (bool[]){0, 1, 0, 1, 1, 0}), &o_));
  cr_expect_eq(tsr_tensor_dtype(sel), TSR_BFLOAT16);
  v = tg_values(sel);
  cr_expect(v[0] == 1 && v[1] == 3 && v[2] == 4);
  free(v);
  /* nothing selected (the fuzzer's case: the output is empty) */
  sel = T(tsr_masked_select(h, bools(ar, 1, (int64_t[]){6}, (bool[]){0, 0, 0, 0, 0, 0}), &o_));
  cr_expect_eq(tsr_tensor_numel(sel), 0);
  /* a 0-dim self needs one element per index (fuzzer: it read past the source) */
  tsr_tensor* s0 = T(tsr_full(0, NULL, 1, TSR_FLOAT32, TSR_CPU, &o_));
  TSR_ASSERT_FAILS(tsr_index_copy_(s0, 0, LONGS(0), T(tsr_full(2, (int64_t[]){1, 3}, 2, TSR_FLOAT32, TSR_CPU, &o_))),
                   TSR_ERR_SHAPE_MISMATCH, "needs one element per index");
  TSR_ASSERT_OK(tsr_index_copy_(s0, 0, LONGS(0), T(tsr_full(1, (int64_t[]){1}, 2, TSR_FLOAT32, TSR_CPU, &o_))));
  /* nonzero of a 0-dim and of an empty tensor */
  tsr_tensor* nz = T(tsr_nonzero(T(tsr_full(0, NULL, 3, TSR_FLOAT32, TSR_CPU, &o_)), &o_));
  tsr_assert_geometry(nz, 2, (int64_t[]){1, 0}, NULL);
  nz = T(tsr_nonzero(T(tsr_zeros(2, (int64_t[]){0, 3}, TSR_FLOAT32, TSR_CPU, &o_)), &o_));
  tsr_assert_geometry(nz, 2, (int64_t[]){0, 2}, NULL);
  tg_arena_release(ar);
}

/* ---- errors: a status, the message, and nothing changed ----------------------- */

static const double X12[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

static tsr_tensor* x34(tg_arena* ar) {
  tsr_tensor* x = T(tsr_from_data(X12, sizeof X12, 2, (int64_t[]){3, 4}, TSR_FLOAT64, &o_));
  return T(tsr_clone(x, TSR_CONTIGUOUS_FORMAT, &o_));
}

Test(indexing, errors_change_nothing) {
  tg_arena a = {.n = 0}, *ar = &a;
  tsr_tensor* x = x34(ar);
  tsr_tensor* out = SENTINEL;
  tsr_tensor* row = T(tsr_full(1, (int64_t[]){4}, 1, TSR_FLOAT64, TSR_CPU, &o_));
  /* index */
  TSR_ASSERT_FAILS(tsr_index(x, 1, (const tsr_tensor*[]){LONGS(3)}, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 3 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_index(x, 1, (const tsr_tensor*[]){LONGS(-4)}, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index -4 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_index(x, 3, (const tsr_tensor*[]){LONGS(0), LONGS(0), LONGS(0)}, &out),
                   TSR_ERR_INDEX_OUT_OF_RANGE, "too many indices for tensor of dimension 2 (got 3)");
  TSR_ASSERT_FAILS(tsr_index(x, 2, (const tsr_tensor*[]){LONGS(0, 1), LONGS(0, 1, 2)}, &out),
                   TSR_ERR_INDEX_OUT_OF_RANGE,
                   "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  TSR_ASSERT_FAILS(tsr_index(x, 1, (const tsr_tensor*[]){bools(ar, 1, (int64_t[]){2}, (bool[]){1, 0})}, &out),
                   TSR_ERR_INDEX_OUT_OF_RANGE, "The shape of the mask [2] at index 0 does not match");
  TSR_ASSERT_FAILS(tsr_index(x, 1, (const tsr_tensor*[]){row}, &out), TSR_ERR_DTYPE_MISMATCH,
                   "tensors used as indices must be long, byte or bool tensors");
  TSR_ASSERT_FAILS(tsr_index(x, -1, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "n must be non-negative");
  TSR_ASSERT_FAILS(tsr_index(x, 1, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "indices is NULL");
  TSR_ASSERT_FAILS(tsr_index(NULL, 0, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "self is NULL");
  TSR_ASSERT_FAILS(tsr_index(x, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  /* index_put_: a bad index among good ones writes nothing */
  TSR_ASSERT_FAILS(tsr_index_put_(x, 1, (const tsr_tensor*[]){LONGS(0, 7)}, row, false), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 7 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_index_put_(x, 1, (const tsr_tensor*[]){LONGS(0, 1)}, T(tsr_full(1, (int64_t[]){3}, 1, TSR_FLOAT64, TSR_CPU, &o_)), false),
                   TSR_ERR_SHAPE_MISMATCH,
                   "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]");
  TSR_ASSERT_FAILS(tsr_index_put_(x, 1, (const tsr_tensor*[]){LONGS(0)}, T(tsr_full(1, (int64_t[]){4}, 1, TSR_FLOAT32, TSR_CPU, &o_)), false),
                   TSR_ERR_DTYPE_MISMATCH, "Index put requires the source and destination dtypes match, got Double");
  TSR_ASSERT_FAILS(tsr_index_put_(x, 1, (const tsr_tensor*[]){LONGS(0)}, NULL, false), TSR_ERR_INVALID_ARGUMENT,
                   "values is NULL");
  /* masks */
  TSR_ASSERT_FAILS(tsr_masked_fill_(x, LONGS(0, 1, 0, 1), 1), TSR_ERR_DTYPE_MISMATCH,
                   "masked_fill_ only supports boolean masks, but got mask with dtype int64");
  TSR_ASSERT_FAILS(tsr_masked_fill_(x, bools(ar, 1, (int64_t[]){3}, (bool[]){1, 1, 1}), 1), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (4) must match the size of tensor b (3)");
  TSR_ASSERT_FAILS(tsr_masked_fill_tensor_(x, bools(ar, 1, (int64_t[]){4}, (bool[]){1, 1, 1, 1}), row),
                   TSR_ERR_INVALID_ARGUMENT, "only supports a 0-dimensional value tensor");
  TSR_ASSERT_FAILS(tsr_masked_select(x, LONGS(1), &out), TSR_ERR_DTYPE_MISMATCH, "only supports boolean masks");
  TSR_ASSERT_FAILS(tsr_masked_select(x, bools(ar, 1, (int64_t[]){3}, (bool[]){1, 1, 1}), &out),
                   TSR_ERR_SHAPE_MISMATCH, "The size of tensor a (4) must match the size of tensor b (3)");
  /* scatter family */
  TSR_ASSERT_FAILS(tsr_scatter_value_(x, 0, LONGS2(1, 2, 0, 5), 1), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 5 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_scatter_value_(x, 0, LONGS2(1, 2, 0, -1), 1), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index -1 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_scatter_(x, 0, LONGS2(1, 1, 0), T(tsr_full(2, (int64_t[]){1, 1}, 1, TSR_FLOAT32, TSR_CPU, &o_))),
                   TSR_ERR_DTYPE_MISMATCH, "scatter(): Expected self.dtype to be equal to src.dtype");
  TSR_ASSERT_FAILS(tsr_scatter_add_(x, 0, LONGS(0), row), TSR_ERR_SHAPE_MISMATCH,
                   "Index tensor must have the same number of dimensions as self tensor");
  TSR_ASSERT_FAILS(tsr_scatter_add_(x, 0, LONGS2(2, 2, 0, 0, 0, 0), T(tsr_full(2, (int64_t[]){1, 2}, 1, TSR_FLOAT64, TSR_CPU, &o_))),
                   TSR_ERR_SHAPE_MISMATCH, "Expected index [2, 2] to be smaller than self [3, 4] apart from dimension 0 and to be smaller size than src [1, 2]");
  TSR_ASSERT_FAILS(tsr_scatter_value_(x, 0, T(tsr_zeros(2, (int64_t[]){1, 1}, TSR_INT32, TSR_CPU, &o_)), 1),
                   TSR_ERR_DTYPE_MISMATCH, "Expected dtype int64 for index");
  TSR_ASSERT_FAILS(tsr_scatter_reduce_(x, 0, LONGS2(1, 1, 0), T(tsr_full(2, (int64_t[]){1, 1}, 1, TSR_FLOAT64, TSR_CPU, &o_)),
                                       (tsr_scatter_reduction)9, true),
                   TSR_ERR_INVALID_ARGUMENT, "reduce argument must be either sum, prod, mean, amax or amin");
  TSR_ASSERT_FAILS(tsr_scatter_value_(x, 2, LONGS2(1, 1, 0), 1), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  /* one-dim updates */
  TSR_ASSERT_FAILS(tsr_index_add_(x, 0, LONGS(3), T(tsr_full(2, (int64_t[]){1, 4}, 1, TSR_FLOAT64, TSR_CPU, &o_)), 1),
                   TSR_ERR_INDEX_OUT_OF_RANGE, "index out of range in self");
  TSR_ASSERT_FAILS(tsr_index_add_(x, 0, LONGS(0), T(tsr_full(2, (int64_t[]){2, 4}, 1, TSR_FLOAT64, TSR_CPU, &o_)), 1),
                   TSR_ERR_INDEX_OUT_OF_RANGE, "Number of indices (1) should be equal to source.size(dim) (2)");
  TSR_ASSERT_FAILS(tsr_index_add_(x, 0, LONGS2(1, 1, 0), T(tsr_full(2, (int64_t[]){1, 4}, 1, TSR_FLOAT64, TSR_CPU, &o_)), 1),
                   TSR_ERR_INDEX_OUT_OF_RANGE, "Index is supposed to be a vector");
  TSR_ASSERT_FAILS(tsr_index_add_(x, 0, LONGS(0), T(tsr_full(2, (int64_t[]){1, 4}, 1, TSR_FLOAT32, TSR_CPU, &o_)), 1),
                   TSR_ERR_DTYPE_MISMATCH, "index_add_(): self (Double) and source (Float) must have the same scalar type");
  TSR_ASSERT_FAILS(tsr_index_add_(x, 0, LONGS(0), T(tsr_full(2, (int64_t[]){1, 3}, 1, TSR_FLOAT64, TSR_CPU, &o_)), 1),
                   TSR_ERR_SHAPE_MISMATCH, "The size of tensor a (4) must match the size of tensor b (3)");
  TSR_ASSERT_FAILS(tsr_index_copy_(x, 0, LONGS(0, 3), T(tsr_full(2, (int64_t[]){2, 4}, 1, TSR_FLOAT64, TSR_CPU, &o_))),
                   TSR_ERR_INDEX_OUT_OF_RANGE, "index_copy_(): index 3 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_index_copy_(x, 0, T(tsr_zeros(1, (int64_t[]){1}, TSR_INT32, TSR_CPU, &o_)), T(tsr_full(2, (int64_t[]){1, 4}, 1, TSR_FLOAT64, TSR_CPU, &o_))),
                   TSR_ERR_DTYPE_MISMATCH, "index_copy_(): Expected a long tensor for index, but got Int");
  TSR_ASSERT_FAILS(tsr_index_fill_(x, 1, LONGS(4), 1), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 4 is out of bounds for dimension 1 with size 4");
  TSR_ASSERT_FAILS(tsr_take_along_dim(x, LONGS(0), &(int64_t){1}, &out), TSR_ERR_SHAPE_MISMATCH,
                   "input and indices should have the same number of dimensions");
  TSR_ASSERT_FAILS(tsr_take_along_dim(x, T(tsr_zeros(2, (int64_t[]){1, 1}, TSR_INT32, TSR_CPU, &o_)), &(int64_t){1}, &out),
                   TSR_ERR_DTYPE_MISMATCH, "dtype of indices should be Long but got Int");
  TSR_ASSERT_FAILS(tsr_take_along_dim(x, LONGS2(1, 1, 9), &(int64_t){1}, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 9 is out of bounds for dimension 1 with size 4");
  /* autograd: a leaf that requires grad is not written */
  tsr_tensor* leaf = T(tsr_clone(x, TSR_CONTIGUOUS_FORMAT, &o_));
  TSR_ASSERT_OK(tsr_set_requires_grad(leaf, true));
  TSR_ASSERT_FAILS(tsr_masked_fill_(leaf, bools(ar, 1, (int64_t[]){4}, (bool[]){1, 1, 1, 1}), 1), TSR_ERR_AUTOGRAD,
                   "a leaf Variable that requires grad is being used in an in-place operation");
  TSR_ASSERT_FAILS(tsr_index_put_(leaf, 1, (const tsr_tensor*[]){LONGS(0)}, row, false), TSR_ERR_AUTOGRAD,
                   "a leaf Variable that requires grad");
  cr_expect_eq(out, SENTINEL);
  tg_expect_unchanged(x, X12, 12);
  tg_expect_unchanged(leaf, X12, 12);
  tg_arena_release(ar);
}
