// Highway kernels of reduce_simd.h. foreach_target.h compiles this file once
// per SIMD target (SSE4, AVX2, AVX-512, NEON, ...); HWY_DYNAMIC_DISPATCH
// picks the best one the CPU has on the first call.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/reduce_simd.cpp"
#include "cpu/kernels/simd_targets.h"  // before Highway's headers
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu/kernels/prefetch.h"
#include "cpu/kernels/reduce_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// tessera's 16-bit floats have Highway's layout (IEEE binary16 / the top
// half of a binary32).
template <typename T> struct HwyType { using type = T; };
template <> struct HwyType<Half> { using type = hwy::float16_t; };
template <> struct HwyType<BFloat16> { using type = hwy::bfloat16_t; };

// Lanes(d) elements of x converted to the accumulation type of d.
template <class D, typename T>
HWY_INLINE hn::Vec<D> LoadAcc(D d, const T* HWY_RESTRICT x) {
  using H = typename HwyType<T>::type;
  if constexpr (std::is_same_v<H, hn::TFromD<D>>) {
    return hn::LoadU(d, reinterpret_cast<const H*>(x));
  } else {
    const hn::Rebind<H, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const H*>(x)));
  }
}

// Column sums over rows of at most this many bytes of accumulators go
// through NarrowColumnSum, wider ones through ColumnBlock's passes.
constexpr int64_t kNarrowSumBytes = 1024;

// ATen's cascade: four levels; level 0 takes 2^level_power steps, then is
// added into level 1, which is added into level 2 every 2^level_power
// carries, and so on.
constexpr int64_t kLevels = 4;
inline int64_t LevelPower(int64_t size) {
  return std::max<int64_t>(4, int64_t(hwy::CeilLog2(uint64_t(std::max<int64_t>(size, 1)))) / kLevels);
}
// How many levels a cascade over `size` steps reaches: level l >= 1 takes
// its first carry at step 2^(l * level_power). The others stay zero, and
// adding them to the total only turns a -0.0 into +0.0 (as adding one zero
// does).
inline int64_t LevelsUsed(int64_t size) {
  const int64_t power = LevelPower(size);
  int64_t used = 1;
  while (used < kLevels && (size >> (used * power)) > 0) ++used;
  return used;
}

// ATen's multi_row_sum with four vector accumulators: r_k = sum over
// i < size of load(i, k), cascaded. Level 0 lives in registers, the upper
// levels in memory (they change once every 2^level_power steps).
template <class D, class Load>
HWY_INLINE void MultiRowSum4(D d, int64_t size, const Load& load, hn::Vec<D>& r0, hn::Vec<D>& r1,
                             hn::Vec<D>& r2, hn::Vec<D>& r3) {
  using A = hn::TFromD<D>;
  const int64_t power = LevelPower(size), step = int64_t{1} << power, mask = step - 1;
  HWY_ALIGN A up[kLevels - 1][4][HWY_MAX_BYTES / sizeof(A)];
  // Short rows (most rows of a 4-D tensor's last dim) never reach level 1:
  // skip clearing and adding the levels for them.
  const bool leveled = size >= step;
  if (leveled) std::memset(up, 0, sizeof up);
  auto carry = [&](A* to, A* from) {
    hn::Store(hn::Add(hn::Load(d, to), hn::Load(d, from)), d, to);
    hn::Store(hn::Zero(d), d, from);
  };
  r0 = r1 = r2 = r3 = hn::Zero(d);
  int64_t i = 0;
  while (i + step <= size) {
    for (int64_t j = 0; j < step; ++j, ++i) {
      r0 = hn::Add(r0, load(i, 0));
      r1 = hn::Add(r1, load(i, 1));
      r2 = hn::Add(r2, load(i, 2));
      r3 = hn::Add(r3, load(i, 3));
    }
    hn::Store(hn::Add(hn::Load(d, up[0][0]), r0), d, up[0][0]);
    hn::Store(hn::Add(hn::Load(d, up[0][1]), r1), d, up[0][1]);
    hn::Store(hn::Add(hn::Load(d, up[0][2]), r2), d, up[0][2]);
    hn::Store(hn::Add(hn::Load(d, up[0][3]), r3), d, up[0][3]);
    r0 = r1 = r2 = r3 = hn::Zero(d);
    for (int64_t l = 1; l < kLevels - 1; ++l) {
      if ((i & (mask << (l * power))) != 0) break;
      for (int k = 0; k < 4; ++k) carry(up[l][k], up[l - 1][k]);
    }
  }
  for (; i < size; ++i) {
    r0 = hn::Add(r0, load(i, 0));
    r1 = hn::Add(r1, load(i, 1));
    r2 = hn::Add(r2, load(i, 2));
    r3 = hn::Add(r3, load(i, 3));
  }
  for (int64_t l = 0; leveled && l < kLevels - 1; ++l) {
    r0 = hn::Add(r0, hn::Load(d, up[l][0]));
    r1 = hn::Add(r1, hn::Load(d, up[l][1]));
    r2 = hn::Add(r2, hn::Load(d, up[l][2]));
    r3 = hn::Add(r3, hn::Load(d, up[l][3]));
  }
}

