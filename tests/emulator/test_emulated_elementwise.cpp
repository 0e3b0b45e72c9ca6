// EmulatedKernels' copy, fill, unary and binary against the CPU kernels
// (src/cpu/kernels), over layouts, broadcasts, dtypes and launch shapes.
#include <sys/mman.h>

#include <string>

#include "cpu/kernels/activation.h"
#include "cpu/kernels/elementwise.h"
#include "emulator/emulated_kernels.h"
#include "emulator_test_util.h"

namespace tsr::gpu::test {
namespace {

// Launch shapes: one thread per block, ragged grids, a grid too small for
// one element per thread (grid-stride loop), the plugin's own.
const std::vector<LaunchShape> kShapes{{1, 1}, {1, 3}, {7, 2}, {32, 5}, {256, 65535}};

Tensor empty_like_sizes(const Shape& sizes, tsr_dtype d) {
  return empty(sizes, d, TSR_CONTIGUOUS_FORMAT, kCpu);
}

TEST(GridEmulator, EveryIndexExactlyOnce) {
  for (const LaunchShape& s : kShapes)
    for (int64_t n : {int64_t(1), int64_t(2), int64_t(7), int64_t(255), int64_t(1000)}) {
      std::vector<int> seen(size_t(n), 0);
      emulate_grid_stride(n, s, [&](int64_t i) { ++seen[size_t(i)]; });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[size_t(i)], 1) << "n " << n << " block " << s.block_dim;
    }
  EXPECT_EQ(grid_for(1000, {7, 2}), 2u);
  EXPECT_EQ(grid_for(10, {4, 100}), 3u);
}

TEST(GridEmulator, EmptyLaunchIsRefused) {
  expect_error(TSR_ERR_INVALID_ARGUMENT, [] { emulate_grid(0, 1, [](const ThreadCtx&) {}); });
  expect_error(TSR_ERR_INVALID_ARGUMENT, [] { emulate_grid(1, 0, [](const ThreadCtx&) {}); });
}

TEST(EmulatedCopy, EveryDtypePairTransposedBitForBit) {
  EmulatedKernels k({32, 3});
  for (tsr_dtype from : all_dtypes())
    for (tsr_dtype to : all_dtypes()) {
      Tensor src = views::permute(sample({5, 7, 3}, from), {2, 0, 1});  // [3, 5, 7], strided
      Tensor expected = empty_like_sizes(src.sizes(), to), actual = empty_like_sizes(src.sizes(), to);
      kernels::copy_strided(expected, src);
      k.copy(kshape(src.sizes()), kop(actual), kop(src), kNoStream);
      EXPECT_TRUE(same_bits(expected, actual)) << dtype_name(from) << " -> " << dtype_name(to);
    }
}

// Transposing copies of one dtype move through shared-memory tiles
// (kernels/tiled_copy.cuh), bit for bit the CPU's copy, every element
// written (the emulated tile starts as garbage), over launch shapes down to
// a grid of 1 and 3 blocks that loops over the tiles. A conversion, or a
// source already unit-stride along the last dim, stays element per thread.
TEST(EmulatedCopy, TiledTransposesBitForBit) {
  for (const LaunchShape& s : {LaunchShape{256, 65535}, LaunchShape{1, 1}, LaunchShape{32, 3}})
    for (const TransposeCase& c : transpose_cases())
      for (tsr_dtype d : all_dtypes()) {
        EmulatedKernels k(s);
        Tensor src = views::permute(sample(c.base, d), c.perm);
        Tensor expected = empty_like_sizes(src.sizes(), d), actual = empty_like_sizes(src.sizes(), d);
        kernels::copy_strided(expected, src);
        k.copy(kshape(src.sizes()), kop(actual), kop(src), kNoStream);
        EXPECT_TRUE(same_bits(expected, actual)) << dtype_name(d) << " grid " << s.max_grid;
        ASSERT_EQ(k.launches().size(), 1u);
        EXPECT_STREQ(k.launches()[0], c.tiled ? "copy_tiled" : "copy") << dtype_name(d);
      }
  EmulatedKernels k;
  Tensor src = views::t(sample({40, 50}, TSR_FLOAT32));
  Tensor converted = empty_like_sizes(src.sizes(), TSR_FLOAT16);
  k.copy(kshape(src.sizes()), kop(converted), kop(src), kNoStream);
  Tensor strided = views::t(empty_like_sizes({50, 40}, TSR_FLOAT32));  // dst not unit-stride last
  k.copy(kshape(src.sizes()), kop(strided), kop(src), kNoStream);
  EXPECT_EQ(std::vector<std::string>(k.launches().begin(), k.launches().end()),
            (std::vector<std::string>{"copy", "copy"}));
}

TEST(EmulatedCopy, ChannelsLastBroadcastAndLaunchShapes) {
  for (const LaunchShape& s : kShapes) {
    EmulatedKernels k(s);
    Tensor src = sample({1, 3, 1, 5}, TSR_FLOAT32);
    const Shape sizes{2, 3, 4, 5};
    Tensor dst_cpu = empty(sizes, TSR_FLOAT16, TSR_CHANNELS_LAST, kCpu);
    Tensor dst = empty(sizes, TSR_FLOAT16, TSR_CHANNELS_LAST, kCpu);
    kernels::copy_strided(dst_cpu, views::expand(src, sizes));
    k.copy(kshape(sizes), kop(dst), kop(src, sizes), kNoStream);
    EXPECT_TRUE(same_bits(dst_cpu, dst)) << "block " << s.block_dim;
  }
}

TEST(EmulatedCopy, ZeroDimAndEmpty) {
  EmulatedKernels k;
  Tensor src = make_tensor({}, TSR_FLOAT64, [](int64_t) { return 2.75; });
  Tensor dst = empty_like_sizes({}, TSR_INT16);
  k.copy(kshape({}), kop(dst), kop(src), kNoStream);
  EXPECT_EQ(*dst.data<int16_t>(), 2);
  Tensor e = empty_like_sizes({3, 0}, TSR_FLOAT32);
  k.copy(kshape({3, 0}), kop(e), kop(e), kNoStream);
  // A transposing copy with an empty batch dim: tile dims long enough for
  // the tiled kernel, but no tile (and no launch of 0 blocks).
  Tensor none = empty_like_sizes({0, 40, 40}, TSR_FLOAT32);
  k.copy(kshape({0, 40, 40}), kop(none), kop(views::transpose(none, 1, 2)), kNoStream);
  EXPECT_EQ(k.launches().size(), 1u);  // the empty copies launched nothing
}

TEST(EmulatedCopy, OffsetsPast2To31UseTheWideIndex) {
  // A uint8 source whose outer stride is 2^31 + 5 elements: offsets past
  // 2^31 on a sparse mapping of which two pages are ever touched.
  const int64_t stride = (int64_t(1) << 31) + 5;
  const size_t bytes = size_t(stride) + 4096;
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  uint8_t* base = static_cast<uint8_t*>(map);
  for (int j = 0; j < 3; ++j) {
    base[j] = uint8_t(10 + j);
    base[stride + j] = uint8_t(20 + j);
  }
  KernelOperand src{base, TSR_UINT8, {stride, 1}};
  Tensor dst = empty_like_sizes({2, 3}, TSR_INT64);
  EmulatedKernels k({4, 1});
  k.copy(kshape({2, 3}), kop(dst), src, kNoStream);
  const std::vector<int64_t> want{10, 11, 12, 20, 21, 22};
  EXPECT_EQ(std::vector<int64_t>(dst.data<int64_t>(), dst.data<int64_t>() + 6), want);
  // A Max reduction over the same wide dim (2^31 + 5 apart).
  Tensor mx = empty_like_sizes({3}, TSR_UINT8), idx = empty_like_sizes({3}, TSR_INT64);
  ReduceArgs r{};
  r.outer = kshape({3});
  r.out = kop(mx);
  r.indices = kop(idx);
  r.inner = kshape({2});
  r.in = KernelOperand{base, TSR_UINT8, {1}};
  r.in_inner_strides[0] = stride;
  r.scale = 1;
  k.reduce(ReduceKernel::Max, r, kNoStream);
  EXPECT_EQ(mx.data<uint8_t>()[2], 22);
  EXPECT_EQ(idx.data<int64_t>()[0], 1);
  // A tiled copy (16 x 16 tiles of uint8) whose batch stride is 2^31 + 5:
  // the tile functor's 64-bit index.
  KernelOperand tile_src{base, TSR_UINT8, {stride, 1, 16}};
  for (int j = 0; j < 256; ++j) {
    base[j] = uint8_t(j);
    base[stride + j] = uint8_t(255 - j);
  }
  Tensor tiled = empty_like_sizes({2, 16, 16}, TSR_UINT8);
  EmulatedKernels t;
  t.copy(kshape({2, 16, 16}), kop(tiled), tile_src, kNoStream);
  ASSERT_EQ(t.launches().size(), 1u);
  EXPECT_STREQ(t.launches()[0], "copy_tiled");
  const uint8_t* got = tiled.data<uint8_t>();
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      ASSERT_EQ(got[r * 16 + c], uint8_t(r + 16 * c)) << r << "," << c;
      ASSERT_EQ(got[256 + r * 16 + c], uint8_t(255 - (r + 16 * c))) << r << "," << c;
    }
  munmap(map, bytes);
}

