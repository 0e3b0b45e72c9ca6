// The kernel arguments src/device/ builds: a DeviceKernels double records
// each call, and the tests check shapes, strides, dtypes and gemm operands
// against what each op must give.
#include <gtest/gtest.h>

#include "autograd/node.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/views.h"
#include "device/device_ops.h"
#include "device/disjoint_parts.h"
#include "device/kernel_args.h"
#include "device_test_util.h"
#include "engine/backward.h"
#include "emulator/launch_writes.h"
#include "ops/math.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/nn_functional.h"
#include "ops/views.h"

namespace tsr::devtest {
namespace {
using device::coalesce;
using device::Iteration;

class DeviceOpsTest : public DeviceFixture {
 protected:
  DeviceOpsTest() : DeviceFixture(&rec) {}
  RecordingKernels rec;
  Tensor dev(const Shape& sizes, tsr_dtype d = TSR_FLOAT32, tsr_memory_format f = TSR_CONTIGUOUS_FORMAT) {
    return empty(sizes, d, f, sim_device());
  }
};

Shape strides_of(const KernelShape& s, const KernelOperand& op) {
  return Shape(op.strides, op.strides + s.ndim);
}
Shape sizes_of(const KernelShape& s) { return Shape(s.sizes, s.sizes + s.ndim); }

TEST(KernelArgs, CoalescesOnlyWhatEveryOperandAllows) {
  // Contiguous and contiguous: one dim.
  Iteration a = coalesce({4, 5, 6}, {{30, 6, 1}, {30, 6, 1}});
  EXPECT_EQ(a.sizes, Shape({120}));
  // One operand transposed in its last two dims: those stay apart.
  Iteration b = coalesce({4, 5, 6}, {{30, 6, 1}, {30, 1, 5}});
  EXPECT_EQ(b.sizes, Shape({4, 5, 6}));
  // Size-1 dims vanish; a broadcast (stride 0) outer dim stays its own.
  Iteration c = coalesce({3, 1, 4}, {{4, 4, 1}, {0, 0, 1}});
  EXPECT_EQ(c.sizes, Shape({3, 4}));
  EXPECT_EQ(c.strides[1], Shape({0, 1}));
  // Empty: kept as given, nothing launched.
  Iteration e = coalesce({2, 0}, {{0, 1}});
  EXPECT_EQ(e.sizes, Shape({2, 0}));
}

TEST_F(DeviceOpsTest, ContiguousBinaryIsOneFlatDim) {
  Tensor a = dev({4, 5}), b = dev({4, 5});
  Tensor out = ops::add(a, b);
  ASSERT_EQ(rec.calls.size(), 1u);
  const KernelCall c = rec.calls[0];
  EXPECT_EQ(c.what, "binary");
  EXPECT_EQ(sizes_of(c.shape), Shape({20}));
  for (const KernelOperand& op : c.operands) EXPECT_EQ(strides_of(c.shape, op), Shape({1}));
  EXPECT_EQ(c.operands[0].data, out.data_ptr());
  EXPECT_EQ(c.operands[1].data, a.data_ptr());
  EXPECT_EQ(c.alpha, 1.0);
  EXPECT_EQ(out.device(), sim_device());
}

TEST_F(DeviceOpsTest, BroadcastOperandGetsStrideZeroAndPromotion) {
  Tensor a = dev({4, 5}, TSR_FLOAT32), b = dev({5}, TSR_FLOAT64);
  Tensor out = ops::mul(a, b);
  EXPECT_EQ(out.dtype(), TSR_FLOAT64);
  ASSERT_EQ(rec.calls.size(), 1u);
  const KernelCall c = rec.calls[0];
  EXPECT_EQ(sizes_of(c.shape), Shape({4, 5}));
  EXPECT_EQ(strides_of(c.shape, c.operands[2]), Shape({0, 1}));
  EXPECT_EQ(c.operands[1].dtype, TSR_FLOAT32);
  EXPECT_EQ(c.operands[2].dtype, TSR_FLOAT64);
  EXPECT_EQ(c.compute, TSR_FLOAT64);
}

TEST_F(DeviceOpsTest, HalfComputesInFloat) {
  Tensor a = dev({3}, TSR_BFLOAT16);
  Tensor out = ops::mul_scalar(a, 2.0);
  ASSERT_EQ(rec.calls.size(), 1u);
  EXPECT_EQ(rec.calls[0].compute, TSR_FLOAT32);
  EXPECT_EQ(rec.calls[0].alpha, 2.0);
  EXPECT_EQ(out.dtype(), TSR_BFLOAT16);
}

// The storage-only dtypes: copies and conversions reach the copy kernel;
// math is refused before any launch, as on the CPU.
TEST_F(DeviceOpsTest, StorageOnlyDtypesCopyButComputeNothing) {
  for (tsr_dtype d : {TSR_UINT16, TSR_UINT32, TSR_UINT64, TSR_FLOAT8_E4M3FN, TSR_FLOAT8_E5M2}) {
    rec.calls.clear();
    Tensor a = dev({4, 5}, d);
    Tensor c = ops::contiguous(views::t(a), TSR_CONTIGUOUS_FORMAT);
    Tensor f = ops::to_dtype(a, TSR_FLOAT32);
    ASSERT_EQ(rec.calls.size(), 2u) << dtype_name(d);
    EXPECT_EQ(rec.calls[0].what, "copy");
    EXPECT_EQ(rec.calls[1].operands[1].dtype, d);
    rec.calls.clear();
    for (int op = 0; op < 3; ++op) {
      try {
        if (op == 0) ops::add(a, a);
        if (op == 1) ops::sum(a, {}, false);
        if (op == 2) ops::relu(a);
        ADD_FAILURE() << "op " << op << " on " << dtype_name(d) << " did not fail";
      } catch (const Error& e) {
        EXPECT_EQ(e.status(), TSR_ERR_UNSUPPORTED) << e.what();
        EXPECT_NE(std::string(e.what()).find(dtype_name(d)), std::string::npos) << e.what();
      }
    }
    EXPECT_TRUE(rec.calls.empty()) << dtype_name(d);
  }
}

TEST_F(DeviceOpsTest, ChannelsLastCopyCoalescesSpatialDims) {
  Tensor x = dev({2, 3, 4, 5}, TSR_FLOAT32, TSR_CHANNELS_LAST);
  Tensor y = ops::contiguous(x, TSR_CONTIGUOUS_FORMAT);
  ASSERT_EQ(rec.calls.size(), 1u);
  const KernelCall c = rec.calls[0];
  EXPECT_EQ(c.what, "copy");
  EXPECT_EQ(sizes_of(c.shape), Shape({2, 3, 20}));
  EXPECT_EQ(strides_of(c.shape, c.operands[0]), Shape({60, 20, 1}));
  EXPECT_EQ(strides_of(c.shape, c.operands[1]), Shape({60, 1, 3}));
  EXPECT_TRUE(is_contiguous_strides(y.sizes(), y.strides()));
  // An elementwise op keeps channels_last (TensorIterator's layout).
  rec.calls.clear();
  Tensor z = ops::relu(x);
  EXPECT_TRUE(is_channels_last_contiguous(z.sizes(), z.strides()));
  // Dims ordered by the output's strides (the CPU loops' rule): a
  // channels_last output and input are one flat run.
  EXPECT_EQ(sizes_of(rec.calls.at(0).shape), Shape({120}));
  EXPECT_EQ(strides_of(rec.calls.at(0).shape, rec.calls.at(0).operands[0]), Shape({1}));
  EXPECT_EQ(strides_of(rec.calls.at(0).shape, rec.calls.at(0).operands[1]), Shape({1}));
}

TEST_F(DeviceOpsTest, TransposedGemmOperandsGoWithoutCopies) {
  Tensor a = dev({3, 4}), w = dev({5, 4});
  Tensor out = ops::matmul(a, views::t(w));
  ASSERT_EQ(rec.of("copy").size(), 0u);
  ASSERT_EQ(rec.of("gemm").size(), 1u);
  const GemmArgs g = rec.of("gemm")[0].gemm;
  EXPECT_EQ(g.m, 3);
  EXPECT_EQ(g.n, 5);
  EXPECT_EQ(g.k, 4);
  EXPECT_EQ(g.a, a.data_ptr());
  EXPECT_EQ(g.a_row_stride, 4);
  EXPECT_EQ(g.a_col_stride, 1);
  EXPECT_EQ(g.b, w.data_ptr());
  EXPECT_EQ(g.b_row_stride, 1);
  EXPECT_EQ(g.b_col_stride, 4);
  EXPECT_EQ(g.c, out.data_ptr());
  EXPECT_EQ(g.beta, 0.0);
  EXPECT_EQ(out.sizes(), Shape({3, 5}));
}

TEST_F(DeviceOpsTest, OperandWithoutUnitStrideIsCopied) {
  Tensor big = dev({3, 8});
  Tensor a = views::slice(big, 1, 0, 8, 2);  // [3, 4], strides (8, 2)
  Tensor b = dev({4, 2});
  ops::matmul(a, b);
  ASSERT_EQ(rec.of("copy").size(), 1u);
  const KernelCall c = rec.of("copy")[0];
  EXPECT_EQ(c.operands[1].data, a.data_ptr());
  const GemmArgs g = rec.of("gemm").at(0).gemm;
  EXPECT_EQ(g.a, c.operands[0].data);  // the copy feeds gemm
  EXPECT_EQ(g.a_row_stride, 4);
  EXPECT_EQ(g.a_col_stride, 1);
}

TEST_F(DeviceOpsTest, BatchedMatmulBroadcastsBatchByStrideZero) {
  Tensor a = dev({2, 3, 4}), b = dev({4, 5});
  Tensor out = ops::matmul(a, b);
  ASSERT_EQ(rec.of("gemm").size(), 1u);
  const GemmArgs g = rec.of("gemm")[0].gemm;
  EXPECT_EQ(g.batch, 2);
  EXPECT_EQ(g.a_batch_stride, 12);
  EXPECT_EQ(g.b_batch_stride, 0);
  EXPECT_EQ(g.c_batch_stride, 15);
  EXPECT_EQ(out.sizes(), Shape({2, 3, 5}));
}

TEST_F(DeviceOpsTest, LinearCopiesBiasThenGemmWithBetaOne) {
  Tensor x = dev({6, 4}), w = dev({3, 4}), bias = dev({3});
  Tensor y = ops::linear(x, w, bias);
  ASSERT_EQ(rec.calls.size(), 2u);
  EXPECT_EQ(rec.calls[0].what, "copy");
  EXPECT_EQ(strides_of(rec.calls[0].shape, rec.calls[0].operands[1]), Shape({0, 1}));
  const GemmArgs g = rec.calls[1].gemm;
  EXPECT_EQ(g.beta, 1.0);
  EXPECT_EQ(g.b, w.data_ptr());  // weight^T read by strides
  EXPECT_EQ(g.b_row_stride, 1);
  EXPECT_EQ(g.b_col_stride, 4);
  EXPECT_EQ(y.sizes(), Shape({6, 3}));
}

TEST_F(DeviceOpsTest, MeanOverDimGivesReduceArgs) {
  Tensor x = dev({4, 5, 6});
  Tensor m = ops::mean(x, {1}, false);
  ASSERT_EQ(rec.of("reduce").size(), 1u);
  const ReduceArgs r = rec.of("reduce")[0].reduce;
  EXPECT_EQ(Shape(r.outer.sizes, r.outer.sizes + r.outer.ndim), Shape({4, 6}));
  EXPECT_EQ(Shape(r.out.strides, r.out.strides + 2), Shape({6, 1}));
  EXPECT_EQ(Shape(r.in.strides, r.in.strides + 2), Shape({30, 1}));
  EXPECT_EQ(Shape(r.inner.sizes, r.inner.sizes + r.inner.ndim), Shape({5}));
  EXPECT_EQ(r.in_inner_strides[0], 6);
  EXPECT_DOUBLE_EQ(r.scale, 1.0 / 5);
  EXPECT_EQ(r.indices.data, nullptr);
  EXPECT_EQ(m.sizes(), Shape({4, 6}));
}

TEST_F(DeviceOpsTest, ArgmaxGivesIndices) {
  Tensor x = dev({4, 10});
  Tensor i = ops::argmax(x, 1, false);
  const ReduceArgs r = rec.of("reduce").at(0).reduce;
  EXPECT_EQ(r.indices.data, i.data_ptr());
  EXPECT_EQ(r.indices.dtype, TSR_INT64);
  EXPECT_EQ(i.dtype(), TSR_INT64);
  EXPECT_EQ(i.sizes(), Shape({4}));
}

TEST_F(DeviceOpsTest, MoreThanMaxDimsLoopsOverOuterDims) {
  // 26 dims of 2 reversed: no two adjacent dims coalesce in the source.
  Shape sizes(26, 2), perm;
  for (int64_t d = 25; d >= 0; --d) perm.push_back(d);
  Tensor x = views::permute(dev(sizes, TSR_UINT8), perm);
  ops::contiguous(x, TSR_CONTIGUOUS_FORMAT);
  ASSERT_EQ(rec.of("copy").size(), 2u);
  const KernelCall c0 = rec.of("copy")[0], c1 = rec.of("copy")[1];
  EXPECT_EQ(c0.shape.ndim, kMaxKernelDims);
  // The second call starts one outer step further in both operands.
  EXPECT_EQ(static_cast<char*>(c1.operands[0].data) - static_cast<char*>(c0.operands[0].data),
            int64_t(1) << 25);
  EXPECT_EQ(static_cast<char*>(c1.operands[1].data) - static_cast<char*>(c0.operands[1].data), 1);
}

TEST_F(DeviceOpsTest, DropoutNoiseAndMaskOnDevice) {
  Tensor noise = device::bernoulli_noise(rec, {8}, TSR_FLOAT32, sim_device(), 0.25, 7, 100);
  EXPECT_EQ(rec.of("bernoulli_noise").size(), 1u);
  EXPECT_EQ(noise.device(), sim_device());
}

TEST_F(DeviceOpsTest, InPlaceAddWritesSelf) {
  Tensor p = dev({10}), gr = dev({10});
  ops::add_(p, gr, -0.1);
  ASSERT_EQ(rec.calls.size(), 1u);
  const KernelCall c = rec.calls[0];
  EXPECT_EQ(c.operands[0].data, p.data_ptr());
  EXPECT_EQ(c.operands[1].data, p.data_ptr());
  EXPECT_EQ(c.operands[2].data, gr.data_ptr());
  EXPECT_DOUBLE_EQ(c.alpha, -0.1);
  EXPECT_EQ(p.version(), 1);
}

TEST_F(DeviceOpsTest, ViewsRunWithoutKernels) {
  Tensor x = dev({4, 6});
  Tensor v = ops::transpose(ops::narrow(x, 1, 2, 3), 0, 1);
  EXPECT_TRUE(rec.calls.empty());
  EXPECT_EQ(v.storage().get(), x.storage().get());
  EXPECT_EQ(v.sizes(), Shape({3, 4}));
}

// The kernel calls backward(y, g) makes on the device, y a view of a leaf
// (only the view scatter's: its output becomes the leaf's .grad as it is).
std::vector<KernelCall> backward_calls(RecordingKernels& rec, const Tensor& y, const Tensor& g) {
  rec.calls.clear();
  engine::backward(y, g, false);
  return rec.calls;
}

Tensor grad_of(const Tensor& x) { return x.impl()->autograd->grad; }

char* at(const Tensor& t, int64_t elements) { return static_cast<char*>(t.data_ptr()) + elements * 4; }

TEST_F(DeviceOpsTest, ExpandBackwardSumsBroadcastDimsThenAddsOnce) {
  Tensor x = dev({3});
  autograd::set_requires_grad(x, true);
  Tensor y = ops::expand(x, {4, 3});
  Tensor g = dev({4, 3});
  const std::vector<KernelCall> calls = backward_calls(rec, y, g);
  // zeros(3); the gradient summed over the expanded dim; one add of [3]
  // into the zeros. No launch writes an element twice.
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].what, "fill");
  EXPECT_EQ(sizes_of(calls[0].shape), Shape({3}));
  void* zeros = calls[0].operands[0].data;
  ASSERT_EQ(calls[1].what, "reduce");
  const ReduceArgs r = calls[1].reduce;
  EXPECT_EQ(Shape(r.outer.sizes, r.outer.sizes + r.outer.ndim), Shape({3}));
  EXPECT_EQ(Shape(r.inner.sizes, r.inner.sizes + r.inner.ndim), Shape({4}));
  EXPECT_EQ(r.in.data, g.data_ptr());
  EXPECT_EQ(r.in.strides[0], 1);
  EXPECT_EQ(r.in_inner_strides[0], 3);
  EXPECT_EQ(r.scale, 1.0);
  EXPECT_EQ(r.out.dtype, TSR_FLOAT32);
  ASSERT_EQ(calls[2].what, "binary");
  const KernelCall& add = calls[2];
  EXPECT_EQ(sizes_of(add.shape), Shape({3}));
  EXPECT_EQ(add.operands[0].data, zeros);
  EXPECT_EQ(add.operands[1].data, zeros);
  EXPECT_EQ(add.operands[2].data, r.out.data);  // the sum feeds the add
  EXPECT_EQ(strides_of(add.shape, add.operands[0]), Shape({1}));
  EXPECT_EQ(strides_of(add.shape, add.operands[2]), Shape({1}));
  EXPECT_EQ(add.alpha, 1.0);
  EXPECT_FALSE(gpu::writes_an_element_twice(add.shape, add.operands[0]));
  // x.grad is the scattered buffer itself.
  EXPECT_EQ(grad_of(x).data_ptr(), zeros);
}

