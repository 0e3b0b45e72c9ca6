package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.fail;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;
import static org.tessera.tests.Check.throwsType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.tessera.CheckpointOptions;
import org.tessera.CheckpointRegion;
import org.tessera.Generator;
import org.tessera.GradScope;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Tessera;
import org.tessera.TesseraException;

/**
 * Gradient checkpointing as try-with-resources (identical gradients, closing on exceptions, every
 * misuse), dropout with generator state, and autogradGrad.
 */
final class CheckpointTests {
  private static final int D = 16;
  private static final int N = 8;
  private static final int CLASSES = 4;
  private static final int BLOCKS = 4;
  private static final double P_DROP = 0.25;

  private CheckpointTests() {}

  static void register(AllTests.Registry r) {
    r.add("checkpoint: residual MLP, a region per block -> bit-identical gradients", CheckpointTests::identicalGradients);
    r.add("checkpoint: the region closes when the body throws", CheckpointTests::closesOnException);
    r.add("checkpoint: end without begin -> ERR_AUTOGRAD", CheckpointTests::endWithoutBegin);
    r.add("checkpoint: backward inside an open region -> ERR_AUTOGRAD", CheckpointTests::backwardInsideRegion);
    r.add("checkpoint: unknown keepOps name -> ERR_INVALID_ARGUMENT naming it", CheckpointTests::unknownKeepOps);
    r.add("checkpoint: nesting, depth, close once, per thread", CheckpointTests::nestingAndThreads);
    r.add("random: generator getState/setState and dropout", CheckpointTests::generatorStateAndDropout);
    r.add("autograd: autogradGrad, createGraph gives d2(x^3) = 6x, allowUnused", CheckpointTests::autogradGrad);
  }

  /** A residual MLP: per block h = h + dropout(relu(h @ w + b)), then cross entropy of h @ head. */
  private static final class Model implements AutoCloseable {
    final List<Tensor> params = new ArrayList<>();
    final Tensor x;
    final Tensor target;

    Model() {
      try (Generator g = new Generator(7)) {
        for (int i = 0; i < BLOCKS; ++i) {
          Tensor w = Tessera.randn(g, D, D);
          w.mulScalar_(0.4);
          w.setRequiresGrad(true);
          Tensor b = Tessera.randn(g, D);
          b.mulScalar_(0.1);
          b.setRequiresGrad(true);
          params.add(w);
          params.add(b);
        }
        Tensor head = Tessera.randn(g, D, CLASSES);
        head.setRequiresGrad(true);
        params.add(head);
        x = Tessera.randn(g, N, D);
      }
      long[] labels = new long[N];
      for (int i = 0; i < N; ++i) labels[i] = i % CLASSES;
      target = Tessera.tensor(labels, N);
    }

    /** h + dropout(relu(h @ w_i + b_i)); closes its temporaries, not h. */
    Tensor block(int i, Tensor h, Generator g) {
      try (Tensor z = h.matmul(params.get(2 * i));
          Tensor zb = z.add(params.get(2 * i + 1));
          Tensor a = zb.relu();
          Tensor dropped = Tessera.dropout(a, P_DROP, true, g)) {
        return h.add(dropped);
      }
    }

    @Override
    public void close() {
      for (Tensor p : params) p.close();
      x.close();
      target.close();
    }
  }