TEST(EmulatedFill, EveryDtype) {
  EmulatedKernels k({3, 2});
  for (tsr_dtype d : all_dtypes())
    for (double v : {0.0, 3.7, -2.5, 1e20, -1e20, double(NAN), 300.0}) {
      Tensor base = empty_like_sizes({4, 6}, d);
      Tensor expected = empty_like_sizes({3, 4}, d), actual = views::t(base);
      actual = views::narrow(actual, 0, 1, 3);  // [3, 4] of a transposed buffer
      kernels::fill(expected, v);
      k.fill(kshape({3, 4}), kop(actual), v, kNoStream);
      EXPECT_TRUE(same_bits(expected, actual)) << dtype_name(d) << " " << v;
    }
}

// The CPU's unary result for op on x (its own output dtype and rules).
Tensor cpu_unary(UnaryKernel op, const Tensor& x, double alpha) {
  using kernels::Act;
  switch (op) {
    case UnaryKernel::Neg: return kernels::unary(kernels::UnaryOp::Neg, x);
    case UnaryKernel::Exp: return kernels::unary(kernels::UnaryOp::Exp, x);
    case UnaryKernel::Log: return kernels::unary(kernels::UnaryOp::Log, x);
    case UnaryKernel::Relu: return kernels::unary(kernels::UnaryOp::Relu, x);
    case UnaryKernel::MulScalar: return kernels::mul_scalar(x, alpha);
    case UnaryKernel::AddScalar: return kernels::add_scalar(x, alpha);
    case UnaryKernel::Gelu: return kernels::act(Act::Gelu, x);
    case UnaryKernel::GeluTanh: return kernels::act(Act::GeluTanh, x);
    case UnaryKernel::Tanh: return kernels::act(Act::Tanh, x);
    case UnaryKernel::Sigmoid: return kernels::act(Act::Sigmoid, x);
    case UnaryKernel::Sqrt: return kernels::act(Act::Sqrt, x);
    case UnaryKernel::Erf: return kernels::act(Act::Erf, x);
    case UnaryKernel::PowScalar: return kernels::pow_scalar(x, alpha);
    default: break;  // the ops added for issue 32 are held to the CPU by cuda_emulated_op_sweep
  }
  ADD_FAILURE() << "cpu_unary: no CPU reference here for unary op " << int(op);
  return x;
}

