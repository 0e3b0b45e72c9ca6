// Gradient checkpointing as a using scope (identical gradients, disposal on
// exceptions, every misuse), Dropout with generator state, AutogradGrad.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Tessera.Tests {

public static class CheckpointTests {
  const int D = 16, N = 8, Classes = 4, Blocks = 4;
  const double PDrop = 0.25;

  // A residual MLP: per block h = h + dropout(relu(h @ w + b)), then cross
  // entropy of h @ head.
  sealed class Model : IDisposable {
    public readonly List<Tensor> Params = new List<Tensor>();
    public readonly Tensor X, Target;

    public Model() {
      using (var g = new Generator(7)) {
        for (int i = 0; i < Blocks; ++i) {
          var w = Tensor.Randn(new long[] {D, D}, g);
          w.MulScalarInPlace(0.4);
          w.RequiresGrad = true;
          var b = Tensor.Randn(new long[] {D}, g);
          b.MulScalarInPlace(0.1);
          b.RequiresGrad = true;
          Params.Add(w);
          Params.Add(b);
        }
        var head = Tensor.Randn(new long[] {D, Classes}, g);
        head.RequiresGrad = true;
        Params.Add(head);
        X = Tensor.Randn(new long[] {N, D}, g);
      }
      Target = Tensor.FromArray(Enumerable.Range(0, N).Select(i => (long)(i % Classes)).ToArray(),
                                new long[] {N});
    }

    // h + dropout(relu(h @ w_i + b_i)); disposes its temporaries, not h.
    public Tensor Block(int i, Tensor h, Generator g) {
      using (var z = h.Matmul(Params[2 * i]))
      using (var zb = z + Params[2 * i + 1])
      using (var a = zb.Relu())
      using (var dropped = Tessera.Dropout(a, PDrop, true, g))
        return h + dropped;
    }

    public void Dispose() {
      foreach (var p in Params) p.Dispose();
      X.Dispose();
      Target.Dispose();
    }
  }

  // One SGD step; the gradient bytes, then the updated parameter bytes.
  static List<byte[]> TrainStep(CheckpointOptions options, bool checkpointed) {
    var result = new List<byte[]>();
    using (var m = new Model())
    using (var g = new Generator(1234)) {
      Tensor h = m.X.Clone();
      for (int i = 0; i < Blocks; ++i) {
        Tensor next;
        if (checkpointed) {
          using (Tessera.Checkpoint(options)) next = m.Block(i, h, g);
        } else {
          next = m.Block(i, h, g);
        }
        h.Dispose();
        h = next;
      }
      using (h)
      using (var logits = h.Matmul(m.Params[2 * Blocks]))
      using (var loss = logits.CrossEntropy(m.Target))
        loss.Backward();
      foreach (var p in m.Params)
        using (var grad = p.Grad()) result.Add(grad.ToBytes());
      using (Tessera.NoGrad()) {
        foreach (var p in m.Params)
          using (var grad = p.Grad()) p.AddInPlace(grad, -0.1);
      }
      foreach (var p in m.Params) result.Add(p.ToBytes());
    }
    return result;
  }

  [Test]
  public static void ResidualMlpGradientsIdenticalWithARegionPerBlock() {
    var plain = TrainStep(null, false);
    Check.Equal(2 * (2 * Blocks + 1), plain.Count, "gradients and parameters");
    var variants = new[] {
      null,
      new CheckpointOptions { KeepOps = new[] {"matmul", "add"} },
      new CheckpointOptions { EarlyStop = false, DeterminismCheck = false },
    };
    foreach (var options in variants) {
      var checkpointed = TrainStep(options, true);
      for (int i = 0; i < plain.Count; ++i)
        Check.True(plain[i].SequenceEqual(checkpointed[i]),
                   (i <= 2 * Blocks ? "gradient " : "updated parameter ") + i + " differs");
      Check.Equal(0L, Tessera.CheckpointDepth, "no region left open");
    }
    // Fresh random numbers on replay: the recomputed masks are not the forward's.
    var fresh = TrainStep(new CheckpointOptions { PreserveRngState = false }, true);
    Check.True(Enumerable.Range(0, 2 * Blocks).Any(i => !plain[i].SequenceEqual(fresh[i])),
               "PreserveRngState = false changes the block gradients");
  }

