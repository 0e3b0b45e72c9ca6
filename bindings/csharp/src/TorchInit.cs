// TorchInit — the default initialisation torch's Linear and Conv2d share
// (their reset_parameters).
using System;

namespace Tessera {

static class TorchInit {
  // kaiming_uniform_(weight, a = sqrt(5)), which makes the weight uniform in
  // [-1/sqrt(fanIn), 1/sqrt(fanIn)); the bias (if any) uniform in the same
  // range, 0 for fanIn 0 as in torch.
  internal static void ResetParameters(Tensor weight, Tensor bias, long fanIn, Generator generator) {
    Init.KaimingUniform_(weight, Math.Sqrt(5), "fan_in", "leaky_relu", generator);
    if (bias != null) {
      double bound = fanIn > 0 ? 1.0 / Math.Sqrt(fanIn) : 0.0;
      Init.Uniform_(bias, -bound, bound, generator);
    }
  }
}

}
