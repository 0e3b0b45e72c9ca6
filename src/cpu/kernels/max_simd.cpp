// Highway kernels of max_simd.h; see reduce_simd.cpp for the dispatch.
//
// Tried and not adopted (2026-11-26, bench/HISTORY.md "Reductions"): keeping
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
#include "cpu/kernels/prefetch.h"

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

// How far ahead of its loads the C-chain ArgmaxVectors and ShortArgmaxRows
// prefetch (as reduce_simd.cpp's InnerSum): rows stream from memory.
constexpr int64_t kRowAheadBytes = 8192;

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
    if constexpr (C > 1)  // long rows: the lines of this step's vectors, kRowAheadBytes on
      prefetch_bytes_at(reinterpret_cast<uintptr_t>(x + i) + uintptr_t(kRowAheadBytes), C * N * int64_t(sizeof(T)));
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

// Column maxima (ColumnArgmax) over rows of at most this many bytes go
// through NarrowColumnArgmax, wider ones through WideColumnArgmax.
constexpr int64_t kNarrowBytes = 1024;

// Columns [0, G * N) of x over all its rows, the maxima and their indices
// in registers from the first row to the last; `ahead` with each row.
template <int G, typename T>
HWY_INLINE void ColumnGroupArgmax(const T* HWY_RESTRICT x, int64_t rows, int64_t row_stride, T* best,
                                  int64_t* idx, RowPrefetch ahead) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using I = hn::TFromD<decltype(di)>;
  const int64_t N = int64_t(hn::Lanes(d));
  hn::Vec<decltype(d)> bv[G];
  hn::Vec<decltype(di)> bi[G];
  for (int g = 0; g < G; ++g) {
    bv[g] = hn::LoadU(d, x + g * N);
    bi[g] = hn::Zero(di);
  }
  auto cur = hn::Zero(di);
  const auto one = hn::Set(di, I(1));
  for (int64_t i = 1; i < rows; ++i) {
    cur = hn::Add(cur, one);
    const T* row = x + i * row_stride;
    ahead(row);
    for (int g = 0; g < G; ++g) {
      const auto v = hn::LoadU(d, row + g * N);
      const auto keep = Keeps(d, v, bv[g]);
      bv[g] = hn::IfThenElse(keep, bv[g], v);
      bi[g] = hn::IfThenElse(hn::RebindMask(di, keep), bi[g], cur);
    }
  }
  HWY_ALIGN I lanes[HWY_MAX_BYTES / sizeof(I)];
  for (int g = 0; g < G; ++g) {
    hn::StoreU(bv[g], d, best + g * N);
    hn::Store(bi[g], di, lanes);
    for (int64_t k = 0; k < N; ++k) idx[g * N + k] = lanes[k];
  }
}

// Narrow blocks (a last dim of 56, the 64 channels of a channels_last
// tensor): four vectors of columns at a time over all rows, then the
// vectors left as one group, then the scalar columns. The first group
// prefetches the block that follows this one in memory, which the next
// call reads when the kept dims are contiguous (and is a harmless hint
// when not). On the 2-core EPYC (Zen 4), max over dim 2 of a float32
// [32, 64, 56, 56]: 0.54 ms against 0.79-0.88 for one pass per row through
// a row buffer, and 0.95-1.19 for these groups without the prefetch.
template <typename T>
void NarrowColumnArgmax(const T* HWY_RESTRICT x, int64_t cols, int64_t rows, int64_t row_stride, T* best,
                        int64_t* idx) {
  const int64_t N = int64_t(hn::Lanes(hn::ScalableTag<T>()));
  // The first group prefetches each row of the block after this one.
  RowPrefetch next{rows * row_stride * int64_t(sizeof(T)), cols * int64_t(sizeof(T))};
  int64_t j = 0;
  for (; j + 4 * N <= cols; j += 4 * N, next.bytes = 0)
    ColumnGroupArgmax<4>(x + j, rows, row_stride, best + j, idx + j, next);
  switch ((cols - j) / N) {
    case 3: ColumnGroupArgmax<3>(x + j, rows, row_stride, best + j, idx + j, next), j += 3 * N; break;
    case 2: ColumnGroupArgmax<2>(x + j, rows, row_stride, best + j, idx + j, next), j += 2 * N; break;
    case 1: ColumnGroupArgmax<1>(x + j, rows, row_stride, best + j, idx + j, next), j += N; break;
    default: break;
  }
  for (; j < cols; ++j) {
    T b = x[j];
    int64_t arg = 0;
    for (int64_t i = 1; i < rows; ++i)
      if (TakesScalar(x[i * row_stride + j], b)) {
        b = x[i * row_stride + j];
        arg = i;
      }
    best[j] = b;
    idx[j] = arg;
  }
}

