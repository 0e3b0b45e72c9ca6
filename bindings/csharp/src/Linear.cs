// Linear — torch.nn.Linear(in_features, out_features, bias): y = x W^T + b
// with weight [out, in] and bias [out], initialised as torch's
// reset_parameters: kaiming_uniform_(weight, a = sqrt(5)), bias uniform in
// [-1/sqrt(in), 1/sqrt(in)) (torch's distributions, not torch's numbers).
namespace Tessera {

public sealed class Linear : Module {
  public long InFeatures { get; }
  public long OutFeatures { get; }
  /// <summary>The weight [out, in]: the module's own tensor.</summary>
  public Tensor Weight { get; }
  /// <summary>The bias [out], or null when built without one.</summary>
  public Tensor Bias { get; }

  /// <summary>Draws the initial values from generator (null:
  /// Init.DefaultGenerator).</summary>
  public Linear(long inFeatures, long outFeatures, bool bias = true, Generator generator = null) {
    InFeatures = inFeatures;
    OutFeatures = outFeatures;
    Weight = RegisterParameter("weight", Tensor.Empty(new[] {outFeatures, inFeatures}));
    Bias = RegisterParameter("bias", bias ? Tensor.Empty(new[] {outFeatures}) : null);
    TorchInit.ResetParameters(Weight, Bias, inFeatures, generator);
  }

  public override Tensor Forward(Tensor input) => Tessera.Linear(input, Weight, Bias);
}

}