  [Test]
  public static void RegionIsDisposedWhenTheBodyThrows() {
    using (var x = Tensor.Ones(new long[] {3})) {
      x.RequiresGrad = true;
      Tensor made = null;
      try {
        using (Tessera.Checkpoint()) {
          Check.Equal(1L, Tessera.CheckpointDepth, "depth inside");
          using (var doubled = x * 2.0) made = doubled.Relu();
          throw new InvalidOperationException("in the region");
        }
      } catch (InvalidOperationException e) {
        Check.Equal("in the region", e.Message, "the body's own exception propagates");
      }
      Check.Equal(0L, Tessera.CheckpointDepth, "the region ended on the exception");
      using (made)
      using (var s = made.Sum(new long[0]))
        s.Backward();   // tensors made inside stay valid; backward works once it ended
      using (var grad = x.Grad())
        Check.Close(new double[] {2, 2, 2}, grad.ToFloat64(), 0, "gradient through the region");
      // A TesseraException inside (a shape error) ends it too.
      Check.Throws(Status.ShapeMismatch, () => {
        using (Tessera.Checkpoint())
        using (var bad = Tensor.Ones(new long[] {2}))
        using (var sum = x + bad) {}
      }, "[3] + [2] inside a region");
      Check.Equal(0L, Tessera.CheckpointDepth, "ended after a TesseraException");
    }
  }

  [Test]
  public static void EndWithoutBeginIsAutograd() {
    Check.Equal(0L, Tessera.CheckpointDepth, "no region open");
    var e = Check.Throws(Status.Autograd, () => Tessera.CheckpointEnd(), "CheckpointEnd at depth 0");
    Check.True(e.Message.Contains("no checkpoint region is open"), "message: " + e.Message);
    Tessera.CheckpointBegin();
    Check.Equal(1L, Tessera.CheckpointDepth, "CheckpointBegin opens one");
    Tessera.CheckpointEnd();
    Check.Equal(0L, Tessera.CheckpointDepth, "CheckpointEnd ends it");
    // A region ended behind its scope's back: its Dispose reports the C error.
    var scope = Tessera.Checkpoint();
    Tessera.CheckpointEnd();
    Check.Throws(Status.Autograd, scope.Dispose, "disposing a region already ended");
    Check.Equal(0L, Tessera.CheckpointDepth, "still none open");
  }

  [Test]
  public static void BackwardInsideAnOpenRegionThrows() {
    using (var w = Tensor.Ones(new long[] {3})) {
      w.RequiresGrad = true;
      using (var sq = w * w)
      using (var loss = sq.Sum(new long[0])) {
        using (Tessera.Checkpoint()) {
          Check.Throws(Status.Autograd, () => loss.Backward(), "Backward inside a region");
          Check.Throws(Status.Autograd, () => Tessera.AutogradGrad(new[] {loss}, new[] {w}),
                       "AutogradGrad inside a region");
        }
        Check.True(w.Grad() == null, "the failed backward wrote no gradient");
        loss.Backward();   // the graph is intact once the region ended
      }
      using (var grad = w.Grad())
        Check.Close(new double[] {2, 2, 2}, grad.ToFloat64(), 0, "d sum(w*w)/dw");
    }
  }

  [Test]
  public static void UnknownKeepOpsNameIsInvalidArgument() {
    bool ran = false;
    var e = Check.Throws(Status.InvalidArgument, () => {
      using (Tessera.Checkpoint(new CheckpointOptions { KeepOps = new[] {"matmul", "no_such_op"} }))
        ran = true;
    }, "KeepOps with an unknown name");
    Check.True(!ran, "the body did not run");
    Check.True(e.Message.Contains("'no_such_op'"), "the message names it: " + e.Message);
    Check.Equal(0L, Tessera.CheckpointDepth, "nothing was opened");
    Check.Throws(Status.InvalidArgument,
                 () => Tessera.Checkpoint(new CheckpointOptions { KeepOps = new[] {"matmul\0add"} }),
                 "a name with a NUL");
    Check.Throws(Status.InvalidArgument,
                 () => Tessera.Checkpoint(new CheckpointOptions { KeepOps = new string[] {null} }),
                 "a null name");
    Check.Equal(0L, Tessera.CheckpointDepth, "still nothing open");
  }

  [Test]
  public static void NestingDepthDisposeOnceAndThreads() {
    using (var outer = Tessera.Checkpoint()) {
      using (Tessera.Checkpoint(new CheckpointOptions { EarlyStop = false }))
        Check.Equal(2L, Tessera.CheckpointDepth, "nested");
      Check.Equal(1L, Tessera.CheckpointDepth, "inner ended");
      // Regions are per thread: another thread sees none and cannot end this one.
      string seen = null;
      var other = new Thread(() => {
        long depth = Tessera.CheckpointDepth;
        try {
          outer.Dispose();
          seen = "disposed from another thread";
        } catch (TesseraException e) {
          seen = depth == 0 && e.Status == Status.Autograd ? "refused" : e.ToString();
        }
      });
      other.Start();
      other.Join();
      Check.Equal("refused", seen, "Dispose on another thread");
      Check.True(!outer.IsDisposed, "still open after the refused Dispose");
      outer.Dispose();
      Check.True(outer.IsDisposed, "disposed");
      outer.Dispose();   // again: nothing
      Check.Equal(0L, Tessera.CheckpointDepth, "ended exactly once");
    }
    Check.Equal(0L, Tessera.CheckpointDepth, "the using block's Dispose after an explicit one is harmless");
  }

