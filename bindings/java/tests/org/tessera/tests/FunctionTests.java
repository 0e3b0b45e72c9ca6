package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;
import static org.tessera.tests.Check.throwsType;

import java.util.concurrent.atomic.AtomicInteger;
import org.tessera.DType;
import org.tessera.Function;
import org.tessera.FunctionContext;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Tessera;
import org.tessera.TesseraException;

/** org.tessera.Function (torch.autograd.Function over tsr_function_apply): the C tests' behaviours. */
final class FunctionTests {
  private FunctionTests() {}

  static void register(AllTests.Registry r) {
    r.add("function: swish matches composed ops and finite differences", FunctionTests::swish);
    r.add("function: two outputs, null gradient, needsInputGrad", FunctionTests::twoOutputs);
    r.add("function: markDirty in place, leaf requiring grad refused", FunctionTests::markDirty);
    r.add("function: markNonDifferentiable, materialize grads", FunctionTests::nonDifferentiable);
    r.add("function: saved tensor modified in place", FunctionTests::savedModified);
    r.add("function: exceptions come back as themselves", FunctionTests::exceptions);
    r.add("function: bad results and ctx misuse are refused", FunctionTests::misuse);
    r.add("function: 100,000 applies on 2 threads, no leak", FunctionTests::threads);
  }

