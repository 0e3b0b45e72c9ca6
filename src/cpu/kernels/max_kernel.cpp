#include "cpu/kernels/max_kernel.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/factory.h"
#include "cpu/kernels/max_simd.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/reduce_plan.h"
#include "cpu/kernels/result_scatter.h"

namespace tsr::kernels {

namespace {

template <typename C>
bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(x);
  else return false;
}

// Does v (a later element) replace best? See max_simd.h.
template <typename C>
bool takes(C v, C best) {
  return !is_nan(best) && (v > best || is_nan(v));
}

template <typename T>
constexpr bool has_simd = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <typename T>
compute_t<T> load(const char* p) {
  return compute_t<T>(*reinterpret_cast<const T*>(p));
}

// max/argmax of n elements at byte stride `stride`.
template <typename T>
std::pair<compute_t<T>, int64_t> row_argmax(const char* x, int64_t stride, int64_t n) {
  if constexpr (has_simd<T>)
    if (stride == int64_t(sizeof(T)) && n < (int64_t{1} << 31)) {
      T best;
      int64_t arg;
      simd::argmax(reinterpret_cast<const T*>(x), n, &best, &arg);
      return {best, arg};
    }
  using C = compute_t<T>;
  C best = load<T>(x);
  int64_t arg = 0;
  for (int64_t k = 1; k < n; ++k) {
    const C v = load<T>(x + k * stride);
    if (takes(v, best)) {
      best = v;
      arg = k;
      if (is_nan(v)) break;  // nothing after the first NaN can win
    }
  }
  return {best, arg};
}

// A long row in chunks fixed by n (what threads share), merged in order:
// a later chunk wins only by the same rule, so the result is exact.
constexpr int64_t kChunk = 2 * kGrainSize;

template <typename T>
std::pair<compute_t<T>, int64_t> long_row_argmax(const char* x, int64_t stride, int64_t n) {
  if (n <= kChunk) return row_argmax<T>(x, stride, n);
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<std::pair<compute_t<T>, int64_t>> part(static_cast<size_t>(chunks));
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      part[size_t(c)] = row_argmax<T>(x + c * kChunk * stride, stride, std::min(kChunk, n - c * kChunk));
      part[size_t(c)].second += c * kChunk;
    }
  });
  auto best = part[0];
  for (int64_t c = 1; c < chunks; ++c)
    if (takes(part[size_t(c)].first, best.first)) best = part[size_t(c)];
  return best;
}

// Running maxima of `cols` columns (byte stride col_stride) over rows.
template <typename T>
void column_argmax(const char* x, int64_t cols, int64_t col_stride, int64_t rows, int64_t row_stride,
                   T* best, int64_t* idx) {
  if constexpr (has_simd<T>)
    if (col_stride == int64_t(sizeof(T)) && row_stride % int64_t(sizeof(T)) == 0 && rows < (int64_t{1} << 31)) {
      simd::column_argmax(reinterpret_cast<const T*>(x), cols, rows, row_stride / int64_t(sizeof(T)), best, idx);
      return;
    }
  using C = compute_t<T>;
  // Not std::vector: vector<bool> has no bool& to compare through.
  std::unique_ptr<C[]> b(new C[size_t(cols)]);
  for (int64_t j = 0; j < cols; ++j) {
    b[j] = load<T>(x + j * col_stride);
    idx[j] = 0;
  }
  for (int64_t i = 1; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const C v = load<T>(x + i * row_stride + j * col_stride);
      if (takes(v, b[j])) {
        b[j] = v;
        idx[j] = i;
      }
    }
  for (int64_t j = 0; j < cols; ++j) best[j] = T(b[j]);
}

}  // namespace

