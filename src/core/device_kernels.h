// The kernel entry of every primitive on a device other than the CPU: what a
// device backend computes once the device-independent layer (src/device/)
// has checked the arguments, allocated the outputs with the CPU's layout
// rules and flattened every operand to a data pointer plus element strides
// over one iteration shape. Implementations: the CUDA plugin (gpu/, real
// launches of the functors in gpu/kernels/) and the simulated test device
// (the same functors run by the CPU grid emulator).
//
// Everything here is plain data so that nvcc-compiled code, which never sees
// tsr::Tensor, can implement it. Every call is asynchronous: it queues work
// on stream s (of the operands' device) and returns; pointers are device
// memory of that device. Each result must equal, element for element, what
// the CPU kernel named in the comment gives for the same inputs: bit for bit
// for copies, fills, integer and +-*/ arithmetic, within a few ULPs for
// transcendental functions and for sums, whose order differs.
#pragma once

#include <cstdint>

#include <tessera/types.h>

#include "core/error.h"
#include "core/host_device.h"
#include "core/stream.h"

namespace tsr {

// The most dims a kernel sees (PyTorch's MAX_DIMS for its OffsetCalculator).
// src/device/ coalesces dims first and makes a contiguous copy when a
// layout still needs more.
constexpr int kMaxKernelDims = 25;

// The iteration space of an elementwise kernel, dims outermost first (the
// last dim varies fastest). ndim 0 is one element; a size 0 means no work.
struct KernelShape {
  int32_t ndim;
  int64_t sizes[kMaxKernelDims];