  [Test]
  public static void GeneratorStateAndDropout() {
    using (var g = new Generator(2024))
    using (var x = Tensor.Ones(new long[] {5, 7})) {
      Check.Equal(new GeneratorState(2024, 0), g.GetState(), "fresh generator");
      using (var first = Tessera.Dropout(x, 0.5, true, g)) {
        Check.Equal(new GeneratorState(2024, 35), g.GetState(), "one 32-bit word per element");
        g.SetState(2024, 0);
        using (var again = x.Dropout(0.5, true, g))
          Check.True(first.ToBytes().SequenceEqual(again.ToBytes()), "same state, same mask");
        Check.True(first.ToFloat64().All(v => v == 0.0 || v == 2.0), "kept values scaled by 2");
      }
      g.SetState(new GeneratorState(ulong.MaxValue, ulong.MaxValue - 1));
      Check.Equal(new GeneratorState(ulong.MaxValue, ulong.MaxValue - 1), g.GetState(), "all 64 bits");
      using (var same = Tessera.Dropout(x, 0.5, false, g))
        Check.True(same.SharesStorage(x), "train = false returns the input itself");
      Check.Throws(Status.InvalidArgument, () => Tessera.Dropout(x, 1.5, true, g), "p > 1");
      using (var ints = Tensor.Arange(0, 3))
        Check.Throws(Status.DtypeMismatch, () => Tessera.Dropout(ints, 0.5, true, g), "int64 input");
      Check.Throws(Status.InvalidArgument, () => Tessera.Dropout(null, 0.5, true, g), "null input");
    }
    var closed = new Generator(1);
    closed.Dispose();
    Check.Throws(Status.InvalidArgument, () => closed.GetState(), "GetState after Dispose");
    Check.Throws(Status.InvalidArgument, () => closed.SetState(1, 2), "SetState after Dispose");
    using (var x = Tensor.Ones(new long[] {2}))
      Check.Throws(Status.InvalidArgument, () => Tessera.Dropout(x, 0.5, true, closed), "a disposed generator");
  }

  [Test]
  public static void AutogradGradSecondDerivativeAndUnused() {
    using (var x = Tensor.FromArray(new double[] {1, -2, 3}, new long[] {3})) {
      x.RequiresGrad = true;
      using (var x2 = x * x)
      using (var x3 = x2 * x)
      using (var y = x3.Sum(new long[0])) {
        var first = Tessera.AutogradGrad(new[] {y}, new[] {x}, retainGraph: true, createGraph: true);
        using (var dy = first[0])
        using (var s = dy.Sum(new long[0])) {
          Check.Close(new double[] {3, 12, 27}, dy.ToFloat64(), 0, "d x^3 = 3x^2");
          Check.True(dy.RequiresGrad, "createGraph: the gradient requires grad");
          using (var d2y = Tessera.AutogradGrad(new[] {s}, new[] {x})[0])
            Check.Close(new double[] {6, -12, 18}, d2y.ToFloat64(), 0, "d2 x^3 = 6x");
        }
      }
      Check.True(x.Grad() == null, "no Grad() written");
      using (var unused = Tensor.Ones(new long[] {1}))
      using (var y = x * 3.0)
      using (var s = x.Sum(new long[0]))
      using (var weights = Tensor.FromArray(new double[] {1, 10, 100}, new long[] {3})) {
        unused.RequiresGrad = true;
        var grads = Tessera.AutogradGrad(new[] {y, s}, new[] {x, unused}, new[] {weights, null},
                                         retainGraph: true, allowUnused: true);
        Check.Equal(2, grads.Length, "one entry per input");
        Check.True(grads[1] == null, "null for the unused input");
        using (var gx = grads[0])
          Check.Close(new double[] {4, 31, 301}, gx.ToFloat64(), 0, "weighted by gradOutputs");
        Check.Throws(Status.Autograd,
                     () => Tessera.AutogradGrad(new[] {s}, new[] {x, unused}, retainGraph: true),
                     "an unused input without allowUnused");
        Check.Throws(Status.InvalidArgument,
                     () => Tessera.AutogradGrad(new[] {y, s}, new[] {x}, new Tensor[] {null}, true),
                     "gradOutputs of the wrong length");
        Check.Throws(Status.InvalidArgument, () => Tessera.AutogradGrad(new Tensor[0], new[] {x}), "no outputs");
        Check.Throws(Status.InvalidArgument, () => Tessera.AutogradGrad(new[] {s}, new Tensor[] {null}),
                     "a null input");
        Check.Throws(Status.InvalidArgument, () => Tessera.AutogradGrad(null, new[] {x}), "null outputs");
        var disposed = Tensor.Ones(new long[] {1});
        disposed.Dispose();
        Check.Throws(Status.InvalidArgument, () => Tessera.AutogradGrad(new[] {s}, new[] {disposed}),
                     "a disposed input");
      }
    }
  }
}

}
