package org.tessera;

/**
 * torch.nn.functional's activations and losses added for ported training scripts (silu, leakyRelu,
 * elu, softplus, hardtanh; mseLoss, l1Loss, smoothL1Loss, huberLoss, klDiv, nllLoss, crossEntropy,
 * binaryCrossEntropy, binaryCrossEntropyWithLogits), with torch's defaults in the short overloads
 * and a {@link Reduction} for torch's reduction string. linear, gelu, layerNorm and the other
 * older ops stay in {@link Tessera}. Each result is a new tensor to close; every failure throws
 * {@link TesseraException} carrying the library's status and message.
 */
public final class Functional {
  private Functional() {}

  // ---- activations ----------------------------------------------------------------------------

  /** torch.nn.functional.silu(input): x * sigmoid(x). */
  public static Tensor silu(Tensor input) {
    return NativeTessera.pointwiseSilu(input);
  }

  /** torch.nn.functional.leaky_relu(input): negativeSlope 0.01. */
  public static Tensor leakyRelu(Tensor input) {
    return leakyRelu(input, 0.01);
  }

  /** torch.nn.functional.leaky_relu(input, negativeSlope): x, or negativeSlope * x below 0. */
  public static Tensor leakyRelu(Tensor input, double negativeSlope) {
    return NativeTessera.pointwiseLeakyRelu(input, negativeSlope);
  }

  /** torch.nn.functional.elu(input): alpha 1.0. */
  public static Tensor elu(Tensor input) {
    return elu(input, 1.0);
  }

  /** torch.nn.functional.elu(input, alpha): x, or alpha * (exp(x) - 1) below 0. */
  public static Tensor elu(Tensor input, double alpha) {
    return NativeTessera.pointwiseElu(input, alpha);
  }

  /** torch.nn.functional.softplus(input): beta 1, threshold 20. */
  public static Tensor softplus(Tensor input) {
    return softplus(input, 1.0, 20.0);
  }

  /**
   * torch.nn.functional.softplus(input, beta, threshold): log(1 + exp(beta x)) / beta, or x where
   * beta x exceeds threshold.
   */
  public static Tensor softplus(Tensor input, double beta, double threshold) {
    return NativeTessera.pointwiseSoftplus(input, beta, threshold);
  }

  /** torch.nn.functional.hardtanh(input): limits -1 and 1. */
  public static Tensor hardtanh(Tensor input) {
    return hardtanh(input, -1.0, 1.0);
  }

  /** torch.nn.functional.hardtanh(input, minVal, maxVal): input clamped to [minVal, maxVal]. */
  public static Tensor hardtanh(Tensor input, double minVal, double maxVal) {
    return NativeTessera.pointwiseHardtanh(input, minVal, maxVal);
  }

  // ---- losses ---------------------------------------------------------------------------------

  /** torch.nn.functional.mse_loss(input, target): the mean squared error. */
  public static Tensor mseLoss(Tensor input, Tensor target) {
    return mseLoss(input, target, Reduction.MEAN);
  }

  /**
   * torch.nn.functional.mse_loss(input, target, reduction): (input - target)^2, broadcast (torch
   * warns where tessera just broadcasts), reduced.
   */
  public static Tensor mseLoss(Tensor input, Tensor target, Reduction reduction) {
    return NativeTessera.mse_loss(input, target, Reduction.of(reduction));
  }

  /** torch.nn.functional.l1_loss(input, target): the mean absolute error. */
  public static Tensor l1Loss(Tensor input, Tensor target) {
    return l1Loss(input, target, Reduction.MEAN);
  }

  /** torch.nn.functional.l1_loss(input, target, reduction): |input - target|, reduced. */
  public static Tensor l1Loss(Tensor input, Tensor target, Reduction reduction) {
    return NativeTessera.l1_loss(input, target, Reduction.of(reduction));
  }

  /** torch.nn.functional.smooth_l1_loss(input, target): mean, beta 1.0. */
  public static Tensor smoothL1Loss(Tensor input, Tensor target) {
    return smoothL1Loss(input, target, Reduction.MEAN, 1.0);
  }

  /**
   * torch.nn.functional.smooth_l1_loss(input, target, reduction, beta): 0.5 d^2 / beta where |d| &lt;
   * beta, else |d| - 0.5 beta (beta 0: l1). ERR_INVALID_ARGUMENT for a negative beta.
   */
  public static Tensor smoothL1Loss(Tensor input, Tensor target, Reduction reduction, double beta) {
    return NativeTessera.smooth_l1_loss(input, target, Reduction.of(reduction), beta);
  }

  /** torch.nn.functional.huber_loss(input, target): mean, delta 1.0. */
  public static Tensor huberLoss(Tensor input, Tensor target) {
    return huberLoss(input, target, Reduction.MEAN, 1.0);
  }

