/* Scaled dot-product attention (attention.h): values and gradients against
 * torch 2.x's math path run in torch 1.13 (golden/gen_attention.py) for
 * masks, causal, broadcast and transposed heads; float64 gradcheck;
 * float16/bfloat16 against float32; dropout's determinism, its gradient
 * against the composed form with the same mask, its replay under
 * checkpoint; the double-backward error; every argument error. */
#include <math.h>
#include <stdlib.h>

#include "gradcheck.h"
#include "golden/attention_golden.h"

#define SDPA_DEFAULT_SCALE NAN

static int64_t at_numel(const at_shape* s) {
  int64_t n = 1;
  for (int i = 0; i < s->ndim; ++i) n *= s->sizes[i];
  return n;
}

/* An input of the golden case: *leaf holds the storage (requires grad when
 * rg), the returned tensor is what attention gets (a transposed view for
 * the heads layout, else the leaf itself, with one more reference). */
static tsr_tensor* at_input(const at_shape* s, const double* v, int heads, tsr_dtype dt, bool rg,
                            tsr_tensor** leaf) {
  tsr_tensor *flat = tg_from_doubles(v, at_numel(s), dt), *l, *x;
  int64_t sizes[5];
  for (int i = 0; i < s->ndim; ++i) sizes[i] = s->sizes[i];
  if (heads) {
    sizes[1] = s->sizes[2];
    sizes[2] = s->sizes[1];
  }
  TSR_ASSERT_OK(tsr_reshape(flat, s->ndim, sizes, &l));
  tsr_tensor_release(flat);
  {
    tsr_tensor* c;
    TSR_ASSERT_OK(tsr_contiguous(l, TSR_CONTIGUOUS_FORMAT, &c));
    tsr_tensor_release(l);
    l = c;
  }
  if (rg) TSR_ASSERT_OK(tsr_set_requires_grad(l, true));
  if (heads) {
    TSR_ASSERT_OK(tsr_transpose(l, 1, 2, &x));
  } else {
    tsr_tensor_retain(l);
    x = l;
  }
  *leaf = l;
  return x;
}

static tsr_tensor* at_mask(const at_case* c, tsr_dtype dt) {
  if (!c->mask_kind) return NULL;
  tsr_tensor *flat = tg_from_doubles(c->maskv, at_numel(&c->mask), c->mask_kind == 1 ? TSR_BOOL : dt), *m;
  TSR_ASSERT_OK(tsr_reshape(flat, c->mask.ndim, c->mask.sizes, &m));
  tsr_tensor_release(flat);
  return m;
}

/* Compares t (in C order; a heads-layout leaf's grad is transposed back)
 * with want. */
static void at_expect(const tsr_tensor* t, int transpose, const double* want, int64_t n, double rtol,
                      double atol, const char* name, const char* what) {
  tsr_tensor* view = NULL;
  if (transpose) TSR_ASSERT_OK(tsr_transpose(t, 1, 2, &view));
  cr_assert_eq(tsr_tensor_numel(view ? view : t), n, "%s: %s numel", name, what);
  double* got = tg_values(view ? view : t);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!tg_close(got[i], want[i], rtol, atol) && bad++ < 5)
      cr_expect_fail("%s: %s[%lld] = %.10g, torch says %.10g", name, what, (long long)i, got[i], want[i]);
  free(got);
  tsr_tensor_release(view);
}

static void run_golden(tsr_dtype dt, double rtol, double atol) {
  const int ncases = (int)(sizeof AT_CASES / sizeof AT_CASES[0]);
  for (int ci = 0; ci < ncases; ++ci) {
    const at_case* c = &AT_CASES[ci];
    tsr_tensor *lq, *lk, *lv, *out;
    tsr_tensor* q = at_input(&c->q, c->qv, c->heads, dt, true, &lq);
    tsr_tensor* k = at_input(&c->k, c->kv, c->heads, dt, true, &lk);
    tsr_tensor* v = at_input(&c->v, c->vv, c->heads, dt, true, &lv);
    tsr_tensor* m = at_mask(c, dt);
    TSR_ASSERT_OK(tsr_scaled_dot_product_attention(q, k, v, m, 0.0, c->causal, c->scale, NULL, &out));
    cr_expect_eq(tsr_tensor_dtype(out), dt, "%s: dtype", c->name);
    cr_expect_str_eq(tsr_grad_fn_name(out), "ScaledDotProductFlashAttentionForCpuBackward0", "%s", c->name);
    bool contiguous = false;
    TSR_ASSERT_OK(tsr_is_contiguous(out, TSR_CONTIGUOUS_FORMAT, &contiguous));
    cr_expect(contiguous, "%s: output not contiguous", c->name);
    int64_t out_n = 1;
    for (int64_t d = 0; d < tsr_tensor_ndim(out); ++d) out_n *= tsr_tensor_sizes(out)[d];
    at_expect(out, 0, c->out, out_n, rtol, atol, c->name, "out");
    tsr_tensor *gflat = tg_from_doubles(c->gout, out_n, dt), *g;
    TSR_ASSERT_OK(tsr_reshape(gflat, tsr_tensor_ndim(out), tsr_tensor_sizes(out), &g));
    TSR_ASSERT_OK(tsr_backward(out, g, false));
    const char* names[3] = {"dq", "dk", "dv"};
    const double* want[3] = {c->dq, c->dk, c->dv};
    tsr_tensor* leaves[3] = {lq, lk, lv};
    const at_shape* shapes[3] = {&c->q, &c->k, &c->v};
    for (int i = 0; i < 3; ++i) {
      tsr_tensor* grad;
      TSR_ASSERT_OK(tsr_grad(leaves[i], &grad));
      cr_assert_not_null(grad, "%s: no %s", c->name, names[i]);
      at_expect(grad, c->heads, want[i], at_numel(shapes[i]), rtol, atol, c->name, names[i]);
      tsr_tensor_release(grad);
    }
    tsr_tensor* handles[] = {q, k, v, m, lq, lk, lv, out, gflat, g};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) tsr_tensor_release(handles[i]);
  }
}