// How far ahead of its loads InnerSum prefetches. Long rows stream from
// memory, where the hardware prefetcher alone left a [4096, 4096] float32
// sum over dim 1 at 1.07x a read of its 64 MiB (median of 5 runs on the
// 2-core EPYC, Zen 4), and 0.99x with 8 KiB (1.04x with 4 KiB).
constexpr int64_t kInnerAheadBytes = 8192;

// ATen's vectorized_inner_sum for one row: the row as vectors, viewed as
// [-1, 4] for four independent accumulators, then the scalar tail, then
// the lanes, in that order.
template <typename T, typename A>
A InnerSum(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<A> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const int64_t vecs = n / N, quads = vecs / 4;
  hn::Vec<decltype(d)> r0, r1, r2, r3;
  MultiRowSum4(
      d, quads,
      [&](int64_t i, int k) {
        if (k == 0)  // the lines of step i's four vectors, kInnerAheadBytes on
          prefetch_bytes_at(reinterpret_cast<uintptr_t>(x + i * 4 * N) + uintptr_t(kInnerAheadBytes),
                            4 * N * int64_t(sizeof(T)));
        return LoadAcc(d, x + (i * 4 + k) * N);
      },
      r0, r1, r2, r3);
  for (int64_t v = quads * 4; v < vecs; ++v) r0 = hn::Add(r0, LoadAcc(d, x + v * N));
  r0 = hn::Add(hn::Add(hn::Add(r0, r1), r2), r3);
  A total = 0;
  for (int64_t k = vecs * N; k < n; ++k) total += A(x[k]);
  // The lanes by a shuffle tree, not one by one as ATen (a dependent chain
  // of N additions is most of the cost of a short row).
  return total + hn::GetLane(hn::SumOfLanes(d, r0));
}

// Rows of V < 9 whole vectors and a scalar tail (a last dim of 56 or 64
// floats): InnerSum's additions in InnerSum's order (too few vectors for
// the cascade's levels), written out for V vectors, so that a row is
// straight-line code and the rows of a call overlap in the core instead of
// each paying InnerSum's call and loops. The same bits as InnerSum. On the
// 2-core EPYC (Zen 4), sum over dim 3 of a float32 [32, 64, 56, 56]: 0.49 ms
// against 0.68-0.71 (a loop of the library on one thread).
template <int V, typename T, typename A>
void ShortInnerSumRows(const T* x, int64_t n, int64_t rows, int64_t row_stride, A* out, int64_t out_stride) {
  const hn::ScalableTag<A> d;
  using Vec = hn::Vec<decltype(d)>;
  const int64_t N = int64_t(hn::Lanes(d));
  constexpr int kQuads = V / 4;
  // Rows kInnerAheadBytes on are prefetched: 0.44-0.46 ms instead of
  // 0.47-0.48 over dim 3 and channels_last dim 1 (1-2 KiB ahead: slower).
  const RowPrefetch ahead = rows_ahead(row_stride * int64_t(sizeof(T)), kInnerAheadBytes, n * int64_t(sizeof(T)));
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * row_stride;
    ahead(row);
    Vec acc[4] = {hn::Zero(d), hn::Zero(d), hn::Zero(d), hn::Zero(d)};
    for (int q = 0; q < kQuads; ++q)
      for (int k = 0; k < 4; ++k) acc[k] = hn::Add(acc[k], LoadAcc(d, row + (q * 4 + k) * N));
    for (int v = kQuads * 4; v < V; ++v) acc[0] = hn::Add(acc[0], LoadAcc(d, row + v * N));
    const Vec all = hn::Add(hn::Add(hn::Add(acc[0], acc[1]), acc[2]), acc[3]);
    A total = 0;
    for (int64_t k = V * N; k < n; ++k) total += A(row[k]);
    out[r * out_stride] = total + hn::GetLane(hn::SumOfLanes(d, all));
  }
}

