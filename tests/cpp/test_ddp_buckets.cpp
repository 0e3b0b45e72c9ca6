// DistributedDataParallel's bucket assignment against torch 1.13's
// torch.distributed._compute_bucket_assignment_by_size (the expected lists
// were printed by it, with the same tensors, limits and labels), and the
// views a bucket gives each parameter.
#include <gtest/gtest.h>

#include "core/factory.h"
#include "distributed/ddp_buckets.h"

using namespace tsr;
using distributed::compute_bucket_assignment_by_size;
using Assignment = std::vector<std::vector<int64_t>>;

namespace {

Tensor zeros_of(int64_t n, tsr_dtype dtype = TSR_FLOAT32) {
  return empty(Shape{n}, dtype, TSR_CONTIGUOUS_FORMAT, Device{TSR_DEVICE_CPU, 0});
}

// float32 [100], [300], [50], float64 [10], float32 [200], [1000]
std::vector<Tensor> mixed() {
  return {zeros_of(100), zeros_of(300), zeros_of(50), zeros_of(10, TSR_FLOAT64), zeros_of(200), zeros_of(1000)};
}

}  // namespace

TEST(DdpBuckets, PerDtypeWithFirstLimit) {
  EXPECT_EQ(compute_bucket_assignment_by_size(mixed(), {1200, 1600}, {}), (Assignment{{0, 1}, {2, 4, 5}, {3}}));
  EXPECT_EQ(compute_bucket_assignment_by_size(mixed(), {400, 1600}, {}), (Assignment{{0}, {1, 2, 4}, {3}, {5}}));
}

TEST(DdpBuckets, LabelledTensorsKeepTheirOrder) {
  EXPECT_EQ(compute_bucket_assignment_by_size(mixed(), {1200, 1600}, {5, 4, 3, 2, 1, 0}),
            (Assignment{{5, 4}, {3, 1, 0}, {2}}));
  // a bucket closes at the tensor that reaches its limit exactly
  std::vector<Tensor> ts{zeros_of(256), zeros_of(256), zeros_of(1), zeros_of(512)};
  EXPECT_EQ(compute_bucket_assignment_by_size(ts, {1024, 2048}, {3, 0, 2, 1}), (Assignment{{3}, {0, 2, 1}}));
}

TEST(DdpBuckets, UnlimitedGivesOneBucketPerDtype) {
  std::vector<Tensor> ts{zeros_of(100), zeros_of(0), zeros_of(7, TSR_FLOAT16), zeros_of(3)};
  EXPECT_EQ(compute_bucket_assignment_by_size(ts, {int64_t(1) << 62}, {}), (Assignment{{0, 1, 3}, {2}}));
}

TEST(DdpBuckets, ViewsFollowTheParameterLayout) {
  const Device cpu{TSR_DEVICE_CPU, 0};
  Tensor a = empty(Shape{2, 3}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, cpu);
  Tensor base = empty(Shape{4, 5}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, cpu);
  Tensor transposed = make_view(base, Shape{5, 4}, Shape{1, 5}, 0);  // dense, not C-contiguous
  Tensor strided = make_view(base, Shape{2, 2}, Shape{10, 2}, 0);    // not dense
  distributed::Bucket b = distributed::make_bucket({a, transposed, strided}, {2, 0, 1}, 3);
  EXPECT_EQ(b.contents.numel(), 4 + 6 + 20 + 3);
  EXPECT_EQ(b.tail_offset, 30);
  EXPECT_EQ(b.views[0].strides(), (Shape{2, 1}));  // C-contiguous fallback
  EXPECT_EQ(b.views[0].storage_offset(), 0);
  EXPECT_EQ(b.views[1].strides(), (Shape{3, 1}));
  EXPECT_EQ(b.views[1].storage_offset(), 4);
  EXPECT_EQ(b.views[2].strides(), (Shape{1, 5}));  // the parameter's own strides
  EXPECT_EQ(b.views[2].storage_offset(), 10);
  for (const Tensor& v : b.views) EXPECT_TRUE(v.storage() == b.contents.storage());
}