Test(attention, golden_float32) { run_golden(TSR_FLOAT32, 1e-4, 2e-5); }
Test(attention, golden_float64) { run_golden(TSR_FLOAT64, 1e-10, 1e-12); }

/* ---- float64 gradcheck ---- */

typedef struct {
  int mask_kind; /* 0 none, 1 bool, 2 float */
  bool causal;
  double scale;
  bool heads; /* inputs (B, L, H, E) transposed */
} gc_ctx;

static tsr_tensor* gc_fn(tg_arena* ar, tsr_tensor* const* in, const void* vctx) {
  const gc_ctx* c = vctx;
  tsr_tensor *q = in[0], *k = in[1], *v = in[2], *m = c->mask_kind ? in[3] : NULL;
  if (c->heads) {
    q = T(tsr_transpose(q, 1, 2, &o_));
    k = T(tsr_transpose(k, 1, 2, &o_));
    v = T(tsr_transpose(v, 1, 2, &o_));
  }
  return T(tsr_scaled_dot_product_attention(q, k, v, m, 0.0, c->causal, c->scale, NULL, &o_));
}

static void gradcheck_case(const char* name, const gc_ctx* c, int nd, const int64_t* qs, const int64_t* ks,
                           const int64_t* vs, int mnd, const int64_t* ms) {
  tsr_tensor* in[4] = {tg_leaf(nd, qs, 1, 1.0, 0.0), tg_leaf(nd, ks, 2, 1.0, 0.0), tg_leaf(nd, vs, 3, 1.0, 0.0),
                       NULL};
  if (c->mask_kind == 2) {
    in[3] = tg_leaf(mnd, ms, 4, 1.0, 0.0);
    TSR_ASSERT_OK(tsr_set_requires_grad(in[3], false));
  } else if (c->mask_kind == 1) {
    tsr_tensor* r = tg_leaf(mnd, ms, 5, 1.0, 0.5);
    tsr_tensor* zero;
    TSR_ASSERT_OK(tsr_zeros(0, NULL, TSR_FLOAT64, TSR_CPU, &zero));
    TSR_ASSERT_OK(tsr_gt(r, zero, &in[3])); /* about 70% true */
    tsr_tensor_release(r);
    tsr_tensor_release(zero);
  }
  int checked = tg_gradcheck(name, gc_fn, c->mask_kind ? 4 : 3, in, c);
  cr_expect_gt(checked, 0);
  for (int i = 0; i < 4; ++i) tsr_tensor_release(in[i]);
}

Test(attention, gradcheck_float64) {
  const int64_t q[] = {2, 3, 4}, k[] = {2, 5, 4}, v[] = {2, 5, 3}, m[] = {3, 5};
  gc_ctx plain = {0, false, NAN, false}, fmask = {2, false, 0.7, false}, bmask = {1, false, NAN, false},
         causal = {0, true, NAN, false};
  gradcheck_case("no mask", &plain, 3, q, k, v, 0, NULL);
  gradcheck_case("float mask, scale 0.7", &fmask, 3, q, k, v, 2, m);
  gradcheck_case("bool mask", &bmask, 3, q, k, v, 2, m);
  gradcheck_case("causal", &causal, 3, q, k, v, 0, NULL);
  /* (B, L, H, E) leaves seen as (B, H, L, E); k and v broadcast over B. */
  const int64_t hq[] = {2, 3, 2, 4}, hk[] = {1, 5, 2, 4}, hv[] = {1, 5, 2, 3};
  gc_ctx heads = {0, true, NAN, true};
  gradcheck_case("transposed heads, causal, broadcast k/v", &heads, 4, hq, hk, hv, 0, NULL);
}

/* ---- float16 / bfloat16: float32 computation of the same rounded inputs ---- */

