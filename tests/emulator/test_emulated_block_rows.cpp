// The block paths of the row kernels (gpu/kernels/block_rows.cuh, run by
// the emulator's block-synchronous emulation: a block per row, and column
// blocks of neighbouring strided rows) against the CPU kernels: long rows,
// rows just below and above the threshold, strided rows, several block
// widths (powers of two or not, one thread), more rows than blocks, lanes
// past the last row.
//
// What must agree exactly: integer sums (wrapping int64 is associative),
// max values and indices (the combine keeps the CPU's first-max and
// first-NaN rules). Floating sums are added in another order, so they are
// compared within a bound on the rounding of both orders, relative to the
// sum of |terms|: a serial sum of n terms in unit roundoff u is within
// (n - 1) u sum|x| of the exact sum, the block's within (ceil(n / B) - 1 +
// ceil(log2 B)) u sum|x| (each thread's serial share, then the tree).
#include <cmath>

#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/minmax.h"
#include "cpu/kernels/nn.h"
#include "cpu/kernels/reduce.h"
#include "emulator/emulated_kernels.h"
#include "emulator_test_util.h"
#include "kernels/row_path.h"
#include "reduce_test_args.h"

namespace tsr::gpu::test {
namespace {

// {block_dim, max_grid, column_block_dim}: the CUDA launcher's, narrow ones
// with few blocks (so rows outnumber blocks), widths that are not powers of
// two (column blocks of 5 lanes, of 32 lanes x 3 threads), one thread.
const LaunchShape kShapes[] = {{256, 65535, 1024}, {32, 3, 32}, {48, 2, 48},
                               {5, 4, 5},          {1, 1, 1},   {96, 2, 96}};

int64_t ceil_log2(int64_t v) {
  int64_t l = 0;
  while ((int64_t(1) << l) < v) ++l;
  return l;
}

// Rounding bound of the two summation orders of n terms, relative to the
// sum of |terms|, for unit roundoff u_serial (the reference) and u_block
// (the block path) and b threads per block.
double order_bound(int64_t n, int64_t b, double u_serial, double u_block) {
  return double(n) * u_serial + double((n + b - 1) / b + ceil_log2(b)) * u_block;
}

// The unit roundoff of dtype d (half an ULP, relative).
double roundoff(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT64: return 0x1p-53;
    case TSR_FLOAT32: return 0x1p-24;
    case TSR_FLOAT16: return 0x1p-11;
    case TSR_BFLOAT16: return 0x1p-8;
    default: return 0;
  }
}

Tensor as_f64(const Tensor& t) { return kernels::contiguous_copy(t, TSR_FLOAT64); }

// t converted to dtype d (contiguous): one rounding.
Tensor rounded_to(const Tensor& t, tsr_dtype d) { return kernels::contiguous_copy(t, d); }

// |x| of t, as float64 (t's sizes, contiguous).
Tensor abs_f64(const Tensor& t) {
  Tensor a = as_f64(t);
  for (int64_t i = 0; i < a.numel(); ++i) a.data<double>()[i] = std::fabs(a.data<double>()[i]);
  return a;
}

// Elementwise |got - want| <= allowed (float64, want's sizes); NaN
// matches NaN, infinities match exactly.
::testing::AssertionResult within(const Tensor& want, const Tensor& got, const Tensor& allowed) {
  if (want.dtype() != got.dtype() || want.sizes() != got.sizes())
    return ::testing::AssertionFailure() << "dtype or sizes differ";
  Tensor w = as_f64(want), g = as_f64(got), a = as_f64(allowed);
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double x = w.data<double>()[i], y = g.data<double>()[i], tol = a.data<double>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (std::isinf(x) || std::isinf(y) ? x == y : std::fabs(x - y) <= tol) continue;
    return ::testing::AssertionFailure() << "element " << i << ": expected " << x << ", got " << y
                                         << " (allowed " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

// What a sum may differ by: bound * sum|terms| (abs_sum), plus both
// results' rounding to the output dtype, 2 roundoff(out) |want|.
Tensor sum_allowed(const Tensor& want, const Tensor& abs_sum, double bound) {
  Tensor a = as_f64(abs_sum), w = as_f64(want);
  const double u = roundoff(want.dtype());
  for (int64_t i = 0; i < a.numel(); ++i)
    a.data<double>()[i] = bound * a.data<double>()[i] + 2 * u * std::fabs(w.data<double>()[i]);
  return a;
}

// The threads a launch of `shape` gives each row of len elements on path p.
int64_t threads(const LaunchShape& shape, int64_t len, RowPath p) {
  switch (p) {
    case RowPath::OneThread: return 1;
    case RowPath::BlockPerRow: return block_row_threads(len, shape.block_dim);
    case RowPath::Columns: return column_shape(len, shape.column_block_dim).depth;
  }
  return 1;
}

// A reduction case: x and the dims it reduces.
struct Case {
  Tensor x;
  std::vector<bool> mask;
  const char* what;
  RowPath path;  // the one row_path picks
};

// One long contiguous row (mean of a whole tensor), rows of 63/64/65 (one
// thread per row below the threshold), strided rows (the reduced dim is not
// the innermost) whose neighbours are adjacent (column blocks: 7 rows, one
// group with lanes past the last row; 100 rows, four groups), two strided
// reduced dims, strided rows whose neighbours are not adjacent.
std::vector<Case> reduce_cases(tsr_dtype d) {
  std::vector<Case> c;
  c.push_back({sample({100000}, d, 3, false), {true}, "one row of 100000", RowPath::BlockPerRow});
  for (int64_t len : {63, 64, 65})
    c.push_back({sample({10, len}, d, 4, false), {false, true}, "rows near threshold",
                 len < kBlockRowMinLength ? RowPath::OneThread : RowPath::BlockPerRow});
  c.push_back({views::t(sample({300, 7}, d, 5, false)), {false, true}, "stride-7 rows", RowPath::Columns});
  c.push_back({views::t(sample({300, 100}, d, 7, false)), {false, true}, "100 stride-100 rows", RowPath::Columns});
  c.push_back({views::permute(sample({9, 11, 3}, d, 6, false), {2, 0, 1}), {false, true, true}, "two strided dims",
               RowPath::Columns});
  c.push_back({views::permute(sample({300, 7, 2}, d, 8, false), {2, 1, 0}), {false, false, true},
               "strided rows 2 apart", RowPath::BlockPerRow});
  return c;
}

TEST(EmulatedBlockRows, PathAndShapeChoice) {
  EXPECT_EQ(row_path(1, kBlockRowMinLength - 1, true, false), RowPath::OneThread);
  EXPECT_EQ(row_path(100, kBlockRowMinLength - 1, false, true), RowPath::OneThread);
  EXPECT_EQ(row_path(1, kBlockRowMinLength, false, false), RowPath::BlockPerRow);
  EXPECT_EQ(row_path(kManyRows, kBlockRowMinLength, true, false), RowPath::BlockPerRow);
  EXPECT_EQ(row_path(kManyRows, 100000, false, true), RowPath::OneThread);  // many strided rows: coalesced threads
  EXPECT_EQ(row_path(kManyRows - 1, 100000, false, true), RowPath::Columns);
  EXPECT_EQ(row_path(kManyRows - 1, 100000, false, false), RowPath::BlockPerRow);
  EXPECT_EQ(column_shape(4096, 1024).width, 32u);
  EXPECT_EQ(column_shape(4096, 1024).depth, 32u);
  EXPECT_EQ(column_shape(64, 1024).depth, 8u);  // each thread >= kColumnShare elements
  EXPECT_EQ(column_shape(4096, 96).depth, 3u);
  EXPECT_EQ(column_shape(4096, 5).width, 5u);
  EXPECT_EQ(column_shape(4096, 5).depth, 1u);
  EXPECT_EQ(block_row_threads(64, 256), 32u);
  EXPECT_EQ(block_row_threads(128, 256), 64u);
  EXPECT_EQ(block_row_threads(100000, 256), 256u);
  EXPECT_EQ(block_row_threads(100000, 48), 48u);
  EXPECT_EQ(block_row_grid(10, 1, 3), 3u);
  EXPECT_EQ(block_row_grid(100, 32, 65535), 4u);  // three full groups of 32 rows and one of 4
  EXPECT_EQ(tree_first_stride(1), 0u);
  EXPECT_EQ(tree_first_stride(5), 4u);
  EXPECT_EQ(tree_first_stride(256), 128u);
}

TEST(EmulatedBlockRows, SumAndMean) {
  for (const LaunchShape& shape : kShapes)
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT64, TSR_INT32, TSR_BOOL, TSR_UINT8})
      for (const Case& c : reduce_cases(d)) {
        EmulatedKernels k(shape);
        const int64_t len = kernels::reduced_count(c.x.sizes(), c.mask);
        const std::string what = std::string(dtype_name(d)) + ", " + c.what + ", block_dim " +
                                 std::to_string(shape.block_dim);
        // Floating references: the sum of the float64 values rounded once to
        // d. The device accumulates every floating row in double; the CPU
        // kernel sums float32 in float32 as ATen does, which is less exact
        // than what is checked here.
        Tensor want = is_floating(d) ? rounded_to(kernels::sum(as_f64(c.x), c.mask, false), d)
                                     : kernels::sum(c.x, c.mask, false);
        Tensor got = empty(want.sizes(), want.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu);
        k.reduce(ReduceKernel::Sum, reduce_args(c.x, c.mask, got, nullptr, 1.0), kNoStream);
        EXPECT_EQ(k.launches().back(), row_launch("reduce_sum", c.path)) << what;
        if (!is_floating(d)) {
          EXPECT_TRUE(same_bits(want, got)) << what;
          continue;
        }
        const Tensor abs_sum = kernels::sum(abs_f64(c.x), c.mask, false);
        const double bound = order_bound(len, threads(shape, len, c.path), 0x1p-53, 0x1p-53);
        EXPECT_TRUE(within(want, got, sum_allowed(want, abs_sum, bound))) << what;
        Tensor want_mean = rounded_to(kernels::mean(as_f64(c.x), c.mask, false), d);
        k.reduce(ReduceKernel::Sum, reduce_args(c.x, c.mask, got, nullptr, 1.0 / double(len)), kNoStream);
        EXPECT_TRUE(within(want_mean, got, sum_allowed(want_mean, kernels::mean(abs_f64(c.x), c.mask, false), bound)))
            << "mean " << what;
      }
}

