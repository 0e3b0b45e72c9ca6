/* Views: geometry of every view op against PyTorch goldens
 * (tests/golden/views_golden.h, from gen_views.py), plus the seed examples
 * of the issue written out by hand: write-through, t() not contiguous,
 * view-after-transpose failing where reshape copies, slicing offsets. */
#include "helpers.h"

#include <stdio.h>

#include "golden/views_golden.h"

static tsr_status apply_step(const tsr_tensor* x, const tsr_gv_step* s, tsr_tensor** out) {
  const int64_t* a = s->args;
  switch (s->op) {
    case TSR_GV_VIEW: return tsr_view(x, s->nargs, a, out);
    case TSR_GV_RESHAPE: return tsr_reshape(x, s->nargs, a, out);
    case TSR_GV_TRANSPOSE: return tsr_transpose(x, a[0], a[1], out);
    case TSR_GV_T: return tsr_t(x, out);
    case TSR_GV_PERMUTE: return tsr_permute(x, s->nargs, a, out);
    case TSR_GV_NARROW: return tsr_narrow(x, a[0], a[1], a[2], out);
    case TSR_GV_SLICE: return tsr_slice(x, a[0], a[1], a[2], a[3], out);
    case TSR_GV_SELECT: return tsr_select(x, a[0], a[1], out);
    case TSR_GV_EXPAND: return tsr_expand(x, s->nargs, a, out);
    case TSR_GV_SQUEEZE: return tsr_squeeze(x, out);
    case TSR_GV_SQUEEZE_DIM: return tsr_squeeze_dim(x, a[0], out);
    case TSR_GV_UNSQUEEZE: return tsr_unsqueeze(x, a[0], out);
    case TSR_GV_FLATTEN: return tsr_flatten(x, a[0], a[1], out);
    case TSR_GV_UNFLATTEN: return tsr_unflatten(x, a[0], s->nargs - 1, a + 1, out);
    case TSR_GV_MOVEDIM: return tsr_movedim(x, a[0], a + 1, a + 1 + a[0], out);
    case TSR_GV_AS_STRIDED:
      return tsr_as_strided(x, a[0], a + 1, a + 1 + a[0], a[1 + 2 * a[0]], out);
    case TSR_GV_UNFOLD: return tsr_unfold(x, a[0], a[1], a[2], out);
    case TSR_GV_DIAGONAL: return tsr_diagonal(x, a[0], a[1], a[2], out);
  }
  cr_assert_fail("unknown golden op %d", s->op);
  return TSR_ERR_INTERNAL;
}

static void check_flag(const tsr_tensor* y, tsr_memory_format fmt, int expected, const char* name,
                       const char* what) {
  bool got = !expected;
  TSR_ASSERT_OK(tsr_is_contiguous(y, fmt, &got));
  cr_expect_eq(got, (bool)expected, "%s: is_contiguous(%s) = %d, torch says %d", name, what, got,
               expected);
}

/* Runs one golden case; every mismatch is reported (cr_expect) with the
 * case's name, so one run lists all differences from PyTorch. */
static void run_golden_case(const tsr_gv_case* c) {
  tsr_tensor* base;
  tsr_tensor* x = tsr_strided_arange(c->base_numel, c->in_ndim, c->in_sizes, c->in_strides,
                                     c->in_offset, &base);
  for (int i = 0; i < c->nsteps; ++i) {
    tsr_tensor* y = SENTINEL;
    tsr_status st = apply_step(x, &c->steps[i], &y);
    if (i == c->nsteps - 1 && c->error) {
      cr_expect_neq(st, TSR_OK, "%s: PyTorch raises, tessera returned TSR_OK", c->name);
      if (st == TSR_OK) tsr_tensor_release(y);
      else {
        cr_expect_eq(tsr_last_error_code(), st, "%s", c->name);
        cr_expect(strlen(tsr_last_error_message()) > 0, "%s: empty message", c->name);
        cr_expect_eq(y, SENTINEL, "%s: out written on failure", c->name);
        if (c->nsteps == 1) /* the input is untouched */
          tsr_assert_geometry(x, c->in_ndim, c->in_sizes, c->in_strides);
      }
      tsr_tensor_release(x);
      tsr_tensor_release(base);
      return;
    }
    cr_expect_eq(st, TSR_OK, "%s: step %d failed: %s: %s", c->name, i, tsr_status_name(st),
                 tsr_last_error_message());
    if (st != TSR_OK) {
      tsr_tensor_release(x);
      tsr_tensor_release(base);
      return;
    }
    tsr_tensor_release(x);
    x = y;
  }
  const char* n = c->name;
  int64_t ndim = tsr_tensor_ndim(x);
  cr_expect_eq(ndim, c->ndim, "%s: ndim %lld, torch %lld", n, (long long)ndim, (long long)c->ndim);
  for (int64_t d = 0; d < c->ndim && d < ndim; ++d) {
    cr_expect_eq(tsr_tensor_sizes(x)[d], c->sizes[d], "%s: size[%lld] %lld, torch %lld", n,
                 (long long)d, (long long)tsr_tensor_sizes(x)[d], (long long)c->sizes[d]);
    cr_expect_eq(tsr_tensor_strides(x)[d], c->strides[d], "%s: stride[%lld] %lld, torch %lld", n,
                 (long long)d, (long long)tsr_tensor_strides(x)[d], (long long)c->strides[d]);
  }
  cr_expect_eq(tsr_tensor_storage_offset(x), c->offset, "%s: storage_offset %lld, torch %lld", n,
               (long long)tsr_tensor_storage_offset(x), (long long)c->offset);
  cr_expect_eq(tsr_tensor_numel(x), c->numel, "%s: numel", n);
  bool shares = !c->shares_storage;
  TSR_ASSERT_OK(tsr_shares_storage(x, base, &shares));
  cr_expect_eq(shares, (bool)c->shares_storage, "%s: shares storage %d, torch %d", n, shares,
               c->shares_storage);
  check_flag(x, TSR_CONTIGUOUS_FORMAT, c->contiguous, n, "contiguous_format");
  check_flag(x, TSR_CHANNELS_LAST, c->channels_last, n, "channels_last");
  check_flag(x, TSR_CHANNELS_LAST_3D, c->channels_last_3d, n, "channels_last_3d");
  bool dense = !c->non_overlapping_and_dense;
  TSR_ASSERT_OK(tsr_is_non_overlapping_and_dense(x, &dense));
  cr_expect_eq(dense, (bool)c->non_overlapping_and_dense,
               "%s: non_overlapping_and_dense %d, torch %d", n, dense,
               c->non_overlapping_and_dense);
  tsr_memory_format fmt = TSR_PRESERVE_FORMAT;
  TSR_ASSERT_OK(tsr_suggest_memory_format(x, &fmt));
  cr_expect_eq((int)fmt, c->suggest_memory_format, "%s: suggest_memory_format %d, torch %d", n,
               (int)fmt, c->suggest_memory_format);
  if (c->values_start >= 0 && c->numel > 0 && ndim == c->ndim) {
    double got[TSR_GV_MAX_VALUES];
    cr_assert(c->numel <= TSR_GV_MAX_VALUES);
    size_t need = 0;
    TSR_ASSERT_OK(tsr_copy_to_buffer(x, got, sizeof got, &need));
    cr_expect_eq(need, (size_t)c->numel * sizeof(double), "%s: needed bytes", n);
    for (int64_t i = 0; i < c->numel; ++i)
      cr_expect_eq(got[i], (double)tsr_gv_values[c->values_start + i],
                   "%s: value[%lld] %g, torch %lld", n, (long long)i, got[i],
                   (long long)tsr_gv_values[c->values_start + i]);
  }
  tsr_tensor_release(x);
  tsr_tensor_release(base);
}

