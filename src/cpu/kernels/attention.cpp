// The fused attention kernel of attention.h. Forward: each task takes one
// block of query rows of one batch element and walks the keys in tiles,
// S = scale * Q K^T (OpenBLAS), mask, an online softmax (running maximum m
// and sum l per row, the accumulator rescaled by exp(m_old - m_new) when
// the maximum grows) and acc += P V; out = acc / l, lse = m + log l. Extra
// memory: a few tiles per thread and the (L) logsumexp. Backward
// (FlashAttention-2): per batch element, for each key tile, for each query
// tile, P = exp(S - lse) recomputed, dV += P^T dO, dP = dO V^T,
// dS = P * (dP - D) with D = rowsum(dO * O), dQ += scale dS K,
// dK += scale dS^T Q.
#include "cpu/kernels/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/dtype.h"
#include "core/philox.h"
#include "core/views.h"
#include "cpu/kernels/attention_simd.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/threads.h"

namespace tsr::kernels {

namespace {

// Query rows per task and tile, keys per tile: a 128 x 256 float tile is
// 128 KiB, so S (and in backward P, dP and the dropout factors) with the
// operands' rows stay in a 1 MiB L2. Smaller tiles cost more in OpenBLAS's
// per-call packing; 256 x 512 measured no faster (single thread, L 512 and
// 2048, E 64).
constexpr int64_t kQueryBlock = 128;
constexpr int64_t kKeyBlock = 256;

// torch's names for dtypes in TORCH_CHECK messages (caffe2::TypeMeta).
const char* meta_name(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT32: return "float";
    case TSR_FLOAT64: return "double";
    case TSR_FLOAT16: return "c10::Half";
    case TSR_BFLOAT16: return "c10::BFloat16";
    case TSR_INT64: return "long int";
    case TSR_INT32: return "int";
    case TSR_BOOL: return "bool";
    default: return dtype_name(d);
  }
}

bool is_sdpa_floating(tsr_dtype d) {
  return d == TSR_FLOAT32 || d == TSR_FLOAT64 || d == TSR_FLOAT16 || d == TSR_BFLOAT16;
}

Shape batch_of(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }

// C (m x n) = alpha * op(A) op(B) + beta * C, row-major, any of m, n, k zero.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : c[i * ldc + j] * beta;
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(m), int(n),
              int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
}
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
          const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0 ? 0.0 : c[i * ldc + j] * beta;
    return;
  }
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(m), int(n),
              int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

