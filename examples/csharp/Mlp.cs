// The 64-128-10 perceptron, written as PyTorch users write it:
// nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)); a
// forward pass recorded by autograd, an SGD step under no_grad, and its
// state_dict checkpoint ("0.weight", "0.bias", "2.weight", "2.bias").
using System;
using System.Collections.Generic;
using System.Linq;

namespace Tessera.Examples {

sealed class Mlp : IDisposable {
  public const int Inputs = 64, Hidden = 128, Outputs = 10;

  readonly Sequential net;

  // He initialisation drawn from g, as examples/digits/mlp.c: each weight
  // normal with std sqrt(2 / fan_in), each bias zero. nn.Linear's own default
  // (kaiming_uniform_ with a = sqrt(5)) starts smaller and reaches only about
  // 95% in the example's 25 epochs; re-initialising the layers is how a
  // PyTorch script chooses another init too.
  public Mlp(Generator g) {
    net = new Sequential(new Linear(Inputs, Hidden, true, g), new ReLU(), new Linear(Hidden, Outputs, true, g));
    foreach (Linear layer in net.Children().OfType<Linear>()) {
      Init.Normal_(layer.Weight, 0.0, Math.Sqrt(2.0 / layer.InFeatures), g);
      Init.Zeros_(layer.Bias);
    }
  }

  public IReadOnlyList<Tensor> Parameters => net.Parameters();

  /// Logits [N, 10] for x [N, 64].
  public Tensor Forward(Tensor x) => net.Forward(x);

  /// p -= lr * p.grad under no_grad, then the gradients cleared
  /// (optimizer.step(); model.zero_grad()).
  public void SgdStep(double learningRate) {
    using (Tessera.NoGrad()) {
      foreach (Tensor p in net.Parameters())
        using (Tensor grad = p.Grad())
          if (grad != null) p.AddInPlace(grad, -learningRate);
    }
    net.ZeroGrad();
  }

  public long[] Predict(Tensor x) {
    using (Tessera.NoGrad())
    using (var logits = Forward(x))
    using (var classes = logits.Argmax(1))
      return classes.ToInt64();
  }

  /// The state_dict, zstd-compressed, with the model's name as metadata.
  public void Save(string path) {
    StateDictFile.Save(path, net, new SaveOptions {
      Compression = Compression.Zstd,
      Metadata = new Dictionary<string, string> {["model"] = "digits-mlp-64-128-10"},
    });
  }

  /// A model read back from a checkpoint written by Save (strict: every key
  /// must match).
  public static Mlp Load(string path, out string model) {
    using (TensorMap map = Tessera.Load(path)) model = map.Metadata["model"];
    var loaded = new Mlp(new Generator(0));
    try {
      StateDictFile.Load(path, loaded.net, strict: true);
    } catch {
      loaded.Dispose();
      throw;
    }
    return loaded;
  }

  public void Dispose() => net.Dispose();
}

}
