// EmulatedKernels' reductions, (log_)softmax, nll loss and dropout noise
// against the CPU kernels (src/cpu/kernels/reduce.cpp, nn.cpp) and ops'
// dropout.
#include "core/generator.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/nn.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/scan.h"
#include "emulator/emulated_kernels.h"
#include "emulator_test_util.h"
#include "reduce_test_args.h"
#include "ops/dropout.h"

namespace tsr::gpu::test {
namespace {

TEST(EmulatedReduce, SumOverDimsAndDtypes) {
  EmulatedKernels k({8, 3});
  const std::vector<std::vector<bool>> masks{{true, false, false}, {false, true, true}, {true, true, true},
                                             {false, false, false}};
  for (tsr_dtype d : {TSR_BOOL, TSR_UINT8, TSR_INT32, TSR_INT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (const auto& mask : masks) {
      Tensor x = views::permute(sample({4, 5, 3}, d, 7, false), {2, 0, 1});  // [3, 4, 5]
      Tensor expected = kernels::sum(x, mask, false);
      Tensor out = empty(expected.sizes(), expected.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu);
      k.reduce(ReduceKernel::Sum, reduce_args(x, mask, out, nullptr, 1.0), kNoStream);
      EXPECT_TRUE(close(expected, out, d == TSR_FLOAT64 ? 1e-14 : tolerance(d))) << dtype_name(d);
    }
}

TEST(EmulatedReduce, MeanScalesAndEmptyInnerSumsToZero) {
  EmulatedKernels k({4, 2});
  Tensor x = sample({6, 5}, TSR_FLOAT32, 3, false);
  const std::vector<bool> mask{true, false};
  Tensor expected = kernels::mean(x, mask, false);
  Tensor out = empty({5}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
  k.reduce(ReduceKernel::Sum, reduce_args(x, mask, out, nullptr, 1.0 / 6), kNoStream);
  EXPECT_TRUE(close(expected, out, 1e-6));
  Tensor e = empty({0, 3}, TSR_INT32, TSR_CONTIGUOUS_FORMAT, kCpu);
  Tensor z = make_tensor({3}, TSR_INT64, [](int64_t) { return 5.0; });
  k.reduce(ReduceKernel::Sum, reduce_args(e, {true, false}, z, nullptr, 1.0), kNoStream);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(z.data<int64_t>()[i], 0);
}

TEST(EmulatedReduce, MaxFirstIndexAndNaN) {
  EmulatedKernels k({2, 3});
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_FLOAT64, TSR_INT16, TSR_UINT8, TSR_BOOL})
    for (int64_t dim : {0, 1, 2}) {
      // Values with ties (mod 5) and, for floats, NaNs.
      Tensor x = views::t(make_tensor({6, 3}, d, [](int64_t i) { return double(i % 5); }));
      Tensor x3 = views::unsqueeze(x, 1);  // [3, 1, 6]
      if (d == TSR_FLOAT32) x3 = views::permute(sample({6, 3, 2}, d), {1, 2, 0});  // [3, 2, 6] with NaNs
      auto [values, indices] = kernels::max_dim(x3, dim, false);
      Tensor out = empty(values.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
      Tensor idx = empty(values.sizes(), TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
      std::vector<bool> mask(3, false);
      mask[size_t(dim)] = true;
      k.reduce(ReduceKernel::Max, reduce_args(x3, mask, out, &idx, 1.0), kNoStream);
      EXPECT_TRUE(same_bits(values, out)) << dtype_name(d) << " dim " << dim;
      EXPECT_TRUE(same_bits(indices, idx)) << dtype_name(d) << " dim " << dim;
    }
}

TEST(EmulatedReduce, BadArguments) {
  EmulatedKernels k;
  Tensor x = sample({3, 0}, TSR_FLOAT32), out = make_tensor({3}, TSR_FLOAT32, [](int64_t) { return 4.0; });
  Tensor idx = empty({3}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  expect_error(TSR_ERR_INVALID_ARGUMENT,
               [&] { k.reduce(ReduceKernel::Max, reduce_args(x, {false, true}, out, &idx, 1), kNoStream); });
  ReduceArgs r = reduce_args(sample({3, 2}, TSR_FLOAT32), {false, true}, out, &idx, 1);
  r.indices.dtype = TSR_INT32;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.reduce(ReduceKernel::Max, r, kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.reduce(ReduceKernel(7), r, kNoStream); });
  r.inner.ndim = -1;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.reduce(ReduceKernel::Sum, r, kNoStream); });
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out.data<float>()[i], 4.0f);
}

// Scans and products (issue 32): one thread per line, more lines than the
// grid's threads (a grid-stride loop), against kernels::scan / prod bit for
// bit in every dtype, both directions.
TEST(EmulatedScan, ScansAndProductsBitForBit) {
  EmulatedKernels k({4, 2});
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT64, TSR_INT8, TSR_UINT8, TSR_BOOL})
    for (int64_t dim : {0, 1, 2}) {
      const Tensor x = kernels::contiguous_copy(views::permute(sample({5, 4, 6}, d, 3, false), {2, 0, 1}), d);
      const Shape line_sizes = [&] {
        Shape s = x.sizes();
        s.erase(s.begin() + dim);
        return s;
      }();
      ScanArgs a{};
      a.lines = kshape(line_sizes);
      a.in = KernelOperand{x.data_ptr(), d, {}};
      for (int64_t e = 0, l = 0; e < 3; ++e)
        if (e != dim) a.in.strides[l++] = x.strides()[size_t(e)];
      a.len = x.sizes()[size_t(dim)];
      a.in_stride = x.strides()[size_t(dim)];
      const std::string what = std::string(dtype_name(d)) + " dim " + std::to_string(dim);
      for (kernels::ScanOp op : {kernels::ScanOp::kSum, kernels::ScanOp::kProd})
        for (bool reverse : {false, true}) {
          const Tensor expected = kernels::scan(x, dim, op, d, reverse);
          Tensor out = empty(x.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
          a.op = op == kernels::ScanOp::kSum ? ScanKernel::CumSum : ScanKernel::CumProd;
          a.out = KernelOperand{out.data_ptr(), d, {}};
          for (int64_t e = 0, l = 0; e < 3; ++e)
            if (e != dim) a.out.strides[l++] = out.strides()[size_t(e)];
          a.out_stride = out.strides()[size_t(dim)];
          a.reverse = reverse;
          k.scan(a, kNoStream);
          EXPECT_TRUE(same_bits(expected, out)) << what << (reverse ? " reverse" : "");
        }
      const Tensor expected = kernels::prod(x, false, dim, false, d);
      Tensor out = empty(expected.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
      a.op = ScanKernel::Prod;
      a.reverse = false;
      a.out = KernelOperand{out.data_ptr(), d, {}};
      for (size_t l = 0; l < line_sizes.size(); ++l) a.out.strides[l] = out.strides()[l];
      k.scan(a, kNoStream);
      EXPECT_TRUE(same_bits(expected, out)) << what << " prod";
    }
}

TEST(EmulatedScan, BadArguments) {
  EmulatedKernels k;
  Tensor x = sample({3}, TSR_FLOAT32), out = make_tensor({3}, TSR_FLOAT64, [](int64_t) { return 4.0; });
  ScanArgs a{};
  a.lines = kshape({});
  a.in = KernelOperand{x.data_ptr(), TSR_FLOAT32, {}};
  a.out = KernelOperand{out.data_ptr(), TSR_FLOAT64, {}};
  a.len = 3;
  a.in_stride = a.out_stride = 1;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.scan(a, kNoStream); });  // dtypes differ
  a.in.dtype = TSR_FLOAT64;
  a.op = ScanKernel(9);
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.scan(a, kNoStream); });
  a.op = ScanKernel::CumSum;
  a.len = -1;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.scan(a, kNoStream); });
  a.len = 3;
  a.in.dtype = a.out.dtype = TSR_UINT16;
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.scan(a, kNoStream); });
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out.data<double>()[i], 4.0);
}