// Offsets, in elements, of each flattened batch element of t expanded to
// `batch` (stride 0 along broadcast dims).
std::vector<int64_t> batch_offsets(const Tensor& t, const Shape& batch) {
  const size_t nd = batch.size();
  Shape strides(nd, 0);
  const size_t tb = size_t(t.ndim()) - 2;
  for (size_t d = 0; d < tb; ++d)
    if (t.sizes()[d] != 1) strides[nd - tb + d] = t.strides()[d];
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  std::vector<int64_t> off(size_t(std::max<int64_t>(n, 0)), t.storage_offset());
  Shape idx(nd, 0);
  for (int64_t b = 0; b < n; ++b) {
    int64_t o = t.storage_offset();
    for (size_t d = 0; d < nd; ++d) o += idx[d] * strides[d];
    off[size_t(b)] = o;
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return off;
}

// A (rows x cols) matrix per batch element that BLAS can read: unit stride
// along cols, rows ld apart (ld >= cols), in the compute type C. Other
// layouts and dtypes are copied once (the input's own size, not the
// broadcast one).
template <typename C>
struct Mat {
  Tensor hold;
  const C* base = nullptr;
  std::vector<int64_t> off;
  int64_t ld = 1;
  const C* at(int64_t b) const { return base + off[size_t(b)]; }
};

template <typename C>
Mat<C> mat_of(const Tensor& t, const Shape& batch) {
  const int64_t nd = t.ndim(), rows = t.sizes()[nd - 2], cols = t.sizes()[nd - 1];
  const int64_t s_rows = t.strides()[nd - 2], s_cols = t.strides()[nd - 1];
  const bool blas_ok = t.dtype() == dtype_of<C>::value && (cols <= 1 || s_cols == 1) &&
                       (rows <= 1 || s_rows >= std::max<int64_t>(cols, 1));
  Mat<C> m;
  m.hold = blas_ok ? t : contiguous_copy(t, dtype_of<C>::value);
  const Tensor& h = m.hold;
  m.ld = rows <= 1 ? std::max<int64_t>(cols, 1) : h.strides()[nd - 2];
  // data_ptr already adds the storage offset; offsets below are relative.
  m.base = static_cast<const C*>(h.data_ptr()) - h.storage_offset();
  m.off = batch_offsets(h, batch);
  return m;
}

// The mask as the kernel reads it: any dtype, any strides, expanded to
// (batch..., L, S) by offsets and strides; per tile row, the values are
// added to the scores (bool: 0 where true, -inf where false).
struct MaskView {
  bool defined = false;
  tsr_dtype dtype = TSR_BOOL;
  const char* base = nullptr;
  std::vector<int64_t> off;
  int64_t s_row = 0, s_col = 0, esize = 1;
};

MaskView mask_view(const Tensor& mask, const Shape& batch) {
  MaskView mv;
  if (!mask.defined()) return mv;
  // A mask of fewer than 2 dims: its leading unit dims.
  Tensor m = mask;
  while (m.ndim() < 2) m = views::unsqueeze(m, 0);
  mv.defined = true;
  mv.dtype = m.dtype();
  mv.esize = m.element_size();
  const int64_t nd = m.ndim();
  mv.s_row = m.sizes()[nd - 2] == 1 ? 0 : m.strides()[nd - 2];
  mv.s_col = m.sizes()[nd - 1] == 1 ? 0 : m.strides()[nd - 1];
  mv.base = static_cast<const char*>(m.data_ptr()) - m.storage_offset() * mv.esize;
  mv.off = batch_offsets(m, batch);
  return mv;
}

// s[c] += mask(b, i, j0 + c) for c < n.
template <typename C>
void add_mask_row(const MaskView& mv, int64_t b, int64_t i, int64_t j0, int64_t n, C* s) {
  const int64_t first = mv.off[size_t(b)] + i * mv.s_row + j0 * mv.s_col;
  auto run = [&]<typename M>() {
    const M* p = reinterpret_cast<const M*>(mv.base) + first;
    for (int64_t c = 0; c < n; ++c) {
      const M v = p[c * mv.s_col];
      if constexpr (std::is_same_v<M, bool>)
        s[c] = v ? s[c] : -std::numeric_limits<C>::infinity();
      else
        s[c] += C(convert<double>(v));
    }
  };
  switch (mv.dtype) {
    case TSR_BOOL: run.template operator()<bool>(); break;
    case TSR_FLOAT32: run.template operator()<float>(); break;
    case TSR_FLOAT64: run.template operator()<double>(); break;
    case TSR_FLOAT16: run.template operator()<Half>(); break;
    case TSR_BFLOAT16: run.template operator()<BFloat16>(); break;
    default: fail(TSR_ERR_INTERNAL, "scaled_dot_product_attention: mask dtype not checked");
  }
}

// Scores tile for query rows [i0, i0 + rows) and keys [j0, j0 + cols) of
// batch element b: scale * Q K^T, masked (causal: key j > row i is -inf).
template <typename C>
void score_tile(const SdpaArgs& a, const Mat<C>& q, const Mat<C>& k, const MaskView& mv, int64_t b,
                int64_t i0, int64_t rows, int64_t j0, int64_t cols, int64_t E, C* s, int64_t lds) {
  gemm(false, true, rows, cols, E, C(a.scale), q.at(b) + i0 * q.ld, q.ld, k.at(b) + j0 * k.ld, k.ld, C(0), s,
       lds);
  for (int64_t r = 0; r < rows; ++r) {
    C* row = s + r * lds;
    if (mv.defined) add_mask_row(mv, b, i0 + r, j0, cols, row);
    if (a.causal)
      for (int64_t c = std::max<int64_t>(0, i0 + r + 1 - j0); c < cols; ++c)
        row[c] = -std::numeric_limits<C>::infinity();
  }
}

// The dropout factors of one tile row: keep / (1 - p) or 0.
template <typename C>
void dropout_row(const SdpaDropout& d, int64_t b, int64_t i, int64_t j0, int64_t n, int64_t L, int64_t S,
                 uint32_t* words, C* z) {
  const philox::DropoutMask dm = philox::dropout_mask(d.p);
  const uint64_t first = d.start + (uint64_t(b) * uint64_t(L) + uint64_t(i)) * uint64_t(S) + uint64_t(j0);
  philox::fill_words(d.seed, first, uint64_t(n), words);
  const C keep = C(dm.scale);
  for (int64_t c = 0; c < n; ++c) z[c] = (words[c] >> 8) < dm.threshold ? keep : C(0);
}

// Whether the causal mask hides the whole tile (every key after every row).
bool tile_hidden(bool causal, int64_t i0, int64_t rows, int64_t j0) { return causal && j0 > i0 + rows - 1; }

template <typename C, typename Out>
void forward_impl(const SdpaArgs& a, const SdpaShape& sh, const Tensor& out, const Tensor& lse) {
  const Shape& batch = sh.batch;
  const int64_t L = sh.L, S = sh.S, E = sh.E, Ev = sh.Ev, nb = sh.batch_numel();
  const Mat<C> q = mat_of<C>(a.q, batch), k = mat_of<C>(a.k, batch), v = mat_of<C>(a.v, batch);
  const MaskView mv = mask_view(a.mask, batch);
  const bool dropout = a.dropout.p > 0.0;
  const int64_t qblocks = (L + kQueryBlock - 1) / kQueryBlock;
  Out* o = out.data<Out>();
  C* lse_p = lse.data<C>();
  parallel_for(nb * qblocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<C> s(size_t(kQueryBlock * kKeyBlock)), acc(size_t(kQueryBlock * std::max<int64_t>(Ev, 1)));
    std::vector<C> m(kQueryBlock), l(kQueryBlock), z(kKeyBlock);
    std::vector<uint32_t> words(kKeyBlock);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / qblocks, i0 = (task % qblocks) * kQueryBlock;
      const int64_t rows = std::min(kQueryBlock, L - i0);
      std::fill(m.begin(), m.end(), -std::numeric_limits<C>::infinity());
      std::fill(l.begin(), l.end(), C(0));
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t j0 = 0; j0 < S && !tile_hidden(a.causal, i0, rows, j0); j0 += kKeyBlock) {
        const int64_t cols = std::min(kKeyBlock, S - j0);
        score_tile(a, q, k, mv, b, i0, rows, j0, cols, E, s.data(), kKeyBlock);
        for (int64_t r = 0; r < rows; ++r) {
          C* row = s.data() + r * kKeyBlock;
          const C mx = simd::row_max(row, cols);
          const C m_new = mx != mx ? mx : std::max(m[r], mx);
          // A row with no key so far keeps a zero accumulator: shift by 0
          // (exp(-inf) = 0) rather than by -inf (exp(-inf + inf) = NaN).
          const C shift = m_new == -std::numeric_limits<C>::infinity() ? C(0) : m_new;
          const C sum = simd::exp_shifted_sum(row, cols, shift);
          const C alpha = std::exp(m[r] - shift);
          if (alpha != C(1)) {
            C* ar = acc.data() + r * Ev;
            for (int64_t e = 0; e < Ev; ++e) ar[e] *= alpha;
          }
          l[r] = l[r] * alpha + sum;
          m[r] = m_new;
          if (dropout) {
            dropout_row(a.dropout, b, i0 + r, j0, cols, L, S, words.data(), z.data());
            for (int64_t c = 0; c < cols; ++c) row[c] *= z[c];
          }
        }
        gemm(false, false, rows, Ev, cols, C(1), s.data(), kKeyBlock, v.at(b) + j0 * v.ld, v.ld, C(1), acc.data(),
             Ev);
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        // No key at all (S == 0): torch's composed form multiplies an empty
        // (L, 0) softmax by v, giving zeros; keys all masked: 0 / 0 = NaN.
        const C inv = S == 0 ? C(0) : C(1) / l[r];
        Out* orow = o + (b * L + i) * Ev;
        for (int64_t e = 0; e < Ev; ++e) orow[e] = Out(acc[size_t(r * Ev + e)] * inv);
        lse_p[b * L + i] = m[r] + std::log(l[r]);
      }
    }
  });
}

