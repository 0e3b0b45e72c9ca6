#include "cpu/kernels/sum_kernel.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/factory.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/reduce_plan.h"
#include "cpu/kernels/reduce_simd.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/result_scatter.h"

namespace tsr::kernels {

namespace {

// Integer sums wrap modulo 2^64 as torch's int64 do: accumulating in
// uint64_t makes the wrap defined behaviour and the sum exact in any order.
template <typename T>
using sum_acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                     std::conditional_t<std::is_integral_v<T>, uint64_t, float>>;

template <typename T>
constexpr bool has_simd = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename A, typename T>
A load_acc(const char* p) {
  const T v = *reinterpret_cast<const T*>(p);
  if constexpr (std::is_integral_v<A>) return A(int64_t(v));  // sign-extends, then wraps
  else return A(v);
}

// The cascade of reduce_simd.cpp, one scalar accumulator, any stride: for
// non-contiguous rows and for the integer types (where it is exact anyway).
template <typename T, typename A>
A strided_row_sum(const char* x, int64_t stride, int64_t n) {
  constexpr int64_t levels = 4;
  int64_t power = 0;
  while ((int64_t{1} << power) < n) ++power;
  power = std::max<int64_t>(4, power / levels);
  const int64_t step = int64_t{1} << power, mask = step - 1;
  A acc[levels] = {};
  int64_t i = 0;
  while (i + step <= n) {
    for (int64_t j = 0; j < step; ++j, ++i) acc[0] += load_acc<A, T>(x + i * stride);
    for (int64_t l = 1; l < levels; ++l) {
      acc[l] += acc[l - 1];
      acc[l - 1] = 0;
      if ((i & (mask << (l * power))) != 0) break;
    }
  }
  for (; i < n; ++i) acc[0] += load_acc<A, T>(x + i * stride);
  for (int64_t l = 1; l < levels; ++l) acc[0] += acc[l];
  return acc[0];
}

template <typename T, typename A>
A row_sum(const char* x, int64_t stride, int64_t n) {
  if constexpr (has_simd<T>)
    if (stride == int64_t(sizeof(T))) return simd::cascade_sum(reinterpret_cast<const T*>(x), n);
  return strided_row_sum<T, A>(x, stride, n);
}

// Rows longer than this are summed in chunks of this many elements whose
// partial sums are then summed: the chunks are what threads share, and
// they depend on n only, so the result is the same on any thread count.
constexpr int64_t kChunk = 2 * kGrainSize;

template <typename T, typename A>
A long_row_sum(const char* x, int64_t stride, int64_t n) {
  if (n <= kChunk) return row_sum<T, A>(x, stride, n);
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<A> partial(static_cast<size_t>(chunks));
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c)
      partial[size_t(c)] = row_sum<T, A>(x + c * kChunk * stride, stride, std::min(kChunk, n - c * kChunk));
  });
  return row_sum<A, A>(reinterpret_cast<const char*>(partial.data()), int64_t(sizeof(A)), chunks);
}

// Scalar outer reduction: a row buffer per cascade level, rows streamed.
template <typename T, typename A>
void strided_column_sum(A* acc, const char* x, int64_t cols, int64_t col_stride, int64_t rows,
                        int64_t row_stride) {
  constexpr int64_t levels = 4;
  int64_t power = 0;
  while ((int64_t{1} << power) < rows) ++power;
  power = std::max<int64_t>(4, power / levels);
  const int64_t step = int64_t{1} << power, mask = step - 1;
  std::vector<A> lv(size_t(levels * cols), A(0));
  auto add_into = [&](int64_t to, int64_t from) {
    for (int64_t j = 0; j < cols; ++j) {
      lv[size_t(to * cols + j)] += lv[size_t(from * cols + j)];
      lv[size_t(from * cols + j)] = 0;
    }
  };
  auto add_row = [&](int64_t i) {
    const char* row = x + i * row_stride;
    for (int64_t j = 0; j < cols; ++j) lv[size_t(j)] += load_acc<A, T>(row + j * col_stride);
  };
  int64_t i = 0;
  while (i + step <= rows) {
    for (int64_t k = 0; k < step; ++k, ++i) add_row(i);
    for (int64_t l = 1; l < levels; ++l) {
      add_into(l, l - 1);
      if ((i & (mask << (l * power))) != 0) break;
    }
  }
  for (; i < rows; ++i) add_row(i);
  for (int64_t l = 1; l < levels; ++l) add_into(0, l);
  for (int64_t j = 0; j < cols; ++j) acc[j] += lv[size_t(j)];
}

template <typename T, typename A>
void column_sum(A* acc, const char* x, int64_t cols, int64_t col_stride, int64_t rows, int64_t row_stride) {
  if constexpr (has_simd<T>)
    if (col_stride == int64_t(sizeof(T)) && row_stride % int64_t(sizeof(T)) == 0) {
      simd::cascade_column_sum(acc, reinterpret_cast<const T*>(x), cols, rows, row_stride / int64_t(sizeof(T)));
      return;
    }
  strided_column_sum<T, A>(acc, x, cols, col_stride, rows, row_stride);
}

