package org.tessera;

/**
 * A grad-mode setting for a block, restored when the block ends: {@code try (var g =
 * Tessera.noGrad()) { ... }} is torch.no_grad(). Grad mode is per thread, so close the scope on the
 * thread that opened it; closing twice restores once.
 */
public final class GradScope implements AutoCloseable {
  private final boolean previous;
  private boolean closed;

  GradScope(boolean enabled) {
    previous = NativeTessera.set_grad_enabled(enabled);
  }

  /** Restores the setting that was in force when the scope opened. */
  @Override
  public void close() {
    if (closed) return;
    closed = true;
    NativeTessera.set_grad_enabled(previous);
  }
}