  /** y = x * sigmoid(x), forward over raw float64 values, backward with ops. */
  static final class Swish extends Function {
    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      double[] x = in[0].toFloat64();
      double[] y = new double[x.length];
      for (int i = 0; i < x.length; ++i) y[i] = x[i] / (1.0 + Math.exp(-x[i]));
      ctx.saveForBackward(in[0]);
      return new Tensor[] {Tensor.fromFloat64(y, in[0].sizes(), DType.FLOAT64)};
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      Tensor[] saved = ctx.savedTensors();
      try (Tensor x = saved[0];
          Tensor s = x.sigmoid();
          Tensor oneMinus = s.neg();
          Tensor oneMinusS = oneMinus.add(1.0);
          Tensor xs = x.mul(s);
          Tensor xss = xs.mul(oneMinusS);
          Tensor dydx = s.add(xss)) {
        return new Tensor[] {grad[0].mul(dydx)};
      }
    }
  }

  static Tensor leaf(double[] values) {
    Tensor t = Tensor.fromFloat64(values, new long[] {values.length}, DType.FLOAT64);
    t.setRequiresGrad(true);
    return t;
  }

  static double swishSum(double[] x) {
    try (Tensor t = Tensor.fromFloat64(x, new long[] {x.length}, DType.FLOAT64);
        Tensor y = new Swish().apply1(t);
        Tensor s = y.sum()) {
      return s.itemDouble();
    }
  }

  static void swish() {
    double[] values = {-3.0, -0.5, 0.0, 0.25, 1.5, 4.0};
    double[] custom;
    try (Tensor x = leaf(values); Tensor y = new Swish().apply1(x); Tensor loss = y.sum()) {
      equal("SwishBackward", y.gradFnName(), "grad_fn name");
      loss.backward();
      try (Tensor g = x.grad()) {
        custom = g.toFloat64();
      }
    }
    try (Tensor x = leaf(values); Tensor s = x.sigmoid(); Tensor y = x.mul(s); Tensor loss = y.sum()) {
      loss.backward();
      try (Tensor g = x.grad()) {
        close(g.toFloat64(), custom, 1e-12, "gradient against the composed ops");
      }
    }
    double h = 1e-6;
    double[] numeric = new double[values.length];
    for (int i = 0; i < values.length; ++i) {
      double[] plus = values.clone();
      double[] minus = values.clone();
      plus[i] += h;
      minus[i] -= h;
      numeric[i] = (swishSum(plus) - swishSum(minus)) / (2 * h);
    }
    close(numeric, custom, 1e-6, "gradient against central differences");
  }

  /** (a * b, a + b), with b not requiring grad: its gradient is null. */
  static final class MulAdd extends Function {
    boolean[] needs = new boolean[2];

    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      needs[0] = ctx.needsInputGrad(0);
      needs[1] = ctx.needsInputGrad(1);
      ctx.saveForBackward(in[1]);
      return new Tensor[] {in[0].mul(in[1]), in[0].add(in[1])};
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      isTrue(!ctx.needsInputGrad(1), "no gradient wanted for b in backward");
      try (Tensor b = ctx.savedTensors()[0]; Tensor viaMul = grad[0].mul(b)) {
        return new Tensor[] {viaMul.add(grad[1]), null};
      }
    }
  }

  static void twoOutputs() {
    MulAdd f = new MulAdd();
    try (Tensor a = leaf(new double[] {1, 2, 3});
        Tensor b = Tensor.fromFloat64(new double[] {4, 5, 6}, new long[] {3}, DType.FLOAT64)) {
      Tensor[] out = f.apply(a, b);
      try (Tensor prod = out[0]; Tensor sum = out[1]; Tensor s0 = prod.sum(); Tensor s1 = sum.sum();
          Tensor loss = s0.add(s1)) {
        equal(2, out.length, "two outputs");
        isTrue(f.needs[0] && !f.needs[1], "needsInputGrad in forward");
        equal("MulAddBackward", sum.gradFnName(), "both outputs share the node");
        loss.backward();
        try (Tensor ga = a.grad()) {
          close(new double[] {5, 6, 7}, ga.toFloat64(), 0, "a.grad = b + 1");
        }
        equal(null, b.grad(), "b gets no gradient");
      }
    }
  }

  /** x *= 2 in place, marked dirty. */
  static final class DoubleInPlace extends Function {
    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      in[0].mulScalar_(2.0);
      ctx.markDirty(in[0]);
      return new Tensor[] {in[0]};
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      return new Tensor[] {grad[0].mul(2.0)};
    }
  }

  static void markDirty() {
    try (Tensor w = leaf(new double[] {1, 2}); Tensor x = w.mul(1.0)) {
      long version = x.version();
      try (Tensor y = new DoubleInPlace().apply1(x); Tensor loss = y.sum()) {
        isTrue(x.version() > version, "the version counter was bumped");
        equal("DoubleInPlaceBackward", x.gradFnName(), "x's history now ends in the function");
        close(new double[] {2, 4}, x.toFloat64(), 0, "modified in place");
        loss.backward();
      }
      try (Tensor g = w.grad()) {
        close(new double[] {2, 2}, g.toFloat64(), 0, "gradient through the in-place function");
      }
      TesseraException e = throwsStatus(Status.ERR_AUTOGRAD, () -> new DoubleInPlace().apply(w), "dirty leaf");
      isTrue(e.getMessage().contains("leaf Variable that requires grad"), "torch's message: " + e.getMessage());
    }
  }

  /** (2x, 3x) with the second marked non-differentiable; backward records what it was given. */
  static final class Split extends Function {
    final boolean materialize;
    boolean secondNull;
    double secondSum = -1;

    Split(boolean materialize) {
      this.materialize = materialize;
    }

    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      Tensor twice = in[0].mul(2.0);
      Tensor thrice = in[0].mul(3.0);
      ctx.markNonDifferentiable(thrice);
      ctx.setMaterializeGrads(materialize);
      return new Tensor[] {twice, thrice};
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      secondNull = grad[1] == null;
      if (grad[1] != null) {
        try (Tensor s = grad[1].sum()) {
          secondSum = s.itemDouble();
        }
      }
      return new Tensor[] {grad[0].mul(2.0)};
    }
  }

  static void nonDifferentiable() {
    for (boolean materialize : new boolean[] {true, false}) {
      Split f = new Split(materialize);
      try (Tensor x = leaf(new double[] {1, 2})) {
        Tensor[] out = f.apply(x);
        try (Tensor twice = out[0]; Tensor thrice = out[1]; Tensor loss = twice.sum()) {
          isTrue(twice.requiresGrad() && !thrice.requiresGrad(), "the marked output needs no grad");
          loss.backward();
        }
        try (Tensor g = x.grad()) {
          close(new double[] {2, 2}, g.toFloat64(), 0, "x.grad");
        }
      }
      if (materialize) {
        isTrue(!f.secondNull && f.secondSum == 0.0, "zeros for the non-differentiable output");
      } else {
        isTrue(f.secondNull, "null without materialize grads");
      }
    }
  }

  static void savedModified() {
    try (Tensor w = leaf(new double[] {1, 2}); Tensor x = w.mul(1.0); Tensor y = new Swish().apply1(x);
        Tensor loss = y.sum()) {
      x.mulScalar_(2.0);
      TesseraException e = throwsStatus(Status.ERR_AUTOGRAD, loss::backward, "saved input modified");
      isTrue(e.getMessage().contains("modified by an inplace operation"), "torch's message: " + e.getMessage());
    }
  }

  /** Throws failure from forward, or from backward. */
  static final class Thrower extends Function {
    final RuntimeException inForward;
    final RuntimeException inBackward;

    Thrower(RuntimeException inForward, RuntimeException inBackward) {
      this.inForward = inForward;
      this.inBackward = inBackward;
    }

    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      if (inForward != null) throw inForward;
      return new Tensor[] {in[0].mul(1.0)};
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      if (inBackward != null) throw inBackward;
      return new Tensor[] {grad[0].mul(1.0)};
    }
  }

  /** Throws a checked exception javac cannot see (how a callback may still throw one). */
  @SuppressWarnings("unchecked")
  static <T extends Throwable> RuntimeException sneaky(Throwable e) throws T {
    throw (T) e;
  }

  static void exceptions() {
    try (Tensor x = leaf(new double[] {1, 2})) {
      IllegalStateException boom = new IllegalStateException("boom in forward");
      IllegalStateException got = throwsType(IllegalStateException.class,
          () -> new Thrower(boom, null).apply(x), "forward's exception");
      isTrue(got == boom, "the very exception object, message " + got.getMessage());

      ArithmeticException back = new ArithmeticException("boom in backward");
      try (Tensor y = new Thrower(null, back).apply1(x); Tensor loss = y.sum()) {
        ArithmeticException viaBackward = throwsType(ArithmeticException.class,
            () -> loss.backward(null, true), "backward's exception through Tensor.backward");
        isTrue(viaBackward == back, "the same exception from backward()");
        ArithmeticException viaGrad = throwsType(ArithmeticException.class,
            () -> Tessera.autogradGrad(new Tensor[] {loss}, new Tensor[] {x}), "through autogradGrad");
        isTrue(viaGrad == back, "the same exception from autogradGrad()");
      }

      java.io.IOException checked = new java.io.IOException("checked in forward");
      Function sneakyForward = new Function() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          throw FunctionTests.<RuntimeException>sneaky(checked);
        }

        @Override
        public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
          return grad;
        }
      };
      java.io.IOException gotChecked = throwsType(java.io.IOException.class, () -> sneakyForward.apply(x),
          "a checked exception");
      isTrue(gotChecked == checked, "the checked exception itself");

      // A nested function's exception passes through the outer forward unchanged.
      IllegalArgumentException inner = new IllegalArgumentException("inner");
      Function outer = new Function() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          return new Thrower(inner, null).apply(in);
        }

        @Override
        public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
          return grad;
        }
      };
      isTrue(throwsType(IllegalArgumentException.class, () -> outer.apply(x), "nested") == inner, "nested");

      // A TesseraException from an op inside forward keeps its status and message.
      TesseraException op = throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> new Function() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          try (Tensor other = Tessera.zeros(3)) {
            return new Tensor[] {in[0].add(other)};
          }
        }

        @Override
        public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
          return grad;
        }
      }.apply(x), "an op failing inside forward");
      isTrue(!op.getMessage().isEmpty(), "its own message");

      // After all that, plain calls fail with their own errors, not a kept one.
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> {
        try (Tensor other = Tessera.zeros(3)) {
          x.add(other).close();
        }
      }, "an unrelated failure afterwards");
    }
  }

  static class Identity extends Function {
    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      return new Tensor[] {in[0].mul(1.0)};
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      return new Tensor[] {grad[0].mul(1.0)};
    }
  }

  static void misuse() {
    try (Tensor x = leaf(new double[] {1, 2})) {
      String none = throwsType(IllegalStateException.class, () -> new Identity() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          return new Tensor[0];
        }
      }.apply(x), "no outputs").getMessage();
      isTrue(none.contains("returned no tensors"), none);
      throwsType(IllegalStateException.class, () -> new Identity() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          return new Tensor[] {null};
        }
      }.apply(x), "a null output");
      throwsType(IllegalStateException.class, () -> new Identity() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          Tensor t = in[0].mul(1.0);
          t.close();
          return new Tensor[] {t};
        }
      }.apply(x), "a closed output");
      // Not an input, yet marked dirty: the library's own check.
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> new Identity() {
        @Override
        public Tensor[] forward(FunctionContext ctx, Tensor... in) {
          try (Tensor other = in[0].mul(1.0)) {
            ctx.markDirty(other);
          }
          return new Tensor[] {in[0].mul(1.0)};
        }
      }.apply(x), "mark_dirty of a non-input");

      FunctionContext[] leaked = new FunctionContext[1];
      try (Tensor y = new Identity() {
            @Override
            public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
              leaked[0] = ctx;
              ctx.saveForBackward(grad[0]); // forward only
              return grad;
            }
          }.apply1(x); Tensor loss = y.sum()) {
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> loss.backward(null, true), "saveForBackward in backward");
        throwsType(IllegalStateException.class, () -> leaked[0].needsInputGrad(0), "ctx after its callback");
      }
      try (Tensor y = new Identity() {
            @Override
            public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
              return new Tensor[] {grad[0].mul(1.0), null};
            }
          }.apply1(x); Tensor loss = y.sum()) {
        String msg = throwsType(IllegalStateException.class, loss::backward, "two gradients for one input")
            .getMessage();
        isTrue(msg.contains("incorrect number of gradients (expected 1, got 2)"), msg);
      }
      Tensor closed = Tessera.zeros(2);
      closed.close();
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> new Identity().apply(closed), "a closed input");
      equal("Identity", new Identity().name(), "name() is the class's simple name");
    }
  }

  /** Identity that counts its forwards and backwards. */
  static final class Counted extends Identity {
    final AtomicInteger forwards = new AtomicInteger();
    final AtomicInteger backwards = new AtomicInteger();

    @Override
    public Tensor[] forward(FunctionContext ctx, Tensor... in) {
      forwards.incrementAndGet();
      return super.forward(ctx, in);
    }

    @Override
    public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
      backwards.incrementAndGet();
      return super.backward(ctx, grad);
    }
  }

  static void threads() throws Exception {
    final int perThread = 50_000;
    Counted f = new Counted(); // one Function applied from both threads
    long before = settledAllocated();
    long records = Function.liveRecords();
    Throwable[] failure = new Throwable[2];
    Thread[] threads = new Thread[2];
    for (int t = 0; t < 2; ++t) {
      final int id = t;
      threads[t] = new Thread(() -> {
        try (Tensor x = leaf(new double[] {1, 2, 3, 4})) {
          for (int i = 0; i < perThread; ++i) {
            try (Tensor y = f.apply1(x)) {
              if (i % 100 == 0) {
                try (Tensor loss = y.sum()) {
                  loss.backward();
                }
              }
            }
          }
        } catch (Throwable e) {
          failure[id] = e;
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) t.join();
    for (Throwable e : failure) {
      if (e != null) throw new AssertionError("a thread failed", e);
    }
    equal(2L * perThread, f.forwards.get(), "every forward ran");
    equal(2L * perThread / 100, f.backwards.get(), "every backward ran");
    long after = settledAllocated();
    equal(records, Function.liveRecords(), "every per-apply record released");
    equal(before, after, "no tensor memory left behind");
  }

  /**
   * Tensor bytes once the Cleaner has released what earlier tests dropped unclosed (it runs on its
   * own thread after a collection): read until two reads agree, so only this test's own tensors
   * can make a difference.
   */
  static long settledAllocated() throws InterruptedException {
    long last = -1;
    for (int i = 0; i < 100; ++i) {
      System.gc();
      Thread.sleep(20);
      long now = Tessera.memoryAllocated();
      if (now == last) return now;
      last = now;
    }
    return last;
  }
}