/* Runs every golden case whose last step is `op` (chains of several steps
 * run under TSR_GV_CHAIN), so a failure names the op. */
#define TSR_GV_CHAIN (-1)
static void run_golden(int op) {
  int ran = 0;
  for (size_t i = 0; i < TSR_GV_NCASES; ++i) {
    const tsr_gv_case* c = &tsr_gv_cases[i];
    int key = c->nsteps > 1 ? TSR_GV_CHAIN : c->steps[0].op;
    if (key != op) continue;
    run_golden_case(c);
    ++ran;
  }
  cr_assert_gt(ran, 0, "no golden cases for op %d", op);
}

Test(views_golden, view) { run_golden(TSR_GV_VIEW); }
Test(views_golden, reshape) { run_golden(TSR_GV_RESHAPE); }
Test(views_golden, transpose) { run_golden(TSR_GV_TRANSPOSE); }
Test(views_golden, t) { run_golden(TSR_GV_T); }
Test(views_golden, permute) { run_golden(TSR_GV_PERMUTE); }
Test(views_golden, narrow) { run_golden(TSR_GV_NARROW); }
Test(views_golden, slice) { run_golden(TSR_GV_SLICE); }
Test(views_golden, select) { run_golden(TSR_GV_SELECT); }
Test(views_golden, expand) { run_golden(TSR_GV_EXPAND); }
Test(views_golden, squeeze) { run_golden(TSR_GV_SQUEEZE); }
Test(views_golden, squeeze_dim) { run_golden(TSR_GV_SQUEEZE_DIM); }
Test(views_golden, unsqueeze) { run_golden(TSR_GV_UNSQUEEZE); }
Test(views_golden, flatten) { run_golden(TSR_GV_FLATTEN); }
Test(views_golden, unflatten) { run_golden(TSR_GV_UNFLATTEN); }
Test(views_golden, movedim) { run_golden(TSR_GV_MOVEDIM); }
Test(views_golden, as_strided) { run_golden(TSR_GV_AS_STRIDED); }
Test(views_golden, unfold) { run_golden(TSR_GV_UNFOLD); }
Test(views_golden, diagonal) { run_golden(TSR_GV_DIAGONAL); }
Test(views_golden, views_of_views) { run_golden(TSR_GV_CHAIN); }

/* ---- split / chunk -------------------------------------------------------- */

static void run_split_case(const tsr_gs_case* c) {
  tsr_tensor* base;
  tsr_tensor* x = tsr_strided_arange(c->base_numel, c->in_ndim, c->in_sizes, c->in_strides,
                                     c->in_offset, &base);
  tsr_tensor* outs[TSR_GS_MAX_PIECES + 1];
  for (int i = 0; i <= TSR_GS_MAX_PIECES; ++i) outs[i] = SENTINEL;
  int64_t count = -7;
  tsr_status st = c->chunk ? tsr_chunk(x, c->arg, c->dim, outs, TSR_GS_MAX_PIECES + 1, &count)
                           : tsr_split(x, c->arg, c->dim, outs, TSR_GS_MAX_PIECES + 1, &count);
  if (c->error) {
    cr_expect_neq(st, TSR_OK, "%s: PyTorch raises, tessera returned TSR_OK", c->name);
    cr_expect_eq(count, -7, "%s: count written on failure", c->name);
    for (int i = 0; i <= TSR_GS_MAX_PIECES; ++i)
      cr_expect_eq(outs[i], SENTINEL, "%s: handle written on failure", c->name);
  } else {
    cr_expect_eq(st, TSR_OK, "%s: %s", c->name, tsr_last_error_message());
    cr_expect_eq(count, c->count, "%s: %lld pieces, torch %lld", c->name, (long long)count,
                 (long long)c->count);
    for (int64_t p = 0; st == TSR_OK && p < count && p < TSR_GS_MAX_PIECES; ++p) {
      if (p < c->count) {
        cr_expect_eq(tsr_tensor_storage_offset(outs[p]), c->offsets[p],
                     "%s: piece %lld offset %lld, torch %lld", c->name, (long long)p,
                     (long long)tsr_tensor_storage_offset(outs[p]), (long long)c->offsets[p]);
        tsr_assert_geometry(outs[p], c->in_ndim, c->sizes[p], c->strides[p]);
        bool shares = false;
        TSR_ASSERT_OK(tsr_shares_storage(outs[p], base, &shares));
        cr_expect(shares, "%s: piece %lld is not a view", c->name, (long long)p);
      }
      tsr_tensor_release(outs[p]);
    }
    if (st == TSR_OK && count <= TSR_GS_MAX_PIECES)
      cr_expect_eq(outs[count], SENTINEL, "%s: wrote past the pieces", c->name);
  }
  tsr_tensor_release(x);
  tsr_tensor_release(base);
}

