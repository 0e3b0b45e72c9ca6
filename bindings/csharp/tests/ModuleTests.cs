// Module (torch.nn.Module), its layers and state_dict against torch 1.13's
// key order and load_state_dict messages.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Tessera.Tests {

public static class ModuleTests {
  // Linear(4,3), BatchNorm2d(3), Sequential(Conv2d(3,2,3,bias=False), BatchNorm2d(2)), Linear(2,2,bias=False).
  static Sequential Nested() =>
      new Sequential(new Linear(4, 3), new BatchNorm2d(3),
                     new Sequential(new Conv2d(3, 2, 3, bias: false), new BatchNorm2d(2)),
                     new Linear(2, 2, bias: false));

  static List<KeyValuePair<string, Tensor>> Dict(params object[] nameTensor) {
    var output = new List<KeyValuePair<string, Tensor>>();
    for (int i = 0; i < nameTensor.Length; i += 2)
      output.Add(new KeyValuePair<string, Tensor>((string)nameTensor[i], (Tensor)nameTensor[i + 1]));
    return output;
  }

  static E Throws<E>(Action action, string what) where E : Exception {
    try {
      action();
    } catch (E e) {
      return e;
    } catch (Exception e) {
      throw new AssertionFailed($"{what}: expected {typeof(E).Name}, got {e}");
    }
    throw new AssertionFailed($"{what}: expected {typeof(E).Name}, nothing thrown");
  }

  static void Keys(IEnumerable<string> expected, IEnumerable<string> actual, string what) {
    if (!expected.SequenceEqual(actual))
      throw new AssertionFailed($"{what}: expected [{string.Join(", ", expected)}], got [{string.Join(", ", actual)}]");
  }

  [Test]
  public static void KeysInTorchOrder() {
    // /usr/bin/python3 -c 'import torch, torch.nn as nn; m = nn.Sequential(nn.Linear(4, 3),
    //   nn.BatchNorm2d(3), nn.Sequential(nn.Conv2d(3, 2, 3, bias=False), nn.BatchNorm2d(2)),
    //   nn.Linear(2, 2, bias=False)); print(list(m.state_dict().keys()));
    //   print([n for n, _ in m.named_parameters()]); print([n for n, _ in m.named_buffers()])'
    // (torch 1.13)
    var stateDict = new[] {"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                           "1.num_batches_tracked", "2.0.weight", "2.1.weight", "2.1.bias", "2.1.running_mean",
                           "2.1.running_var", "2.1.num_batches_tracked", "3.weight"};
    var parameters = new[] {"0.weight", "0.bias", "1.weight", "1.bias", "2.0.weight", "2.1.weight", "2.1.bias",
                            "3.weight"};
    var buffers = new[] {"1.running_mean", "1.running_var", "1.num_batches_tracked", "2.1.running_mean",
                         "2.1.running_var", "2.1.num_batches_tracked"};
    using (var m = Nested()) {
      Keys(stateDict, m.StateDict().Keys, "state_dict");
      Keys(parameters, m.NamedParameters().Keys, "named_parameters");
      Keys(buffers, m.NamedBuffers().Keys, "named_buffers");
      Check.Equal(8, m.Parameters().Count, "Parameters()");
      Check.Equal(6, m.Buffers().Count, "Buffers()");
      Keys(new[] {"0", "1", "2", "3"}, m.NamedChildren().Select(c => c.Key), "children");
      Check.True(m.Children()[2] is Sequential, "child 2 is the inner Sequential");
      Check.Equal(DType.Int64, m.StateDict()["1.num_batches_tracked"].Dtype, "num_batches_tracked dtype");
      Check.True(m.Parameters().All(p => p.RequiresGrad), "parameters require grad");
    }
  }