// The backward's operands and one tile's work, shared by its two
// schedules (backward_impl): every tile runs the same BLAS calls on the
// same data in the same order under both, so they give the same bits.
template <typename C>
struct BackwardTiles {
  const SdpaArgs& a;
  int64_t L, S, E, Ev;
  Mat<C> q, k, v, dout, o;
  MaskView mv;
  bool dropout;
  const C* lse;
  std::vector<C> D;  // rowsum(dO * O), (batch, L)
  C *dq, *dk, *dv;

  // Per-thread tiles.
  struct Scratch {
    std::vector<C> p, pd, dp, zt;
    std::vector<uint32_t> words;
    explicit Scratch(bool dropout)
        : p(size_t(kQueryBlock * kKeyBlock)),
          pd(dropout ? size_t(kQueryBlock * kKeyBlock) : 0),
          dp(size_t(kQueryBlock * kKeyBlock)),
          zt(dropout ? size_t(kQueryBlock * kKeyBlock) : 0),
          words(kKeyBlock) {}
  };

  // P = exp(S - lse) (with the dropout factors, PD = P * z), dP = dO V^T,
  // then dS = P * (dP * z - D) in x.dp, for query rows [i0, i0 + rows)
  // and keys [j0, j0 + cols) of batch element b.
  void scores_grad(int64_t b, int64_t i0, int64_t rows, int64_t j0, int64_t cols, Scratch& x) const {
    score_tile(a, q, k, mv, b, i0, rows, j0, cols, E, x.p.data(), kKeyBlock);
    for (int64_t r = 0; r < rows; ++r) {
      C* row = x.p.data() + r * kKeyBlock;
      simd::exp_shifted_sum(row, cols, lse[b * L + i0 + r]);
      if (dropout) {
        C* zr = x.zt.data() + r * kKeyBlock;
        dropout_row(a.dropout, b, i0 + r, j0, cols, L, S, x.words.data(), zr);
        for (int64_t c = 0; c < cols; ++c) x.pd[size_t(r * kKeyBlock + c)] = row[c] * zr[c];
      }
    }
    gemm(false, true, rows, cols, Ev, C(1), dout.at(b) + i0 * dout.ld, dout.ld, v.at(b) + j0 * v.ld, v.ld, C(0),
         x.dp.data(), kKeyBlock);
  }
  // dS from P and dP (after dV, which reads P or PD).
  void finish_ds(int64_t b, int64_t i0, int64_t rows, int64_t cols, Scratch& x) const {
    for (int64_t r = 0; r < rows; ++r) {
      C* dpr = x.dp.data() + r * kKeyBlock;
      const C* pr = x.p.data() + r * kKeyBlock;
      const C di = D[size_t(b * L + i0 + r)];
      if (dropout) {
        const C* zr = x.zt.data() + r * kKeyBlock;
        for (int64_t c = 0; c < cols; ++c) dpr[c] = pr[c] * (dpr[c] * zr[c] - di);
      } else {
        for (int64_t c = 0; c < cols; ++c) dpr[c] = pr[c] * (dpr[c] - di);
      }
    }
  }
  // dV_j += P^T dO_i ; dK_j += scale dS^T Q_i
  void add_dv(int64_t b, int64_t i0, int64_t rows, int64_t j0, int64_t cols, const Scratch& x) const {
    gemm(true, false, cols, Ev, rows, C(1), dropout ? x.pd.data() : x.p.data(), kKeyBlock,
         dout.at(b) + i0 * dout.ld, dout.ld, C(1), dv + (b * S + j0) * Ev, Ev);
  }
  void add_dk(int64_t b, int64_t i0, int64_t rows, int64_t j0, int64_t cols, const Scratch& x) const {
    gemm(true, false, cols, E, rows, C(a.scale), x.dp.data(), kKeyBlock, q.at(b) + i0 * q.ld, q.ld, C(1),
         dk + (b * S + j0) * E, E);
  }
  // dQ_i += scale dS K_j
  void add_dq(int64_t b, int64_t i0, int64_t rows, int64_t j0, int64_t cols, const Scratch& x) const {
    gemm(false, false, rows, E, cols, C(a.scale), x.dp.data(), kKeyBlock, k.at(b) + j0 * k.ld, k.ld, C(1),
         dq + (b * L + i0) * E, E);
  }
  // The first query block that sees key j0 (causal: the earlier ones see
  // none of its keys).
  int64_t first_query_block(int64_t j0) const { return a.causal ? j0 / kQueryBlock * kQueryBlock : 0; }
};

