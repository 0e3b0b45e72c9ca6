package org.tessera.bench;

import java.util.Arrays;
import org.tessera.Tensor;
import org.tessera.TesseraException;

/**
 * The per-call cost of the Java binding: the five cases of bench/bindings/c/call_bench.c on a
 * float32 [4, 4] tensor, same protocol (median over 15 batches of 200,000 calls, System.nanoTime,
 * which is CLOCK_MONOTONIC on Linux), after 5 warm-up batches so the JIT has compiled the loop.
 * Prints one line per case: {@code tessera-bench java CASE MEDIAN_NS}.
 */
public final class CallBench {
  static final int WARMUP_BATCHES = 5;
  static final int BATCHES = 15;
  static final int CALLS = 200_000;

  /** Results land here so the JIT cannot drop the calls. */
  static long sink;

  private CallBench() {}

  interface Case {
    void call();
  }

  static void measure(String name, Case c) {
    double[] perCall = new double[BATCHES];
    for (int b = -WARMUP_BATCHES; b < BATCHES; ++b) {
      long start = System.nanoTime();
      for (int i = 0; i < CALLS; ++i) c.call();
      double ns = (double) (System.nanoTime() - start) / CALLS;
      if (b >= 0) perCall[b] = ns;
    }
    Arrays.sort(perCall);
    System.out.printf("tessera-bench java %s %.1f%n", name, perCall[BATCHES / 2]);
  }

  public static void main(String[] args) {
    long[] sizes = {4, 4};
    long[] badSizes = {7}; // 16 elements cannot be viewed as 7
    try (Tensor subject = Tensor.empty(sizes)) {
      // transpose(0, 1), then deterministic release of the result
      measure("view", () -> {
        try (Tensor v = subject.transpose(0, 1)) {
          sink += v.hashCode();
        }
      });
      measure("shape", () -> sink += subject.sizes()[0]); // a fresh long[]
      measure("ndim", () -> sink += subject.ndim());
      measure("create_release", () -> {
        try (Tensor t = Tensor.empty(sizes)) { // float32 [4, 4]
          sink += t.hashCode();
        }
      });
      measure("error", () -> {
        try {
          subject.view(badSizes).close();
        } catch (TesseraException e) {
          sink += e.getMessage().length();
        }
      });
    }
    if (sink == 42) System.out.println(); // keep sink observable
  }
}