  TSR_HOST_DEVICE int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
};

// One operand over a KernelShape: element i (multi-index idx) lives at
// data + sum(idx[d] * strides[d]) elements of dtype (storage offset already
// applied). Stride 0 broadcasts. Strides may be negative only where the
// CPU's views allow (never, today).
struct KernelOperand {
  void* data;
  tsr_dtype dtype;
  int64_t strides[kMaxKernelDims];
};

// Unary elementwise ops, out = f(in, alpha): CPU kernels in
// src/cpu/kernels/elementwise.cpp (Neg, Exp, Log, Relu, MulScalar: in *
// alpha, AddScalar: in + alpha) and activation.cpp (Gelu, GeluTanh, Tanh,
// Sigmoid, Sqrt, Erf, PowScalar: in ** alpha). The value is computed in
// `compute` (float for float16/bfloat16 operands, as the CPU does) and
// stored converted to out's dtype. ClampMin and ClampMax (activation.cpp's
// clamp: std::max(in, alpha), std::min(in, alpha), alpha rounded to the
// op's dtype first); the masks EqScalar, GeScalar, LeScalar (in == / >= /
// <= alpha, alpha rounded the same way) give 1 or 0, stored as bool. The
// pointwise family (src/cpu/kernels/pointwise.cpp's float_map and integer
// rules; LeakyRelu's slope and Elu's alpha in alpha), Abs and Sign
// (compare.cpp), and GtScalar (greater_mask: in > alpha in double).
enum class UnaryKernel : int32_t {
  Neg, Exp, Log, Relu, MulScalar, AddScalar,
  Gelu, GeluTanh, Tanh, Sigmoid, Sqrt, Erf, PowScalar,
  ClampMin, ClampMax, EqScalar, GeScalar, LeScalar,
  Silu, LeakyRelu, Elu, Sin, Cos, Rsqrt, Reciprocal, Floor, Ceil, Round, Trunc, Sign, Abs, GtScalar,
};

// Binary elementwise ops, out = f(a, b, alpha): Add is a + alpha * b
// (torch.add's alpha; 1 for plain add), Sub a - alpha * b, Mul, Div; the
// fused backward formulas of activation.cpp with a = grad and b = the saved
// tensor: ReluBackward (grad where result > 0), GeluBackward and
// GeluTanhBackward (b = x), TanhBackward and SigmoidBackward (b = result),
// SqrtBackward (b = result). Pow: a ** b (activation.cpp's pow: std::pow
// for floats, ATen's powi for integers). Max, Min: clamp with tensor
// bounds (pointwise.cpp: std::max(a, b), std::min(a, b); NaN propagates).
// Eq, Ne, Lt, Le, Gt, Ge: comparisons in `compute` (compare.cpp), 1 or 0.
enum class BinaryKernel : int32_t {
  Add, Sub, Mul, Div,
  ReluBackward, GeluBackward, GeluTanhBackward, TanhBackward, SigmoidBackward, SqrtBackward,
  Pow, Max, Min, Eq, Ne, Lt, Le, Gt, Ge,
};

// A reduction: out over `outer` (the kept dims) from in over outer x inner
// (the reduced dims). src/cpu/kernels/reduce.cpp's rules: Sum accumulates in
// double for floating inputs and int64 for integers and bool, then scales by
// `scale` (1 for sum, 1/count for mean) and converts to out's dtype; Max
// gives the first maximum (NaN counts as the maximum) and its int64 index
// along the single inner dim in `indices`. Min (appended for issue 32's
// min/amin) is Max with the order reversed: the first NaN, else the first
// minimum (minmax.cpp's min_dim, extrema.cpp's amin).
enum class ReduceKernel : int32_t { Sum, Max, Min };
struct ReduceArgs {
  KernelShape outer;
  KernelOperand out;      // strides over outer
  KernelOperand indices;  // Max only: int64, strides over outer; data null otherwise
  KernelShape inner;
  KernelOperand in;       // strides over outer
  int64_t in_inner_strides[kMaxKernelDims];
  double scale;
};

// Row-major batched matrix product C[i] = alpha * A[i] B[i] + beta * C[i],
// A[i] m x k, B[i] k x n, C[i] m x n (src/cpu/kernels/matmul.cpp). Each
// matrix is given by its row and column strides in elements, one of which
// is 1 (src/device/ copies an operand that has neither), and a batch
// stride (0 broadcasts A or B over the batch). C has column stride 1.
// float32 and float64 (bfloat16 would compute in float32).
struct GemmArgs {
  tsr_dtype dtype;
  int64_t batch, m, n, k;
  const void* a;
  int64_t a_row_stride, a_col_stride, a_batch_stride;
  const void* b;
  int64_t b_row_stride, b_col_stride, b_batch_stride;
  void* c;
  int64_t c_row_stride, c_batch_stride;
  double alpha, beta;
};

// GradScaler's fused non-finite check and unscale (torch's
// _amp_foreach_non_finite_check_and_unscale_, one launch for up to
// kMaxUnscaleTensors gradients, as its multi_tensor_apply): every element
// of each gradient, read before it is scaled, sets *found_inf to 1 when it
// is not finite; then it becomes value * inv_scale computed in float
// (double for float64). Gradient t is dense: elements [ends[t-1], ends[t])
// of the launch (ends[-1] = 0) at data[t] in memory order, any floating
// dtype. found_inf is one float32 of device memory, never cleared here.
constexpr int32_t kMaxUnscaleTensors = 32;
struct UnscaleArgs {
  int32_t count;
  void* data[kMaxUnscaleTensors];
  tsr_dtype dtypes[kMaxUnscaleTensors];
  int64_t ends[kMaxUnscaleTensors];
  float inv_scale;
  float* found_inf;
};

// Scaled dot-product attention (F.scaled_dot_product_attention; the CPU's
// kernels::sdpa_forward / sdpa_backward give the semantics: s_ij = scale *
// q_i . k_j + mask_ij, -inf where the causal rule or a false bool mask
// hides key j, softmax over j, dropout factors from Philox words start +
// (b L + i) S + j). Operands are contiguous in dtype (float16, bfloat16,
// float32, float64): q [batch, L, E], k [batch, S, E], v [batch, S, Ev],
// out and grad_out [batch, L, Ev]; mask null or [batch, L, S] of
// mask_dtype. Results in the compute type (float64 for float64 inputs,
// else float32): forward writes lse [batch L] and acc [batch L, Ev] (the
// output before its rounding to dtype); backward reads out, grad_out and
// lse and writes delta [batch L] (dO . O), acc = dq [batch L, E], acc2 =
// dk [batch S, E], acc3 = dv [batch S, Ev].
struct SdpaDeviceArgs {
  int64_t batch, L, S, E, Ev;
  tsr_dtype dtype, mask_dtype;
  const void *q, *k, *v, *mask, *out, *grad_out;
  bool causal;
  double scale;
  bool dropout;
  uint64_t seed, start;
  uint32_t threshold;  // philox::dropout_mask(p)
  double keep_scale;
  void *lse, *delta, *acc, *acc2, *acc3;
};

// index_add / scatter_add into an output (indexing.cpp's index_add_zeros
// and scatter_add_zeros): for every element c of `columns` (the output's
// coordinates other than the indexed dim) and j = 0, 1, ... len - 1 in that
// order, out[c + index[c, j] * out_dim_stride] += src[c, j], where operand
// X's element (c, j) lives at X.strides over columns plus j * x_dim_stride.
// A column's additions run in index order on one thread (no atomics), so
// the result is the CPU's, bit for bit; index int32 or int64, every value
// already checked in range; src and out of one dtype.
struct ScatterAddArgs {
  KernelShape columns;
  KernelOperand out, src, index;
  int64_t len;
  int64_t out_dim_stride, src_dim_stride, index_dim_stride;
};

// Max pooling of x [batch, channels, height, width] into y and indices
// [batch, channels, out_height, out_width], every operand at its element
// strides (N, C, H, W order; any layout, channels_last included). The CPU's
// rules (src/cpu/kernels/pooling_ref.cpp's max_forward, ATen's): the window
// of (oh, ow) starts at (oh * stride - padding) and steps by dilation,
// clipped to the input; its elements are read in (h, w) order and one
// replaces the best so far when it is greater or NaN (the first maximum,
// the last NaN), starting from -inf at the window's first element; an
// index is h * width + w. Compared in float (double for float64), stored
// in dtype. The backward (max_pool2d_backward) writes every element of
// grad_input (the `input` operand): the sum, in float (double for float64)
// and in (oh, ow) order, of grad_output (the `output` operand) over the
// outputs whose index names it, rounded once: the CPU's sums bit for bit.
struct MaxPool2dArgs {
  int64_t batch, channels, height, width, out_height, out_width;
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  tsr_dtype dtype;         // float16, bfloat16, float32 or float64
  void* input;             // forward: x (read); backward: grad_input (written)
  int64_t input_strides[4];
  void* output;            // forward: y (written); backward: grad_output (read)
  int64_t output_strides[4];
  int64_t* indices;        // forward: written; backward: read
  int64_t indices_strides[4];
};

// Scans and products along one dim (issue 32; src/cpu/kernels/scan.cpp):
// for each line (every coordinate over `lines`, the dims other than the
// scanned one), elements j = 0 .. len - 1 at in + j * in_stride are
// combined in order (from the end when reverse), one thread per line, so
// the result is the CPU's bit for bit. in and out are of one dtype (the
// result dtype; src/device/ converts the input first). CumSum / CumProd
// write every running value at out + j * out_stride, accumulated in
// ATen's CPU acc type (double for float32 and float64, float for the
// 16-bit floats, wrapping int64 for integers; bool: or / and). Prod writes
// one product per line at out, multiplied in the dtype itself (float for
// the 16-bit floats); 1 for an empty line.
enum class ScanKernel : int32_t { CumSum, CumProd, Prod };
struct ScanArgs {
  ScanKernel op;
  KernelShape lines;
  KernelOperand out;  // strides over lines
  KernelOperand in;   // strides over lines
  int64_t len;
  int64_t in_stride, out_stride;
  bool reverse;
};

// ---- softplus and the elementwise losses (issue 32, cuda-sort-loss) ------
// out = op(a, b, c, d) element by element over shape, computed in float for
// float16/bfloat16 (double for float64, float for float32) from operands
// converted to out's dtype first, stored rounded once: the CPU kernels'
// formulas, branch for branch. Softplus (pointwise.cpp's float_map: a x
// > threshold ? x : log1p(exp(a x)) / a with p = beta, q = threshold, each
// rounded to out's dtype first); Mse, SmoothL1 (p = beta) and Huber (p =
// delta) of a - b (loss.cpp's pointwise_loss); AbsBelow / AbsAtMost (|a| <
// p, |a| <= p: loss.cpp's abs_below, out bool, computed in a's dtype);
// DivScalar (a / p, loss.cpp's div_scalar); Bce (binary_cross_entropy of
// input a, target b, weight c, logs clamped at -100) and BceWithLogits
// (input a, target b, weight c, pos_weight d). Unused operands' data null.
enum class LossKernel : int32_t { Softplus, Mse, SmoothL1, Huber, AbsBelow, AbsAtMost, DivScalar, Bce, BceWithLogits };
struct LossMapArgs {
  KernelShape shape;
  KernelOperand out, a, b, c, d;
  double p, q;
  tsr_dtype compute;  // the operands' dtype (out's, or a's for the masks)
};

// ---- sort, topk, kthvalue (issue 32, cuda-sort-loss) ---------------------
// One thread per slice (src/cpu/kernels/sort.cpp's order): slice s of `in`
// holds the n elements at in's offset over `outer` plus j * in_dim_stride;
// its positions 0..n-1 are ordered by (key, position), the key the CPU's
// (floats by value with -0 as +0 and every NaN the largest, integers and
// bool by value; descending inverts it), in scratch[s n .. s n + n) (int64
// device memory the caller provides); ranks first..last-1 of that order
// are written: values[r - first] (in's dtype, the element copied) and
// indices[r - first] (int64, its position), each at its operand's offset
// over outer plus (r - first) * its dim stride.
struct SortSlicesArgs {
  KernelShape outer;
  KernelOperand in, values, indices;  // strides over outer
  int64_t n, first, last;
  int64_t in_dim_stride, values_dim_stride, indices_dim_stride;
  bool descending;
  int64_t* scratch;
};

// ---- the scatter / index family (issue 32: scatter, index_*, index_put,
// nonzero, masked_select) ----------------------------------------------------
//
// scatter_reduce: ScatterAddArgs' column walk with a reduction
// (src/cpu/kernels/scatter.cpp's scatter_into and Reduce<T>): for every
// column c, one thread, in index order j = 0 .. len - 1: when !include_self
// (and op is not Assign) first every out[p_j] = the reduction's identity
// (Prod 1, Amax the dtype's lowest / -inf, Amin its max / +inf, else 0);
// then out[p_j] = op(out[p_j], src[c, j]) (Assign: src's bytes, for any
// dtype, the storage-only ones included; Sum and Mean add,
// integers wrapping and bool or-ing; Prod multiplies (bool and-s); Amax and
// Amin keep the larger / smaller, a NaN winning), computed in the compute
// type (float for the 16-bit floats) and rounded after every step; Mean
// also counts each position's values in `count` (int64, set by the caller
// to 1 with self, else 0; strides over columns plus count_dim_stride) and
// at the end divides each position with a count above 1 once (floats:
// value / count in the compute type; integers: floor division; bool kept).
// Columns never share an out element, so the result is the CPU's bit for
// bit.
enum class ScatterKernel : int32_t { Assign, Sum, Prod, Mean, Amax, Amin };
struct ScatterReduceArgs {
  ScatterAddArgs base;
  ScatterKernel op;
  bool include_self;
  KernelOperand count;  // Mean only (int64); data null otherwise
  int64_t count_dim_stride;
  // Sum only: src scaled first, as index_add_'s alpha (add_into: a + k * b
  // with k = alpha in the compute type; bool: a || (alpha != 0 && b)).
  double alpha;
};

// nonzero in blocks (src/cpu/kernels/advanced_index.cpp's nonzero): mask is
// numel contiguous elements of bool or uint8 (nonzero is true), cut into
// blocks of `block` elements. count pass (write false): counts[b] = the
// number of true elements of block b. Write pass: block b's true elements,
// in order, become rows starts[b], starts[b] + 1, ... of out: their
// coordinates over `shape` (out [n, shape.ndim] int64 contiguous) or, with
// flat, their positions (out [n] int64). One thread per block, so rows come
// out in C order, as the CPU's.
struct NonzeroArgs {
  const void* mask;
  tsr_dtype mask_dtype;
  int64_t numel, block;
  KernelShape shape;
  bool write, flat;
  int64_t* counts;        // count pass: [blocks]
  const int64_t* starts;  // write pass: [blocks]
  int64_t* out;
};

// What a device computes. Every method queues work on s and may throw
// tsr::Error (TSR_ERR_UNSUPPORTED for a dtype the device lacks, with the
// CPU's message where it has one; TSR_ERR_INTERNAL when a launch fails).
class DeviceKernels {
 public:
  virtual ~DeviceKernels() = default;