  /** One SGD step; returns the gradient bytes and then the updated parameter bytes. */
  static List<byte[]> trainStep(CheckpointOptions options) {
    List<byte[]> out = new ArrayList<>();
    try (Model m = new Model(); Generator g = new Generator(1234)) {
      Tensor h = m.x.clone();
      for (int i = 0; i < BLOCKS; ++i) {
        Tensor next;
        if (options == null) {
          next = m.block(i, h, g);
        } else {
          try (CheckpointRegion region = Tessera.checkpoint(options)) {
            next = m.block(i, h, g);
          }
        }
        h.close();
        h = next;
      }
      try (Tensor hh = h; Tensor logits = hh.matmul(m.params.get(2 * BLOCKS));
          Tensor loss = logits.crossEntropy(m.target)) {
        loss.backward();
      }
      for (Tensor p : m.params) {
        try (Tensor grad = p.grad()) {
          out.add(grad.toBytes());
        }
      }
      try (GradScope noGrad = Tessera.noGrad()) {
        for (Tensor p : m.params) {
          try (Tensor grad = p.grad()) {
            p.add_(grad, -0.1);
          }
        }
      }
      for (Tensor p : m.params) out.add(p.toBytes());
    }
    return out;
  }

  static void identicalGradients() {
    List<byte[]> plain = trainStep(null);
    equal(2 * (2 * BLOCKS + 1), plain.size(), "gradients and parameters");
    CheckpointOptions[] variants = {
      CheckpointOptions.defaults(),
      CheckpointOptions.defaults().keepOps("matmul", "add"),
      CheckpointOptions.defaults().earlyStop(false).determinismCheck(false),
    };
    for (CheckpointOptions options : variants) {
      List<byte[]> checkpointed = trainStep(options);
      for (int i = 0; i < plain.size(); ++i) {
        isTrue(Arrays.equals(plain.get(i), checkpointed.get(i)),
            (i < 2 * BLOCKS + 1 ? "gradient " : "updated parameter ") + i + " differs with " + options);
      }
      equal(0L, Tessera.checkpointDepth(), "no region left open");
    }
    // Fresh random numbers on replay: the recomputed dropout masks are not the forward's.
    List<byte[]> fresh = trainStep(CheckpointOptions.defaults().preserveRngState(false));
    boolean anyDiffers = false;
    for (int i = 0; i < 2 * BLOCKS; ++i) anyDiffers |= !Arrays.equals(plain.get(i), fresh.get(i));
    isTrue(anyDiffers, "preserveRngState(false) changes the block gradients");
  }