Test(views_golden, split_and_chunk) {
  for (size_t i = 0; i < TSR_GS_NCASES; ++i) run_split_case(&tsr_gs_cases[i]);
}

Test(views, split_capacity_query_writes_count_but_no_handles) {
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_arange(0, 10, 1, TSR_FLOAT32, TSR_CPU, &x));
  int64_t count = -1;
  /* capacity 0 with NULL outs asks for the count */
  TSR_ASSERT_FAILS(tsr_split(x, 3, 0, NULL, 0, &count), TSR_ERR_INVALID_ARGUMENT, "capacity");
  cr_assert_eq(count, 4);  /* torch.arange(10).split(3): sizes 3, 3, 3, 1 */
  tsr_tensor* outs[3] = {SENTINEL, SENTINEL, SENTINEL};
  count = -1;
  TSR_ASSERT_FAILS(tsr_chunk(x, 4, 0, outs, 3, &count), TSR_ERR_INVALID_ARGUMENT, "capacity");
  cr_assert_eq(count, 4);  /* torch.arange(10).chunk(4): sizes 3, 3, 3, 1 */
  for (int i = 0; i < 3; ++i) cr_assert_eq(outs[i], SENTINEL);
  tsr_tensor_release(x);
}

/* ---- the seed examples ------------------------------------------------------ */

/* a = torch.zeros(4); b = a.view(2, 2); b[0][0] = 99  ->  a[0] == 99 */
Test(views, seed_view_writes_through) {
  tsr_tensor *a, *b;
  const int64_t four[] = {4}, two_two[] = {2, 2};
  TSR_ASSERT_OK(tsr_zeros(1, four, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_view(a, 2, two_two, &b));
  const int64_t i00[] = {0, 0}, i1[] = {1, 1}, a0[] = {0}, a3[] = {3};
  TSR_ASSERT_OK(tsr_set_double(b, 2, i00, 99));
  double v = 0;
  TSR_ASSERT_OK(tsr_get_double(a, 1, a0, &v));
  cr_assert_eq(v, 99.0);
  /* and the other way round: a write through a shows in b */
  TSR_ASSERT_OK(tsr_set_double(a, 1, a3, -5));
  TSR_ASSERT_OK(tsr_get_double(b, 2, i1, &v));
  cr_assert_eq(v, -5.0);
  cr_assert_eq(tsr_tensor_data_ptr(a), tsr_tensor_data_ptr(b));
  tsr_tensor_release(b);
  tsr_tensor_release(a);
}

/* x = torch.empty(2, 3); x.t().is_contiguous() is False, x.is_contiguous() True */
Test(views, seed_t_is_not_contiguous) {
  tsr_tensor *x, *xt;
  const int64_t s[] = {2, 3};
  TSR_ASSERT_OK(tsr_empty(2, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_t(x, &xt));
  bool c = true;
  TSR_ASSERT_OK(tsr_is_contiguous(xt, TSR_CONTIGUOUS_FORMAT, &c));
  cr_assert(!c);
  TSR_ASSERT_OK(tsr_is_contiguous(x, TSR_CONTIGUOUS_FORMAT, &c));
  cr_assert(c);
  const int64_t ts[] = {3, 2}, tst[] = {1, 3};
  tsr_assert_geometry(xt, 2, ts, tst);
  tsr_tensor_release(xt);
  tsr_tensor_release(x);
}

/* x = torch.arange(6.).view(2, 3).t()
 * x.view(6)    -> RuntimeError: view size is not compatible with input tensor's
 *                 size and stride ... Use .reshape(...) instead.
 * x.reshape(6) -> a copy: tensor([0., 3., 1., 4., 2., 5.]) in new storage
 * torch.arange(6.).reshape(3, 2) -> a view of the same storage */
Test(views, seed_view_after_transpose_fails_reshape_copies) {
  tsr_tensor *a, *x, *v = SENTINEL, *r, *r2;
  const int64_t s23[] = {2, 3}, six[] = {6}, s32[] = {3, 2};
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &a));
  tsr_tensor* a23;
  TSR_ASSERT_OK(tsr_view(a, 2, s23, &a23));
  TSR_ASSERT_OK(tsr_t(a23, &x));
  TSR_ASSERT_FAILS(tsr_view(x, 1, six, &v), TSR_ERR_NOT_VIEWABLE, "Use .reshape(...) instead");
  cr_assert_eq(v, SENTINEL);
  const char* msg = tsr_last_error_message();
  cr_expect(strstr(msg, "view size is not compatible with input tensor's size and stride"), "%s",
            msg);
  cr_expect(strstr(msg, "[3, 2]"), "message lacks the sizes: %s", msg);
  cr_expect(strstr(msg, "[1, 3]"), "message lacks the strides: %s", msg);
  cr_expect(strstr(msg, "[6]"), "message lacks the requested shape: %s", msg);

  TSR_ASSERT_OK(tsr_reshape(x, 1, six, &r));
  bool shares = true;
  TSR_ASSERT_OK(tsr_shares_storage(r, x, &shares));
  cr_assert(!shares, "reshape of a transposed tensor must copy");
  float got[6];
  TSR_ASSERT_OK(tsr_copy_to_buffer(r, got, sizeof got, NULL));
  const float want[6] = {0, 3, 1, 4, 2, 5};
  cr_assert_arr_eq(got, want, sizeof want);

  TSR_ASSERT_OK(tsr_reshape(a, 2, s32, &r2));
  TSR_ASSERT_OK(tsr_shares_storage(r2, a, &shares));
  cr_assert(shares, "reshape of a contiguous tensor is a view");
  const int64_t st32[] = {2, 1};
  tsr_assert_geometry(r2, 2, s32, st32);
  tsr_tensor_release(r2);
  tsr_tensor_release(r);
  tsr_tensor_release(x);
  tsr_tensor_release(a23);
  tsr_tensor_release(a);
}

