package org.tessera;

import java.lang.ref.Cleaner;

/**
 * The one Cleaner (and its daemon thread) that releases native handles whose proxies became
 * unreachable without close(). Each proxy registers an action that holds only the native address,
 * never the proxy, so registering does not keep the proxy alive.
 */
final class NativeCleaner {
  private static final Cleaner CLEANER = Cleaner.create();

  private NativeCleaner() {}

  static Cleaner.Cleanable register(Object proxy, Runnable release) {
    return CLEANER.register(proxy, release);
  }
}
