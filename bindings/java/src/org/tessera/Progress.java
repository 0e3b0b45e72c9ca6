package org.tessera;

import java.util.function.Supplier;

/**
 * What the native trampoline calls: the user's listener, with what it throws kept here instead of
 * left pending across the C library's frames (it cancels the call, and {@link #call} attaches it
 * as the cause of the ERR_CANCELLED exception that follows).
 */
final class Progress implements ProgressListener {
  private final ProgressListener listener;
  private Throwable thrown;

  private Progress(ProgressListener listener) {
    this.listener = listener;
  }

  static Progress wrap(ProgressListener listener) {
    return listener == null ? null : new Progress(listener);
  }

  @Override
  public boolean onProgress(long bytesDone, long bytesTotal) {
    try {
      return listener.onProgress(bytesDone, bytesTotal);
    } catch (Throwable e) { // Errors too: nothing may cross the native frames
      thrown = e;
      return false;
    }
  }

  /** body(); an ERR_CANCELLED caused by the listener's exception gets it as its cause. */
  static <T> T call(Progress progress, Supplier<T> body) {
    try {
      return body.get();
    } catch (TesseraException e) {
      if (progress != null && progress.thrown != null && e.status() == Status.ERR_CANCELLED) {
        Throwable cause = progress.thrown;
        progress.thrown = null;
        e.initCause(cause);
      }
      throw e;
    }
  }
}