  [Test]
  public static void StrictLoadReportsMissingAndUnexpected() {
    // torch 1.13: nn.Linear(2, 3).load_state_dict({"bias": torch.zeros(3), "extra": torch.zeros(1)})
    using (var l = new Linear(2, 3))
    using (var bias = Tensor.Zeros(new long[] {3}))
    using (var extra = Tensor.Zeros(new long[] {1})) {
      double[] before = l.Bias.ToFloat64();
      var e = Check.Throws(Status.InvalidArgument, () => l.LoadStateDict(Dict("bias", bias, "extra", extra)),
                           "strict by default");
      Check.Equal("Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"weight\". " +
                  "\n\tUnexpected key(s) in state_dict: \"extra\". ", e.Message, "message");
      Check.True(before.SequenceEqual(l.Bias.ToFloat64()), "nothing copied");
    }
    // torch 1.13: nn.Sequential(nn.Linear(2, 2), nn.ReLU()).load_state_dict({"0.weight": ..., "0.nope": ...,
    //   "1.x": ..., "9": ...})
    using (var m = new Sequential(new Linear(2, 2), new ReLU()))
    using (var w = Tensor.Zeros(new long[] {2, 2}))
    using (var x = Tensor.Zeros(new long[] {1})) {
      var e = Check.Throws(Status.InvalidArgument,
                           () => m.LoadStateDict(Dict("0.weight", w, "0.nope", x, "1.x", x, "9", x), true), "nested");
      Check.Equal("Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"0.bias\". " +
                  "\n\tUnexpected key(s) in state_dict: \"9\", \"0.nope\", \"1.x\". ", e.Message, "nested message");
    }
  }

  [Test]
  public static void LenientLoadCopiesWhatMatches() {
    using (var l = new Linear(2, 3))
    using (var bias = Tensor.Full(new long[] {3}, 7.0))
    using (var extra = Tensor.Zeros(new long[] {1})) {
      IncompatibleKeys keys = l.LoadStateDict(Dict("bias", bias, "extra", extra), strict: false);
      Keys(new[] {"weight"}, keys.MissingKeys, "missing");
      Keys(new[] {"extra"}, keys.UnexpectedKeys, "unexpected");
      Check.Close(new double[] {7, 7, 7}, l.Bias.ToFloat64(), 0, "bias copied");
      Check.True(l.Bias.RequiresGrad, "still a parameter");
    }
  }

  [Test]
  public static void ShapeMismatchIsRefused() {
    // torch 1.13: nn.Linear(2, 3).load_state_dict({"weight": torch.zeros(2, 3), "foo": torch.zeros(3)})
    using (var l = new Linear(2, 3))
    using (var w = Tensor.Zeros(new long[] {2, 3}))
    using (var foo = Tensor.Zeros(new long[] {3}))
    using (var b = Tensor.Zeros(new long[] {3})) {
      var e = Check.Throws(Status.InvalidArgument, () => l.LoadStateDict(Dict("weight", w, "foo", foo)), "strict");
      Check.Equal("Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". " +
                  "\n\tUnexpected key(s) in state_dict: \"foo\". \n\tsize mismatch for weight: copying a param " +
                  "with shape torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([3, 2]).",
                  e.Message, "message");
      // Not strict still refuses the shape (torch too), and copies nothing, not even the bias.
      e = Check.Throws(Status.InvalidArgument, () => l.LoadStateDict(Dict("weight", w, "bias", b), false), "lenient");
      Check.Equal("Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with " +
                  "shape torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([3, 2]).",
                  e.Message, "lenient message");
      Check.True(l.Bias.ToFloat64().Any(v => v != 0), "bias not copied");
    }
  }

  [Test]
  public static void NullStateDictKeyOrValue() {
    using (var l = new Linear(1, 1))
    using (var w = Tensor.Zeros(new long[] {1, 1})) {
      Throws<ArgumentNullException>(() => l.LoadStateDict(null), "null state_dict");
      var e = Throws<ArgumentNullException>(() => l.LoadStateDict(Dict("weight", w, "bias", null)), "null value");
      Check.True(e.Message.StartsWith("state_dict[\"bias\"] is null"), e.Message);
      Throws<ArgumentNullException>(() => l.LoadStateDict(Dict(null, w)), "null key");
    }
  }

