package org.tessera;

import java.util.Arrays;
import java.util.Locale;

/** Tensor.toString(): torch's layout for small tensors, just the sizes for large ones. */
final class TensorFormat {
  /** Above this many elements only sizes are printed. */
  private static final long MAX_ELEMENTS = 64;

  private TensorFormat() {}

  static String format(Tensor t) {
    if (t.isClosed()) return "tensor(<closed>)";
    try {
      StringBuilder b = new StringBuilder("tensor(");
      long[] sizes = t.sizes();
      DType dtype = t.dtype();
      if (t.numel() <= MAX_ELEMENTS) {
        if (isIntegral(dtype)) {
          long[] v = t.toInt64();
          nest(b, sizes, 0, new int[] {0}, i -> dtype == DType.BOOL ? (v[i] != 0 ? "True" : "False")
              : Long.toString(v[i]));
        } else {
          double[] v = t.toFloat64();
          nest(b, sizes, 0, new int[] {0}, i -> String.format(Locale.ROOT, "%.4f", v[i]));
        }
      } else {
        b.append("sizes=").append(Arrays.toString(sizes));
      }
      b.append(", dtype=").append(dtype);
      if (t.requiresGrad()) b.append(", requires_grad=True");
      return b.append(')').toString();
    } catch (TesseraException e) {
      return "tensor(<" + e.getMessage() + ">)";
    }
  }

  private static boolean isIntegral(DType d) {
    return d != DType.FLOAT16 && d != DType.BFLOAT16 && d != DType.FLOAT32 && d != DType.FLOAT64;
  }

  private interface Element {
    String at(int i);
  }

  /** Appends dims [dim..] in C order as nested brackets; next counts elements written. */
  private static void nest(StringBuilder b, long[] sizes, int dim, int[] next, Element e) {
    if (dim == sizes.length) {
      b.append(e.at(next[0]++));
      return;
    }
    b.append('[');
    for (long i = 0; i < sizes[dim]; ++i) {
      if (i > 0) b.append(", ");
      nest(b, sizes, dim + 1, next, e);
    }
    b.append(']');
  }
}