// Integer sums that wrap past int64's range still agree bit for bit.
TEST(EmulatedBlockRows, IntegerSumWraps) {
  EmulatedKernels k({32, 2});
  Tensor x = make_tensor({3, 1000}, TSR_INT64, [](int64_t i) { return i % 3 ? 4.0e18 : -1.0e18; });
  Tensor want = kernels::sum(x, {false, true}, false);
  Tensor got = empty({3}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  k.reduce(ReduceKernel::Sum, reduce_args(x, {false, true}, got, nullptr, 1.0), kNoStream);
  EXPECT_STREQ(k.launches().back(), "reduce_sum_block");
  EXPECT_TRUE(same_bits(want, got));
}

// Rows for max: ties everywhere (values mod 5, the maximum first met at a
// position another thread than thread 0 holds), and for floating dtypes
// rows with NaNs (several: the first wins), -0/+0 ties, all -inf.
std::vector<Tensor> max_rows(tsr_dtype d, int64_t len) {
  const bool fp = is_floating(d);
  std::vector<Tensor> rows;
  rows.push_back(make_tensor({4, len}, d, [&](int64_t i) { return double((i % len) * 7 % 5); }));
  rows.push_back(make_tensor({3, len}, d, [&](int64_t i) {
    const int64_t j = i % len;
    return j == len / 2 + 3 || j == len - 1 ? 9.0 : double(j % 4);
  }));
  if (fp) {
    rows.push_back(sample({5, len}, d, 2, true));  // NaNs every few elements, infinities
    rows.push_back(make_tensor({3, len}, d, [&](int64_t i) {
      const int64_t j = i % len, row = i / len;
      if (row == 0) return j == len - 2 || j == len / 3 ? double(NAN) : double(j % 3);
      if (row == 1) return j % 2 ? 0.0 : -0.0;
      return -double(INFINITY);
    }));
  }
  return rows;
}

TEST(EmulatedBlockRows, MaxAndArgmaxBitForBit) {
  for (const LaunchShape& shape : kShapes)
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT64, TSR_INT32, TSR_BOOL})
      for (int64_t len : {63, 64, 65, 1000, 100000})
        for (const Tensor& rows : max_rows(d, len))
          for (bool strided : {false, true}) {
            EmulatedKernels k(shape);
            // Strided: the same rows as the columns of a transposed copy.
            Tensor x = strided ? views::t(kernels::contiguous_copy(views::t(rows), d)) : rows;
            auto [values, indices] = kernels::max_dim(x, 1, false);
            Tensor out = empty(values.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
            Tensor idx = empty(values.sizes(), TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
            k.reduce(ReduceKernel::Max, reduce_args(x, {false, true}, out, &idx, 1.0), kNoStream);
            const std::string what = std::string(dtype_name(d)) + ", len " + std::to_string(len) +
                                     (strided ? " strided" : "") + ", block_dim " + std::to_string(shape.block_dim);
            // Strided: the rows are neighbours in memory (column blocks).
            const RowPath path = len < kBlockRowMinLength ? RowPath::OneThread
                                 : strided                ? RowPath::Columns
                                                          : RowPath::BlockPerRow;
            EXPECT_EQ(k.launches().back(), row_launch("reduce_max", path)) << what;
            EXPECT_TRUE(same_bits(values, out)) << what;
            EXPECT_TRUE(same_bits(indices, idx)) << what;
          }
}

// Min (issue 32's min / amin): the CPU's min_dim (max of the order-reversed
// values) on the same rows, every path.
TEST(EmulatedBlockRows, MinAndArgminBitForBit) {
  for (const LaunchShape& shape : kShapes)
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_INT32, TSR_BOOL})
      for (int64_t len : {63, 64, 65, 1000})
        for (const Tensor& rows : max_rows(d, len))
          for (bool strided : {false, true}) {
            EmulatedKernels k(shape);
            Tensor x = strided ? views::t(kernels::contiguous_copy(views::t(rows), d)) : rows;
            auto [values, indices] = kernels::min_dim(x, 1, false);
            Tensor out = empty(values.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
            Tensor idx = empty(values.sizes(), TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
            k.reduce(ReduceKernel::Min, reduce_args(x, {false, true}, out, &idx, 1.0), kNoStream);
            const std::string what = std::string(dtype_name(d)) + ", len " + std::to_string(len) +
                                     (strided ? " strided" : "") + ", block_dim " + std::to_string(shape.block_dim);
            const RowPath path = len < kBlockRowMinLength ? RowPath::OneThread
                                 : strided                ? RowPath::Columns
                                                          : RowPath::BlockPerRow;
            EXPECT_EQ(k.launches().back(), row_launch("reduce_min", path)) << what;
            EXPECT_TRUE(same_bits(values, out)) << what;
            EXPECT_TRUE(same_bits(indices, idx)) << what;
          }
}

// [outer, len, inner] (log_)softmax cases: long rows, rows near the
// threshold, strided rows (inner > 1), more rows than blocks.
struct SoftmaxCase {
  int64_t outer, len, inner;
  bool specials;  // NaN, infinities, 1e10 in some rows
};
// inner > 1: column blocks, 8 rows (lanes past the last) and 135 rows (five
// groups, a group's lanes crossing from one outer index to the next).
const SoftmaxCase kSoftmaxCases[] = {{2, 100000, 1, false}, {3, 63, 1, false},  {3, 64, 1, false},
                                     {3, 65, 1, false},     {2, 200, 4, false}, {7, 300, 1, true},
                                     {3, 100, 45, false}};

// The relative error bound on a row's sum of |terms| in compute type C
// (float for float16/bfloat16/float32) against a float64 reference.
double sum_bound(tsr_dtype d, int64_t len, int64_t b) {
  return order_bound(len, b, 0x1p-53, d == TSR_FLOAT64 ? 0x1p-53 : 0x1p-24);
}

// The reference: the CPU kernel on the float64 values, rounded to d. Its
// own sums round at 2^-53, so the bound is the block path's.
Tensor to_dtype(const Tensor& t, tsr_dtype d) { return kernels::contiguous_copy(t, d); }

TEST(EmulatedBlockRows, SoftmaxAndLogSoftmax) {
  for (const LaunchShape& shape : kShapes)
    for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
      for (const SoftmaxCase& c : kSoftmaxCases) {
        EmulatedKernels k(shape);
        Tensor x = sample({c.outer, c.len, c.inner}, d, 8, c.specials);
        const std::string what = std::string(dtype_name(d)) + ", [" + std::to_string(c.outer) + ", " +
                                 std::to_string(c.len) + ", " + std::to_string(c.inner) + "], block_dim " +
                                 std::to_string(shape.block_dim);
        const RowPath path = row_path(c.outer * c.inner, c.len, c.inner == 1, c.inner > 1);
        // The terms exp(x - max) are positive, so the sum's error is at
        // most the bound relative to the sum itself, an absolute error of
        // log_softmax's result and a relative one of softmax's;
        // tolerance(d) covers exp, log and the output's rounding.
        const double rel = tolerance(d) + sum_bound(d, c.len, threads(shape, c.len, path));
        Tensor want = to_dtype(kernels::log_softmax(as_f64(x), 1), d);
        Tensor got = empty(x.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
        k.softmax(true, got.data_ptr(), x.data_ptr(), d, c.outer, c.len, c.inner, kNoStream);
        EXPECT_EQ(k.launches().back(), row_launch("softmax", path)) << what;
        EXPECT_TRUE(close(want, got, rel)) << "log_softmax " << what;
        // And against the CPU kernel in d itself, whose serial sum in C
        // adds its own rounding (len roundoff(C), relative).
        const double rel_same = rel + double(c.len) * (d == TSR_FLOAT64 ? 0x1p-53 : 0x1p-24);
        EXPECT_TRUE(close(kernels::log_softmax(x, 1), got, rel_same)) << "log_softmax vs CPU " << what;
        Tensor sm = empty(x.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
        k.softmax(false, sm.data_ptr(), x.data_ptr(), d, c.outer, c.len, c.inner, kNoStream);
        EXPECT_TRUE(close(to_dtype(kernels::unary(kernels::UnaryOp::Exp, kernels::log_softmax(as_f64(x), 1)), d), sm,
                          rel))
            << "softmax " << what;
      }
}

TEST(EmulatedBlockRows, LogSoftmaxBackward) {
  for (const LaunchShape& shape : kShapes)
    for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
      for (const SoftmaxCase& c : kSoftmaxCases) {
        if (c.specials) continue;  // NaN outputs make NaN gradients: nothing to bound
        EmulatedKernels k(shape);
        const Shape sizes{c.outer, c.len, c.inner};
        Tensor y = kernels::log_softmax(sample(sizes, d, 8, false), 1), g = sample(sizes, d, 9, false);
        Tensor want = to_dtype(kernels::log_softmax_backward(as_f64(g), as_f64(y), 1), d);
        Tensor got = empty(sizes, d, TSR_CONTIGUOUS_FORMAT, kCpu);
        k.log_softmax_backward(got.data_ptr(), g.data_ptr(), y.data_ptr(), d, c.outer, c.len, c.inner, kNoStream);
        const std::string what = std::string(dtype_name(d)) + ", len " + std::to_string(c.len) + ", inner " +
                                 std::to_string(c.inner) + ", block_dim " + std::to_string(shape.block_dim);
        const RowPath path = row_path(c.outer * c.inner, c.len, c.inner == 1, c.inner > 1);
        EXPECT_EQ(k.launches().back(), row_launch("log_softmax_backward", path)) << what;
        // grad_in = g - exp(y) * s: s's error (bound * sum|g| over the
        // row) and exp's in C (2 ULPs, of |s|) scaled by exp(y), plus
        // tolerance(d) for the product, the difference and the rounding.
        const double bound = sum_bound(d, c.len, threads(shape, c.len, path)), u_c = d == TSR_FLOAT64 ? 0x1p-53 : 0x1p-24;
        Tensor abs_g = kernels::sum(abs_f64(g), {false, true, false}, true);
        Tensor sum_g = kernels::sum(as_f64(g), {false, true, false}, true);
        Tensor allowed = as_f64(kernels::unary(kernels::UnaryOp::Exp, as_f64(y))), w = as_f64(want);
        for (int64_t i = 0; i < allowed.numel(); ++i) {
          const int64_t row = (i / (c.len * c.inner)) * c.inner + i % c.inner;
          const double e = allowed.data<double>()[i];
          allowed.data<double>()[i] =
              e * (bound * abs_g.data<double>()[row] + 4 * u_c * std::fabs(sum_g.data<double>()[row])) +
              tolerance(d) * std::max(1.0, std::fabs(w.data<double>()[i]));
        }
        EXPECT_TRUE(within(want, got, allowed)) << what;
      }
}

TEST(EmulatedBlockRows, NllLoss) {
  for (const LaunchShape& shape : kShapes)
    for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
      for (int64_t n : {63, 64, 65, 100000}) {
        EmulatedKernels k(shape);
        const int64_t c = 7;
        Tensor logp = sample({n, c}, d, 4, false);
        Tensor target = make_tensor({n}, TSR_INT64, [&](int64_t i) { return double((i * 5) % c); });
        Tensor want = kernels::nll_loss(logp, target);
        Tensor got = empty({}, d, TSR_CONTIGUOUS_FORMAT, kCpu);
        k.nll_loss(got.data_ptr(), logp.data_ptr(), target.data<int64_t>(), d, n, c, kNoStream);
        const std::string what = std::string(dtype_name(d)) + ", n " + std::to_string(n) + ", block_dim " +
                                 std::to_string(shape.block_dim);
        EXPECT_STREQ(k.launches().back(), n >= kBlockRowMinLength ? "nll_loss_block" : "nll_loss") << what;
        // The picked terms' mean |logp[i, t_i]| scales the bound.
        Tensor lf = as_f64(logp), mean_abs = make_tensor({}, TSR_FLOAT64, [](int64_t) { return 0.0; });
        for (int64_t i = 0; i < n; ++i)
          mean_abs.data<double>()[0] += std::fabs(lf.data<double>()[i * c + target.data<int64_t>()[i]]) / double(n);
        const double bound = order_bound(n, threads(shape, n, row_path(1, n, false, false)), 0x1p-53, 0x1p-53);
        EXPECT_TRUE(within(want, got, sum_allowed(want, mean_abs, bound))) << what;
        // A target out of range in the last thread's share: NaN.
        target.data<int64_t>()[n - 1] = c;
        k.nll_loss(got.data_ptr(), logp.data_ptr(), target.data<int64_t>(), d, n, c, kNoStream);
        EXPECT_TRUE(std::isnan(as_f64(got).data<double>()[0])) << what;
      }
}

}  // namespace
}  // namespace tsr::gpu::test
