package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;
import static org.tessera.tests.Check.throwsType;

import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.TensorList;
import org.tessera.Tessera;
import org.tessera.TesseraException;

/** A failing call throws TesseraException with the status and message, and changes nothing. */
final class ErrorTests {
  private ErrorTests() {}

  static void register(AllTests.Registry r, Goldens g) {
    r.add("errors: view that needs a copy -> ERR_NOT_VIEWABLE with torch's message", () -> notViewable(g));
    r.add("errors: each status a caller may handle differently", ErrorTests::statuses);
    r.add("errors: a failed call changes nothing and allocates nothing", ErrorTests::failedCallChangesNothing);
    r.add("errors: null arrays are NullPointerException", ErrorTests::nullArrays);
    r.add("errors: unchecked, a RuntimeException", ErrorTests::unchecked);
    r.add("errors: a string with a NUL is ERR_INVALID_ARGUMENT, not cut short", ErrorTests::nulInString);
  }

  static void notViewable(Goldens g) {
    String torch = g.string("error.not_viewable");
    try (Tensor x = Tessera.arange(0, 12, 1, org.tessera.DType.FLOAT32).view(new long[] {3, 4});
        Tensor t = x.t()) {
      TesseraException e = throwsStatus(Status.ERR_NOT_VIEWABLE, () -> t.view(new long[] {12}), "t().view(12)");
      // tessera adds the sizes and strides between torch's two sentences.
      String head = torch.substring(0, torch.indexOf(')') + 1);
      String tail = torch.substring(torch.indexOf("Use .reshape"));
      isTrue(e.getMessage().startsWith(head), "message starts like torch's: " + e.getMessage());
      isTrue(e.getMessage().endsWith(tail), "message ends like torch's: " + e.getMessage());
      try (Tensor r = t.reshape(new long[] {12})) {
        equal(new long[] {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, r.toInt64(), "reshape copies instead");
      }
    }
  }

  static void statuses() {
    try (Tensor x = Tessera.zeros(2, 3); Tensor y = Tessera.zeros(4)) {
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> x.add(y), "add [2,3] + [4]");
      throwsStatus(Status.ERR_INDEX_OUT_OF_RANGE, () -> x.getDouble(new long[] {2, 0}), "index 2 of size 2");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> x.transpose(0, 5), "dim 5 of a 2-D tensor");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.zeros(-1), "negative size");
      throwsStatus(Status.ERR_AUTOGRAD, () -> x.sum().backward(), "backward without requires_grad");
      throwsStatus(Status.ERR_IO, () -> Tessera.load("/nonexistent/dir/x.tsr"), "load of a missing file");
      try (TensorList list = new TensorList()) {
        throwsStatus(Status.ERR_INDEX_OUT_OF_RANGE, () -> list.get(0), "TensorList.get(0) of an empty list");
      }
    }
  }

  static void failedCallChangesNothing() {
    try (Tensor x = Tessera.ones(2, 3); Tensor y = Tessera.ones(3, 2)) {
      long before = Tessera.memoryAllocated();
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> x.add_(y, 1.0), "add_ [2,3] += [3,2]");
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> x.matmul(x), "matmul [2,3] @ [2,3]");
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> x.view(new long[] {7}), "view of 6 elements as 7");
      close(new double[] {1, 1, 1, 1, 1, 1}, x.toFloat64(), 0, "x untouched");
      equal(before, Tessera.memoryAllocated(), "no tensor memory left behind");
      // The error record does not leak into the next, successful call.
      equal(2, x.ndim(), "next call succeeds");
    }
  }

  static void nullArrays() {
    throwsType(NullPointerException.class, () -> Tessera.zeros((long[]) null), "zeros(null)");
    try (Tensor x = Tessera.zeros(2, 2)) {
      throwsType(NullPointerException.class, () -> x.view(null), "view(null)");
    }
  }

  static void nulInString() {
    // Cut at the NUL, load("a\0b") would open "a".
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.load("/tmp/a\0b"), "load path with a NUL");
    try (Tensor x = Tessera.zeros(2);
        TensorList list = new TensorList()) {
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> list.append(x, "a\0b"), "tensor name with a NUL");
      equal(0L, list.size(), "nothing appended");
    }
  }

  static void unchecked() {
    try (Tensor x = Tessera.zeros(2)) {
      RuntimeException e = throwsType(RuntimeException.class, () -> x.select(0, 9), "select out of range");
      isTrue(e instanceof TesseraException, "TesseraException is a RuntimeException");
      TesseraException te = (TesseraException) e;
      isTrue(te.toString().contains(te.status().toString()), "toString names the status");
    }
  }
}