static void low_precision(tsr_dtype dt, double tol) {
  const int64_t qs[] = {2, 2, 70, 16}, ks[] = {2, 2, 150, 16}, vs[] = {2, 2, 150, 8};
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(11, &g));
  tsr_tensor *q32, *k32, *v32, *g32, *q, *k, *v, *go;
  TSR_ASSERT_OK(tsr_randn(4, qs, TSR_FLOAT32, g, &q32));
  TSR_ASSERT_OK(tsr_randn(4, ks, TSR_FLOAT32, g, &k32));
  TSR_ASSERT_OK(tsr_randn(4, vs, TSR_FLOAT32, g, &v32));
  const int64_t os[] = {2, 2, 70, 8};
  TSR_ASSERT_OK(tsr_randn(4, os, TSR_FLOAT32, g, &g32));
  TSR_ASSERT_OK(tsr_to_dtype(q32, dt, &q));
  TSR_ASSERT_OK(tsr_to_dtype(k32, dt, &k));
  TSR_ASSERT_OK(tsr_to_dtype(v32, dt, &v));
  TSR_ASSERT_OK(tsr_to_dtype(g32, dt, &go));
  tsr_tensor* lo[3] = {q, k, v};
  tsr_tensor* ref[3];
  for (int i = 0; i < 3; ++i) {
    TSR_ASSERT_OK(tsr_to_dtype(lo[i], TSR_FLOAT32, &ref[i])); /* the rounded values, in float32 */
    TSR_ASSERT_OK(tsr_set_requires_grad(ref[i], true));
    TSR_ASSERT_OK(tsr_set_requires_grad(lo[i], true));
  }
  tsr_tensor *gref, *out, *out_ref;
  TSR_ASSERT_OK(tsr_to_dtype(go, TSR_FLOAT32, &gref));
  for (int causal = 0; causal < 2; ++causal) {
    TSR_ASSERT_OK(tsr_scaled_dot_product_attention(q, k, v, NULL, 0.0, causal, NAN, NULL, &out));
    TSR_ASSERT_OK(tsr_scaled_dot_product_attention(ref[0], ref[1], ref[2], NULL, 0.0, causal, NAN, NULL, &out_ref));
    cr_expect_eq(tsr_tensor_dtype(out), dt);
    double *a = tg_values(out), *b = tg_values(out_ref);
    int bad = 0;
    for (int64_t i = 0; i < tsr_tensor_numel(out); ++i)
      if (!tg_close(a[i], b[i], tol, tol) && bad++ < 5)
        cr_expect_fail("%s causal %d out[%lld] = %g, float32 says %g", tsr_dtype_name(dt), causal, (long long)i,
                       a[i], b[i]);
    free(a);
    free(b);
    TSR_ASSERT_OK(tsr_backward(out, go, false));
    TSR_ASSERT_OK(tsr_backward(out_ref, gref, false));
    for (int i = 0; i < 3; ++i) {
      tsr_tensor *gl, *gr;
      TSR_ASSERT_OK(tsr_grad(lo[i], &gl));
      TSR_ASSERT_OK(tsr_grad(ref[i], &gr));
      cr_expect_eq(tsr_tensor_dtype(gl), dt);
      double *x = tg_values(gl), *y = tg_values(gr);
      bad = 0;
      for (int64_t j = 0; j < tsr_tensor_numel(gl); ++j)
        if (!tg_close(x[j], y[j], 4 * tol, 4 * tol) && bad++ < 5)
          cr_expect_fail("%s causal %d grad %d[%lld] = %g, float32 says %g", tsr_dtype_name(dt), causal, i,
                         (long long)j, x[j], y[j]);
      free(x);
      free(y);
      tsr_tensor_release(gl);
      tsr_tensor_release(gr);
      TSR_ASSERT_OK(tsr_set_grad(lo[i], NULL));
      TSR_ASSERT_OK(tsr_set_grad(ref[i], NULL));
    }
    tsr_tensor_release(out);
    tsr_tensor_release(out_ref);
  }
  tsr_tensor* all[] = {q32, k32, v32, g32, q, k, v, go, ref[0], ref[1], ref[2], gref};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
}

Test(attention, bfloat16_against_float32) { low_precision(TSR_BFLOAT16, 1e-2); }
Test(attention, float16_against_float32) { low_precision(TSR_FLOAT16, 2e-3); }

/* ---- dropout ---- */

enum { DB = 2, DL = 5, DS = 7, DE = 4, DEV = 3 };
#define DP 0.3

static tsr_tensor* dleaf(int64_t rows, int64_t cols, uint64_t seed) {
  const int64_t s[] = {DB, rows, cols};
  return tg_leaf(3, s, seed, 1.0, 0.0);
}