bool exact_op(UnaryKernel op) {
  return op == UnaryKernel::Neg || op == UnaryKernel::Relu || op == UnaryKernel::MulScalar ||
         op == UnaryKernel::AddScalar || op == UnaryKernel::Sqrt;
}

void check_unary(EmulatedKernels& k, UnaryKernel op, tsr_dtype d, double alpha) {
  Tensor x = views::t(sample({6, 5}, d));  // [5, 6] transposed
  Tensor expected = cpu_unary(op, x, alpha);
  Tensor out = empty_like_sizes(x.sizes(), expected.dtype());
  k.unary(op, kshape(x.sizes()), kop(out), kop(x), alpha, expected.dtype(), kNoStream);
  if (exact_op(op) || (op == UnaryKernel::PowScalar && (alpha == 2 || alpha == -1 || alpha == 0.5)))
    EXPECT_TRUE(same_bits(expected, out)) << "op " << int(op) << " " << dtype_name(d) << " alpha " << alpha;
  else
    EXPECT_TRUE(close(expected, out, tolerance(expected.dtype())))
        << "op " << int(op) << " " << dtype_name(d) << " alpha " << alpha;
}

TEST(EmulatedUnary, EveryOpAgainstTheCpu) {
  EmulatedKernels k({16, 2});
  const UnaryKernel basic[] = {UnaryKernel::Neg, UnaryKernel::Exp, UnaryKernel::Log, UnaryKernel::Relu,
                               UnaryKernel::MulScalar, UnaryKernel::AddScalar};
  for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (UnaryKernel op : basic) check_unary(k, op, d, 1.5);
  const UnaryKernel acts[] = {UnaryKernel::Gelu, UnaryKernel::GeluTanh, UnaryKernel::Tanh,
                              UnaryKernel::Sigmoid, UnaryKernel::Sqrt, UnaryKernel::Erf};
  for (tsr_dtype d : {TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (UnaryKernel op : acts) check_unary(k, op, d, 0.0);
  for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (double e : {0.5, -0.5, -1.0, 2.0, 3.0, -2.0, 1.7})
      check_unary(k, UnaryKernel::PowScalar, d, e);
}

TEST(EmulatedUnary, IntegersAndPromotion) {
  EmulatedKernels k({8, 3});
  for (tsr_dtype d : {TSR_UINT8, TSR_INT8, TSR_INT16, TSR_INT32, TSR_INT64}) {
    check_unary(k, UnaryKernel::Neg, d, 0);
    check_unary(k, UnaryKernel::Relu, d, 0);
    // exp/log/sqrt of integers compute in float32, as the CPU promotes.
    check_unary(k, UnaryKernel::Exp, d, 0);
    check_unary(k, UnaryKernel::Sqrt, d, 0);
  }
  check_unary(k, UnaryKernel::Exp, TSR_BOOL, 0);
}

TEST(EmulatedUnary, WrapsInt64) {
  EmulatedKernels k;
  Tensor x = make_tensor({1}, TSR_INT64, [](int64_t) { return 0.0; });
  *x.data<int64_t>() = INT64_MIN;
  Tensor out = empty_like_sizes({1}, TSR_INT64);
  k.unary(UnaryKernel::Neg, kshape({1}), kop(out), kop(x), 0, TSR_INT64, kNoStream);
  EXPECT_EQ(*out.data<int64_t>(), INT64_MIN);
}

Tensor cpu_binary(BinaryKernel op, const Tensor& a, const Tensor& b) {
  using kernels::Act;
  switch (op) {
    case BinaryKernel::Add: return kernels::binary(kernels::BinaryOp::Add, a, b);
    case BinaryKernel::Sub: return kernels::binary(kernels::BinaryOp::Sub, a, b);
    case BinaryKernel::Mul: return kernels::binary(kernels::BinaryOp::Mul, a, b);
    case BinaryKernel::Div: return kernels::binary(kernels::BinaryOp::Div, a, b);
    case BinaryKernel::ReluBackward: return kernels::relu_backward(a, b);
    case BinaryKernel::GeluBackward: return kernels::act_backward(Act::Gelu, a, b);
    case BinaryKernel::GeluTanhBackward: return kernels::act_backward(Act::GeluTanh, a, b);
    case BinaryKernel::TanhBackward: return kernels::act_backward(Act::Tanh, a, b);
    case BinaryKernel::SigmoidBackward: return kernels::act_backward(Act::Sigmoid, a, b);
    case BinaryKernel::SqrtBackward: return kernels::act_backward(Act::Sqrt, a, b);
    default: break;  // the ops added for issue 32 are held to the CPU by cuda_emulated_op_sweep
  }
  ADD_FAILURE() << "cpu_binary: no CPU reference here for binary op " << int(op);
  return a;
}

// op(a, b) with the CPU's result dtype as compute and output dtype.
void check_binary(EmulatedKernels& k, BinaryKernel op, const Tensor& a, const Tensor& b, bool exact) {
  Tensor expected = cpu_binary(op, a, b);
  Tensor out = empty_like_sizes(expected.sizes(), expected.dtype());
  const Shape& s = expected.sizes();
  k.binary(op, kshape(s), kop(out), kop(a, s), kop(b, s), 1.0, expected.dtype(), kNoStream);
  const std::string what = "op " + std::to_string(int(op)) + " " + dtype_name(a.dtype()) + ", " + dtype_name(b.dtype());
  if (exact) EXPECT_TRUE(same_bits(expected, out)) << what;
  else EXPECT_TRUE(close(expected, out, tolerance(expected.dtype()))) << what;
}

TEST(EmulatedBinary, ArithmeticBroadcastAndPromotion) {
  for (const LaunchShape& s : kShapes) {
    EmulatedKernels k(s);
    for (BinaryKernel op : {BinaryKernel::Add, BinaryKernel::Sub, BinaryKernel::Mul, BinaryKernel::Div}) {
      // Same dtype, broadcast [4, 1, 6] x [5, 1] -> [4, 5, 6], b transposed.
      for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64, TSR_INT32, TSR_INT64, TSR_UINT8})
        check_binary(k, op, sample({4, 1, 6}, d, 1), views::t(sample({1, 5}, d, 2)), true);
      // Promotion: int32 with float32, uint8 with int8, a 0-dim float64
      // with float32 (stays float32), int16 with a 0-dim float64.
      check_binary(k, op, sample({3, 4}, TSR_INT32), sample({3, 4}, TSR_FLOAT32), true);
      check_binary(k, op, sample({3, 4}, TSR_UINT8), sample({4}, TSR_INT8), true);
      check_binary(k, op, sample({3, 4}, TSR_FLOAT32), sample({}, TSR_FLOAT64, 3, false), true);
      check_binary(k, op, sample({3, 4}, TSR_INT16), sample({}, TSR_FLOAT64, 4, false), true);
    }
    check_binary(k, BinaryKernel::Add, sample({3, 4}, TSR_BOOL, 1), sample({3, 4}, TSR_BOOL, 2), true);
    check_binary(k, BinaryKernel::Mul, sample({3, 4}, TSR_BOOL, 1), sample({3, 4}, TSR_BOOL, 2), true);
  }
}

