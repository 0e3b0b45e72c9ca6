package org.tessera;

import java.lang.ref.Cleaner;

/**
 * The one Cleaner (and its daemon thread) that releases native handles whose proxies became
 * unreachable without close(). Each proxy registers an action that holds only the native address,
 * never the proxy, so registering does not keep the proxy alive.
 *
 * <p>The collector sees only the small proxies, not the tensor memory behind them, so a program
 * that drops tensors without closing them could pile up gigabytes of native memory before the Java
 * heap feels any pressure. As java.nio does for direct buffers, every {@value #CHECK_EVERY}
 * registrations look at the allocator's live bytes; above a threshold they ask for a collection
 * and give the Cleaner a moment to release what it found. The threshold then becomes twice what
 * stayed live (at least the base), so a program that really holds much memory is not collected
 * over and over. The base is the system property {@code tessera.gc.threshold} in bytes (default
 * 32 MiB; 0 turns this off). Closing tensors (try-with-resources) never needs any of it.
 */
final class NativeCleaner {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final int CHECK_EVERY = 1024;
  private static final long BASE_THRESHOLD = Long.getLong("tessera.gc.threshold", 32L << 20);

  /** Racy on purpose: a lost increment only shifts when the next check happens. */
  private static int registrations;

  private static long threshold = BASE_THRESHOLD;

  private NativeCleaner() {}

  static Cleaner.Cleanable register(Object proxy, Runnable release) {
    if (++registrations % CHECK_EVERY == 0 && BASE_THRESHOLD > 0) relievePressure();
    return CLEANER.register(proxy, release);
  }

  private static long allocated() {
    return NativeTessera.memory_allocated(DeviceType.DEVICE_CPU, 0);
  }

  private static synchronized void relievePressure() {
    if (allocated() < threshold) return;
    System.gc();
    // The Cleaner thread releases what the collection found: wait while it makes progress,
    // until it has released nothing for 10 ms (at most about a quarter of a second).
    long previous = allocated();
    int idle = 0;
    for (int polls = 0; polls < 250 && idle < 10; ++polls) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      long now = allocated();
      idle = now < previous ? 0 : idle + 1;
      previous = now;
    }
    threshold = Math.max(BASE_THRESHOLD, 2 * previous);
  }
}
