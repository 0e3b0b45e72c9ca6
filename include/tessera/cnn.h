/**
 * @file tessera/cnn.h
 * @brief Convolutional-network layers: conv2d, pooling, batch norm.
 *
 * Semantics are torch.nn.functional's in PyTorch 1.13 (the function named
 * at each entry). Tensors are 4-D [N, C, H, W] (batch norm: [N, C, ...]),
 * logically NCHW whatever their strides; conv2d and the poolings also take
 * an unbatched [C, H, W] input, as torch does, and return [C, H', W']
 * (conv2d's grad_fn is then SqueezeBackward1, torch's); inputs may have any strides
 * (channels_last, sliced, transposed) and are read through a dense copy when
 * they are not dense. Outputs are new, dense tensors in the memory format
 * PyTorch 1.13 gives, ambiguous layouts included (tensors that are both
 * contiguous and channels_last, such as C = 1 or H = W = 1): conv2d's is
 * channels_last when the input's or the weight's suggested memory format is
 * channels_last, else contiguous, except that a grouped convolution torch
 * runs group by group (float64; float16; float32 when torch would not use
 * oneDNN, a choice that depends on tsr_get_num_threads(); bfloat16 on a CPU
 * without AVX-512 BW/VL/DQ) is channels_last only when
 * each group's result reads as channels_last; pooling keeps the input's
 * suggested format; batch norm gives contiguous for a contiguous input (even
 * one whose strides also read as channels_last), channels_last for a
 * channels_last-contiguous one, else the input's suggested format.
 *
 * dtypes: float32, float64, bfloat16 and float16, all tensors of one call
 * the same dtype, except batch norm's parameters (below). float32 runs on
 * oneDNN's CPU kernels (convolution forward, backward data and backward
 * weights, average pooling); float64 (which oneDNN lacks), batch norm and
 * max / adaptive pooling run on tessera's own direct-loop kernels.
 * bfloat16 convolution runs on oneDNN's bfloat16 kernels, as torch 1.13's
 * (mkldnn): float32 accumulation, each result rounded once to bfloat16, its
 * gradients bfloat16 too. Every other bfloat16 layer, and every float16
 * one, computes in float32 from the widened values and rounds each result
 * once: torch 1.13 has no CPU float16 kernels for these layers, so float16
 * follows PyTorch 2.x (float accumulation); bfloat16 pooling gradients and
 * all-bfloat16 batch norm may differ from torch 1.13's, which rounds some
 * intermediate steps to bfloat16, by an ulp or two. oneDNN uses
 * tsr_get_num_threads() threads.
 *
 * Autograd: with grad mode on and an input that requires grad, the output
 * records PyTorch's grad_fn (ConvolutionBackward0,
 * MaxPool2DWithIndicesBackward0, AvgPool2DBackward0,
 * AdaptiveAvgPool2DBackward0, NativeBatchNormBackward0) and gradients flow
 * to every tensor argument named below. With create_graph
 * (tsr_autograd_grad()) the gradients are differentiable again: conv2d and
 * the poolings through torch's double-backward formulas (grad_fn
 * ConvolutionBackwardBackward0, ...), batch_norm through its backward
 * written in elementwise ops and reductions.
 *
 * Each function returns a new tensor in *out (one reference, release with
 * tsr_tensor_release()); on failure nothing is written or changed.
 *
 * Statuses, with PyTorch's messages where PyTorch has one:
 * - TSR_ERR_INVALID_ARGUMENT: NULL tensors, arrays or out pointers; a
 *   non-positive stride, dilation, groups or kernel size; negative padding;
 *   pool padding above half the kernel; an output size < 1; running stats
 *   missing in evaluation mode.
 * - TSR_ERR_SHAPE_MISMATCH: wrong number of dims, channels that do not
 *   match the weight and groups, a bias / weight / running stat of the wrong
 *   size, a kernel larger than the padded input.
 * - TSR_ERR_DTYPE_MISMATCH: a dtype other than float32, float64, bfloat16
 *   or float16 ("... not implemented for 'Long'"), arguments of different
 *   dtypes, batch norm parameters breaking its mixed-dtype rule.
 * - TSR_ERR_DEVICE_MISMATCH: arguments on different devices.
 * - TSR_ERR_UNSUPPORTED: a device without these kernels (CUDA).
 * - TSR_ERR_OUT_OF_MEMORY: allocation failed.
 *
 * Thread-safety: as the rest of the API (distinct tensors from distinct
 * threads); tsr_batch_norm() writes running_mean / running_var.
 *
 * torch.flatten(input, start_dim, end_dim), e.g. [N, C, H, W] -> [N, C*H*W]
 * with start_dim 1, end_dim -1 between the convolutional and the linear
 * layers, is tsr_flatten(), declared in views.h (included here): a view when
 * the dims can be merged by restriding (reshape's rule), else a contiguous
 * copy; grad_fn ViewBackward0 / UnsafeViewBackward0 as torch.
 */
