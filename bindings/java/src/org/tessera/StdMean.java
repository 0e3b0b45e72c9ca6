package org.tessera;

/**
 * The (std, mean) pair of {@link Tessera#stdMean}, as torch.std_mean returns it. Closing the
 * record closes both tensors.
 */
public record StdMean(Tensor std, Tensor mean) implements AutoCloseable {
  @Override
  public void close() {
    std.close();
    mean.close();
  }
}