// Many short rows (the last dim of a 4-D tensor): one dispatch for all.
template <typename T, typename A>
void InnerSumRows(const T* x, int64_t n, int64_t rows, int64_t row_stride, A* out, int64_t out_stride) {
  switch (n / int64_t(hn::Lanes(hn::ScalableTag<A>()))) {
#define TSR_SHORT_ROWS(V) \
  case V: return ShortInnerSumRows<V, T, A>(x, n, rows, row_stride, out, out_stride);
    TSR_SHORT_ROWS(0) TSR_SHORT_ROWS(1) TSR_SHORT_ROWS(2) TSR_SHORT_ROWS(3) TSR_SHORT_ROWS(4)
    TSR_SHORT_ROWS(5) TSR_SHORT_ROWS(6) TSR_SHORT_ROWS(7) TSR_SHORT_ROWS(8)
#undef TSR_SHORT_ROWS
    default: break;
  }
  for (int64_t r = 0; r < rows; ++r) out[r * out_stride] = InnerSum<T, A>(x + r * row_stride, n);
}

// Columns [j0, j0 + w) of a column sum: a row buffer of w accumulators per
// cascade level (level 0 is the hot one, in L1), one pass over the rows,
// each row read sequentially. The scalar tail columns do the same
// additions in the same order as the vector lanes.
//
// Wide blocks go eight rows per pass, without software prefetch: unlike
// the max's passes (WideColumnArgmax, max_simd.cpp), whose longer chains
// leave the loads too little room, the sum's run ahead of themselves, and
// prefetching 2 KiB ahead in the eight rows made sum over dim 0 of a
// float32 [32, 64, 56, 56] slower, 0.69 ms against 0.57 (8 KiB: 0.78; one
// thread of the 2-core EPYC, Zen 4).
template <typename T, typename A>
void ColumnBlock(A* HWY_RESTRICT acc, const T* HWY_RESTRICT x, int64_t w, int64_t rows,
                 int64_t row_stride, A* HWY_RESTRICT lv /* kLevels * w */) {
  const hn::ScalableTag<A> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const int64_t power = LevelPower(rows), step = int64_t{1} << power, mask = step - 1;
  // A level buffer is "zero" (true) while it holds no sum: it is then not
  // read but taken as +0.0, so no buffer is ever cleared with memset. The
  // additions are those of buffers zeroed in memory, so the same bits.
  bool zero[kLevels] = {true, true, true, true};
  auto level = [&](int64_t l) { return lv + l * w; };
  // Level l into level l + 1; level l is zero after.
  auto carry = [&](int64_t l) {
    const A* from = level(l);
    A* to = level(l + 1);
    int64_t j = 0;
    for (; j + N <= w; j += N) {
      const auto t = zero[l + 1] ? hn::Zero(d) : hn::LoadU(d, to + j);
      hn::StoreU(hn::Add(t, hn::LoadU(d, from + j)), d, to + j);
    }
    for (; j < w; ++j) to[j] = (zero[l + 1] ? A(0) : to[j]) + from[j];
    zero[l + 1] = false;
    zero[l] = true;
  };
  // Rows i .. i+K-1 added into level 0 one after another, in registers:
  // the same additions as K single rows, with one load and store of the
  // accumulators instead of K.
  A* l0 = level(0);
  auto add_rows = [&](int64_t i, auto k_rows) {
    constexpr int K = decltype(k_rows)::value;
    const T* row = x + i * row_stride;
    const bool from_zero = zero[0];
    auto step_at = [&](int64_t j) {
      auto v = from_zero ? hn::Zero(d) : hn::LoadU(d, l0 + j);
      for (int r = 0; r < K; ++r) v = hn::Add(v, LoadAcc(d, row + r * row_stride + j));
      hn::StoreU(v, d, l0 + j);
    };
    int64_t j = 0;
    for (; j + N <= w; j += N) step_at(j);
    for (; j < w; ++j) {
      A v = from_zero ? A(0) : l0[j];
      for (int r = 0; r < K; ++r) v += A(row[r * row_stride + j]);
      l0[j] = v;
    }
    zero[0] = false;
  };
  using Eight = std::integral_constant<int, 8>;
  using One = std::integral_constant<int, 1>;
  // The cascade over rows, K rows per pass (step is a multiple of 16).
  auto cascade = [&](auto k_rows) {
    constexpr int K = decltype(k_rows)::value;
    int64_t i = 0;
    while (i + step <= rows) {
      for (int64_t k = 0; k < step; k += K, i += K) add_rows(i, k_rows);
      carry(0);
      for (int64_t l = 1; l < kLevels - 1; ++l) {
        if ((i & (mask << (l * power))) != 0) break;
        carry(l);
      }
    }
    for (; i + K <= rows; i += K) add_rows(i, k_rows);
    for (; i < rows; ++i) add_rows(i, One{});
  };
  // Narrow blocks (only their scalar tail columns come here, from
  // NarrowColumnSum) take one row at a time.
  if (w * int64_t(sizeof(A)) <= kNarrowSumBytes) cascade(One{});
  else cascade(Eight{});
  // acc += ((l0 + l1) + l2) + l3, one pass.
  int64_t j = 0;
  for (; j + N <= w; j += N) {
    auto v = zero[0] ? hn::Zero(d) : hn::LoadU(d, l0 + j);
    for (int64_t l = 1; l < kLevels; ++l) v = hn::Add(v, zero[l] ? hn::Zero(d) : hn::LoadU(d, level(l) + j));
    hn::StoreU(hn::Add(hn::LoadU(d, acc + j), v), d, acc + j);
  }
  for (; j < w; ++j) {
    A v = zero[0] ? A(0) : l0[j];
    for (int64_t l = 1; l < kLevels; ++l) v += zero[l] ? A(0) : level(l)[j];
    acc[j] += v;
  }
}

