package org.tessera;

/**
 * An open gradient-checkpointing region (torch.utils.checkpoint, use_reentrant=False): between
 * {@link Tessera#checkpoint()} and {@link #close()}, the ops this thread runs keep no activations
 * for backward; backward recomputes them from the region's inputs, with the same gradients bit for
 * bit. Use it with try-with-resources, which closes it on every path, exceptions included:
 *
 * <pre>{@code
 * try (var region = Tessera.checkpoint()) {
 *   h = block.forward(h);
 * }
 * }</pre>
 *
 * Regions belong to the thread that opened them and nest; close them on that thread, innermost
 * first. Backward while a region is open on the thread throws ERR_AUTOGRAD. A region left open is
 * not closed by the garbage collector (it could only be closed on its own thread): always close
 * it.
 */
public final class CheckpointRegion implements AutoCloseable {
  private final Thread thread;
  private boolean closed;

  CheckpointRegion(CheckpointOptions options) {
    Tessera.checkpointBegin(options);
    thread = Thread.currentThread();
  }

  /** True once {@link #close()} ended the region. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Ends the region (tsr_checkpoint_end) the first time; later calls do nothing. Tensors made
   * inside stay valid. Throws TesseraException(ERR_AUTOGRAD) when called on another thread than
   * the one that opened the region (which stays open), or when the region's thread no longer has a
   * region open (it was ended by {@link Tessera#checkpointEnd()}).
   */
  @Override
  public void close() {
    if (closed) return;
    if (Thread.currentThread() != thread) {
      throw new TesseraException(Status.ERR_AUTOGRAD,
          "a checkpoint region must be closed on the thread that opened it (" + thread.getName() + ")");
    }
    closed = true;
    NativeTessera.checkpoint_end();
  }

  @Override
  public String toString() {
    return "CheckpointRegion(" + (closed ? "closed" : "open on " + thread.getName()) + ")";
  }
}