TEST(EmulatedSoftmax, LogSoftmaxForwardBackwardAndSoftmax) {
  EmulatedKernels k({5, 2});
  for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (int64_t dim : {0, 1, 2}) {
      Tensor x = sample({3, 7, 4}, d, 2, false);
      const int64_t outer = dim == 0 ? 1 : dim == 1 ? 3 : 21, len = x.sizes()[dim],
                    inner = dim == 0 ? 28 : dim == 1 ? 4 : 1;
      Tensor expected = kernels::log_softmax(x, dim);
      Tensor out = empty(x.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
      k.softmax(true, out.data_ptr(), x.data_ptr(), d, outer, len, inner, kNoStream);
      EXPECT_TRUE(same_bits(expected, out)) << dtype_name(d) << " dim " << dim;
      Tensor sm = empty(x.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
      k.softmax(false, sm.data_ptr(), x.data_ptr(), d, outer, len, inner, kNoStream);
      EXPECT_TRUE(close(kernels::unary(kernels::UnaryOp::Exp, expected), sm, tolerance(d))) << dtype_name(d);
      Tensor g = sample({3, 7, 4}, d, 9, false);
      Tensor gexp = kernels::log_softmax_backward(g, expected, dim);
      Tensor gout = empty(x.sizes(), d, TSR_CONTIGUOUS_FORMAT, kCpu);
      k.log_softmax_backward(gout.data_ptr(), g.data_ptr(), expected.data_ptr(), d, outer, len, inner, kNoStream);
      EXPECT_TRUE(same_bits(gexp, gout)) << dtype_name(d) << " dim " << dim;
    }
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.softmax(true, nullptr, nullptr, TSR_INT32, 1, 1, 1, kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT,
               [&] { k.softmax(true, nullptr, nullptr, TSR_FLOAT32, 1, -1, 1, kNoStream); });
  expect_error(TSR_ERR_UNSUPPORTED,
               [&] { k.log_softmax_backward(nullptr, nullptr, nullptr, TSR_BOOL, 1, 1, 1, kNoStream); });
}

TEST(EmulatedNll, LossAndBackward) {
  EmulatedKernels k({3, 2});
  for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64}) {
    Tensor logp = sample({5, 4}, d, 4, false);
    Tensor target = make_tensor({5}, TSR_INT64, [](int64_t i) { return double((i * 3) % 4); });
    Tensor expected = kernels::nll_loss(logp, target);
    Tensor out = empty({}, d, TSR_CONTIGUOUS_FORMAT, kCpu);
    k.nll_loss(out.data_ptr(), logp.data_ptr(), target.data<int64_t>(), d, 5, 4, kNoStream);
    EXPECT_TRUE(same_bits(expected, out)) << dtype_name(d);
    Tensor grad = make_tensor({}, d, [](int64_t) { return 0.75; });
    Tensor gexp = kernels::nll_loss_backward(grad, {5, 4}, target);
    Tensor gout = empty({5, 4}, d, TSR_CONTIGUOUS_FORMAT, kCpu);
    k.nll_loss_backward(gout.data_ptr(), grad.data_ptr(), target.data<int64_t>(), d, 5, 4, kNoStream);
    EXPECT_TRUE(same_bits(gexp, gout)) << dtype_name(d);
  }
  // A target outside [0, c): NaN (a kernel cannot report it); n == 0: NaN.
  Tensor logp = sample({2, 3}, TSR_FLOAT32, 1, false);
  const int64_t bad[2] = {1, 3};
  float loss = 0;
  k.nll_loss(&loss, logp.data_ptr(), bad, TSR_FLOAT32, 2, 3, kNoStream);
  EXPECT_TRUE(std::isnan(loss));
  loss = 0;
  k.nll_loss(&loss, logp.data_ptr(), bad, TSR_FLOAT32, 0, 3, kNoStream);
  EXPECT_TRUE(std::isnan(loss));
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.nll_loss(&loss, nullptr, bad, TSR_INT64, 2, 3, kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT,
               [&] { k.nll_loss_backward(&loss, nullptr, bad, TSR_FLOAT32, -2, 3, kNoStream); });
}

