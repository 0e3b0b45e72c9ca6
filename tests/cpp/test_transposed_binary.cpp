// Binary arithmetic with one transposed operand (transposed_binary.h's fused
// register tiles, reached through kernels::binary as a + b.t()) against the
// element-by-element formula, bit for bit: float32 and float64; add, sub,
// mul, div; the transposed operand on either side; sizes that whole tiles
// cover and ragged ones (right columns, bottom rows, both, fewer than one
// tile); special values (signed zeros, infinities, NaN, subnormals); the
// result on one thread and on two.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu/kernels/empty_cpu.h"
#include "core/views.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/threads.h"
#include "cpu/kernels/transposed_binary.h"

namespace tsr::kernels {
namespace {

template <typename T>
Tensor filled(int64_t rows, int64_t cols, unsigned seed) {
  Tensor t = empty_cpu({rows, cols}, std::is_same_v<T, float> ? TSR_FLOAT32 : TSR_FLOAT64);
  const T special[] = {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(), T(1), T(-3)};
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd(0, 3);
  T* p = static_cast<T*>(t.data_ptr());
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = i % 7 == 3 ? special[(i / 7) % 8] : T(nd(rng));
  return t;
}

template <typename T>
T reference(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::Add: return x + y;
    case BinaryOp::Sub: return x - y;
    case BinaryOp::Mul: return x * y;
    default: return x / y;
  }
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

template <typename T>
void check(int64_t rows, int64_t cols) {
  SCOPED_TRACE(testing::Message() << (sizeof(T) == 4 ? "float32 " : "float64 ") << rows << "x" << cols);
  Tensor a = filled<T>(rows, cols, 1), b = filled<T>(cols, rows, 2);
  Tensor bt = views::transpose(b, 0, 1);  // rows x cols, read along b's rows
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div})
    for (bool a_first : {true, false}) {
      // The output takes the first operand's layout (TensorIterator), so
      // the other one is the transposed operand either way.
      Tensor out = a_first ? binary(op, a, bt) : binary(op, bt, a);
      ASSERT_EQ(out.strides(), a_first ? (Shape{cols, 1}) : (Shape{1, rows}));
      const T* po = static_cast<const T*>(out.data_ptr());
      int bad = 0;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const T x = pa[i * cols + j], y = pb[j * rows + i];
          const T want = a_first ? reference(op, x, y) : reference(op, y, x);
          const T got = po[i * out.strides()[0] + j * out.strides()[1]];
          if (!same_bits(got, want) && bad++ < 3)
            ADD_FAILURE() << "op " << int(op) << (a_first ? " a op b.t()" : " b.t() op a") << " at [" << i << ", "
                          << j << "]: " << got << ", want " << want;
        }
    }
  // The kernel itself with the transposed operand on the left, which the
  // layout rule above never picks for out-of-place ops.
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div}) {
    std::vector<T> out(size_t(rows * cols));
    const int64_t E = sizeof(T);
    if (!fused_transposed_binary(simd::Bin(int(op)), E, reinterpret_cast<char*>(out.data()), cols * E,
                                 reinterpret_cast<const char*>(pa), cols * E, reinterpret_cast<const char*>(pb),
                                 rows * E, cols, rows, false))
      GTEST_SKIP() << "no AVX on this CPU";
    int bad = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const T want = reference(op, pb[j * rows + i], pa[i * cols + j]);
        if (!same_bits(out[size_t(i * cols + j)], want) && bad++ < 3)
          ADD_FAILURE() << "op " << int(op) << " t^T op u at [" << i << ", " << j << "]";
      }
  }
}

class TransposedBinary : public testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { saved_ = num_threads(); set_num_threads(GetParam()); }
  void TearDown() override { set_num_threads(saved_); }
  int64_t saved_ = 1;
};

TEST_P(TransposedBinary, BitForBitOnEveryShape) {
  const std::pair<int64_t, int64_t> shapes[] = {{64, 64}, {8, 8}, {4, 4},   {3, 5},    {13, 37},
                                                {70, 9},  {9, 70}, {130, 67}, {256, 200}, {1000, 33}};
  for (auto [rows, cols] : shapes) {
    check<float>(rows, cols);
    check<double>(rows, cols);
  }
}

// A channels_last operand with a contiguous one: a batch of C x HW planes,
// one transposed per image.
template <typename T>
void check_channels_last(const Shape& sizes) {
  SCOPED_TRACE(testing::Message() << (sizeof(T) == 4 ? "float32 " : "float64 ") << sizes[0] << "x" << sizes[1]
                                  << "x" << sizes[2] << "x" << sizes[3] << " channels_last");
  const tsr_dtype d = std::is_same_v<T, float> ? TSR_FLOAT32 : TSR_FLOAT64;
  const int64_t n = sizes[0] * sizes[1] * sizes[2] * sizes[3];
  Tensor a = filled<T>(1, n, 3), flat = filled<T>(1, n, 4);
  a = make_view(a, sizes, contiguous_strides(sizes), 0);
  Tensor b = empty_cpu(sizes, d, TSR_CHANNELS_LAST);
  std::memcpy(b.data_ptr(), flat.data_ptr(), size_t(n) * sizeof(T));
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Div}) {
    Tensor out = binary(op, a, b);
    const T *pa = static_cast<const T*>(a.data_ptr()), *pb = static_cast<const T*>(b.data_ptr()),
            *po = static_cast<const T*>(out.data_ptr());
    int bad = 0;
    for (int64_t i0 = 0; i0 < sizes[0]; ++i0)
      for (int64_t i1 = 0; i1 < sizes[1]; ++i1)
        for (int64_t i2 = 0; i2 < sizes[2]; ++i2)
          for (int64_t i3 = 0; i3 < sizes[3]; ++i3) {
            auto at = [&](const Tensor& t, const T* p) {
              const Shape& st = t.strides();
              return p[i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3]];
            };
            const T want = reference(op, at(a, pa), at(b, pb));
            if (!same_bits(at(out, po), want) && bad++ < 3)
              ADD_FAILURE() << "op " << int(op) << " at [" << i0 << ", " << i1 << ", " << i2 << ", " << i3 << "]";
          }
  }
}

TEST_P(TransposedBinary, ChannelsLastWithContiguous) {
  for (const Shape& sizes : {Shape{2, 16, 8, 8}, Shape{3, 5, 7, 3}, Shape{2, 70, 9, 11}}) {
    check_channels_last<float>(sizes);
    check_channels_last<double>(sizes);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, TransposedBinary, testing::Values(1, 2));

}  // namespace
}  // namespace tsr::kernels