// Columns [0, G * N) of a narrow block: ColumnBlock's cascade with level 0
// in G registers instead of a row buffer, over all rows; the upper levels
// in lv (level l of column j at lv[l * w + j]). The same additions in the
// same order, so the same bits; `ahead` with each row.
template <int G, typename T, typename A>
HWY_INLINE void ColumnGroupSum(A* HWY_RESTRICT acc, const T* HWY_RESTRICT x, int64_t w, int64_t rows,
                               int64_t row_stride, A* HWY_RESTRICT lv, RowPrefetch ahead) {
  const hn::ScalableTag<A> d;
  using Vec = hn::Vec<decltype(d)>;
  const int64_t N = int64_t(hn::Lanes(d));
  const int64_t power = LevelPower(rows), step = int64_t{1} << power, mask = step - 1;
  Vec r[G];
  for (int g = 0; g < G; ++g) r[g] = hn::Zero(d);
  auto add_row = [&](int64_t i) {
    const T* row = x + i * row_stride;
    ahead(row);
    for (int g = 0; g < G; ++g) r[g] = hn::Add(r[g], LoadAcc(d, row + g * N));
  };
  auto level = [&](int64_t l, int g) { return lv + l * w + g * N; };
  int64_t i = 0;
  while (i + step <= rows) {
    for (int64_t k = 0; k < step; ++k, ++i) add_row(i);
    for (int g = 0; g < G; ++g) {
      hn::StoreU(hn::Add(hn::LoadU(d, level(1, g)), r[g]), d, level(1, g));
      r[g] = hn::Zero(d);
    }
    for (int64_t l = 1; l < kLevels - 1; ++l) {
      if ((i & (mask << (l * power))) != 0) break;
      for (int g = 0; g < G; ++g) {
        hn::StoreU(hn::Add(hn::LoadU(d, level(l + 1, g)), hn::LoadU(d, level(l, g))), d, level(l + 1, g));
        hn::StoreU(hn::Zero(d), d, level(l, g));
      }
    }
  }
  for (; i < rows; ++i) add_row(i);
  const int64_t used = LevelsUsed(rows);
  for (int g = 0; g < G; ++g) {
    Vec v = r[g];
    for (int64_t l = 1; l < used; ++l) v = hn::Add(v, hn::LoadU(d, level(l, g)));
    if (used < kLevels) v = hn::Add(v, hn::Zero(d));
    hn::StoreU(hn::Add(hn::LoadU(d, acc + g * N), v), d, acc + g * N);
  }
}