template <typename C>
void backward_impl(const SdpaArgs& a, const SdpaShape& sh, const Tensor& grad_out, const Tensor& out,
                   const Tensor& lse_t, const Tensor& dq_t, const Tensor& dk_t, const Tensor& dv_t) {
  const Shape& batch = sh.batch;
  const int64_t L = sh.L, S = sh.S, E = sh.E, Ev = sh.Ev, nb = sh.batch_numel();
  BackwardTiles<C> t{a,
                     L,
                     S,
                     E,
                     Ev,
                     mat_of<C>(a.q, batch),
                     mat_of<C>(a.k, batch),
                     mat_of<C>(a.v, batch),
                     mat_of<C>(grad_out, batch),
                     mat_of<C>(out, batch),
                     mask_view(a.mask, batch),
                     a.dropout.p > 0.0,
                     lse_t.data<C>(),
                     std::vector<C>(size_t(nb * L)),
                     dq_t.data<C>(),
                     dk_t.data<C>(),
                     dv_t.data<C>()};
  parallel_for(nb, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, L * Ev)), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const C *dob = t.dout.at(b), *ob = t.o.at(b);
      for (int64_t i = 0; i < L; ++i) {
        C d = 0;
        for (int64_t e = 0; e < Ev; ++e) d += dob[i * t.dout.ld + e] * ob[i * t.o.ld + e];
        t.D[size_t(b * L + i)] = d;
      }
    }
  });
  const int64_t qblocks = (L + kQueryBlock - 1) / kQueryBlock, kblocks = (S + kKeyBlock - 1) / kKeyBlock;
  if (nb >= num_threads() || (qblocks == 1 && kblocks == 1)) {
    // One task per batch element: its dK / dV tiles and dQ rows are written
    // by that task alone (FlashAttention-2's loop: keys outer, queries inner).
    parallel_for(nb, 1, [&](int64_t begin, int64_t end) {
      typename BackwardTiles<C>::Scratch x(t.dropout);
      for (int64_t b = begin; b < end; ++b) {
        std::fill(t.dq + b * L * E, t.dq + (b + 1) * L * E, C(0));
        std::fill(t.dk + b * S * E, t.dk + (b + 1) * S * E, C(0));
        std::fill(t.dv + b * S * Ev, t.dv + (b + 1) * S * Ev, C(0));
        for (int64_t j0 = 0; j0 < S; j0 += kKeyBlock) {
          const int64_t cols = std::min(kKeyBlock, S - j0);
          for (int64_t i0 = t.first_query_block(j0); i0 < L; i0 += kQueryBlock) {
            const int64_t rows = std::min(kQueryBlock, L - i0);
            if (tile_hidden(a.causal, i0, rows, j0)) continue;
            t.scores_grad(b, i0, rows, j0, cols, x);
            t.add_dv(b, i0, rows, j0, cols, x);
            t.finish_ds(b, i0, rows, cols, x);
            t.add_dq(b, i0, rows, j0, cols, x);
            t.add_dk(b, i0, rows, j0, cols, x);
          }
        }
      }
    });
    return;
  }
  // Fewer batch elements than threads: dK / dV over (batch element, key
  // block) tasks, then dQ over (batch element, query block) tasks, each
  // tile's scores computed again for dQ. Each output tile is still
  // accumulated in the same order as above (dK_j, dV_j over ascending
  // query blocks; dQ_i over ascending key blocks), so both schedules, and
  // any thread count, give the same bits.
  parallel_for(nb * kblocks, 1, [&](int64_t begin, int64_t end) {
    typename BackwardTiles<C>::Scratch x(t.dropout);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / kblocks, j0 = (task % kblocks) * kKeyBlock, cols = std::min(kKeyBlock, S - j0);
      std::fill(t.dk + (b * S + j0) * E, t.dk + (b * S + j0 + cols) * E, C(0));
      std::fill(t.dv + (b * S + j0) * Ev, t.dv + (b * S + j0 + cols) * Ev, C(0));
      for (int64_t i0 = t.first_query_block(j0); i0 < L; i0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, L - i0);
        if (tile_hidden(a.causal, i0, rows, j0)) continue;
        t.scores_grad(b, i0, rows, j0, cols, x);
        t.add_dv(b, i0, rows, j0, cols, x);
        t.finish_ds(b, i0, rows, cols, x);
        t.add_dk(b, i0, rows, j0, cols, x);
      }
    }
  });
  parallel_for(nb * qblocks, 1, [&](int64_t begin, int64_t end) {
    typename BackwardTiles<C>::Scratch x(t.dropout);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / qblocks, i0 = (task % qblocks) * kQueryBlock, rows = std::min(kQueryBlock, L - i0);
      std::fill(t.dq + (b * L + i0) * E, t.dq + (b * L + i0 + rows) * E, C(0));
      for (int64_t j0 = 0; j0 < S && !tile_hidden(a.causal, i0, rows, j0); j0 += kKeyBlock) {
        const int64_t cols = std::min(kKeyBlock, S - j0);
        t.scores_grad(b, i0, rows, j0, cols, x);
        t.finish_ds(b, i0, rows, cols, x);
        t.add_dq(b, i0, rows, j0, cols, x);
      }
    }
  });
}

}  // namespace

