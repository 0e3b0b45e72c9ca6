// Functional — torch.nn.functional's activations and losses added for ported
// training scripts (Silu, LeakyRelu, Elu, Softplus, Hardtanh; MseLoss,
// L1Loss, SmoothL1Loss, HuberLoss, KlDiv, NllLoss, CrossEntropy,
// BinaryCrossEntropy, BinaryCrossEntropyWithLogits), with torch's defaults as
// optional parameters and Reduction for torch's reduction string. Linear,
// Gelu, LayerNorm and the older ops stay in Tessera. Each result is a new
// tensor to dispose; every failure throws TesseraException with the
// library's status and message.
namespace Tessera {

/// <summary>How a loss reduces its elementwise values: torch's
/// reduction="none", "mean" or "sum" (tsr_loss_reduction's values).</summary>
public enum Reduction {
  /// <summary>"none": the elementwise loss, in the broadcast shape.</summary>
  None = 0,
  /// <summary>"mean": the mean over every element (the weighted mean for
  /// NllLoss / CrossEntropy with class weights).</summary>
  Mean = 1,
  /// <summary>"sum": the sum over every element.</summary>
  Sum = 2,
}

public static class Functional {
  // ---- activations ------------------------------------------------------------

  /// <summary>torch.nn.functional.silu(input): x * sigmoid(x).</summary>
  public static Tensor Silu(Tensor input) => TesseraNative.PointwiseSilu(input);

  /// <summary>torch.nn.functional.leaky_relu(input, negative_slope): x, or
  /// negativeSlope * x below 0.</summary>
  public static Tensor LeakyRelu(Tensor input, double negativeSlope = 0.01) =>
      TesseraNative.PointwiseLeakyRelu(input, negativeSlope);

  /// <summary>torch.nn.functional.elu(input, alpha): x, or alpha * (exp(x) -
  /// 1) below 0.</summary>
  public static Tensor Elu(Tensor input, double alpha = 1.0) => TesseraNative.PointwiseElu(input, alpha);

  /// <summary>torch.nn.functional.softplus(input, beta, threshold): log(1 +
  /// exp(beta x)) / beta, or x where beta x exceeds threshold.</summary>
  public static Tensor Softplus(Tensor input, double beta = 1.0, double threshold = 20.0) =>
      TesseraNative.PointwiseSoftplus(input, beta, threshold);

  /// <summary>torch.nn.functional.hardtanh(input, min_val, max_val): input
  /// clamped to [minVal, maxVal].</summary>
  public static Tensor Hardtanh(Tensor input, double minVal = -1.0, double maxVal = 1.0) =>
      TesseraNative.PointwiseHardtanh(input, minVal, maxVal);

  // ---- losses -------------------------------------------------------------------

  /// <summary>torch.nn.functional.mse_loss: (input - target)^2, broadcast,
  /// reduced.</summary>
  public static Tensor MseLoss(Tensor input, Tensor target, Reduction reduction = Reduction.Mean) =>
      TesseraNative.mse_loss(input, target, (int)reduction);

  /// <summary>torch.nn.functional.l1_loss: |input - target|, reduced.</summary>
  public static Tensor L1Loss(Tensor input, Tensor target, Reduction reduction = Reduction.Mean) =>
      TesseraNative.l1_loss(input, target, (int)reduction);

  /// <summary>torch.nn.functional.smooth_l1_loss: 0.5 d^2 / beta where |d|
  /// &lt; beta, else |d| - 0.5 beta (beta 0: L1). Status.InvalidArgument for
  /// a negative beta.</summary>
  public static Tensor SmoothL1Loss(Tensor input, Tensor target, Reduction reduction = Reduction.Mean,
                                    double beta = 1.0) =>
      TesseraNative.smooth_l1_loss(input, target, (int)reduction, beta);

  /// <summary>torch.nn.functional.huber_loss: 0.5 d^2 where |d| &lt; delta,
  /// else delta (|d| - 0.5 delta). Status.InvalidArgument for delta &lt;=
  /// 0.</summary>
  public static Tensor HuberLoss(Tensor input, Tensor target, Reduction reduction = Reduction.Mean,
                                 double delta = 1.0) =>
      TesseraNative.huber_loss(input, target, (int)reduction, delta);

  /// <summary>torch.nn.functional.kl_div: input holds log-probabilities,
  /// target probabilities (log-probabilities when logTarget). torch's
  /// "batchmean" is Reduction.Sum divided by the batch size.</summary>
  public static Tensor KlDiv(Tensor input, Tensor target, Reduction reduction = Reduction.Mean,
                             bool logTarget = false) =>
      TesseraNative.kl_div(input, target, (int)reduction, logTarget);

  /// <summary>torch.nn.functional.nll_loss: input [N, C] (or [C], or [N, C,
  /// d1, ...]) of log-probabilities, target int64 class indices; weight null
  /// or [C]; Mean divides by the summed weights of the targets not ignored.
  /// Status.IndexOutOfRange ("Target 4 is out of bounds."),
  /// Status.ShapeMismatch with torch's messages.</summary>
  public static Tensor NllLoss(Tensor input, Tensor target, Tensor weight = null,
                               Reduction reduction = Reduction.Mean, long ignoreIndex = -100) {
    Tessera.RequireLive(weight, "NllLoss: weight");
    return TesseraNative.nll_loss(input, target, weight, (int)reduction, ignoreIndex);
  }

  /// <summary>torch.nn.functional.cross_entropy: log_softmax over dim 1 then
  /// nll_loss, labelSmoothing in [0, 1] mixing in the uniform distribution;
  /// target int64 class indices or class probabilities of input's shape (then
  /// ignoreIndex does not apply); weight null or [C].</summary>
  public static Tensor CrossEntropy(Tensor input, Tensor target, Tensor weight = null,
                                    Reduction reduction = Reduction.Mean, long ignoreIndex = -100,
                                    double labelSmoothing = 0.0) {
    Tessera.RequireLive(weight, "CrossEntropy: weight");
    return TesseraNative.cross_entropy_loss(input, target, weight, (int)reduction, ignoreIndex, labelSmoothing);
  }

  /// <summary>torch.nn.functional.binary_cross_entropy: -w (t log x + (1 - t)
  /// log(1 - x)), the logs clamped at -100; input probabilities of target's
  /// shape, weight null or broadcastable.</summary>
  public static Tensor BinaryCrossEntropy(Tensor input, Tensor target, Tensor weight = null,
                                          Reduction reduction = Reduction.Mean) {
    Tessera.RequireLive(weight, "BinaryCrossEntropy: weight");
    return TesseraNative.binary_cross_entropy(input, target, weight, (int)reduction);
  }

  /// <summary>torch.nn.functional.binary_cross_entropy_with_logits:
  /// BinaryCrossEntropy of sigmoid(input), computed stably from the logits;
  /// posWeight (null or broadcastable over the classes) weighs the positive
  /// term.</summary>
  public static Tensor BinaryCrossEntropyWithLogits(Tensor input, Tensor target, Tensor weight = null,
                                                    Tensor posWeight = null,
                                                    Reduction reduction = Reduction.Mean) {
    Tessera.RequireLive(weight, "BinaryCrossEntropyWithLogits: weight");
    Tessera.RequireLive(posWeight, "BinaryCrossEntropyWithLogits: posWeight");
    return TesseraNative.binary_cross_entropy_with_logits(input, target, weight, posWeight, (int)reduction);
  }
}

}
