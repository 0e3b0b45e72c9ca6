package org.tessera;

/**
 * A setting for a block, restored when the block ends: {@code try (var m =
 * Tessera.inferenceMode()) { ... }} is torch.inference_mode(), {@code try (var a =
 * Tessera.detectAnomaly()) { ... }} torch.autograd.detect_anomaly(). Inference mode is per thread,
 * so close its scope on the thread that opened it; anomaly detection is process-wide. Closing twice
 * restores once.
 */
public final class ModeScope implements AutoCloseable {
  /** Sets the mode and returns the previous setting. */
  interface Setter {
    boolean set(boolean enabled);
  }

  private final Setter setter;
  private final boolean previous;
  private boolean closed;

  ModeScope(Setter setter, boolean enabled) {
    this.setter = setter;
    previous = setter.set(enabled);
  }

  /** Restores the setting that was in force when the scope opened. */
  @Override
  public void close() {
    if (closed) return;
    closed = true;
    setter.set(previous);
  }
}