int64_t SdpaShape::batch_numel() const {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}
Shape SdpaShape::out_sizes() const {
  Shape s = batch;
  s.push_back(L);
  s.push_back(Ev);
  return s;
}
Shape SdpaShape::lse_sizes() const {
  Shape s = batch;
  s.push_back(L);
  return s;
}

tsr_dtype sdpa_compute_dtype(tsr_dtype input) { return input == TSR_FLOAT64 ? TSR_FLOAT64 : TSR_FLOAT32; }

SdpaShape sdpa_shape(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
  TSR_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), TSR_ERR_DTYPE_MISMATCH,
            "Expected query, key, and value to have the same dtype, but got query.dtype: ", meta_name(q.dtype()),
            " key.dtype: ", meta_name(k.dtype()), " and value.dtype: ", meta_name(v.dtype()), " instead.");
  TSR_CHECK(q.ndim() >= 2 && k.ndim() >= 2 && v.ndim() >= 2, TSR_ERR_SHAPE_MISMATCH,
            "Expected query, key, and value to all be at least 2 dimensional, but got query.dim: ", q.ndim(),
            " key.dim: ", k.ndim(), " and value.dim: ", v.ndim(), " instead.");
  TSR_CHECK(is_sdpa_floating(q.dtype()), TSR_ERR_DTYPE_MISMATCH,
            "scaled_dot_product_attention: expected query, key and value of a floating dtype (float32, "
            "float64, float16, bfloat16), but got ",
            meta_name(q.dtype()));
  if (mask.defined())
    TSR_CHECK(mask.dtype() == TSR_BOOL || mask.dtype() == TSR_FLOAT32 || mask.dtype() == q.dtype(),
              TSR_ERR_DTYPE_MISMATCH,
              "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ",
              meta_name(mask.dtype()), " and  query.dtype: ", meta_name(q.dtype()), " instead.");
  SdpaShape sh;
  sh.L = q.sizes()[q.ndim() - 2];
  sh.E = q.sizes()[q.ndim() - 1];
  sh.S = k.sizes()[k.ndim() - 2];
  sh.Ev = v.sizes()[v.ndim() - 1];
  TSR_CHECK(k.sizes()[k.ndim() - 1] == sh.E, TSR_ERR_SHAPE_MISMATCH,
            "scaled_dot_product_attention: Expected query and key to have the same embedding size "
            "(size(-1)), but got query.size(-1): ",
            sh.E, " and key.size(-1): ", k.sizes()[k.ndim() - 1]);
  TSR_CHECK(v.sizes()[v.ndim() - 2] == sh.S, TSR_ERR_SHAPE_MISMATCH,
            "scaled_dot_product_attention: Expected key and value to have the same sequence length "
            "(size(-2)), but got key.size(-2): ",
            sh.S, " and value.size(-2): ", v.sizes()[v.ndim() - 2]);
  Shape batch = broadcast_shapes(broadcast_shapes(batch_of(q), batch_of(k)), batch_of(v));
  if (mask.defined()) {
    Shape scores = batch;
    scores.push_back(sh.L);
    scores.push_back(sh.S);
    Shape full;
    const bool ok = try_broadcast_shapes(scores, mask.sizes(), &full);
    TSR_CHECK(ok && full[full.size() - 2] == sh.L && full.back() == sh.S, TSR_ERR_SHAPE_MISMATCH,
              "scaled_dot_product_attention: attn_mask of size ", mask.sizes(),
              " does not broadcast to the attention scores of size ", scores, " (batch..., L, S)");
    batch = Shape(full.begin(), full.end() - 2);
  }
  sh.batch = batch;
  return sh;
}