  // dst = src converted to dst's dtype (copy_strided; any layouts,
  // channels_last included; src broadcast by stride 0).
  virtual void copy(const KernelShape& shape, const KernelOperand& dst, const KernelOperand& src,
                    Stream s) = 0;
  // Every element of dst = value converted to dst's dtype (kernels::fill).
  virtual void fill(const KernelShape& shape, const KernelOperand& dst, double value,
                    Stream s) = 0;
  virtual void unary(UnaryKernel op, const KernelShape& shape, const KernelOperand& out,
                     const KernelOperand& in, double alpha, tsr_dtype compute, Stream s) = 0;
  virtual void binary(BinaryKernel op, const KernelShape& shape, const KernelOperand& out,
                      const KernelOperand& a, const KernelOperand& b, double alpha,
                      tsr_dtype compute, Stream s) = 0;
  virtual void reduce(ReduceKernel op, const ReduceArgs& args, Stream s) = 0;

  // (log_)softmax of contiguous in [outer, dim, inner] along the middle dim
  // into contiguous out of the same dtype (kernels::log_softmax: max-shifted,
  // accumulated in at least float).
  virtual void softmax(bool log, void* out, const void* in, tsr_dtype dtype, int64_t outer,
                       int64_t dim, int64_t inner, Stream s) = 0;
  // grad_in = grad - exp(output) * sum(grad, dim), all contiguous [outer,
  // dim, inner] (kernels::log_softmax_backward).
  virtual void log_softmax_backward(void* grad_in, const void* grad, const void* output,
                                    tsr_dtype dtype, int64_t outer, int64_t dim, int64_t inner,
                                    Stream s) = 0;
  // Mean negative log-likelihood into the 0-dim out (kernels::nll_loss):
  // logp [n, c] contiguous, target [n] int64 contiguous. A target outside
  // [0, c) cannot be reported from a kernel: the loss is NaN then.
  virtual void nll_loss(void* out, const void* logp, const int64_t* target, tsr_dtype dtype,
                        int64_t n, int64_t c, Stream s) = 0;
  // grad_logp [n, c] contiguous = -(grad / n) at [i, target[i]], else 0;
  // grad is a 0-dim tensor of dtype (kernels::nll_loss_backward).
  virtual void nll_loss_backward(void* grad_logp, const void* grad, const int64_t* target,
                                 tsr_dtype dtype, int64_t n, int64_t c, Stream s) = 0;
  // Dropout's noise, contiguous numel elements of dtype: element i is
  // `scale` when Philox word (start + i) of `seed`, shifted right by 8, is
  // below `threshold`, else 0 (ops/dropout.cpp's bernoulli_noise, so the
  // CPU and the device draw the same mask).
  virtual void bernoulli_noise(void* out, tsr_dtype dtype, int64_t numel, uint64_t seed,
                               uint64_t start, uint32_t threshold, double scale, Stream s) = 0;
  virtual void gemm(const GemmArgs& args, Stream s) = 0;
  virtual void non_finite_check_and_unscale(const UnscaleArgs& args, Stream s) = 0;
  virtual void sdpa_forward(const SdpaDeviceArgs& args, Stream s) = 0;
  virtual void sdpa_backward(const SdpaDeviceArgs& args, Stream s) = 0;

