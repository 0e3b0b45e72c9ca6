// Highway kernels of max_simd.h; see reduce_simd.cpp for the dispatch.
//
// Tried and not adopted (2026-11-26, bench/README.md "Reductions"): keeping
// the AVX-512 targets and column passes without NaN checks (best < v, a
// block redone by the exact rule when the sum of four rows is NaN) were
// 0.8-1.1x these over the outer dims, in the library on the loaded 2-core
// Zen 4, and 1.6-2.3x slower on short rows (max over a dim of 56 or 64).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/max_simd.cpp"
#include "cpu/kernels/simd_targets.h"  // before Highway's headers
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu/kernels/max_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Does v replace best? Greater (so ties keep the earlier one), or the
// first NaN (a NaN best is never replaced). As best is kept when it is NaN
// or best >= v (false whenever v is NaN), three operations decide.
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> Keeps(D, V v, V best) {
  return hn::Or(hn::IsNaN(best), hn::Ge(best, v));
}
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> Takes(D d, V v, V best) {
  return hn::Not(Keeps(d, v, best));
}
template <typename T>
HWY_INLINE bool TakesScalar(T v, T best) {
  return !std::isnan(best) && (v > best || std::isnan(v));
}

// kChains running maxima, each over every kChains-th vector, so that their
// dependent compare-and-blend chains overlap: with one chain the max over
// dim 1 of a 4096^2 float32 matrix took 2.2 ns per 8-float vector on the
// 2-core EPYC (Zen 4; AVX2), 2.2-2.9x a read of its bytes; with four 1.2x.
constexpr int kChains = 4;
// From this many vectors in a row: below, merging the chains costs more
// than they save (a [100352, 64] float32 max over dim 1 took 3.0 ms with
// them, 0.9 without; [12544, 512] 1.9-2.3 against 1.9; [6272, 1024]
// 0.9-1.5 against 1.9).
constexpr int64_t kChainsFromVectors = 128;

// The vectors of x[0, n) (n >= 2 * C * N) over C chains: each lane of each
// chain tracks its own subsequence (elements in lane l of vectors c, c + C,
// ..., then of every vector left over in chain 0, always in increasing
// index); the lanes are then merged by the same rule with the earlier index
// first on ties (vector reductions when no lane is NaN). Returns how many
// elements it visited; *best / *arg: the winner among them.
template <int C, typename T>
HWY_INLINE int64_t ArgmaxVectors(const T* HWY_RESTRICT x, int64_t n, T* best, int64_t* arg) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using I = hn::TFromD<decltype(di)>;
  const int64_t N = int64_t(hn::Lanes(d));
  hn::Vec<decltype(d)> bv[C];
  hn::Vec<decltype(di)> bi[C];
  for (int c = 0; c < C; ++c) {
    bv[c] = hn::LoadU(d, x + c * N);
    bi[c] = hn::Iota(di, I(c * N));
  }
  // The indices of chain 0's vector; chain c's are c * N more (one running
  // vector, not C: AVX2 has 16 registers for the C maxima and indices).
  auto cur = bi[0];
  auto visit = [&](int c, int64_t at, hn::Vec<decltype(di)> index) {
    const auto v = hn::LoadU(d, x + at);
    const auto take = Takes(d, v, bv[c]);
    bv[c] = hn::IfThenElse(take, v, bv[c]);
    bi[c] = hn::IfThenElse(hn::RebindMask(di, take), index, bi[c]);
  };
  const auto step = hn::Set(di, I(C * N));
  int64_t i = C * N;
  for (; i + C * N <= n; i += C * N) {
    cur = hn::Add(cur, step);
    for (int c = 0; c < C; ++c) visit(c, i + c * N, c == 0 ? cur : hn::Add(cur, hn::Set(di, I(c * N))));
  }
  for (; i + N <= n; i += N) visit(0, i, hn::Iota(di, I(i)));
  auto nan = hn::IsNaN(bv[0]);
  for (int c = 1; c < C; ++c) nan = hn::Or(nan, hn::IsNaN(bv[c]));
  if (hn::AllFalse(d, nan)) {
    // No NaN: the largest lane value, and the least index holding it.
    auto top = bv[0];
    for (int c = 1; c < C; ++c) top = hn::Max(top, bv[c]);
    const auto m = hn::MaxOfLanes(d, top);
    auto cand = hn::Set(di, hwy::LimitsMax<I>());
    for (int c = 0; c < C; ++c)
      cand = hn::Min(cand, hn::IfThenElse(hn::RebindMask(di, hn::Eq(bv[c], m)), bi[c], cand));
    *arg = hn::GetLane(hn::MinOfLanes(di, cand));
  } else {
    HWY_ALIGN T lv[HWY_MAX_BYTES / sizeof(T)];
    HWY_ALIGN I li[HWY_MAX_BYTES / sizeof(T)];
    // The first NaN: the least index among the NaN lanes.
    *arg = -1;
    for (int c = 0; c < C; ++c) {
      hn::Store(bv[c], d, lv);
      hn::Store(bi[c], di, li);
      for (int64_t k = 0; k < N; ++k)
        if (std::isnan(lv[k]) && (*arg < 0 || li[k] < *arg)) *arg = li[k];
    }
  }
  *best = x[*arg];  // the element itself: -0.0 and 0.0 compare equal
  return i;
}