  /**
   * torch.nn.functional.huber_loss(input, target, reduction, delta): 0.5 d^2 where |d| &lt; delta,
   * else delta (|d| - 0.5 delta). ERR_INVALID_ARGUMENT for delta &lt;= 0.
   */
  public static Tensor huberLoss(Tensor input, Tensor target, Reduction reduction, double delta) {
    return NativeTessera.huber_loss(input, target, Reduction.of(reduction), delta);
  }

  /** torch.nn.functional.kl_div(input, target): mean, target given as probabilities. */
  public static Tensor klDiv(Tensor input, Tensor target) {
    return klDiv(input, target, Reduction.MEAN, false);
  }

  /**
   * torch.nn.functional.kl_div(input, target, reduction, logTarget): input holds log-probabilities,
   * target probabilities (log-probabilities when logTarget). torch's "batchmean" is {@link
   * Reduction#SUM} divided by the batch size.
   */
  public static Tensor klDiv(Tensor input, Tensor target, Reduction reduction, boolean logTarget) {
    return NativeTessera.kl_div(input, target, Reduction.of(reduction), logTarget);
  }

  /** torch.nn.functional.nll_loss(input, target): no weight, mean, ignoreIndex -100. */
  public static Tensor nllLoss(Tensor input, Tensor target) {
    return nllLoss(input, target, null, Reduction.MEAN, -100);
  }

  /**
   * torch.nn.functional.nll_loss(input, target, weight, reduction, ignoreIndex): input [N, C] (or [C],
   * or [N, C, d1, ...]) of log-probabilities, target int64 class indices; weight null or [C]; MEAN
   * divides by the summed weights of the targets not ignored. ERR_INDEX_OUT_OF_RANGE ("Target 4 is
   * out of bounds."), ERR_SHAPE_MISMATCH with torch's messages.
   */
  public static Tensor nllLoss(Tensor input, Tensor target, Tensor weight, Reduction reduction, long ignoreIndex) {
    Tessera.requireOpen(weight, "nllLoss: weight");
    return NativeTessera.nll_loss(input, target, weight, Reduction.of(reduction), ignoreIndex);
  }

  /**
   * torch.nn.functional.cross_entropy(input, target): no weight, mean, ignoreIndex -100, no label
   * smoothing. The target is int64 class indices, or class probabilities of input's shape.
   */
  public static Tensor crossEntropy(Tensor input, Tensor target) {
    return crossEntropy(input, target, null, Reduction.MEAN, -100, 0.0);
  }

  /**
   * torch.nn.functional.cross_entropy(input, target, weight, reduction, ignoreIndex,
   * labelSmoothing): log_softmax over dim 1 then nll_loss, with labelSmoothing in [0, 1] mixing in
   * the uniform distribution; the target is int64 class indices or probabilities (then ignoreIndex
   * does not apply). weight null or [C].
   */
  public static Tensor crossEntropy(Tensor input, Tensor target, Tensor weight, Reduction reduction,
      long ignoreIndex, double labelSmoothing) {
    Tessera.requireOpen(weight, "crossEntropy: weight");
    return NativeTessera.cross_entropy_loss(input, target, weight, Reduction.of(reduction), ignoreIndex,
        labelSmoothing);
  }

  /** torch.nn.functional.binary_cross_entropy(input, target): no weight, mean. */
  public static Tensor binaryCrossEntropy(Tensor input, Tensor target) {
    return binaryCrossEntropy(input, target, null, Reduction.MEAN);
  }

  /**
   * torch.nn.functional.binary_cross_entropy(input, target, weight, reduction): -w (t log x + (1 -
   * t) log(1 - x)) with the logs clamped at -100, input probabilities of target's shape; weight null
   * or broadcastable.
   */
  public static Tensor binaryCrossEntropy(Tensor input, Tensor target, Tensor weight, Reduction reduction) {
    Tessera.requireOpen(weight, "binaryCrossEntropy: weight");
    return NativeTessera.binary_cross_entropy(input, target, weight, Reduction.of(reduction));
  }

  /** torch.nn.functional.binary_cross_entropy_with_logits(input, target): no weights, mean. */
  public static Tensor binaryCrossEntropyWithLogits(Tensor input, Tensor target) {
    return binaryCrossEntropyWithLogits(input, target, null, null, Reduction.MEAN);
  }

  /**
   * torch.nn.functional.binary_cross_entropy_with_logits(input, target, weight, posWeight,
   * reduction): binaryCrossEntropy of sigmoid(input), computed stably from the logits; posWeight
   * (null or broadcastable over the classes) weighs the positive term.
   */
  public static Tensor binaryCrossEntropyWithLogits(Tensor input, Tensor target, Tensor weight, Tensor posWeight,
      Reduction reduction) {
    Tessera.requireOpen(weight, "binaryCrossEntropyWithLogits: weight");
    Tessera.requireOpen(posWeight, "binaryCrossEntropyWithLogits: posWeight");
    return NativeTessera.binary_cross_entropy_with_logits(input, target, weight, posWeight,
        Reduction.of(reduction));
  }
}