TEST_F(DeviceOpsTest, UnfoldBackwardSplitsOverlappingWindowsIntoDisjointLaunches) {
  // Windows of 3 every 1 over 6 elements: [4, 3], strides (1, 1); element
  // e is in windows e-2, e-1, e. The add into the replayed view goes as 3
  // launches, one per position in the window, each writing 4 distinct
  // elements, queued in order on one stream.
  Tensor x = dev({6});
  autograd::set_requires_grad(x, true);
  Tensor y = ops::unfold(x, 0, 3, 1);
  ASSERT_EQ(y.strides(), Shape({1, 1}));
  Tensor g = dev({4, 3});
  const std::vector<KernelCall> calls = backward_calls(rec, y, g);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].what, "fill");
  EXPECT_EQ(sizes_of(calls[0].shape), Shape({6}));
  const Tensor zeros = grad_of(x);
  EXPECT_EQ(calls[0].operands[0].data, zeros.data_ptr());
  for (int64_t p = 0; p < 3; ++p) {
    const KernelCall& add = calls[size_t(1 + p)];
    ASSERT_EQ(add.what, "binary") << "part " << p;
    EXPECT_EQ(sizes_of(add.shape), Shape({4})) << "part " << p;
    // Position p of every window: elements p .. p+3 of the buffer, and
    // column p of the gradient.
    EXPECT_EQ(add.operands[0].data, at(zeros, p)) << "part " << p;
    EXPECT_EQ(add.operands[1].data, at(zeros, p)) << "part " << p;
    EXPECT_EQ(add.operands[2].data, at(g, p)) << "part " << p;
    EXPECT_EQ(strides_of(add.shape, add.operands[0]), Shape({1})) << "part " << p;
    EXPECT_EQ(strides_of(add.shape, add.operands[2]), Shape({3})) << "part " << p;
    EXPECT_FALSE(gpu::writes_an_element_twice(add.shape, add.operands[0])) << "part " << p;
  }
}