/* x = torch.arange(10.); x[3:8].storage_offset() == 3, x[3:8][0] == 3 */
Test(views, seed_slice_storage_offset) {
  tsr_tensor *x, *y;
  TSR_ASSERT_OK(tsr_arange(0, 10, 1, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_slice(x, 0, 3, 8, 1, &y));
  cr_assert_eq(tsr_tensor_storage_offset(y), 3);
  cr_assert_eq(tsr_tensor_numel(y), 5);
  double v;
  const int64_t i0[] = {0};
  TSR_ASSERT_OK(tsr_get_double(y, 1, i0, &v));
  cr_assert_eq(v, 3.0);
  cr_assert_eq((char*)tsr_tensor_data_ptr(y), (char*)tsr_tensor_data_ptr(x) + 3 * sizeof(float));
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

/* torch.empty(2, 3).stride() == (3, 1);
 * torch.empty(32, 3, 224, 224).stride() == (150528, 50176, 224, 1) */
Test(views, seed_contiguous_strides) {
  tsr_tensor *a, *b;
  const int64_t s23[] = {2, 3}, st23[] = {3, 1};
  const int64_t big[] = {32, 3, 224, 224}, stbig[] = {150528, 50176, 224, 1};
  TSR_ASSERT_OK(tsr_empty(2, s23, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_empty(4, big, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &b));
  tsr_assert_geometry(a, 2, s23, st23);
  tsr_assert_geometry(b, 4, big, stbig);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* Views share the version counter: torch.zeros(3).view(3).add_(1) bumps the
 * base's _version. Here through tsr_set_double on a slice. */
Test(views, views_share_version_counter) {
  tsr_tensor *a, *s;
  const int64_t four[] = {4}, i0[] = {0};
  TSR_ASSERT_OK(tsr_zeros(1, four, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_slice(a, 0, 1, 3, 1, &s));
  int64_t v0 = tsr_version(a);
  cr_assert_eq(tsr_version(s), v0);
  TSR_ASSERT_OK(tsr_set_double(s, 1, i0, 7));
  cr_assert_eq(tsr_version(a), v0 + 1);
  cr_assert_eq(tsr_version(s), v0 + 1);
  tsr_tensor_release(s);
  tsr_tensor_release(a);
}

/* ---- int64 edges: huge steps, split sizes, chunk counts, offsets ------------- *
 * Expected values are PyTorch 1.13's (torch.ops.aten.slice, Tensor.split,
 * Tensor.chunk, as_strided), quoted above each check. Where PyTorch's own
 * int64 arithmetic overflows, its answer is wrapped around (an empty slice
 * where Python takes one element, a garbage stride) or an error; tessera
 * refuses those with TSR_ERR_INVALID_ARGUMENT, and a refused call writes no
 * out parameter and leaves its input as it was. */

#define I64_MAX INT64_MAX
#define P2(n) ((int64_t)1 << (n))

/* t's geometry, to check that a failed call left it alone. */
typedef struct {
  int64_t ndim, sizes[8], strides[8], offset, version;
} geometry;

static geometry geometry_of(const tsr_tensor* t) {
  geometry g = {tsr_tensor_ndim(t), {0}, {0}, tsr_tensor_storage_offset(t), tsr_version(t)};
  for (int64_t i = 0; i < g.ndim; ++i) {
    g.sizes[i] = tsr_tensor_sizes(t)[i];
    g.strides[i] = tsr_tensor_strides(t)[i];
  }
  return g;
}

static void assert_unchanged(const tsr_tensor* t, const geometry* before) {
  geometry now = geometry_of(t);
  cr_assert_eq(memcmp(&now, before, sizeof now), 0, "the input changed");
}

static void expect_slice(const tsr_tensor* x, int64_t dim, int64_t start, int64_t end, int64_t step,
                         const int64_t* sizes, const int64_t* strides, int64_t offset) {
  tsr_tensor* y = SENTINEL;
  TSR_ASSERT_OK(tsr_slice(x, dim, start, end, step, &y));
  tsr_assert_geometry(y, tsr_tensor_ndim(x), sizes, strides);
  cr_assert_eq(tsr_tensor_storage_offset(y), offset, "storage_offset %lld, torch %lld",
               (long long)tsr_tensor_storage_offset(y), (long long)offset);
  tsr_tensor_release(y);
}

static void expect_slice_fails(const tsr_tensor* x, int64_t dim, int64_t start, int64_t end,
                               int64_t step, const char* needle) {
  geometry before = geometry_of(x);
  tsr_tensor* y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_slice(x, dim, start, end, step, &y), TSR_ERR_INVALID_ARGUMENT, needle);
  cr_assert_eq(y, SENTINEL, "out written on failure");
  assert_unchanged(x, &before);
}

Test(views, slice_with_a_step_near_int64_max) {
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_arange(0, 10, 1, TSR_FLOAT32, TSR_CPU, &x));
  /* slice(x, 0, 0, 10, M-9): (1,) (M-9,) 0; 10 + step - 1 is INT64_MAX itself */
  expect_slice(x, 0, 0, 10, I64_MAX - 9, (int64_t[]){1}, (int64_t[]){I64_MAX - 9}, 0);
  /* slice(x, 0, 9, M, M): (1,) (M,) 9, one element left: no overflow */
  expect_slice(x, 0, 9, I64_MAX, I64_MAX, (int64_t[]){1}, (int64_t[]){I64_MAX}, 9);
  /* slice(x, 0, 3, 3, M): (0,) (M,) 3 */
  expect_slice(x, 0, 3, 3, I64_MAX, (int64_t[]){0}, (int64_t[]){I64_MAX}, 3);
  /* slice(x, 0, 0, 10, 2**62): (1,) (2**62,) 0 */
  expect_slice(x, 0, 0, 10, P2(62), (int64_t[]){1}, (int64_t[]){P2(62)}, 0);
  /* slice(x, 0, 0, 10, M-8) raises "Storage size calculation overflowed with
   * sizes=[-1]"; slice(x, 0, 0, 10, M) and (..., M-1) return an empty slice
   * (the size wrapped; Python's x[0:10:M] is [x[0]]). All refused. */
  expect_slice_fails(x, 0, 0, 10, I64_MAX - 8,
                     "slice step 9223372036854775799 is too large for the 10 elements from 0 to 10 "
                     "of dim 0: end - start + step - 1 overflows int64");
  expect_slice_fails(x, 0, 0, 10, I64_MAX - 1, "end - start + step - 1 overflows int64");
  expect_slice_fails(x, -1, -I64_MAX - 1, I64_MAX, I64_MAX,
                     "the 10 elements from 0 to 10 of dim 0");
  tsr_tensor_release(x);
}

Test(views, slice_step_whose_stride_overflows) {
  tsr_tensor *r, *y;
  TSR_ASSERT_OK(tsr_arange(0, 12, 1, TSR_FLOAT32, TSR_CPU, &r));
  TSR_ASSERT_OK(tsr_view(r, 2, (int64_t[]){3, 4}, &y));
  /* slice(y, 0, 0, 3, M // 4): (1, 4) (M-3, 1) 0, 4 * step fits */
  expect_slice(y, 0, 0, 3, I64_MAX / 4, (int64_t[]){1, 4}, (int64_t[]){I64_MAX - 3, 1}, 0);
  /* slice(y, 1, 0, 4, M // 2): (3, 1) (4, M // 2) 0 */
  expect_slice(y, 1, 0, 4, I64_MAX / 2, (int64_t[]){3, 1}, (int64_t[]){4, I64_MAX / 2}, 0);
  /* slice(y, 0, 0, 3, 2**61) raises (4 * 2**61 wraps to INT64_MIN);
   * slice(y, 0, 0, 3, 2**62) returns stride 0 (wrapped). Both refused. */
  expect_slice_fails(y, 0, 0, 3, P2(61),
                     "slice step 2305843009213693952 is too large for dim 0 with stride 4: "
                     "stride * step overflows int64");
  expect_slice_fails(y, 0, 0, 3, P2(62), "stride * step overflows int64");
  tsr_tensor_release(y);
  tsr_tensor_release(r);
}

/* A layout without elements reaches no storage, whatever its strides and
 * wherever its empty dim: torch.arange(4.).as_strided([3, 0], [2**62, 1])
 * and .as_strided([0, 3], [1, 2**62]) both work, as does
 * torch.empty_strided((3, 0), (2**62, 1)); [3, 1] overflows. */
Test(views, empty_layouts_accept_any_strides) {
  tsr_tensor *b, *w;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &b));
  const int64_t sizes[][2] = {{3, 0}, {0, 3}}, strides[][2] = {{P2(62), 1}, {1, P2(62)}};
  for (int i = 0; i < 2; ++i) {
    TSR_ASSERT_OK(tsr_as_strided(b, 2, sizes[i], strides[i], 0, &w));
    tsr_assert_geometry(w, 2, sizes[i], strides[i]);
    tsr_tensor_release(w);
    TSR_ASSERT_OK(tsr_empty_strided(2, sizes[i], strides[i], TSR_FLOAT32, TSR_CPU, &w));
    tsr_assert_geometry(w, 2, sizes[i], strides[i]);
    cr_assert_null(tsr_tensor_data_ptr(w));
    tsr_tensor_release(w);
  }
  w = SENTINEL;
  TSR_ASSERT_FAILS(tsr_as_strided(b, 2, (int64_t[]){3, 1}, (int64_t[]){P2(62), 1}, 0, &w),
                   TSR_ERR_INVALID_ARGUMENT, "storage extent overflows int64");
  cr_assert_eq(w, SENTINEL);
  tsr_tensor_release(b);
}

/* An empty tensor may have any strides; the offset a slice start adds may
 * then overflow. */
Test(views, slice_start_whose_storage_offset_overflows) {
  tsr_tensor *b, *w;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &b));
  /* w = b.as_strided([3, 0], [2**62, 1], 0) */
  TSR_ASSERT_OK(tsr_as_strided(b, 2, (int64_t[]){3, 0}, (int64_t[]){P2(62), 1}, 0, &w));
  /* slice(w, 0, 1, 3, 1): (2, 0) (2**62, 1) 2**62 */
  expect_slice(w, 0, 1, 3, 1, (int64_t[]){2, 0}, (int64_t[]){P2(62), 1}, P2(62));
  /* slice(w, 0, 2, 3, 1) raises (2 * 2**62 wraps negative): refused */
  expect_slice_fails(w, 0, 2, 3, 1,
                     "slice start 2 of dim 0 with stride 4611686018427387904 moves storage offset 0 "
                     "past int64");
  tsr_tensor_release(w);
  tsr_tensor_release(b);
}