Test(attention, dropout_same_state_same_output) {
  tsr_tensor *q = dleaf(DL, DE, 1), *k = dleaf(DS, DE, 2), *v = dleaf(DS, DEV, 3), *a, *b, *c;
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(5, &g));
  TSR_ASSERT_OK(tsr_generator_set_state(g, 5, 100));
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(q, k, v, NULL, DP, false, NAN, g, &a));
  uint64_t seed, off;
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &off));
  cr_expect_eq(off, 100 + DB * DL * DS, "the generator advances by batch * L * S words");
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(q, k, v, NULL, DP, false, NAN, g, &c));
  TSR_ASSERT_OK(tsr_generator_set_state(g, 5, 100));
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(q, k, v, NULL, DP, false, NAN, g, &b));
  double *x = tg_values(a), *y = tg_values(b), *z = tg_values(c);
  int differ = 0;
  for (int64_t i = 0; i < DB * DL * DEV; ++i) {
    cr_expect(x[i] == y[i], "element %lld: %g != %g", (long long)i, x[i], y[i]);
    differ += x[i] != z[i];
  }
  cr_expect_gt(differ, 0, "the next draw gave the same output");
  free(x);
  free(y);
  free(z);
  tsr_tensor* all[] = {q, k, v, a, b, c};
  for (size_t i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
}

/* The keep factors attention draws at (seed, offset): keep / (1 - p) where
 * the float32 uniform of word offset + (b * L + i) * S + j is below 1 - p
 * (tsr_rand takes the same 24 bits of each word). */
static tsr_tensor* dropout_factors(uint64_t seed, uint64_t offset) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(seed, &g));
  TSR_ASSERT_OK(tsr_generator_set_state(g, seed, offset));
  const int64_t s[] = {DB, DL, DS};
  tsr_tensor *u, *z;
  TSR_ASSERT_OK(tsr_rand(3, s, TSR_FLOAT32, g, &u));
  double* uv = tg_values(u);
  double f[DB * DL * DS];
  int kept = 0;
  for (int i = 0; i < DB * DL * DS; ++i) {
    f[i] = uv[i] < 1.0 - DP ? 1.0 / (1.0 - DP) : 0.0;
    kept += f[i] != 0.0;
  }
  cr_expect(kept > 0 && kept < DB * DL * DS, "a mask that keeps some and drops some");
  tsr_tensor* flat = tg_from_doubles(f, DB * DL * DS, TSR_FLOAT64);
  TSR_ASSERT_OK(tsr_reshape(flat, 3, s, &z));
  free(uv);
  tsr_tensor_release(flat);
  tsr_tensor_release(u);
  tsr_generator_release(g);
  return z;
}

static void grads3(tsr_tensor* const* in, double** out) {
  for (int i = 0; i < 3; ++i) {
    tsr_tensor* g;
    TSR_ASSERT_OK(tsr_grad(in[i], &g));
    cr_assert_not_null(g);
    out[i] = tg_values(g);
    tsr_tensor_release(g);
    TSR_ASSERT_OK(tsr_set_grad(in[i], NULL));
  }
}

Test(attention, dropout_backward_matches_composed_form_with_the_same_mask) {
  tsr_tensor* in[3] = {dleaf(DL, DE, 1), dleaf(DS, DE, 2), dleaf(DS, DEV, 3)};
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(9, &g));
  TSR_ASSERT_OK(tsr_generator_set_state(g, 9, 1234));
  tsr_tensor* fused;
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(in[0], in[1], in[2], NULL, DP, false, NAN, g, &fused));
  tsr_tensor *s1 = NULL, *s2 = NULL;
  TSR_ASSERT_OK(tsr_sum(fused, 0, NULL, false, &s1));
  TSR_ASSERT_OK(tsr_backward(s1, NULL, false));
  double* gf[3];
  grads3(in, gf);

  tg_arena a = {.n = 0}, *ar = &a;
  tsr_tensor* z = tg_keep(ar, dropout_factors(9, 1234));
  tsr_tensor* kt = T(tsr_transpose(in[1], 1, 2, &o_));
  tsr_tensor* sc = T(tsr_mul_scalar(T(tsr_matmul(in[0], kt, &o_)), 1.0 / sqrt(DE), &o_));
  tsr_tensor* p = T(tsr_mul(T(tsr_softmax(sc, -1, &o_)), z, &o_));
  tsr_tensor* composed = T(tsr_matmul(p, in[2], &o_));
  TSR_ASSERT_OK(tsr_sum(composed, 0, NULL, false, &s2));
  TSR_ASSERT_OK(tsr_backward(s2, NULL, false));
  double* gc[3];
  grads3(in, gc);

  double *x = tg_values(fused), *y = tg_values(composed);
  for (int64_t i = 0; i < DB * DL * DEV; ++i) cr_expect(tg_close(x[i], y[i], 1e-12, 1e-13), "out[%lld]", (long long)i);
  const int64_t n[3] = {DB * DL * DE, DB * DS * DE, DB * DS * DEV};
  for (int t = 0; t < 3; ++t) {
    for (int64_t i = 0; i < n[t]; ++i)
      cr_expect(tg_close(gf[t][i], gc[t][i], 1e-10, 1e-12), "grad %d[%lld]: %.12g != %.12g", t, (long long)i,
                gf[t][i], gc[t][i]);
    free(gf[t]);
    free(gc[t]);
  }
  free(x);
  free(y);
  tg_arena_release(ar);
  tsr_tensor* all[] = {in[0], in[1], in[2], fused, s1, s2};
  for (size_t i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
}