TEST_F(DeviceOpsTest, NonOverlappingScatterStaysOneLaunch) {
  // A narrow's backward: a strided, non-dense but one-to-one destination.
  Tensor x = dev({4, 6});
  autograd::set_requires_grad(x, true);
  Tensor y = ops::narrow(x, 1, 1, 3);
  const std::vector<KernelCall> calls = backward_calls(rec, y, dev({4, 3}));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].what, "fill");
  EXPECT_EQ(calls[1].what, "binary");
  EXPECT_EQ(sizes_of(calls[1].shape), Shape({4, 3}));
}

TEST(DisjointSplits, SplitOnlyWhatRepeatsElements) {
  using device::disjoint_splits;
  // One-to-one layouts: contiguous, transposed, strided, as_strided((2, 3),
  // (3, 2)) whose elements 0 2 4 / 3 5 7 interleave (not provable by the
  // stride rule: split, conservatively).
  EXPECT_TRUE(disjoint_splits({4, 5}, {5, 1}).empty());
  EXPECT_TRUE(disjoint_splits({4, 5}, {1, 4}).empty());
  EXPECT_TRUE(disjoint_splits({4, 3}, {12, 2}).empty());
  EXPECT_EQ(disjoint_splits({2, 3}, {3, 2}).size(), 1u);
  // unfold(size 3, step 1): the window dim, by 3.
  auto s = disjoint_splits({4, 3}, {1, 1});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].dim, 1u);
  EXPECT_EQ(s[0].k, 3);
  // unfold(size 5, step 2): ceil(5 / 2) parts along the window count.
  s = disjoint_splits({6, 5}, {2, 1});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].dim, 0u);
  EXPECT_EQ(s[0].k, 3);
  // A stride-0 dim: one part per index.
  s = disjoint_splits({3, 4}, {0, 1});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].dim, 0u);
  EXPECT_EQ(s[0].k, 3);
}

TEST_F(DeviceOpsTest, MixedDevicesRefusedWithTorchMessage) {
  Tensor a = dev({3}), b = empty({3}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
  try {
    ops::add(a, b);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_DEVICE_MISMATCH);
    EXPECT_STREQ(e.what(), "Expected all tensors to be on the same device, but found at least two "
                           "devices, ext:0 and cpu!");
  }
  EXPECT_TRUE(rec.calls.empty());
}

}  // namespace
}  // namespace tsr::devtest