TEST(EmulatedBernoulli, SameMaskAsDropout) {
  EmulatedKernels k({64, 3});
  for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (double p : {0.0001, 0.3, 0.9}) {
      const uint64_t seed = 1234567, start = 6;  // start not a multiple of 4
      auto g = std::make_shared<Generator>(seed);
      g->set_state(seed, start);
      const int64_t n = 1001;
      Tensor ones = make_tensor({n}, d, [](int64_t) { return 1.0; });
      Tensor expected = ops::dropout(ones, p, true, g);  // ones * noise = noise
      const double keep = 1.0 - p;
      Tensor out = empty({n}, d, TSR_CONTIGUOUS_FORMAT, kCpu);
      k.bernoulli_noise(out.data_ptr(), d, n, seed, start, uint32_t(std::ceil(keep * 0x1p24)), 1.0 / keep,
                        kNoStream);
      EXPECT_TRUE(same_bits(expected, out)) << dtype_name(d) << " p " << p;
    }
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.bernoulli_noise(nullptr, TSR_INT8, 4, 1, 0, 1, 1, kNoStream); });
  expect_error(TSR_ERR_INVALID_ARGUMENT,
               [&] { k.bernoulli_noise(nullptr, TSR_FLOAT32, -4, 1, 0, 1, 1, kNoStream); });
}

}  // namespace
}  // namespace tsr::gpu::test
