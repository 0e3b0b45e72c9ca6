package org.tessera;

import java.nio.charset.StandardCharsets;

/** Strings cross JNI as UTF-8 bytes (the library's encoding), not JNI's modified UTF-8. */
final class Utf8 {
  private Utf8() {}

  /** The UTF-8 bytes of s (the native side adds the terminating NUL); null stays null. */
  static byte[] encode(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  static String decode(byte[] utf8) {
    return utf8 == null ? null : new String(utf8, StandardCharsets.UTF_8);
  }
}
