package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;

import java.util.List;
import org.tessera.DType;
import org.tessera.DistBackend;
import org.tessera.DistributedDataParallel;
import org.tessera.ProcessGroup;
import org.tessera.Tensor;

/**
 * One rank of DdpTests' two-process run (its own JVM):
 *
 * <pre>java -cp tessera.jar:test-classes org.tessera.tests.DdpWorker tcp://127.0.0.1:PORT RANK</pre>
 *
 * A linear layer (weight [2, 3], bias [2] as leaf tensors) whose initial values differ per rank;
 * DistributedDataParallel makes them rank 0's, and a backward of the mean squared error on this
 * rank's batch leaves in .grad the average of both ranks' gradients, which this process computes
 * itself on copies without DDP. Inside noSync() the gradients stay local; the next backward
 * averages what was accumulated. Prints "ddp rank R ok"; any failure exits non-zero.
 */
public final class DdpWorker {
  private DdpWorker() {}

  static final int WORLD = 2;
  static final double TOLERANCE = 1e-12;

  /** Rank r's initial weight and bias: different on each rank (rank 0's win). */
  static double[] initial(int rank, int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) v[i] = 0.125 * (i + 1) * (rank == 0 ? 1 : -3) + rank;
    return v;
  }

  /** Rank r's batch: x [4, 3] and target y [4, 2]. */
  static Tensor batchX(int rank) {
    double[] v = new double[12];
    for (int i = 0; i < 12; ++i) v[i] = 0.25 * ((i * 7 + rank * 5) % 11) - 1;
    return Tensor.fromFloat64(v, new long[] {4, 3}, DType.FLOAT64);
  }

  static Tensor batchY(int rank) {
    double[] v = new double[8];
    for (int i = 0; i < 8; ++i) v[i] = 0.5 * ((i * 3 + rank) % 5) - 1;
    return Tensor.fromFloat64(v, new long[] {4, 2}, DType.FLOAT64);
  }

  static Tensor leaf(double[] values, long... sizes) {
    Tensor t = Tensor.fromFloat64(values, sizes, DType.FLOAT64);
    t.setRequiresGrad(true);
    return t;
  }

  /** mse(x @ w.T + b, y) on rank r's batch, then backward. */
  static void backward(Tensor w, Tensor b, int rank) {
    try (Tensor x = batchX(rank);
        Tensor y = batchY(rank);
        Tensor wt = w.t();
        Tensor xw = x.matmul(wt);
        Tensor pred = xw.add(b);
        Tensor diff = pred.sub(y);
        Tensor sq = diff.mul(diff);
        Tensor loss = sq.mean()) {
      loss.backward();
    }
  }

  /** Rank r's gradients of rank 0's initial parameters, without DDP: [dw..., db...]. */
  static double[] localGradients(int rank) {
    try (Tensor w = leaf(initial(0, 6), 2, 3); Tensor b = leaf(initial(0, 2), 2)) {
      backward(w, b, rank);
      return concat(w, b);
    }
  }

  static double[] concat(Tensor w, Tensor b) {
    try (Tensor gw = w.grad(); Tensor gb = b.grad()) {
      double[] a = gw.toFloat64(), c = gb.toFloat64();
      double[] out = new double[a.length + c.length];
      System.arraycopy(a, 0, out, 0, a.length);
      System.arraycopy(c, 0, out, a.length, c.length);
      return out;
    }
  }

  static double[] combine(double[] a, double[] b, double scale) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; ++i) out[i] = (a[i] + b[i]) * scale;
    return out;
  }

  public static void main(String[] args) throws Exception {
    String address = args[0];
    int rank = Integer.parseInt(args[1]);
    double[] g0 = localGradients(0), g1 = localGradients(1);
    double[] mine = rank == 0 ? g0 : g1;
    isTrue(!java.util.Arrays.equals(g0, g1), "the ranks' batches give different gradients");
    try (Tensor w = leaf(initial(rank, 6), 2, 3); Tensor b = leaf(initial(rank, 2), 2)) {
      DistributedDataParallel ddp;
      try (ProcessGroup pg = ProcessGroup.init(DistBackend.DIST_GLOO, address, rank, WORLD, 20_000)) {
        ddp = DistributedDataParallel.create(pg, List.of(w, b),
            new DistributedDataParallel.Options().bucketCapMb(1));
      }  // the reducer keeps the group alive
      try (DistributedDataParallel d = ddp) {
        close(initial(0, 6), w.toFloat64(), 0, "weight broadcast from rank 0");
        close(initial(0, 2), b.toFloat64(), 0, "bias broadcast from rank 0");
        equal(2L, d.numParams(), "numParams");

        backward(w, b, rank);
        close(combine(g0, g1, 0.5), concat(w, b), TOLERANCE, "grads = the ranks' average");

        w.zeroGrad();
        b.zeroGrad();
        try (DistributedDataParallel.NoSync s = d.noSync()) {
          backward(w, b, rank);
        }
        close(mine, concat(w, b), TOLERANCE, "grads stay local in noSync()");
        backward(w, b, rank);  // averages this pass plus what noSync accumulated
        close(combine(g0, g1, 1.0), concat(w, b), TOLERANCE, "the next backward averages the accumulation");
      }
    }
    System.out.println("ddp rank " + rank + " ok");
  }
}