/* torch.arange(4.).as_strided([0], [1], 2**62) is allowed (there is no
 * element to check) and its data_ptr() is 0, as for every empty tensor.
 * tessera's data_ptr of an empty tensor is element [0]'s address while the
 * offset stays inside the storage or at its end, and NULL further out, where
 * the address would overflow. */
Test(views, data_ptr_of_an_empty_tensor_far_past_its_storage) {
  tsr_tensor* b;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &b));
  char* base = tsr_tensor_data_ptr(b);
  cr_assert_not_null(base);
  const int64_t far[] = {5, P2(61), P2(62), I64_MAX};
  for (size_t i = 0; i < sizeof far / sizeof far[0]; ++i) {
    tsr_tensor *e, *c;
    TSR_ASSERT_OK(tsr_as_strided(b, 1, (int64_t[]){0}, (int64_t[]){1}, far[i], &e));
    cr_assert_eq(tsr_tensor_storage_offset(e), far[i]);
    cr_assert_null(tsr_tensor_data_ptr(e), "offset %lld", (long long)far[i]);
    /* and it goes through ops like any empty tensor */
    TSR_ASSERT_OK(tsr_clone(e, TSR_CONTIGUOUS_FORMAT, &c));
    cr_assert_eq(tsr_tensor_numel(c), 0);
    tsr_tensor_release(c);
    TSR_ASSERT_OK(tsr_contiguous(e, TSR_CONTIGUOUS_FORMAT, &c));
    tsr_tensor_release(c);
    tsr_tensor_release(e);
  }
  /* inside or at the end of the 16-byte storage: unchanged */
  for (int64_t off = 0; off <= 4; ++off) {
    tsr_tensor* e;
    TSR_ASSERT_OK(tsr_as_strided(b, 1, (int64_t[]){0}, (int64_t[]){1}, off, &e));
    cr_assert_eq((char*)tsr_tensor_data_ptr(e), base + 4 * off);
    tsr_tensor_release(e);
  }
  tsr_tensor* v;
  TSR_ASSERT_OK(tsr_as_strided(b, 1, (int64_t[]){2}, (int64_t[]){1}, 2, &v));
  cr_assert_eq((char*)tsr_tensor_data_ptr(v), base + 8);
  tsr_tensor_release(v);
  tsr_tensor_release(b);
}

