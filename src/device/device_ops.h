// Tensor-level operations on a device other than the CPU, through its
// DeviceKernels (core/device_kernels.h): outputs are allocated on the
// inputs' device with the CPU kernels' layout and dtype rules (the same
// device-independent helpers: output_strides, binary_result_dtype,
// reduced_sizes, matmul_sizes, linear_sizes), operands are flattened by
// device/kernel_args.h, and every kernel is queued on the calling thread's
// current stream of that device. No autograd, no version bumps: the
// primitives (ops/) call these from eval_device, as they call src/cpu's
// kernels from eval_cpu.
#pragma once

#include <utility>
#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::device {

// The kernels of d's backend; TSR_ERR_UNSUPPORTED naming the device when it
// has none.
DeviceKernels& kernels_for(Device d);
// The dtype a kernel computes in for values stored as d: float for the
// 16-bit floats (as the CPU kernels' compute_t), d itself otherwise.
tsr_dtype compute_dtype(tsr_dtype d);

// dst = src converted to dst's dtype, src broadcast to dst's sizes; both on
// one device (kernels::copy_strided).
void copy_into(DeviceKernels& k, const Tensor& dst, const Tensor& src);
// A copy of t in dtype laid out by fmt (PRESERVE: t's layout when dense),
// as empty_like + copy_strided.
Tensor copy(DeviceKernels& k, const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt);
// t itself when C-contiguous in dtype, else a contiguous copy.
Tensor contiguous(DeviceKernels& k, const Tensor& t, tsr_dtype dtype);
void fill(DeviceKernels& k, const Tensor& dst, double value);
Tensor zeros(DeviceKernels& k, const Shape& sizes, tsr_dtype dtype, Device device);

// out = op(in, alpha) into a fresh tensor of out_dtype laid out as in.
Tensor unary(DeviceKernels& k, UnaryKernel op, const Tensor& in, double alpha, tsr_dtype out_dtype);
// Into an existing out of in's sizes (out may be in: mul_ in place).
void unary_into(DeviceKernels& k, UnaryKernel op, const Tensor& out, const Tensor& in, double alpha);
// out = op(a, b, alpha) broadcast, into a fresh tensor of out_dtype laid
// out by TensorIterator's rule.
Tensor binary(DeviceKernels& k, BinaryKernel op, const Tensor& a, const Tensor& b, double alpha,
              tsr_dtype out_dtype);
// Into an existing out of the broadcast sizes (out may be a: add_ in place).
void binary_into(DeviceKernels& k, BinaryKernel op, const Tensor& out, const Tensor& a,
                 const Tensor& b, double alpha);

// How a reduction walks the reduced dims: Coalesced (merged and ordered by
// stride, the fastest for sums), or C order (merged only where they step as
// one: element j of a row is the CPU's j-th, so "the first" extreme and the
// sign of a zero tie are the CPU's).
enum class ReducedOrder { Coalesced, C };
// out (and indices, int64, for Max/Min; else undefined) = op over t's mask
// dims, times scale for Sum; out and indices contiguous with the CPU's
// reduced sizes (keepdim or not), out in the result dtype.
void reduce_into(DeviceKernels& k, ReduceKernel op, const Tensor& t, const std::vector<bool>& mask,
                 const Tensor& out, const Tensor& indices, double scale,
                 ReducedOrder order = ReducedOrder::Coalesced);

// Sum over mask's dims times scale (1: sum, 1/count: mean) in out_dtype
// (kernels::sum / kernels::mean).
Tensor reduce_sum(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim,
                  double scale, tsr_dtype out_dtype);
// kernels::mean's rule on the device: floating only, scale 1/count.
Tensor mean(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim);
Tensor sum(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim);
// Values and int64 indices of the first maximum along dim (kernels::max_dim).
std::pair<Tensor, Tensor> max_dim(DeviceKernels& k, const Tensor& t, int64_t dim, bool keepdim);
// t summed down to sizes (kernels::sum_to_size).
Tensor sum_to_size(DeviceKernels& k, const Tensor& t, const Shape& sizes);

// (log_)softmax along dim, contiguous result (kernels::log_softmax).
Tensor softmax(DeviceKernels& k, const Tensor& t, int64_t dim, bool log);
Tensor log_softmax_backward(DeviceKernels& k, const Tensor& grad, const Tensor& output, int64_t dim);
// kernels::nll_loss's argument checks; a target outside [0, C) gives NaN
// (a device cannot report it; the CPU says TSR_ERR_INDEX_OUT_OF_RANGE).
Tensor nll_loss(DeviceKernels& k, const Tensor& logp, const Tensor& target);
Tensor nll_loss_backward(DeviceKernels& k, const Tensor& grad, const Shape& logp_sizes,
                         const Tensor& target);

// Dropout's noise on the device: the same words of the same Philox stream
// as ops/dropout.cpp's CPU draw, so the masks agree.
Tensor bernoulli_noise(DeviceKernels& k, const Shape& sizes, tsr_dtype dtype, Device device,
                       double p, uint64_t seed, uint64_t start);

// torch.matmul through gemm: batched, batch dims broadcast (stride 0),
// transposed operands passed by their strides; an operand with no unit
// stride is copied first.
Tensor matmul(DeviceKernels& k, const Tensor& a, const Tensor& b);
// x @ weight^T + bias (bias may be undefined) through one gemm with the
// bias copied into the output first (beta 1); weight is never copied.
Tensor linear(DeviceKernels& k, const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace tsr::device