// Dense float32 operands (and float32 <-> float16/bfloat16 copies) take
// the 4-element pack functors (kernels/dense_functors.cuh); they must give
// the general functors' bits. The general path is reached with the same
// values through a transposed buffer; tails of 3 and 2 elements and an
// input one element off its pack alignment (general path) are included.
TEST(EmulatedElementwise, DensePathsGiveTheGeneralPathsBits) {
  for (const LaunchShape& ls : {LaunchShape{32, 5}, LaunchShape{256, 65535}})
    for (const Shape& sizes : {Shape{7, 149}, Shape{3, 2}}) {
      EmulatedKernels k(ls);
      // t's values through a layout no dense path takes: [rows, cols] with
      // strides [1, rows].
      auto strided = [](const Tensor& t) { return views::t(kernels::contiguous_copy(views::t(t), t.dtype())); };
      auto last_launch = [&] { return std::string(k.launches().back()); };
      const Shape& s = sizes;
      for (int op = 0; op <= int(UnaryKernel::PowScalar); ++op)
        for (double alpha : {1.5, -0.5, 2.0}) {
          Tensor x = sample(s, TSR_FLOAT32);
          Tensor dense = empty_like_sizes(s, TSR_FLOAT32), general = empty_like_sizes(s, TSR_FLOAT32);
          k.unary(UnaryKernel(op), kshape(s), kop(dense), kop(x), alpha, TSR_FLOAT32, kNoStream);
          EXPECT_EQ(last_launch(), "unary_dense");
          k.unary(UnaryKernel(op), kshape(s), kop(general), kop(strided(x)), alpha, TSR_FLOAT32, kNoStream);
          EXPECT_EQ(last_launch(), "unary");
          EXPECT_TRUE(same_bits(general, dense)) << "unary op " << op << " alpha " << alpha;
        }
      for (int op = 0; op <= int(BinaryKernel::SqrtBackward); ++op) {
        Tensor a = sample(s, TSR_FLOAT32, 1), b = sample(s, TSR_FLOAT32, 2);
        Tensor dense = empty_like_sizes(s, TSR_FLOAT32), general = empty_like_sizes(s, TSR_FLOAT32);
        k.binary(BinaryKernel(op), kshape(s), kop(dense), kop(a), kop(b), 0.75, TSR_FLOAT32, kNoStream);
        EXPECT_EQ(last_launch(), "binary_dense");
        k.binary(BinaryKernel(op), kshape(s), kop(general), kop(a), kop(strided(b)), 0.75, TSR_FLOAT32,
                 kNoStream);
        EXPECT_EQ(last_launch(), "binary");
        EXPECT_TRUE(same_bits(general, dense)) << "binary op " << op;
      }
      for (const auto& [from, to] : dense_conversion_pairs()) {
        Tensor src = sample(s, from);
        Tensor dense = empty_like_sizes(s, to), general = empty_like_sizes(s, to);
        k.copy(kshape(s), kop(dense), kop(src), kNoStream);
        EXPECT_EQ(last_launch(), "copy_dense");
        k.copy(kshape(s), kop(general), kop(strided(src)), kNoStream);
        EXPECT_EQ(last_launch(), "copy");
        EXPECT_TRUE(same_bits(general, dense)) << dtype_name(from) << " -> " << dtype_name(to);
      }
    }
  // One element off the pack alignment: the general path, same values.
  EmulatedKernels k;
  Tensor flat = sample({1044}, TSR_FLOAT32);
  Tensor off = views::narrow(flat, 0, 1, 1043), aligned = kernels::contiguous_copy(off, TSR_FLOAT32);
  Tensor a = empty_like_sizes({1043}, TSR_FLOAT32), b = empty_like_sizes({1043}, TSR_FLOAT32);
  k.unary(UnaryKernel::Exp, kshape({1043}), kop(a), kop(off), 0, TSR_FLOAT32, kNoStream);
  k.unary(UnaryKernel::Exp, kshape({1043}), kop(b), kop(aligned), 0, TSR_FLOAT32, kNoStream);
  EXPECT_EQ(std::vector<std::string>(k.launches().begin(), k.launches().end()),
            (std::vector<std::string>{"unary", "unary_dense"}));
  EXPECT_TRUE(same_bits(b, a));
}