// The running maxima of a row: kChains chains when the row has at least
// kChainsFromVectors vectors, one when it is shorter, then the scalar tail.
template <typename T>
HWY_INLINE void Argmax(const T* HWY_RESTRICT x, int64_t n, T* best_out, int64_t* index_out) {
  const int64_t N = int64_t(hn::Lanes(hn::ScalableTag<T>()));
  T best = x[0];
  int64_t arg = 0, i = 1;
  if (n >= kChainsFromVectors * N) i = ArgmaxVectors<kChains>(x, n, &best, &arg);
  else if (n >= 2 * N) i = ArgmaxVectors<1>(x, n, &best, &arg);
  for (; i < n; ++i)
    if (TakesScalar(x[i], best)) {
      best = x[i];
      arg = i;
    }
  *best_out = best;
  *index_out = arg;
}

template <typename T>
void ColumnArgmax(const T* HWY_RESTRICT x, int64_t cols, int64_t rows, int64_t row_stride, T* best,
                  int64_t* idx) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using I = hn::TFromD<decltype(di)>;
  const int64_t N = int64_t(hn::Lanes(d));
  constexpr int64_t kBlock = 16384 / sizeof(T);  // 16 KiB of each row per pass
  HWY_ALIGN I bi[kBlock];
  for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
    const int64_t w = std::min(kBlock, cols - j0);
    T* b = best + j0;
    std::copy(x + j0, x + j0 + w, b);
    std::fill(bi, bi + w, I(0));
    // K rows per pass over the running maxima (kept in registers between
    // them), in row order, so the rule sees them one by one.
    auto pass = [&](int64_t i, auto k_rows) {
      constexpr int K = decltype(k_rows)::value;
      const T* row = x + i * row_stride + j0;
      hn::Vec<decltype(di)> ir[K];
      for (int r = 0; r < K; ++r) ir[r] = hn::Set(di, I(i + r));
      int64_t j = 0;
      for (; j + N <= w; j += N) {
        auto bv = hn::LoadU(d, b + j);
        auto iv = hn::LoadU(di, bi + j);
        for (int r = 0; r < K; ++r) {
          const auto v = hn::LoadU(d, row + r * row_stride + j);
          // Blending on "keep" spares the negation on the dependency chain.
          const auto keep = Keeps(d, v, bv);
          bv = hn::IfThenElse(keep, bv, v);
          iv = hn::IfThenElse(hn::RebindMask(di, keep), iv, ir[r]);
        }
        hn::StoreU(bv, d, b + j);
        hn::StoreU(iv, di, bi + j);
      }
      for (; j < w; ++j)
        for (int r = 0; r < K; ++r)
          if (TakesScalar(row[r * row_stride + j], b[j])) {
            b[j] = row[r * row_stride + j];
            bi[j] = I(i + r);
          }
    };
    using One = std::integral_constant<int, 1>;
    using Two = std::integral_constant<int, 2>;
    using Four = std::integral_constant<int, 4>;
    using Eight = std::integral_constant<int, 8>;
    int64_t i = 1;
    if (w * int64_t(sizeof(T)) <= 1024) {
      // Narrow blocks (the channels of a channels_last tensor) go one row
      // at a time: their rows lie next to each other, and memory is then
      // read in order.
      for (; i < rows; ++i) pass(i, One{});
    } else {
      // Eight rows per pass read about 1.2x faster than four on Zen 4
      // (fewer loads and stores of the maxima per row read; bench/README.md
      // "Reductions"); the rows left take at most three passes.
      for (; i + 8 <= rows; i += 8) pass(i, Eight{});
      if (i + 4 <= rows) pass(i, Four{}), i += 4;
      if (i + 2 <= rows) pass(i, Two{}), i += 2;
      if (i < rows) pass(i, One{});
    }
    for (int64_t j = 0; j < w; ++j) idx[j0 + j] = bi[j];
  }
}