  // Selection and normalization (issue 32). Not pure: a device without them
  // says so (TSR_ERR_UNSUPPORTED), as a primitive without eval_device does.
  //
  // out = cond ? a : b (kernels::where): cond bool or uint8 (nonzero is
  // true), a and b converted to out's dtype; all four over shape.
  virtual void where(const KernelShape& shape, const KernelOperand& out, const KernelOperand& cond,
                     const KernelOperand& a, const KernelOperand& b, Stream s);
  // out = in[offset + index * in_dim_stride] (kernels::gather, index_select,
  // embedding): out, in (its indexed dim's stride 0 in `strides`) and index
  // (int32 or int64, values already checked) over shape; in and out of one
  // dtype.
  virtual void gather(const KernelShape& shape, const KernelOperand& out, const KernelOperand& in,
                      const KernelOperand& index, int64_t in_dim_stride, Stream s);
  virtual void scatter_add(const ScatterAddArgs& args, Stream s);
  // *first_bad (device memory, int64) = the first element, in row-major
  // order over shape, of index (int32 or int64) outside [0, limit), or -1.
  virtual void index_bounds(const KernelShape& shape, const KernelOperand& index, int64_t limit,
                            int64_t* first_bad, Stream s);
  // layer_norm of contiguous rows [rows, cols] (kernels::layer_norm: mean
  // and biased variance accumulated in double, then as the CPU's row code);
  // weight and bias contiguous [cols] of dtype, or null.
  virtual void layer_norm(void* out, const void* x, const void* weight, const void* bias, tsr_dtype dtype,
                          int64_t rows, int64_t cols, double eps, Stream s);

