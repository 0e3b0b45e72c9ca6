package org.tessera;

/**
 * torch's (values, indices) named tuple, as {@link Tensor#min(long, boolean)} returns it: the
 * values and their int64 indices. Closing the record closes both tensors.
 */
public record ValuesIndices(Tensor values, Tensor indices) implements AutoCloseable {
  @Override
  public void close() {
    values.close();
    indices.close();
  }
}