namespace {

// An operand whose last dim is 0, widened to 1 with zeros: q k^T over
// E == 0 is scale * 0 either way, P v over Ev == 0 has no elements to
// keep; the kernel then never offsets a null data pointer.
Tensor widen_empty_last(const Tensor& t) {
  if (t.sizes().back() != 0) return t;
  Shape s = t.sizes();
  s.back() = 1;
  return zeros(s, t.dtype());
}

}  // namespace

SdpaForwardResult sdpa_forward(const SdpaArgs& a) {
  const SdpaShape sh = sdpa_shape(a.q, a.k, a.v, a.mask);
  const tsr_dtype cdt = sdpa_compute_dtype(a.q.dtype());
  SdpaForwardResult r{empty_cpu(sh.out_sizes(), a.q.dtype()), empty_cpu(sh.lse_sizes(), cdt)};
  if (sh.batch_numel() == 0 || sh.L == 0) return r;  // both empty
  if (sh.S == 0) {  // an empty softmax times v: zeros (torch's composed form)
    fill(r.out, 0.0);
    fill(r.lse, -std::numeric_limits<double>::infinity());
    return r;
  }
  SdpaArgs w = a;
  SdpaShape wsh = sh;
  w.q = widen_empty_last(a.q);
  w.k = widen_empty_last(a.k);
  w.v = widen_empty_last(a.v);
  wsh.E = std::max<int64_t>(sh.E, 1);
  wsh.Ev = std::max<int64_t>(sh.Ev, 1);
  const Tensor out = sh.Ev == 0 ? empty_cpu(wsh.out_sizes(), a.q.dtype()) : r.out;
  dispatch_floating(a.q.dtype(), "scaled_dot_product_attention", [&]<typename T>() {
    forward_impl<compute_t<T>, T>(w, wsh, out, r.lse);
  });
  return r;
}

