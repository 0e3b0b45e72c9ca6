package org.tessera;

/**
 * Progress of a save or load (tsr_progress_fn): called on the calling thread with the tensor bytes
 * (numel * element size, before compression) done so far and in all; first with bytesDone == 0,
 * last with bytesDone == bytesTotal. For a {@link Saver}, bytesTotal counts the tensors added so
 * far. Returning false cancels: the call throws TesseraException(ERR_CANCELLED) and a cancelled
 * save leaves any file at its path as it was. An exception thrown here cancels too, and becomes
 * the cause of that TesseraException. The listener must not use the same saver or file.
 */
@FunctionalInterface
public interface ProgressListener {
  /** @return true to go on, false to cancel */
  boolean onProgress(long bytesDone, long bytesTotal) throws Exception;
}