// Innermost dim reduced: every output is a sum of rows of dims[0]; the
// other reduced dims' rows are added one after another; outputs are what
// threads share.
template <typename T, typename A>
void inner_reduction(A* acc, const char* x, const ReduceDims& dims) {
  OuterDims kept, extra;
  for (size_t d = 1; d < dims.size(); ++d) (dims[d].reduced ? extra : kept).dims.push_back(dims[d]);
  const ReduceDim row = dims[0];
  const int64_t outputs = kept.count(), per_output = row.size * extra.count();
  parallel_for(outputs, std::max<int64_t>(1, kGrainSize / per_output), [&](int64_t b, int64_t e) {
    if constexpr (has_simd<T>) {
      // The common case, contiguous rows at one stride (kept dims merged):
      // one call for the piece.
      if (extra.dims.empty() && kept.dims.size() == 1 && row.in_stride == int64_t(sizeof(T)) &&
          row.size <= kChunk && kept.dims[0].in_stride % int64_t(sizeof(T)) == 0) {
        const ReduceDim& k = kept.dims[0];
        simd::cascade_sum_rows(reinterpret_cast<const T*>(x + b * k.in_stride), row.size, e - b,
                               k.in_stride / int64_t(sizeof(T)), acc + b * k.acc_stride, k.acc_stride);
        return;
      }
    }
    kept.for_range(b, e, [&](int64_t in, int64_t out) {
      A total = 0;
      extra.for_range(0, extra.count(), [&](int64_t in2, int64_t) {
        total += long_row_sum<T, A>(x + in + in2, row.in_stride, row.size);
      });
      acc[out] = total;
    });
  });
}

// Innermost dim kept: rows of dims[0] go into a row buffer while the loop
// streams over the first reduced dim; further reduced dims are added one
// after another. Threads share (output row, block of columns) pairs: each
// column is summed the same way whoever sums it. When `scatter` is needed,
// acc is the C-ordered result and blocks go through a scratch buffer.
template <typename T, typename A>
void outer_reduction(A* acc, const char* x, const ReduceDims& dims, const ResultScatter& scatter) {
  const ReduceDim col = dims[0];
  ReduceDim red{1, 0, 0, true};
  OuterDims kept, extra;
  bool have_red = false;
  for (size_t d = 1; d < dims.size(); ++d) {
    if (dims[d].reduced && !have_red) {
      red = dims[d];
      have_red = true;
    } else {
      (dims[d].reduced ? extra : kept).dims.push_back(dims[d]);
    }
  }
  constexpr int64_t kBlock = 4096;  // columns of one work item: 16 KiB of float32 rows
  const ColumnBlocks items(col.size, kBlock);
  const int64_t per_item = std::min(kBlock, col.size) * red.size * extra.count();
  // Item `item` into sums (the result itself when null); returns its first
  // accumulator index.
  auto run_item = [&](int64_t item, A* sums) {
    const int64_t j0 = items.first(item), w = items.width(item);
    int64_t first = 0;
    kept.for_range(items.outer(item), items.outer(item) + 1, [&](int64_t in, int64_t out) {
      first = out + j0;
      A* a = sums ? sums : acc + first;
      std::fill(a, a + w, A(0));
      extra.for_range(0, extra.count(), [&](int64_t in2, int64_t) {
        column_sum<T, A>(a, x + in + in2 + j0 * col.in_stride, w, col.in_stride, red.size, red.in_stride);
      });
    });
    return first;
  };
  parallel_for(kept.count() * items.blocks, std::max<int64_t>(1, kGrainSize / per_item), [&](int64_t b, int64_t e) {
    if (!scatter.needed()) {
      for (int64_t item = b; item < e; ++item) run_item(item, nullptr);
      return;
    }
    std::unique_ptr<A[]> sums(new A[kBlock]);
    for_each_batch(
        items, b, e, [&](int64_t item, int64_t at) { return run_item(item, sums.get() + at); },
        [&](int64_t m0, int64_t columns) { scatter(acc, sums.get(), m0, columns, int64_t(sizeof(A))); });
  });
}

}  // namespace

tsr_dtype sum_acc_dtype(tsr_dtype d) {
  if (d == TSR_FLOAT64) return TSR_FLOAT64;
  return is_floating(d) ? TSR_FLOAT32 : TSR_INT64;
}

Tensor accumulate_sum(const Tensor& t, const std::vector<bool>& mask) {
  const ReducePlan plan = make_reduce_plan(t, mask);
  const Shape sizes = reduced_sizes(t.sizes(), mask, true);
  const ResultScatter scatter(sizes, plan);
  Tensor acc = empty_strided(sizes, scatter.result_strides(), sum_acc_dtype(t.dtype()), t.device());
  if (acc.numel() == 0) return acc;
  dispatch_all(t.dtype(), [&]<typename T>() {
    using A = sum_acc_t<T>;
    A* a = static_cast<A*>(acc.data_ptr());
    const char* x = static_cast<const char*>(t.data_ptr());
    if (t.numel() == 0) {
      std::fill(a, a + acc.numel(), A(0));  // a sum of nothing
    } else if (plan.dims.empty()) {
      *a = load_acc<A, T>(x);  // one element
    } else if (plan.dims[0].reduced) {
      inner_reduction<T, A>(a, x, plan.dims);
    } else {
      outer_reduction<T, A>(a, x, plan.dims, scatter);
    }
  });
  return acc;
}

}  // namespace tsr::kernels
