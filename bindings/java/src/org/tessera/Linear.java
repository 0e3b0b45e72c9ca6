package org.tessera;

/**
 * torch.nn.Linear(inFeatures, outFeatures, bias): y = x W^T + b with weight [out, in] and bias
 * [out], initialised as torch's reset_parameters does: kaiming_uniform_(weight, a = sqrt(5)), bias
 * uniform in [-1/sqrt(in), 1/sqrt(in)) (same distributions as torch, not torch's numbers).
 */
public final class Linear extends Module {
  private final long inFeatures;
  private final long outFeatures;
  private final Tensor weight;
  private final Tensor bias;

  public Linear(long inFeatures, long outFeatures) {
    this(inFeatures, outFeatures, true, Init.defaultGenerator());
  }

  public Linear(long inFeatures, long outFeatures, boolean bias) {
    this(inFeatures, outFeatures, bias, Init.defaultGenerator());
  }

  /** Draws the initial values from g. */
  public Linear(long inFeatures, long outFeatures, boolean bias, Generator g) {
    this.inFeatures = inFeatures;
    this.outFeatures = outFeatures;
    this.weight = registerParameter("weight", Tessera.empty(outFeatures, inFeatures));
    this.bias = registerParameter("bias", bias ? Tessera.empty(outFeatures) : null);
    TorchInit.resetParameters(this.weight, this.bias, inFeatures, g);
  }

  @Override
  public Tensor forward(Tensor input) {
    return Tessera.linear(input, weight, bias);
  }

  /** The weight [out, in]: the module's own tensor, not to be closed. */
  public Tensor weight() {
    return weight;
  }

  /** The bias [out], or null when built without one. */
  public Tensor bias() {
    return bias;
  }

  public long inFeatures() {
    return inFeatures;
  }

  public long outFeatures() {
    return outFeatures;
  }
}
