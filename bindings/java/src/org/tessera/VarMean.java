package org.tessera;

/**
 * The (var, mean) pair of {@link Tessera#varMean}, as torch.var_mean returns it. Closing the
 * record closes both tensors.
 */
public record VarMean(Tensor var, Tensor mean) implements AutoCloseable {
  @Override
  public void close() {
    var.close();
    mean.close();
  }
}
