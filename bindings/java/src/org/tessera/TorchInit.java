package org.tessera;

/** The default initialisation torch's Linear and Conv2d share (their reset_parameters). */
final class TorchInit {
  private TorchInit() {}

  /**
   * kaiming_uniform_(weight, a = sqrt(5)), which makes the weight uniform in [-1/sqrt(fanIn),
   * 1/sqrt(fanIn)); bias (if any) uniform in the same range, 0 for fanIn 0 as in torch.
   */
  static void resetParameters(Tensor weight, Tensor bias, long fanIn, Generator g) {
    Init.kaimingUniform_(weight, Math.sqrt(5), "fan_in", "leaky_relu", g);
    if (bias != null) {
      double bound = fanIn > 0 ? 1.0 / Math.sqrt(fanIn) : 0.0;
      Init.uniform_(bias, -bound, bound, g);
    }
  }
}