// A narrow block (rows of at most kNarrowSumBytes of accumulators: the 64
// channels of a channels_last tensor, a last dim of 56) in groups of up to
// eight vectors of columns, level 0 in registers over all rows, then its
// scalar tail columns through ColumnBlock. The first group prefetches the
// block that follows in memory, which the next call reads when the kept
// dims are contiguous (a harmless hint when not). On the 2-core EPYC
// (Zen 4), sum over dim 2 of a float32 [32, 64, 56, 56]: 0.43-0.51 ms against
// 0.65-0.80 for one pass per row through a row buffer, and 0.62 for these
// groups without the prefetch (a loop of the library on one thread).
template <typename T, typename A>
void NarrowColumnSum(A* acc, const T* x, int64_t w, int64_t rows, int64_t row_stride,
                     A* lv /* kLevels * w, the used levels zeroed; then kLevels * N more */) {
  const int64_t N = int64_t(hn::Lanes(hn::ScalableTag<A>()));
  // The first group prefetches each row of the block after this one.
  RowPrefetch next{rows * row_stride * int64_t(sizeof(T)), w * int64_t(sizeof(T))};
  int64_t j = 0;
  for (; j + 8 * N <= w; j += 8 * N, next.bytes = 0)
    ColumnGroupSum<8>(acc + j, x + j, w, rows, row_stride, lv + j, next);
  switch ((w - j) / N) {
#define TSR_COLUMN_GROUP(G) \
  case G: ColumnGroupSum<G>(acc + j, x + j, w, rows, row_stride, lv + j, next), j += G * N; break;
    TSR_COLUMN_GROUP(1) TSR_COLUMN_GROUP(2) TSR_COLUMN_GROUP(3) TSR_COLUMN_GROUP(4)
    TSR_COLUMN_GROUP(5) TSR_COLUMN_GROUP(6) TSR_COLUMN_GROUP(7)
#undef TSR_COLUMN_GROUP
    default: break;
  }
  if (j < w) ColumnBlock<T, A>(acc + j, x + j, w - j, rows, row_stride, lv + kLevels * w);
}

// Column blocks small enough that the four level buffers stay in L1.
template <typename T, typename A>
void ColumnSum(A* acc, const T* x, int64_t cols, int64_t rows, int64_t row_stride) {
  constexpr int64_t kBlock = 16384 / sizeof(A);
  HWY_ALIGN A lv[kLevels * kBlock];
  const int64_t used = LevelsUsed(rows);
  for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
    const int64_t w = std::min(kBlock, cols - j0);
    if (w * int64_t(sizeof(A)) <= kNarrowSumBytes) {
      std::memset(lv, 0, sizeof(A) * size_t(used * w));  // the levels that take carries
      NarrowColumnSum<T, A>(acc + j0, x + j0, w, rows, row_stride, lv);
    } else {
      ColumnBlock<T, A>(acc + j0, x + j0, w, rows, row_stride, lv);
    }
  }
}

