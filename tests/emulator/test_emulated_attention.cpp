// Attention's forward in shared-memory tiles (attention_functors.cuh's
// SdpaForwardTiles, run block synchronously by the grid emulator with
// poisoned shared memory) against the per-row form (SdpaForwardFn, the
// reference the CPU comparisons of bindings_python_cuda_emulated hold): the
// same logsumexp and output, within the rounding of a sum taken tile by
// tile instead of key by key, over rows and keys that cross block and tile
// edges, the causal rule (fewer tiles per block), bool and float masks, a
// row with no key, a NaN, dropout, float32 and float64; which kernel runs
// for small and for large head sizes.
#include <cmath>
#include <limits>
#include <vector>

#include "core/philox.h"
#include "emulator/emulated_kernels.h"
#include "kernels/attention_functors.cuh"
#include "emulator_test_util.h"

namespace tsr::gpu::test {
namespace {

struct Problem {
  int64_t batch, L, S, E, Ev;
  bool causal = false;
  int mask = 0;  // 0 none, 1 bool (row 3 fully hidden), 2 float
  bool dropout = false;
  bool nan = false;  // q[0, 5, 0] = NaN
};

template <typename C>
struct Buffers {
  std::vector<C> q, k, v, lse, acc;
  std::vector<uint8_t> bool_mask;
  std::vector<C> float_mask;
};

template <typename C>
SdpaDeviceArgs make_args(const Problem& p, tsr_dtype dtype, Buffers<C>& r) {
  auto fill = [](std::vector<C>& x, size_t n, double phase) {
    x.resize(n);
    for (size_t i = 0; i < n; ++i) x[i] = C(std::sin(0.61 * double(i) + phase));
  };
  fill(r.q, size_t(p.batch * p.L * p.E), 0.1);
  fill(r.k, size_t(p.batch * p.S * p.E), 0.7);
  fill(r.v, size_t(p.batch * p.S * p.Ev), 1.3);
  if (p.nan) r.q[size_t(5 * p.E)] = std::numeric_limits<C>::quiet_NaN();
  r.lse.assign(size_t(p.batch * p.L), C(-7));
  r.acc.assign(size_t(p.batch * p.L * p.Ev), C(-7));
  SdpaDeviceArgs a{};
  a.batch = p.batch;
  a.L = p.L;
  a.S = p.S;
  a.E = p.E;
  a.Ev = p.Ev;
  a.dtype = dtype;
  a.q = r.q.data();
  a.k = r.k.data();
  a.v = r.v.data();
  a.causal = p.causal;
  a.scale = 1.0 / std::sqrt(double(p.E));
  const size_t mask_n = size_t(p.batch * p.L * p.S);
  if (p.mask == 1) {
    r.bool_mask.resize(mask_n);
    for (size_t x = 0; x < mask_n; ++x) r.bool_mask[x] = (x % 7 != 3) && (x / size_t(p.S)) % size_t(p.L) != 3;
    a.mask = r.bool_mask.data();
    a.mask_dtype = TSR_BOOL;
  } else if (p.mask == 2) {
    fill(r.float_mask, mask_n, 2.9);
    a.mask = r.float_mask.data();
    a.mask_dtype = dtype;
  }
  if (p.dropout) {
    a.dropout = true;
    a.seed = 1234;
    a.start = 40;
    const philox::DropoutMask dm = philox::dropout_mask(0.3);
    a.threshold = dm.threshold;
    a.keep_scale = dm.scale;
  }
  a.lse = r.lse.data();
  a.acc = r.acc.data();
  return a;
}

template <typename C>
void expect_tiles_equal_rows(const Problem& p, tsr_dtype dtype, double tol) {
  Buffers<C> tiles, rows;
  const SdpaDeviceArgs ta = make_args<C>(p, dtype, tiles), ra = make_args<C>(p, dtype, rows);
  emulate_block_tiles(3, SdpaForwardTiles<C>{ta}, size_t(SdpaForwardTiles<C>::shared_elements(ta)) * sizeof(C));
  emulate_grid_stride(p.batch * p.L, LaunchShape{}, SdpaForwardFn<C>{ra});
  for (size_t x = 0; x < rows.lse.size(); ++x) {
    if (std::isnan(double(rows.lse[x]))) {
      EXPECT_TRUE(std::isnan(double(tiles.lse[x]))) << "lse " << x;
    } else if (std::isinf(double(rows.lse[x]))) {
      EXPECT_EQ(tiles.lse[x], rows.lse[x]) << "lse " << x;
    } else {
      EXPECT_NEAR(double(tiles.lse[x]), double(rows.lse[x]), tol * (1 + std::fabs(double(rows.lse[x])))) << "lse " << x;
    }
  }
  for (size_t x = 0; x < rows.acc.size(); ++x) {
    if (std::isnan(double(rows.acc[x]))) {
      EXPECT_TRUE(std::isnan(double(tiles.acc[x]))) << "out " << x;
    } else {
      EXPECT_NEAR(double(tiles.acc[x]), double(rows.acc[x]), tol * (1 + std::fabs(double(rows.acc[x])))) << "out " << x;
    }
  }
}

TEST(EmulatedAttention, TilesEqualTheRowFormFloat32) {
  // 70 rows: a second block of 6; 45 keys: a partial second tile.
  const Problem cases[] = {
      {2, 70, 45, 8, 5},
      {2, 70, 45, 8, 5, true},
      {1, 67, 100, 4, 6, false, 1},
      {1, 67, 100, 4, 6, true, 2},
      {2, 9, 33, 3, 3, false, 0, true},
      {1, 10, 40, 4, 4, false, 0, false, true},
      {1, 130, 3, 2, 2, true},  // more queries than keys, causal: blocks of one tile
  };
  for (const Problem& p : cases) {
    SCOPED_TRACE(testing::Message() << "L " << p.L << " S " << p.S << " causal " << p.causal << " mask " << p.mask
                                    << " dropout " << p.dropout << " nan " << p.nan);
    expect_tiles_equal_rows<float>(p, TSR_FLOAT32, 2e-6);
  }
}

TEST(EmulatedAttention, TilesEqualTheRowFormFloat64) {
  expect_tiles_equal_rows<double>({2, 70, 45, 8, 5, true, 2, true}, TSR_FLOAT64, 1e-13);
}

// Head sizes whose K and V tile fits in 48 KiB run the tiles; larger ones
// the per-row kernel.
TEST(EmulatedAttention, LargeHeadsTakeTheRowKernel) {
  for (int64_t e : {int64_t(8), int64_t(200)}) {
    Buffers<float> r;
    Problem p{1, 3, 4, e, e};
    const SdpaDeviceArgs a = make_args<float>(p, TSR_FLOAT32, r);
    EmulatedKernels k;
    k.sdpa_forward(a, Stream{});
    ASSERT_EQ(k.launches().size(), 1u);
    EXPECT_STREQ(k.launches()[0], e == 8 ? "sdpa_forward_tiles" : "sdpa_forward");
  }
}

}  // namespace
}  // namespace tsr::gpu::test