typedef struct {
  tsr_generator* g;
} ck_ctx;

static tsr_status ck_fn(void* vctx, int64_t n_inputs, tsr_tensor* const* inputs, int64_t max_outputs,
                        int64_t* n_outputs, tsr_tensor** outputs) {
  (void)n_inputs;
  (void)max_outputs;
  ck_ctx* c = vctx;
  tsr_tensor* o;
  tsr_status st = tsr_scaled_dot_product_attention(inputs[0], inputs[1], inputs[2], NULL, DP, false, NAN, c->g, &o);
  if (st != TSR_OK) return st;
  tsr_tensor* r;
  st = tsr_mul_scalar(o, 2.0, &r); /* an op after attention, so the replay recomputes it */
  tsr_tensor_release(o);
  if (st != TSR_OK) return st;
  outputs[0] = r;
  *n_outputs = 1;
  return TSR_OK;
}

Test(attention, dropout_replays_under_checkpoint) {
  tsr_tensor* in[3] = {dleaf(DL, DE, 1), dleaf(DS, DE, 2), dleaf(DS, DEV, 3)};
  ck_ctx c;
  TSR_ASSERT_OK(tsr_generator_create(21, &c.g));
  double *plain[3], *ck[3];
  /* Without a region. */
  tsr_tensor *o1, *s1, *o2[1], *s2;
  int64_t n = 0;
  TSR_ASSERT_OK(ck_fn(&c, 3, in, 1, &n, &o1));
  TSR_ASSERT_OK(tsr_sum(o1, 0, NULL, false, &s1));
  TSR_ASSERT_OK(tsr_backward(s1, NULL, false));
  grads3(in, plain);
  /* In a region, from the same generator state; the generator moves on
   * between forward and backward, and the replay must not draw from it. */
  TSR_ASSERT_OK(tsr_generator_set_state(c.g, 21, 0));
  TSR_ASSERT_OK(tsr_checkpoint(ck_fn, &c, 3, in, NULL, 1, &n, o2));
  tsr_tensor* other;
  const int64_t sz[] = {64};
  TSR_ASSERT_OK(tsr_rand(1, sz, TSR_FLOAT32, c.g, &other));
  TSR_ASSERT_OK(tsr_sum(o2[0], 0, NULL, false, &s2));
  TSR_ASSERT_OK(tsr_backward(s2, NULL, false));
  grads3(in, ck);
  const int64_t cnt[3] = {DB * DL * DE, DB * DS * DE, DB * DS * DEV};
  for (int t = 0; t < 3; ++t) {
    for (int64_t i = 0; i < cnt[t]; ++i)
      cr_expect(plain[t][i] == ck[t][i], "grad %d[%lld]: %.17g != %.17g", t, (long long)i, plain[t][i], ck[t][i]);
    free(plain[t]);
    free(ck[t]);
  }
  tsr_tensor* all[] = {in[0], in[1], in[2], o1, s1, o2[0], s2, other};
  for (size_t i = 0; i < 8; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(c.g);
}

/* Forward tasks (batch element, query block) are independent; backward
 * runs one task per batch element, or with fewer batch elements than
 * threads, dK/dV over key blocks then dQ over query blocks, each tile
 * accumulated in the same order: one thread or two give the same bits. */
static void same_bits_on_1_and_2_threads(int64_t nb, int64_t L, int64_t S, bool causal, bool mask, double p) {
  const int64_t qs[] = {nb, L, 16}, ks[] = {nb, S, 16}, ms[] = {L, S};
  tsr_tensor *q = tg_leaf(3, qs, 1, 1, 0), *k = tg_leaf(3, ks, 2, 1, 0), *v = tg_leaf(3, ks, 3, 1, 0), *m = NULL;
  if (mask) {
    tsr_tensor* r = tg_leaf(2, ms, 5, 1.0, 0.5);
    tsr_tensor* zero;
    TSR_ASSERT_OK(tsr_zeros(0, NULL, TSR_FLOAT64, TSR_CPU, &zero));
    TSR_ASSERT_OK(tsr_gt(r, zero, &m));
    tsr_tensor_release(r);
    tsr_tensor_release(zero);
  }
  tsr_tensor* in[3] = {q, k, v};
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(17, &g));
  double *out[2], *grads[2][3];
  const int64_t before = tsr_get_num_threads();
  for (int t = 0; t < 2; ++t) {
    TSR_ASSERT_OK(tsr_set_num_threads(t + 1));
    TSR_ASSERT_OK(tsr_generator_set_state(g, 17, 0));
    tsr_tensor *o, *s;
    TSR_ASSERT_OK(tsr_scaled_dot_product_attention(q, k, v, m, p, causal, NAN, g, &o));
    TSR_ASSERT_OK(tsr_sum(o, 0, NULL, false, &s));
    TSR_ASSERT_OK(tsr_backward(s, NULL, false));
    out[t] = tg_values(o);
    grads3(in, grads[t]);
    tsr_tensor_release(o);
    tsr_tensor_release(s);
  }
  TSR_ASSERT_OK(tsr_set_num_threads(before));
  for (int64_t i = 0; i < nb * L * 16; ++i) cr_expect(out[0][i] == out[1][i], "out[%lld]", (long long)i);
  const int64_t n[3] = {nb * L * 16, nb * S * 16, nb * S * 16};
  for (int j = 0; j < 3; ++j) {
    int bad = 0;
    for (int64_t i = 0; i < n[j]; ++i)
      if (grads[0][j][i] != grads[1][j][i] && bad++ < 5)
        cr_expect_fail("nb %lld: grad %d[%lld]: %.17g != %.17g", (long long)nb, j, (long long)i, grads[0][j][i],
                       grads[1][j][i]);
  }
  for (int t = 0; t < 2; ++t) {
    free(out[t]);
    for (int j = 0; j < 3; ++j) free(grads[t][j]);
  }
  for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
  tsr_tensor_release(m);
  tsr_generator_release(g);
}