  [Test]
  public static void FileRoundTripsValues() {
    string dir = Path.Combine(Path.GetTempPath(), "tessera-cs-module-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    try {
      string path = Path.Combine(dir, "state.tsr");
      using (var a = Nested())
      using (var b = Nested())
      using (var x = Tensor.Ones(new long[] {2, 3, 5, 5}))
      using (var y = a.Children()[2].Forward(x)) {
        // The forward pass in training mode moved a's running statistics and counter.
        StateDictFile.Save(path, a);
        IncompatibleKeys keys = StateDictFile.Load(path, b);
        Check.Equal(0, keys.MissingKeys.Count + keys.UnexpectedKeys.Count, "all keys matched");
        var sa = a.StateDict();
        var sb = b.StateDict();
        foreach (var entry in sa)
          Check.True(entry.Value.ToFloat64().SequenceEqual(sb[entry.Key].ToFloat64()), entry.Key + " round-trips");
        Check.Equal(1L, sb["2.1.num_batches_tracked"].ItemInt64(), "counter round-trips");
        using (var small = new Linear(1, 1)) {
          var e = Check.Throws(Status.InvalidArgument, () => StateDictFile.Load(path, small), "wrong module");
          Check.True(e.Message.StartsWith("Error(s) in loading state_dict for Linear:\n\tMissing key(s)"), e.Message);
        }
        Check.Throws(Status.IO, () => StateDictFile.Load(Path.Combine(dir, "none.tsr"), b), "missing file");
        Throws<ArgumentNullException>(() => StateDictFile.Save(path, null), "null module");
        Throws<ArgumentNullException>(() => StateDictFile.Load(path, null), "null module");
      }
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public static void TrainEvalSwitchesBatchNorm() {
    using (var bn = new BatchNorm2d(1))
    using (var x = Tensor.FromArray(new float[] {1, 2, 3, 4}, new long[] {1, 1, 2, 2})) {
      Check.True(bn.IsTraining, "training by default");
      using (var y = bn.Forward(x)) {
        // Batch statistics: mean 2.5, biased var 1.25.
        double s = 1 / Math.Sqrt(1.25 + 1e-5);
        Check.Close(new[] {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, y.ToFloat64(), 1e-5, "train output");
      }
      // running_mean 0.9 * 0 + 0.1 * 2.5; running_var with the unbiased 5/3.
      double runningVar = 0.9 + 0.1 * 5.0 / 3;
      Check.Close(new[] {0.25}, bn.RunningMean.ToFloat64(), 1e-6, "running_mean");
      Check.Close(new[] {runningVar}, bn.RunningVar.ToFloat64(), 1e-6, "running_var");
      Check.Equal(1L, bn.NumBatchesTracked.ItemInt64(), "num_batches_tracked");
      bn.Eval();
      Check.True(!bn.IsTraining, "eval");
      using (var y = bn.Forward(x)) {
        var want = Enumerable.Range(1, 4).Select(i => (i - 0.25) / Math.Sqrt(runningVar + 1e-5)).ToArray();
        Check.Close(want, y.ToFloat64(), 1e-5, "eval output uses running statistics");
      }
      Check.Close(new[] {0.25}, bn.RunningMean.ToFloat64(), 1e-6, "eval leaves running_mean");
      Check.Equal(1L, bn.NumBatchesTracked.ItemInt64(), "eval does not count");
    }
    using (var m = Nested()) {
      m.Eval();
      Check.True(m.Children().All(c => !c.IsTraining), "children in eval");
      Check.True(!m.Children()[2].Children()[1].IsTraining, "grandchild in eval");
      m.Train();
      Check.True(m.Children()[2].Children()[1].IsTraining, "grandchild back in training");
    }
  }

  [Test]
  public static void ZeroGradClearsGradients() {
    using (var m = new Sequential(new Linear(3, 4), new ReLU(), new Linear(4, 2)))
    using (var x = Tensor.Ones(new long[] {5, 3}))
    using (var y = m.Forward(x))
    using (var loss = y.Sum(new long[0])) {
      loss.Backward();
      double total = 0;
      foreach (Tensor p in m.Parameters())
        using (var g = p.Grad()) total += g.ToFloat64().Sum(Math.Abs);
      Check.True(total > 0, "gradients after backward");
      m.ZeroGrad();
      foreach (var entry in m.NamedParameters())
        using (var g = entry.Value.Grad()) Check.True(g.ToFloat64().All(v => v == 0), entry.Key + ".grad zero");
    }
  }

  static void Within(Tensor t, double bound, string what) {
    double[] v = t.ToFloat64();
    Check.True(v.All(d => Math.Abs(d) <= bound + 1e-7), what + " within " + bound);
    Check.True(v.Distinct().Count() > 1, what + " drawn");
  }

  [Test]
  public static void LinearAndConv2dInitAndForward() {
    using (var l = new Linear(16, 8, true, new Generator(3)))
    using (var x = Tensor.Ones(new long[] {4, 16}))
    using (var y = l.Forward(x))
    using (var want = Tessera.Linear(x, l.Weight, l.Bias)) {
      Check.Equal(new long[] {8, 16}, l.Weight.Sizes, "Linear weight [out, in]");
      Check.Equal(new long[] {8}, l.Bias.Sizes, "Linear bias [out]");
      Check.Equal(16L, l.InFeatures, "InFeatures");
      Check.Equal(8L, l.OutFeatures, "OutFeatures");
      // kaiming_uniform_(a = sqrt(5)): bound gain * sqrt(3 / fan_in) = sqrt(2 / 6) * sqrt(3 / 16) = 1/4.
      Within(l.Weight, 0.25, "Linear weight");
      Within(l.Bias, 0.25, "Linear bias");
      Check.Equal(new long[] {4, 8}, y.Sizes, "Linear output");
      Check.True(y.ToFloat64().SequenceEqual(want.ToFloat64()), "Linear is F.linear");
    }
    using (var l = new Linear(2, 2, bias: false)) {
      Check.True(l.Bias == null, "no bias");
      Keys(new[] {"weight"}, l.StateDict().Keys, "no bias key");
    }
    using (var c = new Conv2d(4, 6, new long[] {3, 1}, new long[] {2, 1}, new long[] {1, 0}, new long[] {1, 1}, 2,
                              true, new Generator(5)))
    using (var x = Tensor.Ones(new long[] {1, 4, 7, 5}))
    using (var y = c.Forward(x)) {
      Check.Equal(new long[] {6, 2, 3, 1}, c.Weight.Sizes, "Conv2d weight [out, in / groups, kH, kW]");
      // fan_in = 2 * 3 * 1 = 6: bound 1 / sqrt(6).
      Within(c.Weight, 1 / Math.Sqrt(6), "Conv2d weight");
      Within(c.Bias, 1 / Math.Sqrt(6), "Conv2d bias");
      Check.Equal(new long[] {1, 6, 4, 5}, y.Sizes, "Conv2d output");
    }
    using (var c = new Conv2d(1, 1, 2)) Keys(new[] {"weight", "bias"}, c.StateDict().Keys, "Conv2d keys");
  }

  [Test]
  public static void LayerArgumentErrors() {
    Check.Equal("in_channels must be divisible by groups",
                Throws<ArgumentException>(() => new Conv2d(3, 4, 1, groups: 2), "in % groups").Message, "in");
    Check.Equal("out_channels must be divisible by groups",
                Throws<ArgumentException>(() => new Conv2d(4, 3, 1, groups: 2), "out % groups").Message, "out");
    Check.Equal("groups must be a positive integer",
                Throws<ArgumentException>(() => new Conv2d(4, 4, 1, groups: 0), "groups 0").Message, "groups");
    Check.Equal("stride must be two values {H, W}",
                Throws<ArgumentException>(() => new Conv2d(1, 1, new long[] {1, 1}, new long[] {1}, new long[] {0, 0},
                                                           new long[] {1, 1}), "pair").Message, "pair");
    using (var bn = new BatchNorm2d(2))
    using (var x = Tensor.Ones(new long[] {2, 2})) {
      Check.Equal("expected 4D input (got 2D input)",
                  Throws<ArgumentException>(() => bn.Forward(x), "BatchNorm2d 2D").Message, "BatchNorm2d");
      Throws<ArgumentNullException>(() => bn.Forward(null), "BatchNorm2d null");
    }
    using (var l = new Linear(3, 2))
    using (var x = Tensor.Ones(new long[] {1, 4}))
      Check.Throws(Status.ShapeMismatch, () => l.Forward(x), "Linear wrong width");
  }

  // A module built in the test: a scale parameter and two buffers.
  sealed class Scale : Module {
    public Tensor Factor;

    public Scale() {
      Factor = RegisterParameter("scale", Tensor.Ones(new long[] {1}));
      RegisterBuffer("step", Tensor.Zeros(new long[] {1}));
      RegisterBuffer("cache", Tensor.Zeros(new long[] {1}), persistent: false);
    }

    public override Tensor Forward(Tensor input) => input * Factor;
  }

  [Test]
  public static void RegistrationNamesAndReplacement() {
    using (var s = new Scale()) {
      Keys(new[] {"scale", "step"}, s.StateDict().Keys, "non-persistent left out");
      Keys(new[] {"step", "cache"}, s.NamedBuffers().Keys, "named_buffers has both");
      Check.Equal("parameter name can't contain \".\", got: a.b",
                  Throws<ArgumentException>(() => s.RegisterParameter("a.b", null), "dot").Message, "dot");
      Check.Equal("buffer name can't be empty string \"\"",
                  Throws<ArgumentException>(() => s.RegisterBuffer("", null), "empty").Message, "empty");
      Check.Equal("attribute 'step' already exists",
                  Throws<ArgumentException>(() => s.RegisterModule("step", new ReLU()), "taken").Message, "taken");
      Throws<ArgumentNullException>(() => s.RegisterModule<ReLU>("m", null), "null module");
      Throws<ArgumentNullException>(() => s.RegisterParameter(null, null), "null name");
      var closed = Tensor.Ones(new long[] {1});
      closed.Dispose();
      Check.Throws(Status.InvalidArgument, () => s.RegisterParameter("closed", closed), "disposed tensor");
      Keys(new[] {"scale"}, s.NamedParameters().Keys, "refused parameter not registered");
      // Registering a name again replaces the tensor in place and releases the old one.
      Tensor old = s.Factor;
      Tensor fresh = s.RegisterParameter("scale", Tensor.Full(new long[] {1}, 3.0));
      Check.True(old.IsDisposed, "old parameter released");
      Keys(new[] {"scale", "step"}, s.StateDict().Keys, "order kept");
      Check.True(ReferenceEquals(s.StateDict()["scale"], fresh), "replaced");
      s.RegisterParameter("scale", null);
      Keys(new[] {"step"}, s.StateDict().Keys, "None parameter left out");
      s.RegisterBuffer("cache", Tensor.Zeros(new long[] {1}), persistent: true);
      Keys(new[] {"step", "cache"}, s.StateDict().Keys, "now persistent");
    }
  }

  [Test]
  public static void SharedParametersOnceAndDisposeReleases() {
    var shared = new Linear(2, 2);
    var m = new Sequential(shared, new ReLU());
    m.RegisterModule("again", shared);
    Keys(new[] {"0.weight", "0.bias"}, m.NamedParameters().Keys, "listed once");
    Keys(new[] {"0.weight", "0.bias", "again.weight", "again.bias"}, m.StateDict().Keys, "state_dict lists both");
    m.Dispose();
    Check.True(shared.Weight.IsDisposed && shared.Bias.IsDisposed, "Dispose releases the parameters");
    m.Dispose();  // idempotent
    var bn = new BatchNorm2d(1);
    bn.Dispose();
    Check.True(bn.RunningMean.IsDisposed && bn.NumBatchesTracked.IsDisposed, "Dispose releases the buffers");
  }

  [Test]
  public static void EmptySequentialReturnsItsInput() {
    using (var m = new Sequential())
    using (var x = Tensor.Ones(new long[] {2}))
    using (var y = m.Forward(x)) {
      Check.True(!ReferenceEquals(x, y) && y.SharesStorage(x), "a new reference to the input");
      Check.Equal(0, m.Count, "Count");
      m.Append(new ReLU());
      Check.Equal(1, m.Count, "appended");
    }
  }
}

}
