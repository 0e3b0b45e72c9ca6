// ReLU — torch.nn.ReLU: max(x, 0), no parameters; a step of a Sequential.
namespace Tessera {

public sealed class ReLU : Module {
  public override Tensor Forward(Tensor input) => input.Relu();
}

}