// Wide blocks: columns in blocks of 16 KiB of each row, K rows per pass
// over a row buffer of the running maxima (kept in registers between the K
// rows), in row order, so the rule sees them one by one. The first pass
// starts from row 0 itself. Each pass prefetches kAheadBytes ahead in its
// K rows, and near its end the start of what comes next (the next pass's
// rows, or after the last what follows the block). On the
// 2-core EPYC (Zen 4), max over dim 0 of a float32 [32, 64, 56, 56]:
// 0.58-0.77 ms against 0.88-1.16 without the prefetch.
template <typename T>
void WideColumnArgmax(const T* HWY_RESTRICT x, int64_t cols, int64_t rows, int64_t row_stride, T* best,
                      int64_t* idx) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using I = hn::TFromD<decltype(di)>;
  const int64_t N = int64_t(hn::Lanes(d));
  constexpr int64_t kBlock = 16384 / sizeof(T);
  constexpr int64_t kAheadBytes = 2048;
  // Elements per prefetch: a cache line, or one vector if that is longer.
  const int64_t line = std::max<int64_t>(N, kCacheLine / int64_t(sizeof(T)));
  const int64_t ahead = kAheadBytes / int64_t(sizeof(T));
  const uintptr_t base = reinterpret_cast<uintptr_t>(x);
  const int64_t row_bytes = row_stride * int64_t(sizeof(T));
  HWY_ALIGN I bi[kBlock];
  for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
    const int64_t w = std::min(kBlock, cols - j0);
    T* b = best + j0;
    // What is read after this block: the next columns, or when the block
    // ends whole rows, the rows after it (the next call's, [N, C, H, W]
    // over dim 1).
    const uintptr_t after_block = j0 + w == cols && row_stride == cols
                                      ? base + uintptr_t(rows * row_bytes)
                                      : base + uintptr_t((j0 + w) * int64_t(sizeof(T)));
    auto pass = [&](int64_t i, auto k_rows, auto first) {
      constexpr int K = decltype(k_rows)::value;
      constexpr int kFrom = decltype(first)::value ? 1 : 0;
      const T* row = x + i * row_stride + j0;
      const uintptr_t here = base + uintptr_t((i * row_stride + j0) * int64_t(sizeof(T)));
      const uintptr_t next = i + K < rows ? here + uintptr_t(K * row_bytes) : after_block;
      auto step = [&](int64_t j) {
        auto bv = kFrom ? hn::LoadU(d, row + j) : hn::LoadU(d, b + j);
        auto iv = kFrom ? hn::Zero(di) : hn::Load(di, bi + j);
        for (int r = kFrom; r < K; ++r) {
          const auto v = hn::LoadU(d, row + r * row_stride + j);
          // Blending on "keep" spares the negation on the dependency chain.
          const auto keep = Keeps(d, v, bv);
          bv = hn::IfThenElse(keep, bv, v);
          iv = hn::IfThenElse(hn::RebindMask(di, keep), iv, hn::Set(di, I(i + r)));
        }
        hn::StoreU(bv, d, b + j);
        hn::Store(iv, di, bi + j);
      };
      int64_t j = 0;
      for (; j + line <= w; j += line) {
        const int64_t a = j + ahead;
        const uintptr_t at = a < w ? here + uintptr_t(a * int64_t(sizeof(T))) : next + uintptr_t((a - w) * int64_t(sizeof(T)));
        for (int r = 0; r < K; ++r) prefetch_bytes_at(at + uintptr_t(r * row_bytes), 1);
        for (int64_t v = 0; v < line; v += N) step(j + v);
      }
      for (; j + N <= w; j += N) step(j);
      for (; j < w; ++j) {
        if (kFrom) b[j] = row[j], bi[j] = 0;
        for (int r = kFrom; r < K; ++r)
          if (TakesScalar(row[r * row_stride + j], b[j])) {
            b[j] = row[r * row_stride + j];
            bi[j] = I(i + r);
          }
      }
    };
    using One = std::integral_constant<int, 1>;
    using Two = std::integral_constant<int, 2>;
    using Four = std::integral_constant<int, 4>;
    using Eight = std::integral_constant<int, 8>;
    using First = std::true_type;
    using Then = std::false_type;
    // Eight rows per pass read about 1.2x faster than four on Zen 4
    // (fewer loads and stores of the maxima per row read; bench/HISTORY.md
    // "Reductions"); the rows left take at most three passes. Returns the
    // rows the pass took.
    auto widest_pass = [&](int64_t i, auto first) -> int64_t {
      const int64_t left = rows - i;
      if (left >= 8) return pass(i, Eight{}, first), 8;
      if (left >= 4) return pass(i, Four{}, first), 4;
      if (left >= 2) return pass(i, Two{}, first), 2;
      return pass(i, One{}, first), 1;
    };
    for (int64_t i = widest_pass(0, First{}); i < rows;) i += widest_pass(i, Then{});
    for (int64_t j = 0; j < w; ++j) idx[j0 + j] = bi[j];
  }
}