#ifndef TESSERA_CNN_H
#define TESSERA_CNN_H

#include "types.h"
#include "views.h" /* tsr_flatten */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.nn.functional.conv2d.
 *
 * Output: [N, C_out, H_out, W_out] with
 *     H_out = (H + 2 * padding[0] - dilation[0] * (kH - 1) - 1) / stride[0] + 1
 * (W alike), channels_last when input or weight suggests it.
 * grad_fn ConvolutionBackward0; gradients for input, weight and bias.
 * @param[in]  input    [N, C_in, H, W] (or unbatched [C_in, H, W])
 * @param[in]  weight   [C_out, C_in / groups, kH, kW]
 * @param[in]  bias     [C_out] or NULL
 * @param[in]  stride   {H, W} pair (elements)
 * @param[in]  padding  {H, W} pair (elements)
 * @param[in]  dilation {H, W} pair (elements)
 * @param[in]  groups   >= 1, divides C_in and C_out
 * @param[out] out      new tensor (one reference)
 * @return TSR_OK, or a status of the file comment's list. Messages: "Given
 * groups=1, weight of size [6, 3, 3, 3], expected input[2, 4, 7, 7] to have
 * 3 channels, but got 4 channels instead", "non-positive stride is not
 * supported", "Kernel size can't be greater than actual input size", ...
 */
TSR_API tsr_status tsr_conv2d(const tsr_tensor* input, const tsr_tensor* weight, const tsr_tensor* bias,
                              const int64_t stride[2], const int64_t padding[2], const int64_t dilation[2],
                              int64_t groups, tsr_tensor** out);

/**
 * @brief F.max_pool2d(input, kernel_size, stride, padding, dilation,
 * ceil_mode, return_indices).
 *
 * Output size per dim:
 *     (H + 2p - d(k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s + 1,
 * less one in ceil mode when the last window would start in the padding.
 * grad_fn MaxPool2DWithIndicesBackward0 (the gradient goes to the maxima);
 * indices never require grad.
 * @param[in]  input       [N, C, H, W] (or unbatched [C, H, W])
 * @param[in]  kernel_size {kH, kW}
 * @param[in]  stride      {sH, sW}; NULL means kernel_size
 * @param[in]  padding     {pH, pW} (implicit -inf), at most half the kernel
 * @param[in]  dilation    {dH, dW}
 * @param[in]  ceil_mode   round output sizes up
 * @param[out] out         new tensor [N, C, H_out, W_out] (one reference)
 * @param[out] indices     may be NULL (not returned): new int64 tensor of
 *                         the same sizes and strides, each the flat index
 *                         h * W + w of the maximum in its input plane (the
 *                         first one on ties; NaN wins), as torch
 * @return TSR_OK, or a status of the file comment's list.
 */
TSR_API tsr_status tsr_max_pool2d(const tsr_tensor* input, const int64_t kernel_size[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2], bool ceil_mode,
                                  tsr_tensor** out, tsr_tensor** indices);

/**
 * @brief F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode,
 * count_include_pad) (divisor_override not supported).
 *
 * Output sizes as tsr_max_pool2d() with dilation 1. Each output is the mean
 * of its window. grad_fn AvgPool2DBackward0.
 * @param[in]  input             [N, C, H, W] (or unbatched [C, H, W])
 * @param[in]  kernel_size       {kH, kW}
 * @param[in]  stride            {sH, sW}; NULL means kernel_size
 * @param[in]  padding           {pH, pW}, at most half the kernel
 * @param[in]  ceil_mode         round output sizes up
 * @param[in]  count_include_pad the divisor counts the zero padding inside
 *                               the window (not the part of a ceil-mode
 *                               window past the padding); without it only
 *                               input elements
 * @param[out] out               new tensor (one reference)
 * @return TSR_OK, or a status of the file comment's list.
 */