Test(attention, thread_count_does_not_change_results) {
  same_bits_on_1_and_2_threads(3, 200, 300, true, false, 0.0);
  /* One batch element: the split backward on two threads. */
  same_bits_on_1_and_2_threads(1, 300, 600, true, false, 0.0);
  same_bits_on_1_and_2_threads(1, 300, 600, false, true, 0.2);
}

/* ---- layouts, empty inputs, no mask gradient, no double backward ---- */

Test(attention, strided_last_dim_equals_contiguous) {
  const int64_t s[] = {2, 6, 8};
  tsr_tensor *q = tg_leaf(3, s, 1, 1.0, 0.0), *k = tg_leaf(3, s, 2, 1.0, 0.0), *v = tg_leaf(3, s, 3, 1.0, 0.0);
  tsr_tensor *qs, *qc, *a, *b;
  TSR_ASSERT_OK(tsr_slice(q, 2, 0, 8, 2, &qs)); /* last dim stride 2 */
  TSR_ASSERT_OK(tsr_contiguous(qs, TSR_CONTIGUOUS_FORMAT, &qc));
  tsr_tensor *ks, *vs;
  TSR_ASSERT_OK(tsr_slice(k, 2, 0, 8, 2, &ks));
  TSR_ASSERT_OK(tsr_slice(v, 1, 0, 6, 1, &vs));
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(qs, ks, vs, NULL, 0.0, true, NAN, NULL, &a));
  tsr_tensor* kc;
  TSR_ASSERT_OK(tsr_contiguous(ks, TSR_CONTIGUOUS_FORMAT, &kc));
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(qc, kc, vs, NULL, 0.0, true, NAN, NULL, &b));
  double *x = tg_values(a), *y = tg_values(b);
  for (int64_t i = 0; i < tsr_tensor_numel(a); ++i) cr_expect(tg_close(x[i], y[i], 1e-14, 1e-15));
  free(x);
  free(y);
  tsr_tensor* all[] = {q, k, v, qs, qc, a, b, ks, vs, kc};
  for (size_t i = 0; i < 10; ++i) tsr_tensor_release(all[i]);
}

Test(attention, empty_inputs) {
  const int64_t q[] = {2, 3, 4}, k0[] = {2, 0, 4}, v0[] = {2, 0, 5}, q0[] = {2, 0, 4}, k[] = {2, 6, 4},
                v[] = {2, 6, 5};
  tsr_tensor *tq = filled(3, q, TSR_FLOAT32, 1), *tk0 = filled(3, k0, TSR_FLOAT32, 1),
             *tv0 = filled(3, v0, TSR_FLOAT32, 1), *tq0 = filled(3, q0, TSR_FLOAT32, 1),
             *tk = filled(3, k, TSR_FLOAT32, 1), *tv = filled(3, v, TSR_FLOAT32, 1), *out;
  /* No keys: torch's composed form gives zeros (an empty softmax times v). */
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(tq, tk0, tv0, NULL, 0.0, false, NAN, NULL, &out));
  const int64_t want[] = {2, 3, 5};
  tsr_assert_geometry(out, 3, want, NULL);
  double* x = tg_values(out);
  for (int i = 0; i < 30; ++i) cr_expect_eq(x[i], 0.0);
  free(x);
  tsr_tensor_release(out);
  /* No queries. */
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(tq0, tk, tv, NULL, 0.0, false, NAN, NULL, &out));
  const int64_t want0[] = {2, 0, 5};
  tsr_assert_geometry(out, 3, want0, NULL);
  tsr_tensor_release(out);
  tsr_tensor* all[] = {tq, tk0, tv0, tq0, tk, tv};
  for (size_t i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
}