/* Runs split (chunk = false) or chunk into a 4-slot array and checks the
 * pieces: n of them, piece i of size sizes[i] (1-D input), offsets[i]. */
static void expect_pieces(const tsr_tensor* x, bool chunk, int64_t arg, int64_t n,
                          const int64_t* sizes, const int64_t* strides, const int64_t* offsets) {
  tsr_tensor* outs[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
  int64_t count = -7;
  if (chunk) TSR_ASSERT_OK(tsr_chunk(x, arg, 0, outs, 4, &count));
  else TSR_ASSERT_OK(tsr_split(x, arg, 0, outs, 4, &count));
  cr_assert_eq(count, n, "%lld pieces, torch %lld", (long long)count, (long long)n);
  for (int64_t i = 0; i < n; ++i) {
    tsr_assert_geometry(outs[i], 1, &sizes[i], &strides[i]);
    cr_assert_eq(tsr_tensor_storage_offset(outs[i]), offsets[i]);
    tsr_tensor_release(outs[i]);
  }
  for (int64_t i = n; i < 4; ++i) cr_assert_eq(outs[i], SENTINEL, "wrote past the pieces");
}

static void expect_pieces_fail(const tsr_tensor* x, bool chunk, int64_t arg, const char* needle) {
  geometry before = geometry_of(x);
  tsr_tensor* outs[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
  int64_t count = -7;
  if (chunk)
    TSR_ASSERT_FAILS(tsr_chunk(x, arg, 0, outs, 4, &count), TSR_ERR_INVALID_ARGUMENT, needle);
  else
    TSR_ASSERT_FAILS(tsr_split(x, arg, 0, outs, 4, &count), TSR_ERR_INVALID_ARGUMENT, needle);
  cr_assert_eq(count, -7, "count written on failure");
  for (int i = 0; i < 4; ++i) cr_assert_eq(outs[i], SENTINEL, "handle written on failure");
  assert_unchanged(x, &before);
}

Test(views, split_with_a_split_size_near_int64_max) {
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_arange(0, 10, 1, TSR_FLOAT32, TSR_CPU, &x));
  /* x.split(M), x.split(M - 8), x.split(2**62): one piece (10,), offset 0
   * (ATen's size + split_size - 1 wraps for the first two, yet gives one) */
  const int64_t args[] = {I64_MAX, I64_MAX - 8, P2(62)};
  for (size_t i = 0; i < 3; ++i)
    expect_pieces(x, false, args[i], 1, (int64_t[]){10}, (int64_t[]){1}, (int64_t[]){0});
  tsr_tensor_release(x);
}

Test(views, chunk_count_whose_split_size_overflows) {
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &x));
  /* x.chunk(M - 3): four pieces of one element (4 + chunks - 1 == INT64_MAX) */
  expect_pieces(x, true, I64_MAX - 3, 4, (int64_t[]){1, 1, 1, 1}, (int64_t[]){1, 1, 1, 1},
                (int64_t[]){0, 1, 2, 3});
  /* x.chunk(2**62): the same */
  expect_pieces(x, true, P2(62), 4, (int64_t[]){1, 1, 1, 1}, (int64_t[]){1, 1, 1, 1},
                (int64_t[]){0, 1, 2, 3});
  /* x.chunk(M - 2) raises "split expects split_size be non-negative, but got
   * split_size=-1", x.chunk(M) "split_size can only be 0 if dimension size
   * is 0": ATen's split size overflowed. Refused, with the reason. */
  expect_pieces_fail(x, true, I64_MAX - 2,
                     "chunk: chunks 9223372036854775805 is too large for dim 0 of size 4: the split "
                     "size (size + chunks - 1) / chunks overflows int64 (at most "
                     "9223372036854775804 chunks)");
  expect_pieces_fail(x, true, I64_MAX, "overflows int64");
  tsr_tensor_release(x);
}