template <typename T>
void ColumnArgmax(const T* HWY_RESTRICT x, int64_t cols, int64_t rows, int64_t row_stride, T* best,
                  int64_t* idx) {
  if (cols * int64_t(sizeof(T)) <= kNarrowBytes) NarrowColumnArgmax(x, cols, rows, row_stride, best, idx);
  else WideColumnArgmax(x, cols, rows, row_stride, best, idx);
}

// f(a[Lo], ..., a[Hi - 1]) by a balanced tree of calls of f: depth
// ceil(log2(Hi - Lo)) instead of a chain of Hi - Lo - 1.
template <int Lo, int Hi, class Vec, class F>
HWY_INLINE Vec TreeReduce(const Vec* a, const F& f) {
  if constexpr (Hi - Lo == 1) {
    return a[Lo];
  } else {
    constexpr int kMid = (Lo + Hi) / 2;
    return f(TreeReduce<Lo, kMid>(a, f), TreeReduce<kMid, Hi>(a, f));
  }
}

// Rows of N < n <= V * N <= 64 elements (V = ceil(n / N) <= 8: a last dim
// of 56 or 64 floats), each in V registers at once, the last ending at n
// (overlapping the one before when N does not divide n). A row's max by a
// tree of maxima; its index is the lowest set bit of the row's mask of
// lanes equal to it (one bit per element: n <= 64), which takes the first
// zero of either sign, as the rule does (-0.0 == 0.0); a zero maximum is
// then read back from the row for its sign. No chain runs through a row, so
// consecutive rows overlap in the core: max over dim 3 of a float32
// [32, 64, 56, 56] took 0.60-0.78 ms instead of 0.85-0.91 with the one-chain
// ArgmaxVectors (a loop of the library on one thread of the 2-core EPYC,
// Zen 4; min-trees of indices instead of the bit masks took 0.68-0.84). A
// NaN anywhere in a row makes the sum of its vectors NaN (so does inf - inf,
// which merely takes the slower path): such rows go to Argmax's exact
// chains.
template <int V, typename T>
void ShortArgmaxRows(const T* x, int64_t n, int64_t rows, int64_t row_stride, T* best, int64_t* idx,
                     int64_t out_stride) {
  static_assert(V <= 8, "n <= 64: one mask bit per element");
  const hn::ScalableTag<T> d;
  using Vec = hn::Vec<decltype(d)>;
  const int64_t N = int64_t(hn::Lanes(d));
  int64_t at[V];
  for (int k = 0; k < V; ++k) at[k] = k + 1 < V ? k * N : n - N;
  // Rows kRowAheadBytes on are prefetched: 0.58-0.63 ms instead of
  // 0.72-0.79 over dim 3 and channels_last dim 1 (4 KiB: 0.66-0.67, 1 KiB
  // no gain).
  const RowPrefetch ahead = rows_ahead(row_stride * int64_t(sizeof(T)), kRowAheadBytes, n * int64_t(sizeof(T)));
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * row_stride;
    ahead(row);
    Vec v[V];
    for (int k = 0; k < V; ++k) v[k] = hn::LoadU(d, row + at[k]);
    const Vec sum = TreeReduce<0, V>(v, [](Vec a, Vec b) { return hn::Add(a, b); });
    if (HWY_UNLIKELY(!hn::AllFalse(d, hn::IsNaN(sum)))) {
      Argmax(row, n, best + r * out_stride, idx + r * out_stride);
      continue;
    }
    const Vec m = hn::MaxOfLanes(d, TreeReduce<0, V>(v, [](Vec a, Vec b) { return hn::Max(a, b); }));
    uint64_t is_max[V];
    for (int k = 0; k < V; ++k) {
      uint8_t lanes[8] = {};
      hn::StoreMaskBits(d, hn::Eq(v[k], m), lanes);
      uint64_t bits = 0;
      for (int b = 0; b < 8; ++b) bits |= uint64_t(lanes[b]) << (8 * b);
      is_max[k] = bits << at[k];
    }
    const uint64_t all = TreeReduce<0, V>(is_max, [](uint64_t a, uint64_t b) { return a | b; });
    const int64_t arg = int64_t(hwy::Num0BitsBelowLS1Bit_Nonzero64(all));
    T value = hn::GetLane(m);
    if (value == 0) value = row[arg];  // -0.0 == 0.0: the element's own sign
    best[r * out_stride] = value;
    idx[r * out_stride] = arg;
  }
}

// Many short rows: one dispatch for all; rows of N < n <= min(8 * N, 64)
// elements by ShortArgmaxRows.
template <typename T>
void ArgmaxRows(const T* x, int64_t n, int64_t rows, int64_t row_stride, T* best, int64_t* idx,
                int64_t out_stride) {
  const int64_t N = int64_t(hn::Lanes(hn::ScalableTag<T>()));
  if (n > N && n <= 64) {
    switch ((n + N - 1) / N) {
      case 2: return ShortArgmaxRows<2>(x, n, rows, row_stride, best, idx, out_stride);
      case 3: return ShortArgmaxRows<3>(x, n, rows, row_stride, best, idx, out_stride);
      case 4: return ShortArgmaxRows<4>(x, n, rows, row_stride, best, idx, out_stride);
      case 5: return ShortArgmaxRows<5>(x, n, rows, row_stride, best, idx, out_stride);
      case 6: return ShortArgmaxRows<6>(x, n, rows, row_stride, best, idx, out_stride);
      case 7: return ShortArgmaxRows<7>(x, n, rows, row_stride, best, idx, out_stride);
      case 8: return ShortArgmaxRows<8>(x, n, rows, row_stride, best, idx, out_stride);
      default: break;
    }
  }
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