TSR_API tsr_status tsr_avg_pool2d(const tsr_tensor* input, const int64_t kernel_size[2], const int64_t stride[2],
                                  const int64_t padding[2], bool ceil_mode, bool count_include_pad, tsr_tensor** out);

/**
 * @brief F.adaptive_avg_pool2d(input, output_size).
 *
 * Output element (i, j) averages input rows
 * [floor(i * H / H_out), ceil((i + 1) * H / H_out)) and columns alike.
 * grad_fn AdaptiveAvgPool2DBackward0; for a 1x1 output MeanBackward1
 * (AsStridedBackward1 for channels_last input), the nodes torch 1.13's
 * mean-based shortcut leaves.
 * @param[in]  input       [N, C, H, W] (or unbatched [C, H, W]); C, H and W
 *                         must be non-zero
 * @param[in]  output_size {H_out, W_out}, each >= 0
 * @param[out] out         new tensor (one reference)
 * @return TSR_OK, or a status of the file comment's list.
 */
TSR_API tsr_status tsr_adaptive_avg_pool2d(const tsr_tensor* input, const int64_t output_size[2], tsr_tensor** out);

/**
 * @brief F.batch_norm(input, running_mean, running_var, weight, bias,
 * training, momentum, eps).
 *
 *     out = (input - mean) / sqrt(var + eps) * weight + bias   (per channel)
 *
 * training: mean and the biased var over N and the spatial dims (more than
 * one value per channel needed); running stats, when given, are updated in
 * place without history: running = (1 - momentum) * running + momentum *
 * batch stat, with the unbiased variance for running_var (their version
 * counters are bumped). Not training: mean and var are running_mean and
 * running_var, which must then be given. grad_fn NativeBatchNormBackward0;
 * gradients for input, weight and bias (in both modes). A checkpointed
 * region's replay does not update the running stats a second time.
 *
 * Parameters' dtype (torch 1.13's mixed-dtype rule): weight, bias,
 * running_mean and running_var share one dtype, the first given one's: the
 * input's, or float32 for a bfloat16 (or float16) input, the form autocast
 * uses. The statistics are computed in float32 either way; with float32
 * parameters the running stats stay float32 and the weight's and bias's
 * gradients are float32; out and the input's gradient have the input's
 * dtype. Otherwise TSR_ERR_DTYPE_MISMATCH with torch's message: "mixed dtype
 * (CPU): expect parameter to have scalar type of Float" (float32 first, a
 * later one not), "expected scalar type BFloat16 but found Float" (the
 * input's dtype first, a later one not), "mixed dtype (CPU): expect input to
 * have scalar type of BFloat16" (float32 parameters of a float64 input).
 * @param[in]     input        [N, C, ...] (2-D or more)
 * @param[in,out] running_mean [C] or NULL, the parameters' dtype
 * @param[in,out] running_var  [C] or NULL, the parameters' dtype
 * @param[in]     weight       [C] or NULL (1), the parameters' dtype
 * @param[in]     bias         [C] or NULL (0), the parameters' dtype
 * @param[in]     training     batch statistics (true) or running ones
 * @param[in]     momentum     weight of the batch stat in the update
 * @param[in]     eps          added to the variance
 * @param[out]    out          new tensor (one reference)
 * @return TSR_OK, or a status of the file comment's list (running stats
 * missing when not training: TSR_ERR_INVALID_ARGUMENT; parameters' dtypes
 * as above: TSR_ERR_DTYPE_MISMATCH).
 */
TSR_API tsr_status tsr_batch_norm(const tsr_tensor* input, tsr_tensor* running_mean, tsr_tensor* running_var,
                                  const tsr_tensor* weight, const tsr_tensor* bias, bool training,
                                  double momentum, double eps, tsr_tensor** out);

/* torch.flatten(input, start_dim, end_dim), e.g. [N, C, H, W] -> [N, C*H*W]
 * with start_dim 1, end_dim -1 between the convolutional and the linear
 * layers: declared in views.h (included above):
 *   tsr_status tsr_flatten(const tsr_tensor* input, int64_t start_dim,
 *                          int64_t end_dim, tsr_tensor** out);
 * a view when the dims can be merged by restriding (reshape's rule), else a
 * contiguous copy; grad_fn ViewBackward0 / UnsafeViewBackward0 as torch. */

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_CNN_H */