TEST(EmulatedBinary, IntegerOverflowWraps) {
  EmulatedKernels k;
  Tensor a = make_tensor({3}, TSR_INT8, [](int64_t i) { return double(120 + i); });
  Tensor b = make_tensor({3}, TSR_INT8, [](int64_t) { return 100.0; });
  check_binary(k, BinaryKernel::Add, a, b, true);
  check_binary(k, BinaryKernel::Mul, a, b, true);
  check_binary(k, BinaryKernel::Sub, b, a, true);
}

TEST(EmulatedBinary, AddWithAlphaMatchesAddInto) {
  EmulatedKernels k({4, 2});
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_INT32, TSR_BFLOAT16}) {
    Tensor a = sample({3, 5}, d, 1), b = sample({3, 5}, d, 2);
    Tensor expected = kernels::contiguous_copy(a, d);
    kernels::add_into(expected, b, -3.0);
    Tensor out = empty_like_sizes({3, 5}, d);
    k.binary(BinaryKernel::Add, kshape({3, 5}), kop(out), kop(a), kop(b), -3.0, d, kNoStream);
    EXPECT_TRUE(same_bits(expected, out)) << dtype_name(d);
  }
}

TEST(EmulatedBinary, BackwardFormulas) {
  EmulatedKernels k({16, 1});
  for (tsr_dtype d : {TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64}) {
    Tensor g = sample({4, 6}, d, 5, false);
    Tensor x = views::t(sample({6, 4}, d, 6));
    check_binary(k, BinaryKernel::ReluBackward, g, x, true);
    check_binary(k, BinaryKernel::TanhBackward, g, x, true);
    check_binary(k, BinaryKernel::SigmoidBackward, g, x, true);
    check_binary(k, BinaryKernel::SqrtBackward, g, x, true);
    check_binary(k, BinaryKernel::GeluBackward, g, x, false);
    check_binary(k, BinaryKernel::GeluTanhBackward, g, x, false);
  }
}