/* Gradients of empty cases: zeros where nothing flows, empty where the
 * input is empty; E == 0 with a scale: every key scores 0, the output is
 * the mean of v's rows. */
Test(attention, empty_inputs_backward) {
  const struct {
    int64_t q[3], k[3], v[3];
    double want_out; /* every output element (v is all ones): -1 for none */
  } cases[] = {
      {{2, 3, 4}, {2, 0, 4}, {2, 0, 5}, 0.0},  /* S == 0: zeros, dq zero */
      {{2, 0, 4}, {2, 6, 4}, {2, 6, 5}, -1},   /* L == 0: dk, dv zero */
      {{2, 3, 0}, {2, 6, 0}, {2, 6, 5}, 1.0},  /* E == 0: mean of v */
      {{2, 3, 4}, {2, 6, 4}, {2, 6, 0}, -1},   /* Ev == 0: empty output, dq/dk zero */
      {{0, 3, 4}, {0, 6, 4}, {0, 6, 5}, -1},   /* no batch */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    tsr_tensor *in[3] = {filled(3, cases[c].q, TSR_FLOAT64, 0.5), filled(3, cases[c].k, TSR_FLOAT64, 0.25),
                         filled(3, cases[c].v, TSR_FLOAT64, 1.0)},
               *out, *s;
    for (int i = 0; i < 3; ++i) TSR_ASSERT_OK(tsr_set_requires_grad(in[i], true));
    TSR_ASSERT_OK(tsr_scaled_dot_product_attention(in[0], in[1], in[2], NULL, 0.0, false, 0.5, NULL, &out));
    const int64_t want[] = {cases[c].q[0], cases[c].q[1], cases[c].v[2]};
    tsr_assert_geometry(out, 3, want, NULL);
    double* o = tg_values(out);
    for (int64_t i = 0; i < tsr_tensor_numel(out); ++i)
      cr_expect(cases[c].want_out >= 0 && fabs(o[i] - cases[c].want_out) < 1e-15, "case %zu out[%lld] = %g", c,
                (long long)i, o[i]);
    free(o);
    TSR_ASSERT_OK(tsr_sum(out, 0, NULL, false, &s));
    TSR_ASSERT_OK(tsr_backward(s, NULL, false));
    for (int i = 0; i < 3; ++i) {
      tsr_tensor* g;
      TSR_ASSERT_OK(tsr_grad(in[i], &g));
      cr_assert_not_null(g, "case %zu: input %d has no grad", c, i);
      tsr_assert_geometry(g, 3, tsr_tensor_sizes(in[i]), NULL);
      double* gv = tg_values(g);
      for (int64_t j = 0; j < tsr_tensor_numel(g); ++j)
        cr_expect(cases[c].want_out == 1.0 && i == 2 ? fabs(gv[j] - 0.5) < 1e-15 : gv[j] == 0.0,
                  "case %zu grad %d[%lld] = %g", c, i, (long long)j, gv[j]);
      free(gv);
      tsr_tensor_release(g);
    }
    tsr_tensor* all[] = {in[0], in[1], in[2], out, s};
    for (size_t i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
  }
}

Test(attention, mask_gets_no_gradient) {
  const int64_t q[] = {2, 3, 4}, k[] = {2, 5, 4}, m[] = {3, 5};
  tsr_tensor *tq = tg_leaf(3, q, 1, 1, 0), *tk = tg_leaf(3, k, 2, 1, 0), *tv = tg_leaf(3, k, 3, 1, 0),
             *tm = tg_leaf(2, m, 4, 1, 0), *out, *s;
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(tq, tk, tv, tm, 0.0, false, NAN, NULL, &out));
  TSR_ASSERT_OK(tsr_sum(out, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  expect_no_grad(tm);
  tsr_tensor* gq;
  TSR_ASSERT_OK(tsr_grad(tq, &gq));
  cr_expect_not_null(gq);
  tsr_tensor* all[] = {tq, tk, tv, tm, out, s, gq};
  for (size_t i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
}

Test(attention, double_backward_is_refused) {
  const int64_t q[] = {2, 3, 4}, k[] = {2, 5, 4};
  tsr_tensor *tq = tg_leaf(3, q, 1, 1, 0), *tk = tg_leaf(3, k, 2, 1, 0), *tv = tg_leaf(3, k, 3, 1, 0), *out, *s,
             *gs;
  TSR_ASSERT_OK(tsr_scaled_dot_product_attention(tq, tk, tv, NULL, 0.0, false, NAN, NULL, &out));
  TSR_ASSERT_OK(tsr_sum(out, 0, NULL, false, &s));
  tsr_tensor* inputs[] = {tq};
  tsr_tensor* grads[1] = {NULL};
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s, NULL, 1, inputs, true, true, false, grads));
  TSR_ASSERT_OK(tsr_sum(grads[0], 0, NULL, false, &gs));
  TSR_ASSERT_FAILS(tsr_backward(gs, NULL, false), TSR_ERR_AUTOGRAD,
                   "the derivative for '_scaled_dot_product_flash_attention_for_cpu_backward' is not implemented");
  tsr_tensor* all[] = {tq, tk, tv, out, s, grads[0], gs};
  for (size_t i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
}

/* ---- errors: status, message, out untouched, generator unmoved ---- */

Test(attention, errors) {
  const int64_t q[] = {2, 3, 4}, k[] = {2, 5, 4}, v[] = {2, 5, 6}, k3[] = {2, 5, 3}, v4[] = {2, 4, 6},
                kb[] = {3, 5, 4}, m[] = {3, 5}, mbad[] = {4, 5}, one[] = {4};
  tsr_tensor *tq = filled(3, q, TSR_FLOAT32, 1), *tk = filled(3, k, TSR_FLOAT32, 1),
             *tv = filled(3, v, TSR_FLOAT32, 1), *tk64 = filled(3, k, TSR_FLOAT64, 1),
             *tk3 = filled(3, k3, TSR_FLOAT32, 1), *tv4 = filled(3, v4, TSR_FLOAT32, 1),
             *tkb = filled(3, kb, TSR_FLOAT32, 1), *tm = filled(2, m, TSR_BOOL, 1),
             *tmi = filled(2, m, TSR_INT64, 1), *tmbad = filled(2, mbad, TSR_FLOAT32, 0),
             *t1 = filled(1, one, TSR_FLOAT32, 1), *qi = filled(3, q, TSR_INT64, 1), *ki = filled(3, k, TSR_INT64, 1),
             *vi = filled(3, v, TSR_INT64, 1);
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(3, &g));
  tsr_tensor* out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(NULL, tk, tv, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_INVALID_ARGUMENT, "query");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, NULL, tv, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_INVALID_ARGUMENT, "key");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, NULL, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_INVALID_ARGUMENT, "value");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, NULL, 0, false, NAN, NULL, NULL),
                   TSR_ERR_INVALID_ARGUMENT, "out");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, tm, 0, true, NAN, NULL, &out),
                   TSR_ERR_INVALID_ARGUMENT, "Explicit attn_mask should not be set when is_causal=True");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, NULL, -0.1, false, NAN, g, &out),
                   TSR_ERR_INVALID_ARGUMENT, "dropout probability has to be between 0 and 1, but got -0.1");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, NULL, 1.5, false, NAN, g, &out),
                   TSR_ERR_INVALID_ARGUMENT, "dropout probability has to be between 0 and 1, but got 1.5");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, NULL, 0.5, false, NAN, NULL, &out),
                   TSR_ERR_INVALID_ARGUMENT, "dropout_p > 0 needs a generator");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, NULL, 0, false, INFINITY, NULL, &out),
                   TSR_ERR_INVALID_ARGUMENT, "scale must be finite");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk64, tv, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_DTYPE_MISMATCH,
                   "Expected query, key, and value to have the same dtype, but got query.dtype: float key.dtype: "
                   "double and value.dtype: float instead.");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(qi, ki, vi, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_DTYPE_MISMATCH, "expected query, key and value of a floating dtype");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(t1, tk, tv, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_SHAPE_MISMATCH,
                   "Expected query, key, and value to all be at least 2 dimensional, but got query.dim: 1 key.dim: 3 "
                   "and value.dim: 3 instead.");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk3, tv, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_SHAPE_MISMATCH, "query.size(-1): 4 and key.size(-1): 3");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv4, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_SHAPE_MISMATCH, "key.size(-2): 5 and value.size(-2): 4");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tkb, tv, NULL, 0, false, NAN, NULL, &out),
                   TSR_ERR_SHAPE_MISMATCH, "must match the size of tensor b");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, tmi, 0, false, NAN, NULL, &out),
                   TSR_ERR_DTYPE_MISMATCH,
                   "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                   "long int and  query.dtype: float instead.");
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk, tv, tmbad, 0, false, NAN, NULL, &out),
                   TSR_ERR_SHAPE_MISMATCH, "attn_mask of size [4, 5] does not broadcast");
  cr_expect_eq(out, SENTINEL);
  uint64_t seed, off;
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &off));
  cr_expect_eq(off, 0, "a failed call moved the generator");
  /* A failing shape check with dropout does not move it either. */
  TSR_ASSERT_FAILS(tsr_scaled_dot_product_attention(tq, tk3, tv, NULL, 0.5, false, NAN, g, &out),
                   TSR_ERR_SHAPE_MISMATCH, "key.size(-1)");
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &off));
  cr_expect_eq(off, 0);
  tsr_tensor* all[] = {tq, tk, tv, tk64, tk3, tv4, tkb, tm, tmi, tmbad, t1, qi, ki, vi};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
}
