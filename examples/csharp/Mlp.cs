// The 64-128-10 perceptron: parameters as tensors that require grad, a
// forward pass recorded by autograd, and an SGD step under no_grad.
using System;
using System.Collections.Generic;

namespace Tessera.Examples {

sealed class Mlp : IDisposable {
  public const int Inputs = 64, Hidden = 128, Outputs = 10;
  public static readonly string[] ParameterNames = {"w1", "b1", "w2", "b2"};

  readonly Tensor[] parameters;   // w1 [64,128], b1 [128], w2 [128,10], b2 [10]

  public Mlp(Generator g) {
    parameters = new[] {HeWeight(Inputs, Hidden, g), ZeroBias(Hidden), HeWeight(Hidden, Outputs, g), ZeroBias(Outputs)};
  }

  Mlp(Tensor[] parameters) { this.parameters = parameters; }

  public IReadOnlyList<Tensor> Parameters => parameters;

  static Tensor HeWeight(long fanIn, long fanOut, Generator g) {
    Tensor w = Tensor.Randn(new[] {fanIn, fanOut}, g);
    // Scaled while it is an ordinary tensor: once it requires grad, an in-place
    // write with grad mode on is an autograd error, as in PyTorch.
    w.MulScalarInPlace(Math.Sqrt(2.0 / fanIn));
    w.RequiresGrad = true;
    return w;
  }

  static Tensor ZeroBias(long n) {
    Tensor b = Tensor.Zeros(new[] {n});
    b.RequiresGrad = true;
    return b;
  }

  /// Logits [N, 10] for x [N, 64]. The intermediates are disposed at once:
  /// the autograd graph keeps what backward needs.
  public Tensor Forward(Tensor x) {
    using (var z1 = x.Matmul(parameters[0]))
    using (var a1 = z1 + parameters[1])
    using (var h = a1.Relu())
    using (var z2 = h.Matmul(parameters[2]))
      return z2 + parameters[3];
  }

  public void SgdStep(double learningRate) {
    using (Tessera.NoGrad()) {
      foreach (Tensor p in parameters)
        using (Tensor grad = p.Grad())
          if (grad != null) p.AddInPlace(grad, -learningRate);
    }
    foreach (Tensor p in parameters) p.ZeroGrad();
  }

  public long[] Predict(Tensor x) {
    using (Tessera.NoGrad())
    using (var logits = Forward(x))
    using (var classes = logits.Argmax(1))
      return classes.ToInt64();
  }

  public void Save(string path) {
    var named = new List<KeyValuePair<string, Tensor>>();
    for (int i = 0; i < parameters.Length; ++i)
      named.Add(new KeyValuePair<string, Tensor>(ParameterNames[i], parameters[i]));
    Tessera.Save(path, named, new Dictionary<string, string> {["model"] = "digits-mlp-64-128-10"},
                 Compression.Zstd);
  }

  /// Fresh tensors (not requiring grad) read from a checkpoint.
  public static Mlp Load(string path, out string model) {
    using (TensorMap map = Tessera.Load(path)) {
      model = map.Metadata["model"];
      return new Mlp(Array.ConvertAll(ParameterNames, name => map[name]));
    }
  }

  public void Dispose() {
    foreach (Tensor p in parameters) p.Dispose();
  }
}

}