// Many short rows: one dispatch for all.
template <typename T>
void ArgmaxRows(const T* x, int64_t n, int64_t rows, int64_t row_stride, T* best, int64_t* idx,
                int64_t out_stride) {
  for (int64_t r = 0; r < rows; ++r) Argmax(x + r * row_stride, n, best + r * out_stride, idx + r * out_stride);
}

void ArgmaxRowsF32(const float* x, int64_t n, int64_t r, int64_t s, float* b, int64_t* i, int64_t os) {
  ArgmaxRows(x, n, r, s, b, i, os);
}
void ArgmaxRowsF64(const double* x, int64_t n, int64_t r, int64_t s, double* b, int64_t* i, int64_t os) {
  ArgmaxRows(x, n, r, s, b, i, os);
}
void ArgmaxF32(const float* x, int64_t n, float* b, int64_t* i) { Argmax(x, n, b, i); }
void ArgmaxF64(const double* x, int64_t n, double* b, int64_t* i) { Argmax(x, n, b, i); }
void ColumnArgmaxF32(const float* x, int64_t c, int64_t r, int64_t s, float* b, int64_t* i) {
  ColumnArgmax(x, c, r, s, b, i);
}
void ColumnArgmaxF64(const double* x, int64_t c, int64_t r, int64_t s, double* b, int64_t* i) {
  ColumnArgmax(x, c, r, s, b, i);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(ArgmaxRowsF32);
HWY_EXPORT(ArgmaxRowsF64);
HWY_EXPORT(ArgmaxF32);
HWY_EXPORT(ArgmaxF64);
HWY_EXPORT(ColumnArgmaxF32);
HWY_EXPORT(ColumnArgmaxF64);

void argmax(const float* x, int64_t n, float* b, int64_t* i) { HWY_DYNAMIC_DISPATCH(ArgmaxF32)(x, n, b, i); }
void argmax(const double* x, int64_t n, double* b, int64_t* i) { HWY_DYNAMIC_DISPATCH(ArgmaxF64)(x, n, b, i); }
void argmax_rows(const float* x, int64_t n, int64_t r, int64_t s, float* b, int64_t* i, int64_t os) {
  HWY_DYNAMIC_DISPATCH(ArgmaxRowsF32)(x, n, r, s, b, i, os);
}
void argmax_rows(const double* x, int64_t n, int64_t r, int64_t s, double* b, int64_t* i, int64_t os) {
  HWY_DYNAMIC_DISPATCH(ArgmaxRowsF64)(x, n, r, s, b, i, os);
}
void column_argmax(const float* x, int64_t c, int64_t r, int64_t s, float* b, int64_t* i) {
  HWY_DYNAMIC_DISPATCH(ColumnArgmaxF32)(x, c, r, s, b, i);
}
void column_argmax(const double* x, int64_t c, int64_t r, int64_t s, double* b, int64_t* i) {
  HWY_DYNAMIC_DISPATCH(ColumnArgmaxF64)(x, c, r, s, b, i);
}

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
