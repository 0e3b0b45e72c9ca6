// CudaKernels on a real GPU: every method on device memory, compared with
// EmulatedKernels on the same host inputs (the same functors run by the CPU
// grid emulator, which tests/emulator checks against the CPU kernels):
// bit for bit for copies, fills, integer and +-*/ arithmetic (but for the
// sign and payload of NaNs that arithmetic produces), max, nll and dropout
// noise; within a few ULPs for transcendental functions and sums.
// Row ops run both of their paths (one thread per row, one block per row).
// Without a CUDA device it prints why and exits 77 (ctest's skip).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "cuda_stream_table.h"
#include "emulator/emulated_kernels.h"
#include "emulator_test_util.h"
#include "kernels/cuda_kernels.h"
#include "kernels/row_path.h"

namespace tsr::gpu::test {
namespace {

const Stream kCudaStream{Device{TSR_DEVICE_CUDA, 0}, 0};

// Device copy of the bytes a host tensor's view spans (its strides keep
// their meaning on the device).
struct DeviceCopy {
  void* ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceCopy(const Tensor& t) {
    int64_t extent = 1;
    for (int64_t d = 0; d < t.ndim(); ++d) extent += (t.sizes()[d] - 1) * t.strides()[d];
    bytes = size_t(std::max<int64_t>(extent, 1) * t.element_size());
    EXPECT_EQ(cudaMalloc(&ptr, bytes), cudaSuccess);
    if (t.numel() > 0) {
      EXPECT_EQ(cudaMemcpy(ptr, t.data_ptr(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  ~DeviceCopy() { cudaFree(ptr); }
  void back(const Tensor& t) const {
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    if (t.numel() > 0) {
      ASSERT_EQ(cudaMemcpy(t.data_ptr(), ptr, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    }
  }
  KernelOperand op(const Tensor& t, const Shape& sizes) const {
    KernelOperand o = kop(t, sizes);
    o.data = ptr;
    return o;
  }
};

Tensor host(const Shape& s, tsr_dtype d) { return empty(s, d, TSR_CONTIGUOUS_FORMAT, kCpu); }

TEST(CudaKernels, CopyEveryDtypePair) {
  EmulatedKernels emu;
  for (tsr_dtype from : all_dtypes())
    for (tsr_dtype to : all_dtypes()) {
      Tensor src = views::permute(sample({5, 7, 3}, from), {2, 0, 1});
      Tensor want = host(src.sizes(), to), got = host(src.sizes(), to);
      emu.copy(kshape(src.sizes()), kop(want), kop(src), kNoStream);
      DeviceCopy s(src), o(got);
      cuda::cuda_kernels().copy(kshape(src.sizes()), o.op(got, got.sizes()), s.op(src, src.sizes()), kCudaStream);
      o.back(got);
      EXPECT_TRUE(same_bits(want, got)) << dtype_name(from) << " -> " << dtype_name(to);
    }
}

// The tiled copy (kernels/tiled_copy.cuh) on the GPU against the emulator
// (which tests/emulator holds to the CPU), every dtype: the shared cases
// plus a transpose of many tiles and an NCHW -> channels_last one.
TEST(CudaKernels, TiledCopies) {
  EmulatedKernels emu;
  std::vector<TransposeCase> cases = transpose_cases();
  cases.push_back({{1000, 700}, {1, 0}, true});
  cases.push_back({{8, 64, 56 * 56}, {0, 2, 1}, true});
  // An empty batch dim: the copy returns before asking for a launch of 0
  // blocks (kernel_dispatch.h dispatch_copy), which CUDA refuses.
  cases.push_back({{0, 64, 70}, {0, 2, 1}, true});
  for (const TransposeCase& c : cases)
    for (tsr_dtype d : all_dtypes()) {
      Tensor src = views::permute(sample(c.base, d), c.perm);
      Tensor want = host(src.sizes(), d), got = host(src.sizes(), d);
      emu.copy(kshape(src.sizes()), kop(want), kop(src), kNoStream);
      DeviceCopy s(src), o(got);
      cuda::cuda_kernels().copy(kshape(src.sizes()), o.op(got, got.sizes()), s.op(src, src.sizes()),
                                kCudaStream);
      o.back(got);
      EXPECT_TRUE(same_bits(want, got)) << dtype_name(d) << " base " << c.base.size() << "-D";
    }
}

// The dense float32 paths (kernels/dense_functors.cuh: 4-element packs) on
// the GPU against the emulator, over a size that is no multiple of 4 (a
// tail) and the float32 <-> float16/bfloat16 copies. cudaMalloc'd
// operands are aligned, so the GPU takes the dense path as the emulator does.
TEST(CudaKernels, DensePaths) {
  EmulatedKernels emu;
  auto& dev = cuda::cuda_kernels();
  const Shape s{1000, 1003};
  for (int op = 0; op <= int(UnaryKernel::GtScalar); ++op) {
    Tensor x = sample(s, TSR_FLOAT32);
    Tensor want = host(s, TSR_FLOAT32), got = host(s, TSR_FLOAT32);
    emu.unary(UnaryKernel(op), kshape(s), kop(want), kop(x), 1.5, TSR_FLOAT32, kNoStream);
    ASSERT_STREQ(emu.launches().back(), "unary_dense");
    DeviceCopy xi(x), o(got);
    dev.unary(UnaryKernel(op), kshape(s), o.op(got, s), xi.op(x, s), 1.5, TSR_FLOAT32, kCudaStream);
    o.back(got);
    EXPECT_TRUE(close(want, got, tolerance(TSR_FLOAT32))) << "unary " << op;
  }
  for (int op = 0; op <= int(BinaryKernel::Ge); ++op) {
    Tensor a = sample(s, TSR_FLOAT32, 1), b = sample(s, TSR_FLOAT32, 2);
    Tensor want = host(s, TSR_FLOAT32), got = host(s, TSR_FLOAT32);
    emu.binary(BinaryKernel(op), kshape(s), kop(want), kop(a), kop(b), 0.75, TSR_FLOAT32, kNoStream);
    ASSERT_STREQ(emu.launches().back(), "binary_dense");
    DeviceCopy ai(a), bi(b), o(got);
    dev.binary(BinaryKernel(op), kshape(s), o.op(got, s), ai.op(a, s), bi.op(b, s), 0.75, TSR_FLOAT32,
               kCudaStream);
    o.back(got);
    if (op <= int(BinaryKernel::ReluBackward)) EXPECT_TRUE(same_bits_any_nan(want, got)) << "binary " << op;
    else EXPECT_TRUE(close(want, got, tolerance(TSR_FLOAT32))) << "binary " << op;
  }
  // add/sub with alpha != 1 on the general path too: the product and the
  // sum rounded apart, as on the CPU (element_math.cuh's unfused_mul).
  for (tsr_dtype d : {TSR_FLOAT64, TSR_BFLOAT16, TSR_FLOAT32})
    for (BinaryKernel op : {BinaryKernel::Add, BinaryKernel::Sub}) {
      Tensor a = sample({40, 50}, d, 1), b = views::t(sample({50, 40}, d, 2));
      Tensor want = host({40, 50}, d), got = host({40, 50}, d);
      emu.binary(op, kshape({40, 50}), kop(want), kop(a), kop(b), 0.75, d, kNoStream);
      DeviceCopy ai(a), bi(b), o(got);
      dev.binary(op, kshape({40, 50}), o.op(got, got.sizes()), ai.op(a, a.sizes()), bi.op(b, b.sizes()), 0.75,
                 d, kCudaStream);
      o.back(got);
      EXPECT_TRUE(same_bits_any_nan(want, got)) << "binary " << int(op) << " " << dtype_name(d);
    }
  for (const auto& [from, to] : dense_conversion_pairs()) {
    Tensor src = sample(s, from);
    Tensor want = host(s, to), got = host(s, to);
    emu.copy(kshape(s), kop(want), kop(src), kNoStream);
    ASSERT_STREQ(emu.launches().back(), "copy_dense");
    DeviceCopy si(src), o(got);
    dev.copy(kshape(s), o.op(got, s), si.op(src, s), kCudaStream);
    o.back(got);
    EXPECT_TRUE(same_bits(want, got)) << dtype_name(from) << " -> " << dtype_name(to);
  }
}

TEST(CudaKernels, FillUnaryBinary) {
  EmulatedKernels emu;
  for (tsr_dtype d : all_dtypes()) {
    Tensor want = host({3, 50}, d), got = host({3, 50}, d);
    emu.fill(kshape({3, 50}), kop(want), -2.5, kNoStream);
    DeviceCopy o(got);
    cuda::cuda_kernels().fill(kshape({3, 50}), o.op(got, got.sizes()), -2.5, kCudaStream);
    o.back(got);
    EXPECT_TRUE(same_bits(want, got)) << dtype_name(d);
  }
  for (tsr_dtype d : {TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64})
    for (int op = 0; op <= int(UnaryKernel::GtScalar); ++op) {
      Tensor x = views::t(sample({60, 7}, d));
      Tensor want = host(x.sizes(), d), got = host(x.sizes(), d);
      emu.unary(UnaryKernel(op), kshape(x.sizes()), kop(want), kop(x), 1.7, d, kNoStream);
      DeviceCopy xi(x), o(got);
      cuda::cuda_kernels().unary(UnaryKernel(op), kshape(x.sizes()), o.op(got, got.sizes()), xi.op(x, x.sizes()),
                                 1.7, d, kCudaStream);
      o.back(got);
      EXPECT_TRUE(close(want, got, tolerance(d))) << "unary " << op << " " << dtype_name(d);
    }
  for (tsr_dtype d : {TSR_INT32, TSR_UINT8, TSR_FLOAT16, TSR_FLOAT32, TSR_FLOAT64, TSR_BOOL})
    for (int op = 0; op <= int(BinaryKernel::Ge); ++op) {
      const bool is_float = d != TSR_INT32 && d != TSR_UINT8 && d != TSR_BOOL;
      if (!is_float && op > int(BinaryKernel::Mul)) continue;
      if (d == TSR_BOOL && op != int(BinaryKernel::Add) && op != int(BinaryKernel::Mul)) continue;
      if (!is_float && op == int(BinaryKernel::Div)) continue;
      const Shape s{40, 5, 6};
      Tensor a = sample({40, 1, 6}, d, 1), b = views::t(sample({1, 5}, d, 2));
      Tensor want = host(s, d), got = host(s, d);
      emu.binary(BinaryKernel(op), kshape(s), kop(want), kop(a, s), kop(b, s), 1.0, d, kNoStream);
      DeviceCopy ai(a), bi(b), o(got);
      cuda::cuda_kernels().binary(BinaryKernel(op), kshape(s), o.op(got, s), ai.op(a, s), bi.op(b, s), 1.0, d,
                                  kCudaStream);
      o.back(got);
      // Exact, but a NaN's sign and payload are the device's (same_bits_any_nan).
      if (op <= int(BinaryKernel::ReluBackward)) EXPECT_TRUE(same_bits_any_nan(want, got)) << "binary " << op;
      else EXPECT_TRUE(close(want, got, tolerance(d))) << "binary " << op << " " << dtype_name(d);
    }
}

TEST(CudaKernels, RowsAndNoise) {
  EmulatedKernels emu;
  auto& dev = cuda::cuda_kernels();
  for (tsr_dtype d : {TSR_FLOAT16, TSR_FLOAT32, TSR_FLOAT64}) {
    Tensor x = sample({30, 70, 4}, d, 3, false);
    Tensor want = host(x.sizes(), d), got = host(x.sizes(), d);
    emu.softmax(true, want.data_ptr(), x.data_ptr(), d, 30, 70, 4, kNoStream);
    DeviceCopy xi(x), o(got);
    dev.softmax(true, o.ptr, xi.ptr, d, 30, 70, 4, kCudaStream);
    o.back(got);
    EXPECT_TRUE(close(want, got, tolerance(d))) << dtype_name(d);
    Tensor gw = host(x.sizes(), d), gg = host(x.sizes(), d);
    emu.log_softmax_backward(gw.data_ptr(), x.data_ptr(), want.data_ptr(), d, 30, 70, 4, kNoStream);
    DeviceCopy wi(want), go(gg);
    dev.log_softmax_backward(go.ptr, xi.ptr, wi.ptr, d, 30, 70, 4, kCudaStream);
    go.back(gg);
    EXPECT_TRUE(close(gw, gg, tolerance(d) * 10)) << dtype_name(d);
    // Sum over dim 1 and max over dim 1 with indices.
    ReduceArgs r{};
    r.outer = kshape({30, 4});
    r.inner = kshape({70});
    r.in = KernelOperand{x.data_ptr(), d, {280, 1}};
    r.in_inner_strides[0] = 4;
    r.scale = 1;
    Tensor sw = host({30, 4}, d), sg = host({30, 4}, d), iw = host({30, 4}, TSR_INT64), ig = host({30, 4}, TSR_INT64);
    for (ReduceKernel op : {ReduceKernel::Sum, ReduceKernel::Max, ReduceKernel::Min}) {
      r.out = kop(sw);
      r.indices = op != ReduceKernel::Sum ? kop(iw) : KernelOperand{nullptr, TSR_INT64, {}};
      emu.reduce(op, r, kNoStream);
      DeviceCopy so(sg), io(ig);
      ReduceArgs rd = r;
      rd.in.data = xi.ptr;
      rd.out = so.op(sg, sg.sizes());
      rd.indices = op != ReduceKernel::Sum ? io.op(ig, ig.sizes()) : KernelOperand{nullptr, TSR_INT64, {}};
      dev.reduce(op, rd, kCudaStream);
      so.back(sg);
      io.back(ig);
      if (op != ReduceKernel::Sum) {
        EXPECT_TRUE(same_bits(sw, sg));
        EXPECT_TRUE(same_bits(iw, ig));
      } else {
        EXPECT_TRUE(close(sw, sg, tolerance(d)));
      }
    }
    // cumsum (from the end) and prod along dim 1 (issue 32's scan kernel):
    // one thread per line, the emulator's result bit for bit.
    for (ScanKernel op : {ScanKernel::CumSum, ScanKernel::Prod}) {
      const bool prod = op == ScanKernel::Prod;
      Tensor cw = host(prod ? Shape{30, 4} : Shape{30, 70, 4}, d), cg = host(cw.sizes(), d);
      ScanArgs a{};
      a.op = op;
      a.lines = kshape({30, 4});
      a.in = KernelOperand{x.data_ptr(), d, {280, 1}};
      a.out = KernelOperand{cw.data_ptr(), d, {prod ? 4 : 280, 1}};
      a.len = 70;
      a.in_stride = 4;
      a.out_stride = prod ? 0 : 4;
      a.reverse = !prod;
      emu.scan(a, kNoStream);
      DeviceCopy co(cg);
      ScanArgs ad = a;
      ad.in.data = xi.ptr;
      ad.out.data = co.ptr;
      dev.scan(ad, kCudaStream);
      co.back(cg);
      EXPECT_TRUE(same_bits(cw, cg)) << dtype_name(d) << (prod ? " prod" : " cumsum");
    }
    // nll loss and its backward.
    Tensor logp = sample({50, 7}, d, 5, false);
    Tensor target = make_tensor({50}, TSR_INT64, [](int64_t i) { return double(i % 7); });
    Tensor lw = host({}, d), lg = host({}, d), bw = host({50, 7}, d), bg = host({50, 7}, d);
    Tensor grad = make_tensor({}, d, [](int64_t) { return 0.5; });
    emu.nll_loss(lw.data_ptr(), logp.data_ptr(), target.data<int64_t>(), d, 50, 7, kNoStream);
    emu.nll_loss_backward(bw.data_ptr(), grad.data_ptr(), target.data<int64_t>(), d, 50, 7, kNoStream);
    DeviceCopy li(logp), ti(target), gi(grad), lo(lg), bo(bg);
    dev.nll_loss(lo.ptr, li.ptr, static_cast<const int64_t*>(ti.ptr), d, 50, 7, kCudaStream);
    dev.nll_loss_backward(bo.ptr, gi.ptr, static_cast<const int64_t*>(ti.ptr), d, 50, 7, kCudaStream);
    lo.back(lg);
    bo.back(bg);
    EXPECT_TRUE(same_bits(lw, lg));
    EXPECT_TRUE(same_bits(bw, bg));
    // Dropout noise.
    Tensor nw = host({100003}, d), ng = host({100003}, d);
    emu.bernoulli_noise(nw.data_ptr(), d, 100003, 42, 5, 1u << 23, 2.0, kNoStream);
    DeviceCopy no(ng);
    dev.bernoulli_noise(no.ptr, d, 100003, 42, 5, 1u << 23, 2.0, kCudaStream);
    no.back(ng);
    EXPECT_TRUE(same_bits(nw, ng));
  }
}

// The block paths (kernels/row_path.h: rows of >= 64 elements): one long
// row, strided rows side by side (column blocks: 7 rows, and 2000 rows of
// 3000 as a sum over dim 0), more rows than the launcher's 65535 blocks.
// The emulator's default LaunchShape is the CUDA launcher's, so both split
// rows among threads alike (but for column blocks the kernel's registers
// cut short) and combine in the same tree: max and integer sums must agree
// bit for bit, floating results within exp/log's ULPs.
TEST(CudaKernels, BlockRows) {
  auto& dev = cuda::cuda_kernels();
  struct Rows {
    Tensor x;  // [rows, len], reduced over dim 1
    const char* what;
    bool nans;  // sums of NaNs say nothing: max only
  };
  for (tsr_dtype d : {TSR_FLOAT16, TSR_FLOAT32, TSR_FLOAT64, TSR_INT32, TSR_INT64, TSR_BOOL}) {
    const bool fp = d == TSR_FLOAT16 || d == TSR_FLOAT32 || d == TSR_FLOAT64;
    std::vector<Rows> cases{{sample({1, 100000}, d, 3, false), "one row of 100000", false},
                            {views::t(sample({300, 7}, d, 4, true)), "stride-7 rows", true},
                            {views::t(sample({3000, 2000}, d, 7, false)), "sum over dim 0 of [3000, 2000]", false},
                            {sample({70000, 64}, d, 5, false), "70000 rows", false},
                            {sample({1000, 50}, d, 6, true), "rows of 50 (one thread each)", true}};
    for (const Rows& c : cases)
      for (ReduceKernel op : {ReduceKernel::Sum, ReduceKernel::Max}) {
        EmulatedKernels emu;
        const Tensor& x = c.x;
        const int64_t rows = x.sizes()[0];
        const tsr_dtype out_dtype = op == ReduceKernel::Sum && !fp ? TSR_INT64 : d;
        if (op == ReduceKernel::Sum && fp && c.nans) continue;
        ReduceArgs r{};
        r.outer = kshape({rows});
        r.inner = kshape({x.sizes()[1]});
        r.in = KernelOperand{x.data_ptr(), d, {x.strides()[0]}};
        r.in_inner_strides[0] = x.strides()[1];
        r.scale = 1;
        Tensor vw = host({rows}, out_dtype), vg = host({rows}, out_dtype);
        Tensor iw = host({rows}, TSR_INT64), ig = host({rows}, TSR_INT64);
        r.out = kop(vw);
        r.indices = op == ReduceKernel::Max ? kop(iw) : KernelOperand{nullptr, TSR_INT64, {}};
        emu.reduce(op, r, kNoStream);
        const gpu::RowPath path =
            gpu::row_path(rows, x.sizes()[1], x.strides()[1] == 1, rows > 1 && x.strides()[0] == 1);
        EXPECT_EQ(emu.launches().back(), row_launch(op == ReduceKernel::Sum ? "reduce_sum" : "reduce_max", path))
            << c.what;
        DeviceCopy xi(x), vo(vg), io(ig);
        ReduceArgs rd = r;
        rd.in.data = xi.ptr;
        rd.out = vo.op(vg, vg.sizes());
        rd.indices = op == ReduceKernel::Max ? io.op(ig, ig.sizes()) : KernelOperand{nullptr, TSR_INT64, {}};
        dev.reduce(op, rd, kCudaStream);
        vo.back(vg);
        io.back(ig);
        const std::string what = std::string(dtype_name(d)) + ", " + c.what + (op == ReduceKernel::Max ? ", max" : ", sum");
        if (op == ReduceKernel::Max) EXPECT_TRUE(same_bits(iw, ig)) << what;
        if (op == ReduceKernel::Max || !fp) EXPECT_TRUE(same_bits(vw, vg)) << what;
        else EXPECT_TRUE(close(vw, vg, tolerance(d))) << what;
      }
    if (!fp) continue;
    // (log_)softmax and its backward over [outer, len, inner] rows.
    for (const Shape& s : {Shape{4, 5000, 1}, Shape{2, 300, 5}, Shape{70000, 64, 1}, Shape{300, 40, 3},
                           Shape{3, 1000, 700}}) {
      EmulatedKernels emu;
      Tensor x = sample(s, d, 6, false), g = sample(s, d, 7, false);
      Tensor want = host(s, d), got = host(s, d), gw = host(s, d), gg = host(s, d);
      emu.softmax(true, want.data_ptr(), x.data_ptr(), d, s[0], s[1], s[2], kNoStream);
      emu.log_softmax_backward(gw.data_ptr(), g.data_ptr(), want.data_ptr(), d, s[0], s[1], s[2], kNoStream);
      EXPECT_EQ(emu.launches().back(),
                row_launch("log_softmax_backward", gpu::row_path(s[0] * s[2], s[1], s[2] == 1, s[2] > 1)));
      DeviceCopy xi(x), gi(g), wi(want), o(got), go(gg);
      dev.softmax(true, o.ptr, xi.ptr, d, s[0], s[1], s[2], kCudaStream);
      dev.log_softmax_backward(go.ptr, gi.ptr, wi.ptr, d, s[0], s[1], s[2], kCudaStream);
      o.back(got);
      go.back(gg);
      EXPECT_TRUE(close(want, got, tolerance(d))) << dtype_name(d) << " log_softmax len " << s[1];
      EXPECT_TRUE(close(gw, gg, tolerance(d) * 10)) << dtype_name(d) << " backward len " << s[1];
      // Plain softmax: the same row kernel without the log.
      Tensor pw = host(s, d), pg = host(s, d);
      emu.softmax(false, pw.data_ptr(), x.data_ptr(), d, s[0], s[1], s[2], kNoStream);
      DeviceCopy po(pg);
      dev.softmax(false, po.ptr, xi.ptr, d, s[0], s[1], s[2], kCudaStream);
      po.back(pg);
      EXPECT_TRUE(close(pw, pg, tolerance(d))) << dtype_name(d) << " softmax len " << s[1];
    }
    // nll loss over a batch of 100000.
    EmulatedKernels emu;
    Tensor logp = sample({100000, 7}, d, 8, false);
    Tensor target = make_tensor({100000}, TSR_INT64, [](int64_t i) { return double((i * 3) % 7); });
    Tensor lw = host({}, d), lg = host({}, d);
    emu.nll_loss(lw.data_ptr(), logp.data_ptr(), target.data<int64_t>(), d, 100000, 7, kNoStream);
    EXPECT_STREQ(emu.launches().back(), "nll_loss_block");
    DeviceCopy li(logp), ti(target), lo(lg);
    dev.nll_loss(lo.ptr, li.ptr, static_cast<const int64_t*>(ti.ptr), d, 100000, 7, kCudaStream);
    lo.back(lg);
    EXPECT_TRUE(close(lw, lg, tolerance(d))) << dtype_name(d) << " nll_loss";
  }
}

// The selection and layer_norm methods (issue 32) on the GPU against the
// emulator: where, gather and scatter_add bit for bit (selections and
// in-order additions), the index check's first bad position, layer_norm
// within the dtype's tolerance (its row sums split differently per path).
TEST(CudaKernels, SelectionAndLayerNorm) {
  EmulatedKernels emu;
  auto& dev = cuda::cuda_kernels();
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_UINT8}) {
    const Shape s{30, 40};
    Tensor c = sample(s, TSR_BOOL, 3), a = sample(s, d, 1), b = views::t(sample({40, 30}, d, 2));
    Tensor want = host(s, d), got = host(s, d);
    emu.where(kshape(s), kop(want), kop(c), kop(a), kop(b), kNoStream);
    DeviceCopy ci(c), ai(a), bi(b), o(got);
    dev.where(kshape(s), o.op(got, s), ci.op(c, s), ai.op(a, s), bi.op(b, s), kCudaStream);
    o.back(got);
    EXPECT_TRUE(same_bits(want, got)) << "where " << dtype_name(d);
  }
  // gather along dim 1 of a [30, 40] source by an int64 index [30, 25].
  {
    const Shape s{30, 25};
    Tensor x = sample({30, 40}, TSR_FLOAT32, 1);
    Tensor idx = host(s, TSR_INT64);
    for (int64_t i = 0; i < idx.numel(); ++i) idx.data<int64_t>()[i] = (i * 7) % 40;
    KernelOperand xin = kop(x, s);
    xin.strides[1] = 0;
    Tensor want = host(s, TSR_FLOAT32), got = host(s, TSR_FLOAT32);
    emu.gather(kshape(s), kop(want), xin, kop(idx), 1, kNoStream);
    DeviceCopy xi(x), ii(idx), o(got);
    KernelOperand xdev = xi.op(x, s);
    xdev.strides[1] = 0;
    dev.gather(kshape(s), o.op(got, s), xdev, ii.op(idx, s), 1, kCudaStream);
    o.back(got);
    EXPECT_TRUE(same_bits(want, got)) << "gather";
    // scatter_add of src [30, 25] into zeros [30, 40] by the same index.
    Tensor src = sample(s, TSR_FLOAT32, 2);
    Tensor want2 = host({30, 40}, TSR_FLOAT32), got2 = host({30, 40}, TSR_FLOAT32);
    emu.fill(kshape({30, 40}), kop(want2), 0.0, kNoStream);
    // A column is a row here: operand strides over the 30 rows.
    auto rows = [](void* data, tsr_dtype dt, int64_t stride) { return KernelOperand{data, dt, {stride}}; };
    ScatterAddArgs args{};
    args.columns = kshape({30});
    args.out = rows(want2.data_ptr(), TSR_FLOAT32, 40);
    args.src = rows(src.data_ptr(), TSR_FLOAT32, 25);
    args.index = rows(idx.data_ptr(), TSR_INT64, 25);
    args.len = 25;
    args.out_dim_stride = 1;
    args.src_dim_stride = 1;
    args.index_dim_stride = 1;
    emu.scatter_add(args, kNoStream);
    DeviceCopy si(src), o2(got2);
    dev.fill(kshape({30, 40}), o2.op(got2, {30, 40}), 0.0, kCudaStream);
    ScatterAddArgs dargs = args;
    dargs.out = rows(o2.ptr, TSR_FLOAT32, 40);
    dargs.src = rows(si.ptr, TSR_FLOAT32, 25);
    dargs.index = rows(ii.ptr, TSR_INT64, 25);
    dev.scatter_add(dargs, kCudaStream);
    o2.back(got2);
    EXPECT_TRUE(same_bits(want2, got2)) << "scatter_add";
    // index_bounds: both row paths (a short index, a long one), one bad value.
    for (int64_t n : {10, 700}) {
      Tensor bad = host({n}, TSR_INT64);
      for (int64_t i = 0; i < n; ++i) bad.data<int64_t>()[i] = i % 5;
      bad.data<int64_t>()[n - 3] = 5;
      Tensor first = host({1}, TSR_INT64);
      DeviceCopy bi(bad), fi(first);
      dev.index_bounds(kshape({n}), bi.op(bad, {n}), 5, static_cast<int64_t*>(fi.ptr), kCudaStream);
      fi.back(first);
      EXPECT_EQ(first.data<int64_t>()[0], n - 3) << "index_bounds n=" << n;
    }
  }
  // layer_norm: short rows (a thread per row) and long ones (a block per row).
  for (int64_t cols : {24, 500})
    for (tsr_dtype d : {TSR_FLOAT32, TSR_BFLOAT16, TSR_FLOAT64}) {
      Tensor x = sample({7, cols}, d, 1, false), w = sample({cols}, d, 2, false), b = sample({cols}, d, 3, false);
      Tensor want = host({7, cols}, d), got = host({7, cols}, d);
      emu.layer_norm(want.data_ptr(), x.data_ptr(), w.data_ptr(), b.data_ptr(), d, 7, cols, 1e-5, kNoStream);
      DeviceCopy xi(x), wi(w), bi(b), o(got);
      dev.layer_norm(o.ptr, xi.ptr, wi.ptr, bi.ptr, d, 7, cols, 1e-5, kCudaStream);
      o.back(got);
      EXPECT_TRUE(close(want, got, tolerance(d))) << "layer_norm " << cols << " " << dtype_name(d);
    }
}

TEST(CudaKernels, Gemm) {
  EmulatedKernels emu;
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64}) {
    // batch 3, A [3, 33, 17] transposed per matrix, B [17, 20] broadcast.
    Tensor a = views::transpose(sample({3, 17, 33}, d, 1, false), 1, 2);
    Tensor b = sample({17, 20}, d, 2, false);
    Tensor want = host({3, 33, 20}, d), got = host({3, 33, 20}, d);
    GemmArgs g{d, 3, 33, 20, 17, a.data_ptr(), a.strides()[1], a.strides()[2], a.strides()[0],
               b.data_ptr(), 20, 1, 0, want.data_ptr(), 20, 660, 1.0, 0.0};
    emu.gemm(g, kNoStream);
    DeviceCopy ai(a), bi(b), o(got);
    g.a = ai.ptr;
    g.b = bi.ptr;
    g.c = o.ptr;
    cuda::cuda_kernels().gemm(g, kCudaStream);
    o.back(got);
    EXPECT_TRUE(close(want, got, d == TSR_FLOAT32 ? 1e-4 : 1e-12)) << dtype_name(d);
  }
}

// float16/bfloat16 GEMM on tensor cores against the emulator's float32
// sums rounded once (cuBLAS may split k, so a few bf16/f16 ULPs).
TEST(CudaKernels, LowPrecisionGemm) {
  EmulatedKernels emu;
  for (tsr_dtype d : {TSR_FLOAT16, TSR_BFLOAT16}) {
    Tensor a = sample({64, 96}, d, 1, false), b = sample({96, 48}, d, 2, false);
    Tensor want = host({64, 48}, d), got = host({64, 48}, d);
    GemmArgs g{d, 1, 64, 48, 96, a.data_ptr(), 96, 1, 0, b.data_ptr(), 48, 1, 0, want.data_ptr(), 48, 0, 1.0, 0.0};
    emu.gemm(g, kNoStream);
    DeviceCopy ai(a), bi(b), o(got);
    g.a = ai.ptr;
    g.b = bi.ptr;
    g.c = o.ptr;
    cuda::cuda_kernels().gemm(g, kCudaStream);
    o.back(got);
    EXPECT_TRUE(close(want, got, d == TSR_FLOAT16 ? 4e-3 : 3e-2)) << dtype_name(d);
  }
}

// GradScaler's fused check and unscale: the emulator's values bit for bit
// and the same found_inf, with an inf in the second of three gradients.
TEST(CudaKernels, NonFiniteCheckAndUnscale) {
  EmulatedKernels emu;
  auto grads = [] {
    return std::vector<Tensor>{sample({1000}, TSR_FLOAT32, 1, false), sample({77}, TSR_BFLOAT16, 2, false),
                               sample({5}, TSR_FLOAT64, 3, false)};
  };
  for (const bool poison : {false, true}) {
    std::vector<Tensor> w = grads(), d = grads();
    if (poison) w[1].data<BFloat16>()[40] = d[1].data<BFloat16>()[40] = BFloat16(INFINITY);
    float found_host = 0.0f;
    UnscaleArgs args{3, {}, {TSR_FLOAT32, TSR_BFLOAT16, TSR_FLOAT64}, {1000, 1077, 1082}, 1.0f / 3.0f, &found_host};
    for (int i = 0; i < 3; ++i) args.data[i] = w[i].data_ptr();
    emu.non_finite_check_and_unscale(args, kNoStream);
    Tensor zero = host({}, TSR_FLOAT32);
    zero.data<float>()[0] = 0.0f;
    DeviceCopy c0(d[0]), c1(d[1]), c2(d[2]), found(zero);
    const DeviceCopy* copies[3] = {&c0, &c1, &c2};
    for (int i = 0; i < 3; ++i) args.data[i] = copies[i]->ptr;
    args.found_inf = static_cast<float*>(found.ptr);
    cuda::cuda_kernels().non_finite_check_and_unscale(args, kCudaStream);
    for (int i = 0; i < 3; ++i) {
      copies[i]->back(d[i]);
      EXPECT_TRUE(same_bits(w[i], d[i])) << "gradient " << i;
    }
    float found_device = -1.0f;
    ASSERT_EQ(cudaMemcpy(&found_device, found.ptr, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(found_device, found_host);
    EXPECT_EQ(found_host, poison ? 1.0f : 0.0f);
  }
}

// Attention forward and backward against the emulator (sums in another
// order only through the GPU's fma contraction: a few float32 ULPs).
TEST(CudaKernels, Attention) {
  EmulatedKernels emu;
  const int64_t B = 3, L = 37, S = 41, E = 16, Ev = 8;
  Tensor q = sample({B, L, E}, TSR_FLOAT32, 1, false), k = sample({B, S, E}, TSR_FLOAT32, 2, false),
         v = sample({B, S, Ev}, TSR_FLOAT32, 3, false), go = sample({B, L, Ev}, TSR_FLOAT32, 4, false);
  Tensor lse[2] = {host({B, L}, TSR_FLOAT32), host({B, L}, TSR_FLOAT32)};
  Tensor acc[2] = {host({B, L, Ev}, TSR_FLOAT32), host({B, L, Ev}, TSR_FLOAT32)};
  SdpaDeviceArgs a{};
  a.batch = B, a.L = L, a.S = S, a.E = E, a.Ev = Ev;
  a.dtype = TSR_FLOAT32;
  a.causal = true;
  a.scale = 0.25;
  a.q = q.data_ptr(), a.k = k.data_ptr(), a.v = v.data_ptr();
  a.lse = lse[0].data_ptr(), a.acc = acc[0].data_ptr();
  emu.sdpa_forward(a, kNoStream);
  DeviceCopy dq(q), dk(k), dv(v), dl(lse[1]), da(acc[1]);
  SdpaDeviceArgs d = a;
  d.q = dq.ptr, d.k = dk.ptr, d.v = dv.ptr, d.lse = dl.ptr, d.acc = da.ptr;
  cuda::cuda_kernels().sdpa_forward(d, kCudaStream);
  dl.back(lse[1]);
  da.back(acc[1]);
  EXPECT_TRUE(close(lse[0], lse[1], 1e-5));
  EXPECT_TRUE(close(acc[0], acc[1], 1e-5));
  // Backward from the emulator's forward (acc as the output, float32).
  Tensor delta[2] = {host({B, L}, TSR_FLOAT32), host({B, L}, TSR_FLOAT32)};
  Tensor grads[2][3] = {{host({B, L, E}, TSR_FLOAT32), host({B, S, E}, TSR_FLOAT32), host({B, S, Ev}, TSR_FLOAT32)},
                        {host({B, L, E}, TSR_FLOAT32), host({B, S, E}, TSR_FLOAT32), host({B, S, Ev}, TSR_FLOAT32)}};
  a.out = acc[0].data_ptr(), a.grad_out = go.data_ptr(), a.delta = delta[0].data_ptr();
  a.acc = grads[0][0].data_ptr(), a.acc2 = grads[0][1].data_ptr(), a.acc3 = grads[0][2].data_ptr();
  emu.sdpa_backward(a, kNoStream);
  DeviceCopy dout(acc[0]), dgo(go), dlse(lse[0]), ddelta(delta[1]), g0(grads[1][0]), g1(grads[1][1]), g2(grads[1][2]);
  d.out = dout.ptr, d.grad_out = dgo.ptr, d.lse = dlse.ptr, d.delta = ddelta.ptr;
  d.acc = g0.ptr, d.acc2 = g1.ptr, d.acc3 = g2.ptr;
  cuda::cuda_kernels().sdpa_backward(d, kCudaStream);
  g0.back(grads[1][0]);
  g1.back(grads[1][1]);
  g2.back(grads[1][2]);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(close(grads[0][i], grads[1][i], 1e-4)) << "gradient " << i;
}

TEST(CudaKernels, RefusedArgumentsLaunchNothing) {
  Tensor x = sample({4}, TSR_FLOAT32);
  expect_error(TSR_ERR_UNSUPPORTED, [&] {
    cuda::cuda_kernels().unary(UnaryKernel::Exp, kshape({4}), kop(x), kop(x), 0, TSR_INT32, kCudaStream);
  });
}

// ---- softplus and the losses, sort/topk/kthvalue (cuda-sort-loss) ----------
// loss_map: every op, a transposed operand and a broadcast one, the
// specials (NaN, infinities, -0) among the values; probabilities in [0, 1]
// for binary_cross_entropy.
TEST(CudaKernels, LossMap) {
  EmulatedKernels emu;
  auto& dev = cuda::cuda_kernels();
  const Shape s{30, 40};
  for (int op = 0; op <= int(LossKernel::BceWithLogits); ++op)
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT64}) {
      const bool bce = LossKernel(op) == LossKernel::Bce;
      const bool mask = LossKernel(op) == LossKernel::AbsBelow || LossKernel(op) == LossKernel::AbsAtMost;
      Tensor a = bce ? make_tensor(s, d, [](int64_t i) { return double((i * 37) % 101) / 100.0; })
                     : views::t(sample({40, 30}, d, 1));
      Tensor b = sample(s, d, 2), c = sample({40}, d, 3, false), e = sample({30, 1}, d, 4, false);
      const tsr_dtype od = mask ? TSR_BOOL : d;
      Tensor want = host(s, od), got = host(s, od);
      KernelOperand cb = kop(c, s), eb = kop(e, s);  // broadcast: stride 0 over the missing / size-1 dims
      cb.strides[0] = 0, cb.strides[1] = 1;
      eb.strides[0] = 1, eb.strides[1] = 0;
      LossMapArgs args{};
      args.shape = kshape(s);
      args.out = kop(want);
      args.a = kop(a, s);
      args.b = kop(b);
      args.c = cb;
      args.d = eb;
      args.p = 0.75, args.q = 2.0, args.compute = d;
      emu.loss_map(LossKernel(op), args, kNoStream);
      DeviceCopy ai(a), bi(b), ci(c), ei(e), o(got);
      LossMapArgs dargs = args;
      dargs.out = o.op(got, s);
      dargs.a = ai.op(a, s);
      dargs.b = bi.op(b, s);
      dargs.c.data = ci.ptr;
      dargs.d.data = ei.ptr;
      dev.loss_map(LossKernel(op), dargs, kCudaStream);
      o.back(got);
      EXPECT_TRUE(close(want, got, 4 * tolerance(d))) << "loss_map " << op << " " << dtype_name(d);
    }
}

// sort_slices: every dtype (ties, NaN, -0 among the values), a transposed
// input, rows short and long, both directions, all ranks and a middle band.
TEST(CudaKernels, SortSlices) {
  EmulatedKernels emu;
  auto& dev = cuda::cuda_kernels();
  for (tsr_dtype d : all_dtypes()) {
    if (is_storage_only(d)) continue;
    for (int64_t n : {7, 700})
      for (bool descending : {false, true})
        for (int64_t first : {int64_t(0), n / 2}) {
          const int64_t rows = 13, last = first == 0 ? n : first + 1;
          Tensor x = views::t(sample({n, rows}, d, 1));  // [rows, n], slices along dim 1 (stride rows)
          const Shape out_sizes{rows, last - first};
          Tensor want_v = host(out_sizes, d), got_v = host(out_sizes, d);
          Tensor want_i = host(out_sizes, TSR_INT64), got_i = host(out_sizes, TSR_INT64);
          Tensor scratch = host({rows * n}, TSR_INT64);
          auto op = [](void* data, tsr_dtype dt, int64_t stride) { return KernelOperand{data, dt, {stride}}; };
          SortSlicesArgs args{};
          args.outer = kshape({rows});
          args.in = op(x.data_ptr(), d, 1);
          args.values = op(want_v.data_ptr(), d, last - first);
          args.indices = op(want_i.data_ptr(), TSR_INT64, last - first);
          args.n = n, args.first = first, args.last = last;
          args.in_dim_stride = rows, args.values_dim_stride = 1, args.indices_dim_stride = 1;
          args.descending = descending;
          args.scratch = scratch.data<int64_t>();
          emu.sort_slices(args, kNoStream);
          DeviceCopy xi(x), vo(got_v), io(got_i), so(scratch);
          SortSlicesArgs dargs = args;
          dargs.in.data = xi.ptr;
          dargs.values.data = vo.ptr;
          dargs.indices.data = io.ptr;
          dargs.scratch = static_cast<int64_t*>(so.ptr);
          dev.sort_slices(dargs, kCudaStream);
          vo.back(got_v);
          io.back(got_i);
          EXPECT_TRUE(same_bits(want_i, got_i)) << "sort_slices indices " << dtype_name(d) << " n " << n;
          EXPECT_TRUE(same_bits(want_v, got_v)) << "sort_slices values " << dtype_name(d) << " n " << n;
        }
  }
}

// The scatter / index family (issue 32) on the GPU against the emulator,
// bit for bit (each column's steps run in index order on one thread):
// scatter_reduce's every reduction with and without self (mean with its
// count buffer, sum with an alpha), nonzero_blocks' count and write passes
// (coordinates and flat positions) over several blocks.
TEST(CudaKernels, ScatterReduceAndNonzero) {
  EmulatedKernels emu;
  auto& dev = cuda::cuda_kernels();
  const Shape s{30, 25};
  Tensor idx = host(s, TSR_INT64);
  for (int64_t i = 0; i < idx.numel(); ++i) idx.data<int64_t>()[i] = (i * 7) % 40;
  DeviceCopy ii(idx);
  auto rows = [](void* data, tsr_dtype dt, int64_t stride) { return KernelOperand{data, dt, {stride}}; };
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_INT8})
    for (int op = 0; op <= int(ScatterKernel::Amin); ++op)
      for (bool self_too : {true, false}) {
        Tensor src = sample(s, d, 2, false);
        Tensor want = sample({30, 40}, d, 1, false), got = sample({30, 40}, d, 1, false);
        Tensor count = host({30, 40}, TSR_INT64), dcount_host = host({30, 40}, TSR_INT64);
        const bool mean = ScatterKernel(op) == ScatterKernel::Mean;
        ScatterReduceArgs a{};
        a.base.columns = kshape({30});
        a.base.out = rows(want.data_ptr(), d, 40);
        a.base.src = rows(src.data_ptr(), d, 25);
        a.base.index = rows(idx.data_ptr(), TSR_INT64, 25);
        a.base.len = 25;
        a.base.out_dim_stride = a.base.src_dim_stride = a.base.index_dim_stride = 1;
        a.op = ScatterKernel(op);
        a.include_self = self_too;
        a.alpha = ScatterKernel(op) == ScatterKernel::Sum ? 2.0 : 1.0;
        a.count = rows(mean ? count.data_ptr() : nullptr, TSR_INT64, 40);
        a.count_dim_stride = 1;
        emu.fill(kshape({30, 40}), kop(count), self_too ? 1.0 : 0.0, kNoStream);
        emu.scatter_reduce(a, kNoStream);
        DeviceCopy si(src), o(got), ci(dcount_host);
        dev.fill(kshape({30, 40}), ci.op(dcount_host, {30, 40}), self_too ? 1.0 : 0.0, kCudaStream);
        ScatterReduceArgs da = a;
        da.base.out = rows(o.ptr, d, 40);
        da.base.src = rows(si.ptr, d, 25);
        da.base.index = rows(ii.ptr, TSR_INT64, 25);
        da.count = rows(mean ? ci.ptr : nullptr, TSR_INT64, 40);
        dev.scatter_reduce(da, kCudaStream);
        o.back(got);
        EXPECT_TRUE(same_bits(want, got)) << "scatter_reduce op " << op << " self " << self_too << " "
                                          << dtype_name(d);
      }
  // nonzero over 5000 mask elements in blocks of 700: counts, then rows.
  const Shape ms{50, 100};
  Tensor mask = sample(ms, TSR_BOOL, 3);
  const int64_t n = mask.numel(), block = 700, blocks = (n + block - 1) / block;
  Tensor counts = host({blocks}, TSR_INT64), dcounts = host({blocks}, TSR_INT64);
  NonzeroArgs a{};
  a.mask = mask.data_ptr();
  a.mask_dtype = TSR_BOOL;
  a.numel = n;
  a.block = block;
  a.shape = kshape(ms);
  a.counts = static_cast<int64_t*>(counts.data_ptr());
  emu.nonzero_blocks(a, kNoStream);
  DeviceCopy mi(mask), cdev(dcounts);
  NonzeroArgs da = a;
  da.mask = mi.ptr;
  da.counts = static_cast<int64_t*>(cdev.ptr);
  dev.nonzero_blocks(da, kCudaStream);
  cdev.back(dcounts);
  EXPECT_TRUE(same_bits(counts, dcounts)) << "nonzero counts";
  Tensor starts = host({blocks}, TSR_INT64);
  int64_t total = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    starts.data<int64_t>()[b] = total;
    total += counts.data<int64_t>()[b];
  }
  DeviceCopy sdev(starts);
  for (bool flat : {false, true}) {
    const Shape os = flat ? Shape{total} : Shape{total, 2};
    Tensor want = host(os, TSR_INT64), got = host(os, TSR_INT64);
    a.write = da.write = true;
    a.flat = da.flat = flat;
    a.starts = static_cast<const int64_t*>(starts.data_ptr());
    a.out = static_cast<int64_t*>(want.data_ptr());
    emu.nonzero_blocks(a, kNoStream);
    DeviceCopy o(got);
    da.starts = static_cast<const int64_t*>(sdev.ptr);
    da.out = static_cast<int64_t*>(o.ptr);
    dev.nonzero_blocks(da, kCudaStream);
    o.back(got);
    EXPECT_TRUE(same_bits(want, got)) << "nonzero rows, flat " << flat;
  }
}

}  // namespace
}  // namespace tsr::gpu::test

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIP: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
    return 77;
  }
  // The plugin's CudaDevice records the device count when the plugin is
  // loaded; this test links the kernels without loading it.
  tsr::cuda::stream_table().set_device_count(count);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