  static void closesOnException() {
    try (Tensor x = Tessera.ones(3)) {
      x.setRequiresGrad(true);
      Tensor[] made = new Tensor[1];
      IllegalStateException thrown = throwsType(IllegalStateException.class, () -> {
        try (CheckpointRegion region = Tessera.checkpoint()) {
          equal(1L, Tessera.checkpointDepth(), "depth inside");
          try (Tensor doubled = x.mul(2.0)) {
            made[0] = doubled.relu();
          }
          throw new IllegalStateException("in the region");
        }
      }, "the body's exception propagates");
      equal("in the region", thrown.getMessage(), "the body's own exception");
      equal(0L, Tessera.checkpointDepth(), "the region closed on the exception");
      try (Tensor y = made[0]; Tensor s = y.sum()) {
        s.backward(); // tensors made inside stay valid; backward works once closed
      }
      try (Tensor grad = x.grad()) {
        close(new double[] {2, 2, 2}, grad.toFloat64(), 0, "gradient through the region");
      }
      // A TesseraException inside (a shape error) closes it too.
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> {
        try (CheckpointRegion region = Tessera.checkpoint(); Tensor bad = Tessera.ones(2);
            Tensor sum = x.add(bad)) {
          fail("x + bad must throw");
        }
      }, "[3] + [2] inside a region");
      equal(0L, Tessera.checkpointDepth(), "closed after a TesseraException");
    }
  }

  static void endWithoutBegin() {
    equal(0L, Tessera.checkpointDepth(), "no region open");
    TesseraException e = throwsStatus(Status.ERR_AUTOGRAD, Tessera::checkpointEnd, "checkpointEnd at depth 0");
    isTrue(e.getMessage().contains("no checkpoint region is open"), "message: " + e.getMessage());
    Tessera.checkpointBegin(null);
    equal(1L, Tessera.checkpointDepth(), "checkpointBegin opens one");
    Tessera.checkpointEnd();
    equal(0L, Tessera.checkpointDepth(), "checkpointEnd closes it");
    // A region ended behind its scope's back: its close reports the C error.
    CheckpointRegion region = Tessera.checkpoint();
    Tessera.checkpointEnd();
    throwsStatus(Status.ERR_AUTOGRAD, region::close, "closing a region already ended");
    equal(0L, Tessera.checkpointDepth(), "still none open");
  }

  static void backwardInsideRegion() {
    try (Tensor w = Tessera.ones(3)) {
      w.setRequiresGrad(true);
      try (Tensor sq = w.mul(w); Tensor loss = sq.sum()) {
        try (CheckpointRegion region = Tessera.checkpoint()) {
          throwsStatus(Status.ERR_AUTOGRAD, loss::backward, "backward inside a region");
          throwsStatus(Status.ERR_AUTOGRAD, () -> Tessera.autogradGrad(new Tensor[] {loss}, new Tensor[] {w}),
              "autogradGrad inside a region");
        }
        equal(null, w.grad(), "the failed backward wrote no gradient");
        loss.backward(); // the graph is intact once the region is closed
      }
      try (Tensor grad = w.grad()) {
        close(new double[] {2, 2, 2}, grad.toFloat64(), 0, "d sum(w*w)/dw");
      }
    }
  }

  static void unknownKeepOps() {
    TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> {
      try (CheckpointRegion region = Tessera.checkpoint(CheckpointOptions.defaults().keepOps("matmul", "no_such_op"))) {
        fail("the body must not run");
      }
    }, "keepOps with an unknown name");
    isTrue(e.getMessage().contains("'no_such_op'"), "the message names it: " + e.getMessage());
    equal(0L, Tessera.checkpointDepth(), "nothing was opened");
    throwsType(NullPointerException.class, () -> CheckpointOptions.defaults().keepOps("matmul", null), "a null name");
    CheckpointOptions o = CheckpointOptions.defaults().keepOps("matmul");
    equal(List.of("matmul"), o.keepOps(), "keepOps read back");
    isTrue(o.preserveRngState() && o.determinismCheck() && o.earlyStop(), "other options stay default");
  }

  static void nestingAndThreads() throws Exception {
    try (CheckpointRegion outer = Tessera.checkpoint()) {
      try (CheckpointRegion inner = Tessera.checkpoint(CheckpointOptions.defaults().earlyStop(false))) {
        equal(2L, Tessera.checkpointDepth(), "nested");
      }
      equal(1L, Tessera.checkpointDepth(), "inner closed");
      // Regions are per thread: another thread sees none, and cannot close this one.
      AtomicReference<Object> seen = new AtomicReference<>();
      Thread other = new Thread(() -> {
        long depth = Tessera.checkpointDepth();
        try {
          outer.close();
          seen.set("closed from another thread, depth " + depth);
        } catch (TesseraException e) {
          seen.set(depth == 0 && e.status() == Status.ERR_AUTOGRAD ? "refused" : e.toString());
        }
      });
      other.start();
      other.join();
      equal("refused", seen.get(), "close on another thread");
      isTrue(!outer.isClosed(), "still open after the refused close");
      outer.close();
      isTrue(outer.isClosed(), "closed");
      outer.close(); // closing again does nothing
      equal(0L, Tessera.checkpointDepth(), "closed exactly once");
    }
    equal(0L, Tessera.checkpointDepth(), "try-with-resources' close after an explicit one is harmless");
  }

  static void generatorStateAndDropout() {
    try (Generator g = new Generator(2024); Tensor x = Tessera.ones(5, 7)) {
      equal(new Generator.State(2024, 0), g.getState(), "fresh generator");
      try (Tensor first = Tessera.dropout(x, 0.5, true, g)) {
        equal(new Generator.State(2024, 35), g.getState(), "one 32-bit word per element");
        g.setState(2024, 0);
        try (Tensor again = x.dropout(0.5, true, g)) {
          isTrue(Arrays.equals(first.toBytes(), again.toBytes()), "same state, same mask");
        }
        for (double v : first.toFloat64()) isTrue(v == 0.0 || v == 2.0, "kept values scaled by 2: " + v);
      }
      g.setState(new Generator.State(-1L, -2L)); // unsigned 2^64-1, 2^64-2 in a long
      equal(new Generator.State(-1L, -2L), g.getState(), "all 64 bits round-trip");
      try (Tensor same = Tessera.dropout(x, 0.5, false, g)) {
        isTrue(same.sharesStorage(x), "train=false returns the input itself");
      }
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.dropout(x, 1.5, true, g), "p > 1");
      try (Tensor ints = Tessera.arange(3)) {
        throwsStatus(Status.ERR_DTYPE_MISMATCH, () -> Tessera.dropout(ints, 0.5, true, g), "int64 input");
      }
    }
    Generator closed = new Generator(1);
    closed.close();
    throwsStatus(Status.ERR_INVALID_ARGUMENT, closed::getState, "getState after close");
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> closed.setState(1, 2), "setState after close");
    try (Tensor x = Tessera.ones(2)) {
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.dropout(x, 0.5, true, closed), "a closed generator");
    }
  }

  static void autogradGrad() {
    try (Tensor x = Tessera.tensor(new double[] {1, -2, 3}, 3)) {
      x.setRequiresGrad(true);
      try (Tensor x2 = x.mul(x); Tensor x3 = x2.mul(x); Tensor y = x3.sum()) {
        Tensor[] first = Tessera.autogradGrad(new Tensor[] {y}, new Tensor[] {x}, null, true, true, false);
        try (Tensor dy = first[0]; Tensor s = dy.sum()) {
          close(new double[] {3, 12, 27}, dy.toFloat64(), 0, "d x^3 = 3x^2");
          isTrue(dy.requiresGrad(), "createGraph: the gradient requires grad");
          Tensor[] second = Tessera.autogradGrad(new Tensor[] {s}, new Tensor[] {x});
          try (Tensor d2y = second[0]) {
            close(new double[] {6, -12, 18}, d2y.toFloat64(), 0, "d2 x^3 = 6x");
          }
        }
      }
      equal(null, x.grad(), "no grad() written");
      try (Tensor unused = Tessera.ones(1); Tensor y = x.mul(3.0); Tensor s = x.sum();
          Tensor weights = Tessera.tensor(new double[] {1, 10, 100}, 3)) {
        unused.setRequiresGrad(true);
        Tensor[] grads = Tessera.autogradGrad(new Tensor[] {y, s}, new Tensor[] {x, unused},
            new Tensor[] {weights, null}, true, false, true);
        equal(2, grads.length, "one entry per input");
        equal(null, grads[1], "null for the unused input");
        try (Tensor gx = grads[0]) {
          close(new double[] {4, 31, 301}, gx.toFloat64(), 0, "weighted by gradOutputs");
        }
        throwsStatus(Status.ERR_AUTOGRAD, () -> Tessera.autogradGrad(new Tensor[] {s}, new Tensor[] {x, unused},
            null, true, false, false), "an unused input without allowUnused");
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.autogradGrad(new Tensor[] {y, s}, new Tensor[] {x},
            new Tensor[] {null}, true, false, false), "gradOutputs of the wrong length");
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.autogradGrad(new Tensor[0], new Tensor[] {x}),
            "no outputs");
        throwsType(NullPointerException.class, () -> Tessera.autogradGrad(new Tensor[] {s}, new Tensor[] {null}),
            "a null input");
        Tensor closed = Tessera.ones(1);
        closed.close();
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.autogradGrad(new Tensor[] {s}, new Tensor[] {closed}),
            "a closed input");
      }
    }
  }
}