  // Max pooling (MaxPool2dArgs), forward and backward.
  virtual void max_pool2d(const MaxPool2dArgs& args, Stream s);
  virtual void max_pool2d_backward(const MaxPool2dArgs& args, Stream s);
  // ---- scans and products (issue 32, cuda-reduce) ----
  // cumsum / cumprod / prod along a line (ScanArgs; kernels::scan and
  // kernels::prod).
  virtual void scan(const ScanArgs& args, Stream s);
  // Softplus and the elementwise losses (cuda-sort-loss, issue 32).
  virtual void loss_map(LossKernel op, const LossMapArgs& args, Stream s);
  // sort, topk and kthvalue (cuda-sort-loss, issue 32).
  virtual void sort_slices(const SortSlicesArgs& args, Stream s);
  // The scatter / index family (issue 32; see ScatterReduceArgs and
  // NonzeroArgs above).
  virtual void scatter_reduce(const ScatterReduceArgs& args, Stream s);
  virtual void nonzero_blocks(const NonzeroArgs& args, Stream s);
};

// The defaults of the non-pure methods: inline, so a DeviceKernels built
// into a plugin needs nothing from libtessera for them.
namespace device_kernels_detail {
[[noreturn]] inline void no_kernel(const char* what) {
  fail(TSR_ERR_UNSUPPORTED, what, ": this device has no kernel for it");
}
}  // namespace device_kernels_detail
inline void DeviceKernels::where(const KernelShape&, const KernelOperand&, const KernelOperand&,
                                 const KernelOperand&, const KernelOperand&, Stream) {
  device_kernels_detail::no_kernel("where");
}
inline void DeviceKernels::gather(const KernelShape&, const KernelOperand&, const KernelOperand&,
                                  const KernelOperand&, int64_t, Stream) {
  device_kernels_detail::no_kernel("gather");
}
inline void DeviceKernels::scatter_add(const ScatterAddArgs&, Stream) {
  device_kernels_detail::no_kernel("scatter_add");
}
inline void DeviceKernels::index_bounds(const KernelShape&, const KernelOperand&, int64_t, int64_t*, Stream) {
  device_kernels_detail::no_kernel("index_bounds");
}
inline void DeviceKernels::layer_norm(void*, const void*, const void*, const void*, tsr_dtype, int64_t, int64_t,
                                      double, Stream) {
  device_kernels_detail::no_kernel("layer_norm");
}
inline void DeviceKernels::max_pool2d(const MaxPool2dArgs&, Stream) { device_kernels_detail::no_kernel("max_pool2d"); }
inline void DeviceKernels::max_pool2d_backward(const MaxPool2dArgs&, Stream) {
  device_kernels_detail::no_kernel("max_pool2d_backward");
}
// ---- scans and products (issue 32, cuda-reduce) ----
inline void DeviceKernels::scan(const ScanArgs&, Stream) { device_kernels_detail::no_kernel("scan"); }
inline void DeviceKernels::loss_map(LossKernel, const LossMapArgs&, Stream) {
  device_kernels_detail::no_kernel("loss_map");
}
inline void DeviceKernels::sort_slices(const SortSlicesArgs&, Stream) {
  device_kernels_detail::no_kernel("sort_slices");
}

// The scatter / index family's defaults.
inline void DeviceKernels::scatter_reduce(const ScatterReduceArgs&, Stream) {
  device_kernels_detail::no_kernel("scatter_reduce");
}
inline void DeviceKernels::nonzero_blocks(const NonzeroArgs&, Stream) {
  device_kernels_detail::no_kernel("nonzero");
}

}  // namespace tsr