SdpaGrads sdpa_backward(const SdpaArgs& a, const Tensor& grad_out, const Tensor& out, const Tensor& lse) {
  const SdpaShape sh = sdpa_shape(a.q, a.k, a.v, a.mask);
  const tsr_dtype cdt = sdpa_compute_dtype(a.q.dtype());
  auto with = [&](int64_t rows, int64_t cols) {
    Shape s = sh.batch;
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  // No query or no key: nothing flows (the output is empty or constant).
  if (sh.batch_numel() == 0 || sh.L == 0 || sh.S == 0) {
    const tsr_dtype dt = a.q.dtype();
    return {zeros(with(sh.L, sh.E), dt), zeros(with(sh.S, sh.E), dt), zeros(with(sh.S, sh.Ev), dt)};
  }
  SdpaArgs w = a;
  SdpaShape wsh = sh;
  w.q = widen_empty_last(a.q);
  w.k = widen_empty_last(a.k);
  w.v = widen_empty_last(a.v);
  wsh.E = std::max<int64_t>(sh.E, 1);
  wsh.Ev = std::max<int64_t>(sh.Ev, 1);
  SdpaGrads g{empty_cpu(with(sh.L, wsh.E), cdt), empty_cpu(with(sh.S, wsh.E), cdt),
              empty_cpu(with(sh.S, wsh.Ev), cdt)};
  const Tensor go = widen_empty_last(grad_out), o = widen_empty_last(out);
  if (cdt == TSR_FLOAT64)
    backward_impl<double>(w, wsh, go, o, lse, g.dq, g.dk, g.dv);
  else
    backward_impl<float>(w, wsh, go, o, lse, g.dq, g.dk, g.dv);
  if (sh.E == 0) {
    g.dq = empty_cpu(with(sh.L, 0), cdt);
    g.dk = empty_cpu(with(sh.S, 0), cdt);
  }
  if (sh.Ev == 0) g.dv = empty_cpu(with(sh.S, 0), cdt);
  if (cdt != a.q.dtype()) {
    g.dq = contiguous_copy(g.dq, a.q.dtype());
    g.dk = contiguous_copy(g.dk, a.q.dtype());
    g.dv = contiguous_copy(g.dv, a.q.dtype());
  }
  return g;
}

}  // namespace tsr::kernels