float InnerSumF32(const float* x, int64_t n) { return InnerSum<float, float>(x, n); }
double InnerSumF64(const double* x, int64_t n) { return InnerSum<double, double>(x, n); }
float InnerSumF16(const Half* x, int64_t n) { return InnerSum<Half, float>(x, n); }
float InnerSumBF16(const BFloat16* x, int64_t n) { return InnerSum<BFloat16, float>(x, n); }
void InnerSumRowsF32(const float* x, int64_t n, int64_t r, int64_t s, float* o, int64_t os) {
  InnerSumRows(x, n, r, s, o, os);
}
void InnerSumRowsF64(const double* x, int64_t n, int64_t r, int64_t s, double* o, int64_t os) {
  InnerSumRows(x, n, r, s, o, os);
}
void InnerSumRowsF16(const Half* x, int64_t n, int64_t r, int64_t s, float* o, int64_t os) {
  InnerSumRows(x, n, r, s, o, os);
}
void InnerSumRowsBF16(const BFloat16* x, int64_t n, int64_t r, int64_t s, float* o, int64_t os) {
  InnerSumRows(x, n, r, s, o, os);
}
void ColumnSumF32(float* a, const float* x, int64_t c, int64_t r, int64_t s) { ColumnSum(a, x, c, r, s); }
void ColumnSumF64(double* a, const double* x, int64_t c, int64_t r, int64_t s) { ColumnSum(a, x, c, r, s); }
void ColumnSumF16(float* a, const Half* x, int64_t c, int64_t r, int64_t s) { ColumnSum(a, x, c, r, s); }
void ColumnSumBF16(float* a, const BFloat16* x, int64_t c, int64_t r, int64_t s) { ColumnSum(a, x, c, r, s); }

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(InnerSumF32);
HWY_EXPORT(InnerSumF64);
HWY_EXPORT(InnerSumF16);
HWY_EXPORT(InnerSumBF16);
HWY_EXPORT(InnerSumRowsF32);
HWY_EXPORT(InnerSumRowsF64);
HWY_EXPORT(InnerSumRowsF16);
HWY_EXPORT(InnerSumRowsBF16);
HWY_EXPORT(ColumnSumF32);
HWY_EXPORT(ColumnSumF64);
HWY_EXPORT(ColumnSumF16);
HWY_EXPORT(ColumnSumBF16);

float cascade_sum(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(InnerSumF32)(x, n); }
double cascade_sum(const double* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(InnerSumF64)(x, n); }
float cascade_sum(const Half* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(InnerSumF16)(x, n); }
float cascade_sum(const BFloat16* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(InnerSumBF16)(x, n); }
void cascade_sum_rows(const float* x, int64_t n, int64_t r, int64_t s, float* o, int64_t os) {
  HWY_DYNAMIC_DISPATCH(InnerSumRowsF32)(x, n, r, s, o, os);
}
void cascade_sum_rows(const double* x, int64_t n, int64_t r, int64_t s, double* o, int64_t os) {
  HWY_DYNAMIC_DISPATCH(InnerSumRowsF64)(x, n, r, s, o, os);
}
void cascade_sum_rows(const Half* x, int64_t n, int64_t r, int64_t s, float* o, int64_t os) {
  HWY_DYNAMIC_DISPATCH(InnerSumRowsF16)(x, n, r, s, o, os);
}
void cascade_sum_rows(const BFloat16* x, int64_t n, int64_t r, int64_t s, float* o, int64_t os) {
  HWY_DYNAMIC_DISPATCH(InnerSumRowsBF16)(x, n, r, s, o, os);
}
void cascade_column_sum(float* a, const float* x, int64_t c, int64_t r, int64_t s) {
  HWY_DYNAMIC_DISPATCH(ColumnSumF32)(a, x, c, r, s);
}
void cascade_column_sum(double* a, const double* x, int64_t c, int64_t r, int64_t s) {
  HWY_DYNAMIC_DISPATCH(ColumnSumF64)(a, x, c, r, s);
}
void cascade_column_sum(float* a, const Half* x, int64_t c, int64_t r, int64_t s) {
  HWY_DYNAMIC_DISPATCH(ColumnSumF16)(a, x, c, r, s);
}
void cascade_column_sum(float* a, const BFloat16* x, int64_t c, int64_t r, int64_t s) {
  HWY_DYNAMIC_DISPATCH(ColumnSumBF16)(a, x, c, r, s);
}

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
