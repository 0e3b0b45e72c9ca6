package org.tessera;

import java.nio.charset.StandardCharsets;

/**
 * A call into tessera failed: {@link #status()} says how (the C API's tsr_status) and {@link
 * #getMessage()} is the library's message, e.g. status ERR_NOT_VIEWABLE with "view size is not
 * compatible with input tensor's size and stride ... Use .reshape(...) instead." Unchecked, like
 * PyTorch's RuntimeError; a closed handle gives ERR_INVALID_ARGUMENT.
 */
public final class TesseraException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  public TesseraException(Status status, String message) {
    super(message);
    this.status = status;
  }

  /** Called from the JNI library with the raw status code and the UTF-8 message. */
  TesseraException(int code, byte[] utf8Message) {
    this(statusOf(code), new String(utf8Message, StandardCharsets.UTF_8));
  }

  public Status status() {
    return status;
  }

  @Override
  public String toString() {
    return "TesseraException(" + status + "): " + getMessage();
  }

  /** A code this binding does not know (a newer library) reads as ERR_INTERNAL. */
  private static Status statusOf(int code) {
    for (Status s : Status.values()) {
      if (s.swigValue() == code) return s;
    }
    return Status.ERR_INTERNAL;
  }
}
