package org.tessera.tests;

import java.util.Arrays;
import java.util.Objects;
import org.tessera.Status;
import org.tessera.TesseraException;

/** Assertions for the self-contained runner (no JUnit on this machine): each throws AssertionError. */
final class Check {
  private Check() {}

  interface Action {
    void run() throws Exception;
  }

  static void fail(String message) {
    throw new AssertionError(message);
  }

  static void isTrue(boolean condition, String what) {
    if (!condition) fail(what);
  }

  static void equal(Object expected, Object actual, String what) {
    if (!Objects.equals(expected, actual)) fail(what + ": expected <" + expected + "> but was <" + actual + ">");
  }

  static void equal(long expected, long actual, String what) {
    if (expected != actual) fail(what + ": expected " + expected + " but was " + actual);
  }

  static void equal(long[] expected, long[] actual, String what) {
    if (!Arrays.equals(expected, actual)) {
      fail(what + ": expected " + Arrays.toString(expected) + " but was " + Arrays.toString(actual));
    }
  }

  /** |expected - actual| <= tolerance * max(1, |expected|), element by element. */
  static void close(double[] expected, double[] actual, double tolerance, String what) {
    if (expected.length != actual.length) {
      fail(what + ": expected " + expected.length + " values but got " + actual.length);
    }
    for (int i = 0; i < expected.length; ++i) {
      double scale = Math.max(1.0, Math.abs(expected[i]));
      if (!(Math.abs(expected[i] - actual[i]) <= tolerance * scale)) {
        fail(what + "[" + i + "]: expected " + expected[i] + " but was " + actual[i] + "\n  expected "
            + Arrays.toString(expected) + "\n  actual   " + Arrays.toString(actual));
      }
    }
  }

  static void close(double expected, double actual, double tolerance, String what) {
    close(new double[] {expected}, new double[] {actual}, tolerance, what);
  }

  /** Runs action, which must throw TesseraException with status; returns it for more checks. */
  static TesseraException throwsStatus(Status status, Action action, String what) {
    try {
      action.run();
    } catch (TesseraException e) {
      if (e.status() != status) {
        fail(what + ": expected status " + status + " but got " + e.status() + " (" + e.getMessage() + ")");
      }
      if (e.getMessage() == null || e.getMessage().isEmpty()) fail(what + ": empty message");
      return e;
    } catch (Exception e) {
      fail(what + ": expected TesseraException(" + status + ") but got " + e);
    }
    fail(what + ": expected TesseraException(" + status + ") but nothing was thrown");
    return null;
  }

  static <T extends Throwable> T throwsType(Class<T> type, Action action, String what) {
    try {
      action.run();
    } catch (Throwable e) {
      if (type.isInstance(e)) return type.cast(e);
      fail(what + ": expected " + type.getSimpleName() + " but got " + e);
    }
    fail(what + ": expected " + type.getSimpleName() + " but nothing was thrown");
    return null;
  }
}