std::pair<Tensor, Tensor> max_dim_values_indices(const Tensor& t, int64_t dim) {
  std::vector<bool> mask(size_t(t.ndim()), false);
  if (t.ndim() > 0) mask[size_t(dim)] = true;
  const ReducePlan plan = make_reduce_plan(t, mask);
  const Shape sizes = reduced_sizes(t.sizes(), mask, true);
  const ResultScatter scatter(sizes, plan);
  Tensor values = empty_strided(sizes, scatter.result_strides(), t.dtype(), t.device());
  Tensor indices = empty_strided(sizes, scatter.result_strides(), TSR_INT64, t.device());
  if (values.numel() == 0) return {values, indices};
  dispatch_all(t.dtype(), [&]<typename T>() {
    T* val = static_cast<T*>(values.data_ptr());
    int64_t* ind = indices.data<int64_t>();
    const char* x = static_cast<const char*>(t.data_ptr());
    const ReduceDims& dims = plan.dims;
    if (dims.empty()) {  // one element
      *val = *reinterpret_cast<const T*>(x);
      *ind = 0;
    } else if (dims[0].reduced) {  // along the innermost dim: a row per output
      const ReduceDim row = dims[0];
      const OuterDims kept{ReduceDims(dims.begin() + 1, dims.end())};
      parallel_for(kept.count(), std::max<int64_t>(1, kGrainSize / row.size), [&](int64_t b, int64_t e) {
        if constexpr (has_simd<T>) {
          // Contiguous rows at one stride (kept dims merged): one call.
          if (kept.dims.size() == 1 && row.in_stride == int64_t(sizeof(T)) && row.size <= kChunk &&
              kept.dims[0].in_stride % int64_t(sizeof(T)) == 0) {
            const ReduceDim& k = kept.dims[0];
            simd::argmax_rows(reinterpret_cast<const T*>(x + b * k.in_stride), row.size, e - b,
                              k.in_stride / int64_t(sizeof(T)), val + b * k.acc_stride, ind + b * k.acc_stride,
                              k.acc_stride);
            return;
          }
        }
        kept.for_range(b, e, [&](int64_t in, int64_t out) {
          auto [best, arg] = long_row_argmax<T>(x + in, row.in_stride, row.size);
          val[out] = T(best);
          ind[out] = arg;
        });
      });
    } else {  // across an outer dim: rows streamed into running maxima
      const ReduceDim col = dims[0];
      ReduceDim red{1, 0, 0, true};
      OuterDims kept;
      for (size_t d = 1; d < dims.size(); ++d) {
        if (dims[d].reduced) red = dims[d];
        else kept.dims.push_back(dims[d]);
      }
      constexpr int64_t kBlock = 4096;  // columns of one work item: 16 KiB of float32 rows
      const ColumnBlocks items(col.size, kBlock);
      const int64_t per_item = std::min(kBlock, col.size) * red.size;
      // Item `item` into best/idx (the result itself when null); returns
      // its first accumulator index.
      auto run_item = [&](int64_t item, T* best, int64_t* idx) {
        const int64_t j0 = items.first(item);
        int64_t first = 0;
        kept.for_range(items.outer(item), items.outer(item) + 1, [&](int64_t in, int64_t out) {
          first = out + j0;
          column_argmax<T>(x + in + j0 * col.in_stride, items.width(item), col.in_stride, red.size,
                           red.in_stride, best ? best : val + first, idx ? idx : ind + first);
        });
        return first;
      };
      parallel_for(kept.count() * items.blocks, std::max<int64_t>(1, kGrainSize / per_item),
                   [&](int64_t b, int64_t e) {
        if (!scatter.needed()) {
          for (int64_t item = b; item < e; ++item) run_item(item, nullptr, nullptr);
          return;
        }
        // Not std::vector: no data() in vector<bool>.
        std::unique_ptr<T[]> best(new T[kBlock]);
        std::unique_ptr<int64_t[]> idx(new int64_t[kBlock]);
        for_each_batch(
            items, b, e,
            [&](int64_t item, int64_t at) { return run_item(item, best.get() + at, idx.get() + at); },
            [&](int64_t m0, int64_t columns) {
              scatter(val, best.get(), m0, columns, int64_t(sizeof(T)));
              scatter(ind, idx.get(), m0, columns, int64_t(sizeof(int64_t)));
            });
      });
    }
  });
  return {values, indices};
}

}  // namespace tsr::kernels
