// Conv2d — torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride,
// padding, dilation, groups, bias): weight [out, in / groups, kH, kW], bias
// [out], torch's default initialisation (as Linear, fan_in = in / groups *
// kH * kW) and torch's checks on groups. Pairs are {H, W}.
using System;

namespace Tessera {

public sealed class Conv2d : Module {
  readonly long[] stride, padding, dilation;
  readonly long groups;
  /// <summary>The weight [out, in / groups, kH, kW]: the module's own tensor.</summary>
  public Tensor Weight { get; }
  /// <summary>The bias [out], or null when built without one.</summary>
  public Tensor Bias { get; }

  /// <summary>A square kernel; the other arguments as torch's defaults.</summary>
  public Conv2d(long inChannels, long outChannels, long kernelSize, long stride = 1, long padding = 0,
                long dilation = 1, long groups = 1, bool bias = true, Generator generator = null)
      : this(inChannels, outChannels, new[] {kernelSize, kernelSize}, new[] {stride, stride},
             new[] {padding, padding}, new[] {dilation, dilation}, groups, bias, generator) {}

  /// <summary>ValueError's messages of torch as ArgumentException.</summary>
  public Conv2d(long inChannels, long outChannels, long[] kernelSize, long[] stride, long[] padding,
                long[] dilation, long groups = 1, bool bias = true, Generator generator = null) {
    if (groups <= 0) throw new ArgumentException("groups must be a positive integer");
    if (inChannels % groups != 0) throw new ArgumentException("in_channels must be divisible by groups");
    if (outChannels % groups != 0) throw new ArgumentException("out_channels must be divisible by groups");
    long[] kernel = Pair("kernel_size", kernelSize);
    this.stride = Pair("stride", stride);
    this.padding = Pair("padding", padding);
    this.dilation = Pair("dilation", dilation);
    this.groups = groups;
    Weight = RegisterParameter("weight", Tensor.Empty(new[] {outChannels, inChannels / groups, kernel[0], kernel[1]}));
    Bias = RegisterParameter("bias", bias ? Tensor.Empty(new[] {outChannels}) : null);
    TorchInit.ResetParameters(Weight, Bias, inChannels / groups * kernel[0] * kernel[1], generator);
  }

  static long[] Pair(string what, long[] pair) {
    if (pair == null || pair.Length != 2) throw new ArgumentException(what + " must be two values {H, W}");
    return (long[])pair.Clone();
  }

  public override Tensor Forward(Tensor input) =>
      Tessera.Conv2d(input, Weight, Bias, stride, padding, dilation, groups);
}

}
