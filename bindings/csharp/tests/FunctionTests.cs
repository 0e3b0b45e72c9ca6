// Tessera.Function (torch.autograd.Function over tsr_function_apply): the
// C tests' behaviours through the C# binding.
using System;
using System.Threading;

namespace Tessera.Tests {

public static class FunctionTests {
  /// y = x * sigmoid(x), Forward over raw float64 values, Backward with ops.
  sealed class Swish : Function {
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      double[] x = input[0].ToFloat64();
      var y = new double[x.Length];
      for (int i = 0; i < x.Length; ++i) y[i] = x[i] / (1.0 + Math.Exp(-x[i]));
      ctx.SaveForBackward(input[0]);
      return new[] {Tensor.FromFloat64(y, input[0].Sizes, DType.Float64)};
    }

    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) {
      using (var x = ctx.SavedTensors()[0])
      using (var s = x.Sigmoid())
      using (var negS = s.Neg())
      using (var oneMinusS = negS + 1.0)
      using (var xs = x * s)
      using (var xss = xs * oneMinusS)
      using (var dydx = s + xss)
        return new[] {grad[0] * dydx};
    }
  }

  class Identity : Function {
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) => new[] {input[0] * 1.0};
    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) => new[] {grad[0] * 1.0};
  }

  static Tensor Leaf(params double[] values) {
    var t = Tensor.FromFloat64(values, new long[] {values.Length}, DType.Float64);
    t.RequiresGrad = true;
    return t;
  }

  static double SwishSum(double[] x) {
    using (var t = Tensor.FromFloat64(x, new long[] {x.Length}, DType.Float64))
    using (var y = new Swish().Apply1(t))
    using (var s = y.Sum(new long[0]))
      return s.ItemDouble();
  }

  [Test]
  public static void SwishMatchesComposedOpsAndFiniteDifferences() {
    double[] values = {-3.0, -0.5, 0.0, 0.25, 1.5, 4.0};
    double[] custom;
    using (var x = Leaf(values))
    using (var y = new Swish().Apply1(x))
    using (var loss = y.Sum(new long[0])) {
      Check.Equal("SwishBackward", y.GradFnName, "grad_fn name");
      loss.Backward();
      using (var g = x.Grad()) custom = g.ToFloat64();
    }
    using (var x = Leaf(values))
    using (var s = x.Sigmoid())
    using (var y = x * s)
    using (var loss = y.Sum(new long[0])) {
      loss.Backward();
      using (var g = x.Grad()) Check.Close(g.ToFloat64(), custom, 1e-12, "against the composed ops");
    }
    const double h = 1e-6;
    var numeric = new double[values.Length];
    for (int i = 0; i < values.Length; ++i) {
      double[] plus = (double[])values.Clone(), minus = (double[])values.Clone();
      plus[i] += h;
      minus[i] -= h;
      numeric[i] = (SwishSum(plus) - SwishSum(minus)) / (2 * h);
    }
    Check.Close(numeric, custom, 1e-6, "against central differences");
  }

  /// (a * b, a + b), b not requiring grad: its gradient is null.
  sealed class MulAdd : Function {
    internal bool[] Needs = new bool[2];

    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      Needs[0] = ctx.NeedsInputGrad(0);
      Needs[1] = ctx.NeedsInputGrad(1);
      ctx.SaveForBackward(input[1]);
      return new[] {input[0] * input[1], input[0] + input[1]};
    }

    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) {
      using (var b = ctx.SavedTensors()[0])
      using (var viaMul = grad[0] * b)
        return new[] {viaMul + grad[1], null};
    }
  }

  [Test]
  public static void TwoOutputsAndANullGradient() {
    var f = new MulAdd();
    using (var a = Leaf(1, 2, 3))
    using (var b = Tensor.FromFloat64(new double[] {4, 5, 6}, new long[] {3}, DType.Float64)) {
      Tensor[] outputs = f.Apply(a, b);
      using (var prod = outputs[0])
      using (var sum = outputs[1])
      using (var s0 = prod.Sum(new long[0]))
      using (var s1 = sum.Sum(new long[0]))
      using (var loss = s0 + s1) {
        Check.True(f.Needs[0] && !f.Needs[1], "NeedsInputGrad in Forward");
        Check.Equal("MulAddBackward", sum.GradFnName, "both outputs share the node");
        loss.Backward();
      }
      using (var ga = a.Grad()) Check.Close(new double[] {5, 6, 7}, ga.ToFloat64(), 0, "a.grad = b + 1");
      Check.True(b.Grad() == null, "b gets no gradient");
    }
  }

  sealed class DoubleInPlace : Function {
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      input[0].MulScalarInPlace(2.0);
      ctx.MarkDirty(input[0]);
      return new[] {input[0]};
    }

    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) => new[] {grad[0] * 2.0};
  }

  [Test]
  public static void MarkDirtyInPlace() {
    using (var w = Leaf(1, 2))
    using (var x = w * 1.0) {
      long version = x.Version;
      using (var y = new DoubleInPlace().Apply1(x))
      using (var loss = y.Sum(new long[0])) {
        Check.True(x.Version > version, "the version counter was bumped");
        Check.Equal("DoubleInPlaceBackward", x.GradFnName, "x's history now ends in the function");
        loss.Backward();
      }
      using (var g = w.Grad()) Check.Close(new double[] {2, 2}, g.ToFloat64(), 0, "gradient through it");
      var e = Check.Throws(Status.Autograd, () => new DoubleInPlace().Apply(w), "dirty leaf");
      Check.True(e.Message.Contains("leaf Variable that requires grad"), "torch's message: " + e.Message);
    }
  }

  sealed class Split : Function {
    readonly bool materialize;
    internal bool SecondNull;
    internal double SecondSum = -1;

    internal Split(bool materialize) { this.materialize = materialize; }

    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      Tensor twice = input[0] * 2.0, thrice = input[0] * 3.0;
      ctx.MarkNonDifferentiable(thrice);
      ctx.SetMaterializeGrads(materialize);
      return new[] {twice, thrice};
    }

    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) {
      SecondNull = grad[1] == null;
      if (grad[1] != null)
        using (var s = grad[1].Sum(new long[0])) SecondSum = s.ItemDouble();
      return new[] {grad[0] * 2.0};
    }
  }

  [Test]
  public static void MarkNonDifferentiableAndMaterializeGrads() {
    foreach (bool materialize in new[] {true, false}) {
      var f = new Split(materialize);
      using (var x = Leaf(1, 2)) {
        Tensor[] outputs = f.Apply(x);
        using (var twice = outputs[0])
        using (var thrice = outputs[1])
        using (var loss = twice.Sum(new long[0])) {
          Check.True(twice.RequiresGrad && !thrice.RequiresGrad, "the marked output needs no grad");
          loss.Backward();
        }
        using (var g = x.Grad()) Check.Close(new double[] {2, 2}, g.ToFloat64(), 0, "x.grad");
      }
      Check.True(materialize ? !f.SecondNull && f.SecondSum == 0.0 : f.SecondNull,
                 "zeros, or null without materialize grads");
    }
  }

  [Test]
  public static void SavedTensorModifiedInPlace() {
    using (var w = Leaf(1, 2))
    using (var x = w * 1.0)
    using (var y = new Swish().Apply1(x))
    using (var loss = y.Sum(new long[0])) {
      x.MulScalarInPlace(2.0);
      var e = Check.Throws(Status.Autograd, () => loss.Backward(), "saved input modified");
      Check.True(e.Message.Contains("modified by an inplace operation"), "torch's message: " + e.Message);
    }
  }

  sealed class Thrower : Function {
    readonly Exception inForward, inBackward;
    internal Thrower(Exception inForward, Exception inBackward) {
      this.inForward = inForward;
      this.inBackward = inBackward;
    }
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      if (inForward != null) throw inForward;
      return new[] {input[0] * 1.0};
    }
    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) {
      if (inBackward != null) throw inBackward;
      return new[] {grad[0] * 1.0};
    }
  }

  static T Catch<T>(Action action, string what) where T : Exception {
    try {
      action();
    } catch (T e) {
      return e;
    } catch (Exception e) {
      throw new AssertionFailed($"{what}: expected {typeof(T).Name}, got {e}");
    }
    throw new AssertionFailed($"{what}: expected {typeof(T).Name}, nothing thrown");
  }

  [Test]
  public static void ExceptionsComeBackAsThemselves() {
    using (var x = Leaf(1, 2)) {
      var boom = new InvalidOperationException("boom in Forward");
      Check.True(Catch<InvalidOperationException>(() => new Thrower(boom, null).Apply(x), "Forward") == boom,
                 "the very exception from Apply");
      var back = new ArithmeticException("boom in Backward");
      using (var y = new Thrower(null, back).Apply1(x))
      using (var loss = y.Sum(new long[0])) {
        Check.True(Catch<ArithmeticException>(() => loss.Backward(null, true), "Backward") == back,
                   "the very exception from Tensor.Backward");
        Check.True(Catch<ArithmeticException>(() => Tessera.AutogradGrad(new[] {loss}, new[] {x}), "grad") == back,
                   "the very exception from AutogradGrad");
      }
      var inner = new ArgumentException("inner");
      Check.True(Catch<ArgumentException>(() => new Nested(inner).Apply(x), "nested") == inner,
                 "a nested function's exception passes through");
      var op = Check.Throws(Status.ShapeMismatch, () => new AddZeros3().Apply(x), "an op failing in Forward");
      Check.True(op.Message.Length > 0, "its own message");
      Check.Throws(Status.ShapeMismatch, () => {
        using (var z = Tensor.Zeros(new long[] {3}))
          (x + z).Dispose();
      }, "an unrelated failure afterwards is its own");
    }
  }

  sealed class Nested : Function {
    readonly Exception inner;
    internal Nested(Exception inner) { this.inner = inner; }
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) => new Thrower(inner, null).Apply(input);
    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) => grad;
  }

  sealed class AddZeros3 : Identity {
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      using (var z = Tensor.Zeros(new long[] {3})) return new[] {input[0] + z};
    }
  }

  sealed class Returns : Identity {
    readonly Func<FunctionContext, Tensor[], Tensor[]> forward;
    internal Returns(Func<FunctionContext, Tensor[], Tensor[]> forward) { this.forward = forward; }
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) => forward(ctx, input);
  }

  sealed class BackwardDoes : Identity {
    readonly Func<FunctionContext, Tensor[], Tensor[]> backward;
    internal BackwardDoes(Func<FunctionContext, Tensor[], Tensor[]> backward) { this.backward = backward; }
    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) => backward(ctx, grad);
  }

  [Test]
  public static void BadResultsAndContextMisuseAreRefused() {
    using (var x = Leaf(1, 2)) {
      string none = Catch<InvalidOperationException>(() => new Returns((c, i) => new Tensor[0]).Apply(x), "none").Message;
      Check.True(none.Contains("returned no tensors"), none);
      Catch<InvalidOperationException>(() => new Returns((c, i) => new Tensor[] {null}).Apply(x), "a null output");
      Catch<InvalidOperationException>(() => new Returns((c, i) => {
        var t = i[0] * 1.0;
        t.Dispose();
        return new[] {t};
      }).Apply(x), "a disposed output");
      Check.Throws(Status.InvalidArgument, () => new Returns((c, i) => {
        using (var other = i[0] * 1.0) c.MarkDirty(other);
        return new[] {i[0] * 1.0};
      }).Apply(x), "MarkDirty of a non-input");

      FunctionContext leaked = null;
      using (var y = new BackwardDoes((c, g) => {
        leaked = c;
        c.SaveForBackward(g[0]);
        return g;
      }).Apply1(x))
      using (var loss = y.Sum(new long[0])) {
        Check.Throws(Status.InvalidArgument, () => loss.Backward(null, true), "SaveForBackward in Backward");
        Catch<InvalidOperationException>(() => leaked.NeedsInputGrad(0), "ctx after its callback");
      }
      using (var y = new BackwardDoes((c, g) => new[] {g[0] * 1.0, null}).Apply1(x))
      using (var loss = y.Sum(new long[0])) {
        string msg = Catch<InvalidOperationException>(() => loss.Backward(), "two gradients").Message;
        Check.True(msg.Contains("incorrect number of gradients (expected 1, got 2)"), msg);
      }
      var disposed = Tensor.Zeros(new long[] {2});
      disposed.Dispose();
      Check.Throws(Status.InvalidArgument, () => new Identity().Apply(disposed), "a disposed input");
      Check.Equal("Identity", new Identity().Name, "Name is the class's name");
    }
  }

  sealed class Counted : Identity {
    internal int Forwards, Backwards;
    public override Tensor[] Forward(FunctionContext ctx, params Tensor[] input) {
      Interlocked.Increment(ref Forwards);
      return base.Forward(ctx, input);
    }
    public override Tensor[] Backward(FunctionContext ctx, params Tensor[] grad) {
      Interlocked.Increment(ref Backwards);
      return base.Backward(ctx, grad);
    }
  }

  [Test]
  public static void HundredThousandAppliesOnTwoThreadsLeakNothing() {
    const int perThread = 50000;
    var f = new Counted();
    Check.DrainFinalizers();
    long before = Tessera.MemoryAllocated();
    long records = Function.LiveRecords;
    var failures = new Exception[2];
    var threads = new Thread[2];
    for (int t = 0; t < 2; ++t) {
      int id = t;
      threads[t] = new Thread(() => {
        try {
          using (var x = Leaf(1, 2, 3, 4))
            for (int i = 0; i < perThread; ++i)
              using (var y = f.Apply1(x))
                if (i % 100 == 0)
                  using (var loss = y.Sum(new long[0])) loss.Backward();
        } catch (Exception e) {
          failures[id] = e;
        }
      });
      threads[t].Start();
    }
    foreach (var t in threads) t.Join();
    foreach (var e in failures)
      if (e != null) throw new AssertionFailed("a thread failed: " + e);
    Check.Equal(2 * perThread, f.Forwards, "every Forward ran");
    Check.Equal(2 * perThread / 100, f.Backwards, "every Backward ran");
    Check.Equal(records, Function.LiveRecords, "every per-apply record released");
    Check.Equal(before, Tessera.MemoryAllocated(), "no tensor memory left behind");
  }
}

}
