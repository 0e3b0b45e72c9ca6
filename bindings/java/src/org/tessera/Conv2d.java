package org.tessera;

/**
 * torch.nn.Conv2d(inChannels, outChannels, kernelSize, stride, padding, dilation, groups, bias):
 * weight [out, in / groups, kH, kW], bias [out], torch's default initialisation (as {@link
 * Linear}, fan_in = in / groups * kH * kW) and torch's checks on groups. Pairs are {H, W}.
 */
public final class Conv2d extends Module {
  private final long[] stride;
  private final long[] padding;
  private final long[] dilation;
  private final long groups;
  private final Tensor weight;
  private final Tensor bias;

  /** A square kernel, stride 1, no padding, dilation 1, one group, with bias. */
  public Conv2d(long inChannels, long outChannels, long kernelSize) {
    this(inChannels, outChannels, new long[] {kernelSize, kernelSize}, new long[] {1, 1}, new long[] {0, 0},
        new long[] {1, 1}, 1, true, Init.defaultGenerator());
  }

  /** Draws the initial values from g; ValueError's messages of torch as IllegalArgumentException. */
  public Conv2d(long inChannels, long outChannels, long[] kernelSize, long[] stride, long[] padding,
      long[] dilation, long groups, boolean bias, Generator g) {
    if (groups <= 0) throw new IllegalArgumentException("groups must be a positive integer");
    if (inChannels % groups != 0) throw new IllegalArgumentException("in_channels must be divisible by groups");
    if (outChannels % groups != 0) throw new IllegalArgumentException("out_channels must be divisible by groups");
    long[] kernel = pair("kernel_size", kernelSize);
    this.stride = pair("stride", stride);
    this.padding = pair("padding", padding);
    this.dilation = pair("dilation", dilation);
    this.groups = groups;
    this.weight = registerParameter("weight",
        Tessera.empty(outChannels, inChannels / groups, kernel[0], kernel[1]));
    this.bias = registerParameter("bias", bias ? Tessera.empty(outChannels) : null);
    TorchInit.resetParameters(this.weight, this.bias, inChannels / groups * kernel[0] * kernel[1], g);
  }

  private static long[] pair(String what, long[] p) {
    if (p == null || p.length != 2) throw new IllegalArgumentException(what + " must be two values {H, W}");
    return p.clone();
  }

  @Override
  public Tensor forward(Tensor input) {
    return Tessera.conv2d(input, weight, bias, stride, padding, dilation, groups);
  }

  /** The weight [out, in / groups, kH, kW]: the module's own tensor, not to be closed. */
  public Tensor weight() {
    return weight;
  }

  /** The bias [out], or null when built without one. */
  public Tensor bias() {
    return bias;
  }
}