/* A dim of 2**62 elements (stride 0, from expand) splits into more pieces
 * than an array of handles can hold: PyTorch raises "cannot create
 * std::vector larger than max_size()" at the same count, 2**60. */
Test(views, split_of_a_huge_dim) {
  tsr_tensor *one, *big;
  TSR_ASSERT_OK(tsr_ones(1, (int64_t[]){1}, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_expand(one, 1, (int64_t[]){P2(62)}, &big));
  /* big.split(2**62 - 1): (2**62 - 1,) and (1,), strides 0, offsets 0 */
  expect_pieces(big, false, P2(62) - 1, 2, (int64_t[]){P2(62) - 1, 1}, (int64_t[]){0, 0},
                (int64_t[]){0, 0});
  /* big.chunk(3): 1537228672809129302, 1537228672809129302, 1537228672809129300 */
  expect_pieces(big, true, 3, 3,
                (int64_t[]){1537228672809129302, 1537228672809129302, 1537228672809129300},
                (int64_t[]){0, 0, 0}, (int64_t[]){0, 0, 0});
  /* big.split(1), big.split(4), big.chunk(2**62) raise */
  expect_pieces_fail(big, false, 1,
                     "split: split_size 1 cuts dim 0 of size 4611686018427387904 into "
                     "4611686018427387904 pieces, more handles than an array can hold "
                     "(1152921504606846975)");
  expect_pieces_fail(big, false, 4, "into 1152921504606846976 pieces");
  expect_pieces_fail(big, true, P2(62), "more handles than an array can hold");
  /* big.split(5): 922337203685477581 pieces, fewer than 2**60: counted */
  int64_t count = -1;
  TSR_ASSERT_FAILS(tsr_split(big, 5, 0, NULL, 0, &count), TSR_ERR_INVALID_ARGUMENT,
                   "capacity 0 is smaller than the 922337203685477581 pieces");
  cr_assert_eq(count, 922337203685477581);
  tsr_tensor_release(big);
  tsr_tensor_release(one);
}

/* torch.empty(0).chunk(5) is five empty pieces, so a count query may be
 * answered with any count up to 2**60 - 1 (torch.empty(0).chunk(2**60)
 * raises "cannot create std::vector larger than max_size()"). The query
 * allocates nothing per piece: 2**40 pieces would take 8 TiB of sizes. */
Test(views, chunk_count_query_of_an_empty_dim_allocates_nothing) {
  tsr_tensor *e, *e2;
  TSR_ASSERT_OK(tsr_empty(1, (int64_t[]){0}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &e));
  const int64_t counts[] = {P2(40), P2(60) - 1};
  for (size_t i = 0; i < 2; ++i) {
    int64_t count = -1;
    TSR_ASSERT_FAILS(tsr_chunk(e, counts[i], 0, NULL, 0, &count), TSR_ERR_INVALID_ARGUMENT,
                     "capacity 0 is smaller than the");
    cr_assert_eq(count, counts[i]);
  }
  expect_pieces_fail(e, true, P2(60),
                     "chunk: 1152921504606846976 empty pieces of dim 0 are more handles than an "
                     "array can hold (1152921504606846975)");
  expect_pieces_fail(e, true, I64_MAX, "more handles than an array can hold");
  /* torch.empty(0).chunk(3): three (0,) pieces, stride 1, offset 0 */
  expect_pieces(e, true, 3, 3, (int64_t[]){0, 0, 0}, (int64_t[]){1, 1, 1}, (int64_t[]){0, 0, 0});
  /* torch.empty(2, 0).chunk(2**40, 1): the same count from a 2-D input */
  TSR_ASSERT_OK(tsr_empty(2, (int64_t[]){2, 0}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &e2));
  int64_t count = -1;
  tsr_tensor* outs[2] = {SENTINEL, SENTINEL};
  TSR_ASSERT_FAILS(tsr_chunk(e2, P2(40), 1, outs, 2, &count), TSR_ERR_INVALID_ARGUMENT,
                   "capacity 2 is smaller than the 1099511627776 pieces");
  cr_assert_eq(count, P2(40));
  cr_assert(outs[0] == SENTINEL && outs[1] == SENTINEL);
  tsr_tensor_release(e2);
  tsr_tensor_release(e);
}

/* Other views of an empty tensor whose strides are huge: each offset or
 * stride PyTorch computes without overflow is its answer; where its int64
 * arithmetic wraps, PyTorch fails ("Expected !is_symbolic()", "cannot be
 * represented as a SymInt", "Negative strides"), and tessera refuses too. */
Test(views, views_of_an_empty_tensor_with_huge_strides) {
  tsr_tensor *b, *w, *z2, *z3, *y;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &b));
  /* w = b.as_strided([3, 0], [2**62, 1]); z2: [3, 3, 0], [2**61, 2**61, 1];
   * z3: [3, 3, 0], [2**62, 1, 1] */
  TSR_ASSERT_OK(tsr_as_strided(b, 2, (int64_t[]){3, 0}, (int64_t[]){P2(62), 1}, 0, &w));
  TSR_ASSERT_OK(
      tsr_as_strided(b, 3, (int64_t[]){3, 3, 0}, (int64_t[]){P2(61), P2(61), 1}, 0, &z2));
  TSR_ASSERT_OK(tsr_as_strided(b, 3, (int64_t[]){3, 3, 0}, (int64_t[]){P2(62), 1, 1}, 0, &z3));
  geometry gw = geometry_of(w), gz2 = geometry_of(z2), gz3 = geometry_of(z3);

  /* w.select(0, 1): (0,) (1,) 2**62; w.select(0, 2), w.select(0, -1) raise */
  TSR_ASSERT_OK(tsr_select(w, 0, 1, &y));
  tsr_assert_geometry(y, 1, (int64_t[]){0}, (int64_t[]){1});
  cr_assert_eq(tsr_tensor_storage_offset(y), P2(62));
  tsr_tensor_release(y);
  y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_select(w, 0, 2, &y), TSR_ERR_INVALID_ARGUMENT,
                   "select(): index 2 of dim 0 with stride 4611686018427387904 moves storage "
                   "offset 0 past int64");
  TSR_ASSERT_FAILS(tsr_select(w, 0, -1, &y), TSR_ERR_INVALID_ARGUMENT, "index 2 of dim 0");
  cr_assert_eq(y, SENTINEL);

  /* z2.diagonal(1, 0, 1) and z2.diagonal(-1, 0, 1): (0, 2) (1, 2**62) 2**61 */
  for (int64_t off = -1; off <= 1; off += 2) {
    TSR_ASSERT_OK(tsr_diagonal(z2, off, 0, 1, &y));
    tsr_assert_geometry(y, 2, (int64_t[]){0, 2}, (int64_t[]){1, P2(62)});
    cr_assert_eq(tsr_tensor_storage_offset(y), P2(61));
    tsr_tensor_release(y);
  }
  /* z3.diagonal(-1, 0, 1): (0, 2) (1, 2**62 + 1) 2**62;
   * z3.diagonal(2, 0, 1): (0, 1) (1, 2**62 + 1) 2 */
  TSR_ASSERT_OK(tsr_diagonal(z3, -1, 0, 1, &y));
  tsr_assert_geometry(y, 2, (int64_t[]){0, 2}, (int64_t[]){1, P2(62) + 1});
  cr_assert_eq(tsr_tensor_storage_offset(y), P2(62));
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_diagonal(z3, 2, 0, 1, &y));
  tsr_assert_geometry(y, 2, (int64_t[]){0, 1}, (int64_t[]){1, P2(62) + 1});
  cr_assert_eq(tsr_tensor_storage_offset(y), 2);
  tsr_tensor_release(y);
  /* z3.diagonal(-2, 0, 1) raises (offset 2 * 2**62); w-like strides
   * 2**62 + 2**62 raise (b.as_strided([3, 3, 0], [2**62, 2**62, 1]).diagonal()) */
  y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_diagonal(z3, -2, 0, 1, &y), TSR_ERR_INVALID_ARGUMENT,
                   "diagonal: offset 2 of dim 0 with stride 4611686018427387904 moves storage "
                   "offset 0 past int64");
  tsr_tensor* z4;
  TSR_ASSERT_OK(
      tsr_as_strided(b, 3, (int64_t[]){3, 3, 0}, (int64_t[]){P2(62), P2(62), 1}, 0, &z4));
  TSR_ASSERT_FAILS(tsr_diagonal(z4, 0, 0, 1, &y), TSR_ERR_INVALID_ARGUMENT,
                   "diagonal: the strides 4611686018427387904 and 4611686018427387904 of dims 0 "
                   "and 1 add up past int64");
  cr_assert_eq(y, SENTINEL);
  tsr_tensor_release(z4);

  /* w.unsqueeze(1): (3, 1, 0) (2**62, 0, 1); w.unsqueeze(0) raises
   * (its stride 3 * 2**62 wraps negative) */
  TSR_ASSERT_OK(tsr_unsqueeze(w, 1, &y));
  tsr_assert_geometry(y, 3, (int64_t[]){3, 1, 0}, (int64_t[]){P2(62), 0, 1});
  tsr_tensor_release(y);
  y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_unsqueeze(w, 0, &y), TSR_ERR_INVALID_ARGUMENT,
                   "unsqueeze: the new dim's stride size * stride (3 * 4611686018427387904) "
                   "overflows int64");
  cr_assert_eq(y, SENTINEL);

  /* w.expand(5, 3, 0): (5, 3, 0) (0, 2**62, 1), the new dim expanded;
   * w.expand(1, 3, 0) raises (a new size-1 dim's stride 3 * 2**62) */
  TSR_ASSERT_OK(tsr_expand(w, 3, (int64_t[]){5, 3, 0}, &y));
  tsr_assert_geometry(y, 3, (int64_t[]){5, 3, 0}, (int64_t[]){0, P2(62), 1});
  tsr_tensor_release(y);
  y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_expand(w, 3, (int64_t[]){1, 3, 0}, &y), TSR_ERR_INVALID_ARGUMENT,
                   "expand: the new dim's stride size * stride (3 * 4611686018427387904) "
                   "overflows int64");
  cr_assert_eq(y, SENTINEL);

  assert_unchanged(w, &gw);
  assert_unchanged(z2, &gz2);
  assert_unchanged(z3, &gz3);
  tsr_tensor_release(z3);
  tsr_tensor_release(z2);
  tsr_tensor_release(w);
  tsr_tensor_release(b);
}
