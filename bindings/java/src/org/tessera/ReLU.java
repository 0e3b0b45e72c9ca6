package org.tessera;

/** torch.nn.ReLU: max(x, 0), no parameters; a step of a {@link Sequential}. */
public final class ReLU extends Module {
  @Override
  public Tensor forward(Tensor input) {
    return input.relu();
  }
}
