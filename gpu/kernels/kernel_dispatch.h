// The host half of every DeviceKernels method, shared by the CUDA launches
// (cuda_*.cu) and the CPU grid emulator (gpu/emulator/emulated_kernels.cpp):
// checks what the kernels cannot do, picks the compute type and the 32- or
// 64-bit index math, builds the functor and hands it to the Launcher:
//   launcher.launch(name, n, functor)  runs functor(i) for i in [0, n)
// as a grid-stride launch (a real one, or the emulator's);
//   launcher.launch_rows(name, rows, width, depth, f)  runs a row op's
// phase functors in blocks of width rows x depth threads (row_path.h
// decides between them and one thread per row);
//   launcher.launch_tiles(name, tiles, f)  runs a tiled copy's load and
// store steps (tiled_copy.cuh) one tile at a time per block. Host code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/device_kernels.h"
#include "core/error.h"
#include "kernels/dense_functors.cuh"
#include "kernels/elementwise_functors.cuh"
#include "kernels/attention_functors.cuh"
#include "kernels/unscale_functor.cuh"
#include "kernels/reduce_row.cuh"
#include "kernels/row_functors.cuh"
#include "kernels/row_path.h"
#include "kernels/tiled_copy.cuh"

namespace tsr::gpu {

inline void check_dtype(tsr_dtype d, const char* what) {
  TSR_CHECK(is_valid_dtype(d), TSR_ERR_INVALID_ARGUMENT, what, ": invalid dtype ", int(d));
}

inline void check_floating(tsr_dtype d, const char* what) {
  check_dtype(d, what);
  TSR_CHECK(is_floating(d), TSR_ERR_UNSUPPORTED, what, ": dtype ", dtype_name(d),
            " is not supported on this device (floating types only)");
}

inline void check_shape(const KernelShape& s, const char* what) {
  TSR_CHECK(s.ndim >= 0 && s.ndim <= kMaxKernelDims, TSR_ERR_INVALID_ARGUMENT, what, ": ndim ",
            s.ndim, " outside [0, ", kMaxKernelDims, "]");
  for (int32_t d = 0; d < s.ndim; ++d)
    TSR_CHECK(s.sizes[d] >= 0, TSR_ERR_INVALID_ARGUMENT, what, ": negative size ", s.sizes[d],
              " at dim ", d);
}

// Runs make<Index>() through the launcher with the narrowest exact index.
template <int N, typename Launcher, typename Make>
void launch_indexed(Launcher& l, const char* name, const KernelShape& shape,
                    const KernelOperand* const (&ops)[N], Make&& make) {
  const int64_t n = shape.numel();
  if (n == 0) return;
  if (fits_32bit<N>(shape, ops))
    l.launch(name, n, make(make_offset_calc<N, uint32_t>(shape, ops)));
  else
    l.launch(name, n, make(make_offset_calc<N, int64_t>(shape, ops)));
}

template <typename Launcher>
void dispatch_copy(Launcher& l, const KernelShape& shape, const KernelOperand& dst,
                   const KernelOperand& src) {
  check_shape(shape, "copy");
  check_dtype(dst.dtype, "copy");
  check_dtype(src.dtype, "copy");
  if (shape.numel() == 0) return;  // a tiled launch of 0 tiles would be 0 blocks
  if (launch_dense_copy(l, shape, dst, src)) return;
  const KernelOperand* const ops[2] = {&dst, &src};
  if (const int32_t rows_dim = tiled_copy_source_dim(shape, dst, src); rows_dim >= 0) {
    const int64_t tiles = tile_count(shape, rows_dim);
    with_element_bits(dst.dtype, [&](auto bits) {
      using T = decltype(bits);
      if (fits_32bit<2>(shape, ops) && tiles < k32BitLimit)
        l.launch_tiles("copy_tiled", tiles, make_tiled_copy<T, uint32_t>(shape, dst, src, rows_dim));
      else
        l.launch_tiles("copy_tiled", tiles, make_tiled_copy<T, int64_t>(shape, dst, src, rows_dim));
    });
    return;
  }
  launch_indexed<2>(l, "copy", shape, ops, [&](auto calc) {
    return CopyFn<std::remove_cvref_t<decltype(calc.sizes[0])>>{calc, dst.data, dst.dtype, src.data, src.dtype};
  });
}

template <typename Launcher>
void dispatch_fill(Launcher& l, const KernelShape& shape, const KernelOperand& dst, double value) {
  check_shape(shape, "fill");
  check_dtype(dst.dtype, "fill");
  const KernelOperand* const ops[1] = {&dst};
  launch_indexed<1>(l, "fill", shape, ops, [&](auto calc) {
    return FillFn<std::remove_cvref_t<decltype(calc.sizes[0])>>{calc, dst.data, dst.dtype, value};
  });
}

// The compute type of op dtype d: float for the 16-bit floats and float32
// (activation.cpp's compute_t), double, or int64_t for integers and bool.
template <typename Fn>
void with_compute_type(tsr_dtype d, Fn&& fn) {
  switch (d) {
    case TSR_FLOAT16: case TSR_BFLOAT16: case TSR_FLOAT32: return fn(float{});
    case TSR_FLOAT64: return fn(double{});
    default: return fn(int64_t{});
  }
}

// fn(C{}, std::integral_constant<tsr_dtype, D>{}) for floating storage
// dtype d (checked by check_floating) and its (log_)softmax compute type C,
// nn.cpp's acc_t: double for float64, float for the rest. The row kernels
// load and store through the compile-time dtype D.
template <typename Fn>
void with_float_storage(tsr_dtype d, Fn&& fn) {
  switch (d) {
    case TSR_FLOAT64: fn(double{}, std::integral_constant<tsr_dtype, TSR_FLOAT64>{}); return;
    case TSR_FLOAT32: fn(float{}, std::integral_constant<tsr_dtype, TSR_FLOAT32>{}); return;
    case TSR_FLOAT16: fn(float{}, std::integral_constant<tsr_dtype, TSR_FLOAT16>{}); return;
    case TSR_BFLOAT16: fn(float{}, std::integral_constant<tsr_dtype, TSR_BFLOAT16>{}); return;
    default: throw Error(TSR_ERR_UNSUPPORTED, str("dtype ", dtype_name(d), " is not floating"));
  }
}

template <typename Launcher>
void dispatch_unary(Launcher& l, UnaryKernel op, const KernelShape& shape, const KernelOperand& out,
                    const KernelOperand& in, double alpha, tsr_dtype compute) {
  check_shape(shape, "unary");
  check_dtype(out.dtype, "unary");
  check_dtype(in.dtype, "unary");
  check_dtype(compute, "unary");
  TSR_CHECK(int32_t(op) >= 0 && op <= UnaryKernel::GtScalar, TSR_ERR_INVALID_ARGUMENT,
            "unary: invalid op ", int32_t(op));
  TSR_CHECK(unary_supported(op, !is_floating(compute)), TSR_ERR_UNSUPPORTED, "unary: op ",
            int32_t(op), " is not supported for compute dtype ", dtype_name(compute));
  const KernelOperand* const ops[2] = {&out, &in};
  if (dense_float32(shape, compute, ops)) {
    const int64_t n = shape.numel();
    l.launch("unary_dense", dense_chunks(n),
             DenseUnaryF32{op, static_cast<float*>(out.data), static_cast<const float*>(in.data), alpha, n});
    return;
  }
  with_compute_type(compute, [&](auto c) {
    using C = decltype(c);
    launch_indexed<2>(l, "unary", shape, ops, [&](auto calc) {
      using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
      return UnaryFn<C, Index>{calc, op, out.data, out.dtype, in.data, in.dtype, compute, alpha};
    });
  });
}

template <typename Launcher>
void dispatch_binary(Launcher& l, BinaryKernel op, const KernelShape& shape, const KernelOperand& out,
                     const KernelOperand& a, const KernelOperand& b, double alpha, tsr_dtype compute) {
  check_shape(shape, "binary");
  check_dtype(out.dtype, "binary");
  check_dtype(a.dtype, "binary");
  check_dtype(b.dtype, "binary");
  check_dtype(compute, "binary");
  TSR_CHECK(int32_t(op) >= 0 && op <= BinaryKernel::Ge, TSR_ERR_INVALID_ARGUMENT,
            "binary: invalid op ", int32_t(op));
  const bool is_bool = compute == TSR_BOOL;
  TSR_CHECK(binary_supported(op, !is_floating(compute), is_bool), TSR_ERR_UNSUPPORTED,
            "binary: op ", int32_t(op), " is not supported for compute dtype ", dtype_name(compute));
  const KernelOperand* const ops[3] = {&out, &a, &b};
  if (dense_float32(shape, compute, ops)) {
    const int64_t n = shape.numel();
    l.launch("binary_dense", dense_chunks(n),
             DenseBinaryF32{op, static_cast<float*>(out.data), static_cast<const float*>(a.data),
                            static_cast<const float*>(b.data), float(alpha), n});
    return;
  }
  with_compute_type(compute, [&](auto c) {
    using C = decltype(c);
    C k;
    if constexpr (kIsIntCompute<C>) k = is_bool ? int64_t(alpha != 0) : wide_to<int64_t>(wide_float(alpha));
    else k = C(alpha);
    launch_indexed<3>(l, "binary", shape, ops, [&](auto calc) {
      using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
      return BinaryFn<C, Index>{calc, op, out.data, out.dtype, a.data, a.dtype, b.data, b.dtype,
                                compute, k};
    });
  });
}

template <typename Launcher>
void dispatch_reduce(Launcher& l, ReduceKernel op, const ReduceArgs& args) {
  check_shape(args.outer, "reduce");
  check_shape(args.inner, "reduce");
  check_dtype(args.out.dtype, "reduce");
  check_dtype(args.in.dtype, "reduce");
  TSR_CHECK(op == ReduceKernel::Sum || op == ReduceKernel::Max || op == ReduceKernel::Min,
            TSR_ERR_INVALID_ARGUMENT, "reduce: invalid op ", int32_t(op));
  const bool extremum = op != ReduceKernel::Sum;
  const int64_t rows = args.outer.numel(), inner = args.inner.numel();
  if (rows == 0) return;
  TSR_CHECK(!extremum || inner > 0, TSR_ERR_INVALID_ARGUMENT,
            "reduce: max/min over an empty dimension has no identity");
  TSR_CHECK(!extremum || args.indices.data == nullptr || args.indices.dtype == TSR_INT64,
            TSR_ERR_INVALID_ARGUMENT, "reduce: max/min indices must be int64");
  KernelOperand in_inner{args.in.data, args.in.dtype, {}};
  for (int32_t d = 0; d < args.inner.ndim; ++d) in_inner.strides[d] = args.in_inner_strides[d];
  const KernelOperand* const outer_ops[3] = {&args.out, &args.indices, &args.in};
  const KernelOperand* const inner_ops[1] = {&in_inner};
  // One index width for both calculators: 32-bit only when an input
  // element's offset, its outer plus its inner offset, fits as well.
  const int64_t outer_extent = extent_32bit(args.outer, args.in.strides),
                inner_extent = extent_32bit(args.inner, args.in_inner_strides);
  const bool narrow = fits_32bit<3>(args.outer, outer_ops) && numel_32bit(args.inner) &&
                      inner_extent >= 0 && outer_extent + inner_extent < k32BitLimit;
  // A row's consecutive elements are adjacent when the innermost reduced
  // dim has stride 1 (row_path.h: a block then reads coalesced).
  const bool unit_stride = args.inner.ndim > 0 && args.in_inner_strides[args.inner.ndim - 1] == 1;
  // Rows r and r + 1 start at adjacent input elements when the innermost
  // kept dim has stride 1 (a sum over dim 0 of a matrix: column blocks).
  const int32_t last = args.outer.ndim - 1;
  const bool rows_adjacent = last >= 0 && args.outer.sizes[last] > 1 && args.in.strides[last] == 1;
  auto run = [&](auto index, auto kernel) {
    using Index = decltype(index);
    constexpr ReduceKernel kOp = decltype(kernel)::value;
    ReduceFn<Index, kOp> f{make_offset_calc<3, Index>(args.outer, outer_ops),
                           make_offset_calc<1, Index>(args.inner, inner_ops),
                           inner,
                           args.out.data,
                           args.out.dtype,
                           kOp != ReduceKernel::Sum ? static_cast<int64_t*>(args.indices.data) : nullptr,
                           args.in.data,
                           args.in.dtype,
                           args.scale};
    const RowNames names = kOp == ReduceKernel::Sum   ? RowNames{"reduce_sum", "reduce_sum_block", "reduce_sum_columns"}
                           : kOp == ReduceKernel::Max ? RowNames{"reduce_max", "reduce_max_block", "reduce_max_columns"}
                                                      : RowNames{"reduce_min", "reduce_min_block", "reduce_min_columns"};
    launch_rows(l, names, rows, inner, unit_stride, rows_adjacent, f);
  };
  auto run_op = [&](auto index) {
    if (op == ReduceKernel::Sum) run(index, std::integral_constant<ReduceKernel, ReduceKernel::Sum>{});
    else if (op == ReduceKernel::Max) run(index, std::integral_constant<ReduceKernel, ReduceKernel::Max>{});
    else run(index, std::integral_constant<ReduceKernel, ReduceKernel::Min>{});
  };
  if (narrow) run_op(uint32_t{});
  else run_op(int64_t{});
}

inline void check_rows(int64_t a, int64_t b, int64_t c, const char* what) {
  TSR_CHECK(a >= 0 && b >= 0 && c >= 0, TSR_ERR_INVALID_ARGUMENT, what, ": negative size (", a, ", ",
            b, ", ", c, ")");
}

template <typename Launcher>
void dispatch_softmax(Launcher& l, bool log, void* out, const void* in, tsr_dtype dtype, int64_t outer,
                      int64_t dim, int64_t inner) {
  check_floating(dtype, "softmax");
  check_rows(outer, dim, inner, "softmax");
  if (outer * dim * inner == 0) return;
  with_float_storage(dtype, [&](auto c, auto storage) {
    using C = decltype(c);
    // Rows (o, i) and (o, i + 1) are adjacent when inner > 1.
    launch_rows(l, RowNames{"softmax", "softmax_block", "softmax_columns"}, outer * inner, dim, inner == 1,
                inner > 1, SoftmaxFn<C, decltype(storage)::value>{log, out, in, dim, inner});
  });
}

template <typename Launcher>
void dispatch_log_softmax_backward(Launcher& l, void* grad_in, const void* grad, const void* output,
                                   tsr_dtype dtype, int64_t outer, int64_t dim, int64_t inner) {
  check_floating(dtype, "log_softmax_backward");
  check_rows(outer, dim, inner, "log_softmax_backward");
  if (outer * dim * inner == 0) return;
  with_float_storage(dtype, [&](auto c, auto storage) {
    using C = decltype(c);
    launch_rows(l, RowNames{"log_softmax_backward", "log_softmax_backward_block", "log_softmax_backward_columns"},
                outer * inner, dim, inner == 1, inner > 1,
                LogSoftmaxBackwardFn<C, decltype(storage)::value>{grad_in, grad, output, dim, inner});
  });
}

template <typename Launcher>
void dispatch_nll_loss(Launcher& l, void* out, const void* logp, const int64_t* target, tsr_dtype dtype,
                       int64_t n, int64_t c) {
  check_floating(dtype, "nll_loss");
  check_rows(n, c, 0, "nll_loss");
  // One row, the batch; its elements are gathered, never adjacent.
  launch_rows(l, RowNames{"nll_loss", "nll_loss_block", "nll_loss_columns"}, 1, n, false, false,
              NllLossFn{out, logp, target, dtype, n, c});
}

template <typename Launcher>
void dispatch_nll_loss_backward(Launcher& l, void* grad_logp, const void* grad, const int64_t* target,
                                tsr_dtype dtype, int64_t n, int64_t c) {
  check_floating(dtype, "nll_loss_backward");
  check_rows(n, c, 0, "nll_loss_backward");
  if (n * c == 0) return;
  l.launch("nll_loss_backward", n * c, NllLossBackwardFn{grad_logp, grad, target, dtype, n, c});
}

template <typename Launcher>
void dispatch_bernoulli(Launcher& l, void* out, tsr_dtype dtype, int64_t numel, uint64_t seed,
                        uint64_t start, uint32_t threshold, double scale) {
  check_floating(dtype, "bernoulli_noise");
  TSR_CHECK(numel >= 0, TSR_ERR_INVALID_ARGUMENT, "bernoulli_noise: negative numel ", numel);
  if (numel == 0) return;
  l.launch("bernoulli_noise", numel, BernoulliFn{out, dtype, seed, start, threshold, scale});
}

template <typename Launcher>
void dispatch_unscale(Launcher& l, const UnscaleArgs& args) {
  TSR_CHECK(args.count >= 1 && args.count <= kMaxUnscaleTensors, TSR_ERR_INVALID_ARGUMENT,
            "non_finite_check_and_unscale: ", args.count, " gradients in one launch (1..", kMaxUnscaleTensors, ")");
  TSR_CHECK(args.found_inf != nullptr, TSR_ERR_INVALID_ARGUMENT, "non_finite_check_and_unscale: found_inf is null");
  int64_t previous = 0;
  for (int32_t t = 0; t < args.count; ++t) {
    check_floating(args.dtypes[t], "non_finite_check_and_unscale");
    TSR_CHECK(args.ends[t] >= previous, TSR_ERR_INVALID_ARGUMENT,
              "non_finite_check_and_unscale: ends must not decrease (gradient ", t, ")");
    previous = args.ends[t];
  }
  if (previous == 0) return;
  l.launch("non_finite_check_and_unscale", previous, UnscaleFn{args});
}

inline void check_sdpa(const SdpaDeviceArgs& a, const char* what) {
  TSR_CHECK(a.dtype == TSR_FLOAT32 || a.dtype == TSR_FLOAT64 || a.dtype == TSR_FLOAT16 || a.dtype == TSR_BFLOAT16,
            TSR_ERR_UNSUPPORTED, what, ": dtype ", dtype_name(a.dtype), " is not supported on this device");
  TSR_CHECK(a.batch >= 0 && a.L >= 0 && a.S >= 0 && a.E >= 0 && a.Ev >= 0, TSR_ERR_INVALID_ARGUMENT, what,
            ": negative sizes");
  TSR_CHECK(a.mask == nullptr || a.mask_dtype == TSR_BOOL || is_floating(a.mask_dtype), TSR_ERR_UNSUPPORTED, what,
            ": mask dtype ", dtype_name(a.mask_dtype));
}

// Shared-memory tiles (SdpaForwardTiles) when a tile of K and V fits in a
// block's default 48 KiB (E + Ev up to 384 in float, 192 in double), else
// one thread per query row; compute type double for float64, else float.
constexpr size_t kSdpaTileSharedBytes = 48 * 1024;
template <typename C, typename Launcher>
void sdpa_forward_as(Launcher& l, const SdpaDeviceArgs& a) {
  using Tiles = SdpaForwardTiles<C>;
  const size_t shared = size_t(Tiles::shared_elements(a)) * sizeof(C);
  if (shared <= kSdpaTileSharedBytes) l.launch_block_tiles("sdpa_forward_tiles", Tiles{a}, shared);
  else l.launch("sdpa_forward", a.batch * a.L, SdpaForwardFn<C>{a});
}

template <typename Launcher>
void dispatch_sdpa_forward(Launcher& l, const SdpaDeviceArgs& a) {
  check_sdpa(a, "sdpa_forward");
  if (a.batch * a.L == 0) return;
  if (a.dtype == TSR_FLOAT64) sdpa_forward_as<double>(l, a);
  else sdpa_forward_as<float>(l, a);
}

// Query rows first (D and dq), then key rows (dk, dv), in stream order.
template <typename Launcher>
void dispatch_sdpa_backward(Launcher& l, const SdpaDeviceArgs& a) {
  check_sdpa(a, "sdpa_backward");
  const bool f64 = a.dtype == TSR_FLOAT64;
  if (a.batch * a.L > 0) {
    if (f64) l.launch("sdpa_backward_query", a.batch * a.L, SdpaBackwardQueryFn<double>{a});
    else l.launch("sdpa_backward_query", a.batch * a.L, SdpaBackwardQueryFn<float>{a});
  }
  if (a.batch * a.S > 0) {
    if (f64) l.launch("sdpa_backward_key", a.batch * a.S, SdpaBackwardKeyFn<double>{a});
    else l.launch("sdpa_backward_key", a.batch * a.S, SdpaBackwardKeyFn<float>{a});
  }
}

}  // namespace tsr::gpu