TEST(EmulatedElementwise, BadArgumentsAreRefusedAndWriteNothing) {
  EmulatedKernels k;
  Tensor out = make_tensor({4}, TSR_FLOAT32, [](int64_t) { return 9.0; });
  Tensor xi = sample({4}, TSR_INT32), xf = sample({4}, TSR_FLOAT32);
  KernelShape bad = kshape({4});
  bad.ndim = kMaxKernelDims + 1;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.copy(bad, kop(out), kop(xf), kNoStream); });
  bad = kshape({-1});
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.fill(bad, kop(out), 1.0, kNoStream); });
  KernelOperand wrong = kop(out);
  wrong.dtype = tsr_dtype(9);
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.copy(kshape({4}), wrong, kop(xf), kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.fill(kshape({4}), wrong, 1.0, kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT,
               [&] { k.unary(UnaryKernel(99), kshape({4}), kop(out), kop(xf), 0, TSR_FLOAT32, kNoStream); });
  expect_error(TSR_ERR_UNSUPPORTED,
               [&] { k.unary(UnaryKernel::Exp, kshape({4}), kop(out), kop(xi), 0, TSR_INT32, kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] {
    k.binary(BinaryKernel(42), kshape({4}), kop(out), kop(xf), kop(xf), 1, TSR_FLOAT32, kNoStream);
  });
  expect_error(TSR_ERR_UNSUPPORTED, [&] {
    k.binary(BinaryKernel::Div, kshape({4}), kop(out), kop(xi), kop(xi), 1, TSR_INT32, kNoStream);
  });
  expect_error(TSR_ERR_UNSUPPORTED, [&] {
    k.binary(BinaryKernel::Sub, kshape({4}), kop(out), kop(xi), kop(xi), 1, TSR_BOOL, kNoStream);
  });
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] {
    k.binary(BinaryKernel::Add, kshape({4}), kop(out), kop(xf), kop(xf), 1, tsr_dtype(12), kNoStream);
  });
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(out.data<float>()[i], 9.0f);
  EXPECT_TRUE(k.launches().empty());
}

}  // namespace
}  // namespace tsr::gpu::test
