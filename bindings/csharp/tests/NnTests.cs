// The nn ops (Linear, Gelu, Tanh, Sigmoid, Sqrt, Pow, Clamp, Softmax,
// LayerNorm, Cat, Stack, Where, IndexSelect, Gather, Embedding, ReluInPlace)
// against PyTorch 1.13's values, gradients and messages (goldens.txt;
// make_goldens.py's nn_cases() holds the torch expression of each case), and
// the InferenceMode and DetectAnomaly scopes.
using System;
using System.Collections.Generic;
using System.Threading;

namespace Tessera.Tests {

public static class NnTests {
  const double Tolerance = 1e-5;

  // Checks got (disposed here) against tensor NAME: sizes, dtype, values.
  static void Matches(string name, Tensor got) {
    using (got) {
      TensorGolden want = Goldens.TensorCase(name);
      Check.Equal(want.Sizes, got.Sizes, name + " sizes");
      Check.Equal(Goldens.DTypeOf(want.Dtype), got.Dtype, name + " dtype");
      Check.Close(want.Values, got.ToFloat64(), Tolerance, name);
    }
  }

  [Test]
  public static void ForwardValuesMatchPyTorch() {
    using (var x = Goldens.Tensor("x"))
    using (var p = Goldens.Tensor("p"))
    using (var e = Goldens.Tensor("e"))
    using (var w = Goldens.Tensor("w"))
    using (var b = Goldens.Tensor("b"))
    using (var g = Goldens.Tensor("g"))
    using (var beta = Goldens.Tensor("beta"))
    using (var y = Goldens.Tensor("y"))
    using (var cond = Goldens.Tensor("cond"))
    using (var index = Goldens.Tensor("index"))
    using (var gatherIndex = Goldens.Tensor("gather_index"))
    using (var ids = Goldens.Tensor("ids")) {
      var ops = new List<KeyValuePair<string, Func<Tensor>>> {
        Op("linear", () => Tessera.Linear(x, w, b)),                   // F.linear(x, w, b)
        Op("linear_no_bias", () => Tessera.Linear(x, w)),              // F.linear(x, w)
        Op("gelu", () => Tessera.Gelu(x)),                             // F.gelu(x)
        Op("gelu_tanh", () => Tessera.Gelu(x, GeluApproximate.Tanh)),  // F.gelu(x, approximate="tanh")
        Op("tanh", () => x.Tanh()),                                    // torch.tanh(x)
        Op("sigmoid", () => x.Sigmoid()),                              // torch.sigmoid(x)
        Op("sqrt", () => p.Sqrt()),                                    // torch.sqrt(p)
        Op("pow_scalar", () => x.Pow(3.0)),                            // torch.pow(x, 3.0)
        Op("pow_half", () => p.Pow(0.5)),                              // torch.pow(p, 0.5)
        Op("pow_tensor", () => p.Pow(e)),                              // torch.pow(p, e)
        Op("clamp", () => x.Clamp(-0.5, 1.0)),                         // torch.clamp(x, min=-0.5, max=1.0)
        Op("clamp_min", () => x.Clamp(min: -0.5)),                     // torch.clamp(x, min=-0.5)
        Op("clamp_max", () => x.Clamp(max: 1.0)),                      // torch.clamp(x, max=1.0)
        Op("softmax", () => x.Softmax(1)),                             // torch.softmax(x, 1)
        Op("softmax_dim0", () => x.Softmax(0)),                        // torch.softmax(x, 0)
        Op("layer_norm", () => Tessera.LayerNorm(x, new long[] {3}, g, beta, 1e-5)),  // F.layer_norm(x, [3], g, beta, 1e-5)
        Op("layer_norm_plain", () => Tessera.LayerNorm(x, new long[] {3})),         // F.layer_norm(x, [3])
        Op("cat", () => Tessera.Cat(new[] {x, y})),                    // torch.cat([x, y], 0)
        Op("cat_dim1", () => Tessera.Cat(new List<Tensor> {x, p}, 1)), // torch.cat([x, p], 1)
        Op("stack", () => Tessera.Stack(new[] {x, p})),                // torch.stack([x, p], 0)
        Op("stack_dim2", () => Tessera.Stack(new[] {x, p}, 2)),        // torch.stack([x, p], 2)
        Op("where", () => Tessera.Where(cond, x, p)),                  // torch.where(cond, x, p)
        Op("index_select", () => x.IndexSelect(1, index)),             // torch.index_select(x, 1, index)
        Op("gather", () => x.Gather(1, gatherIndex)),                  // torch.gather(x, 1, gather_index)
        Op("embedding", () => Tessera.Embedding(ids, w)),              // F.embedding(ids, w)
        Op("relu_", () => {                                            // x.clone().relu_()
          var c = x.Clone();
          c.ReluInPlace();
          return c;
        }),
      };
      foreach (var op in ops) Matches(op.Key, op.Value());
      // The hand-written enum carries tsr_gelu_approximate's values.
      Check.Equal(0, (int)GeluApproximate.None, "TSR_GELU_NONE");
      Check.Equal(1, (int)GeluApproximate.Tanh, "TSR_GELU_TANH");
      Matches("clamp_min", x.ClampMin(-0.5));
      Matches("clamp_max", x.ClampMax(1.0));
    }
  }

  static KeyValuePair<string, Func<Tensor>> Op(string name, Func<Tensor> op) =>
      new KeyValuePair<string, Func<Tensor>>(name, op);

  // The gradients of (out * out).Sum(), as make_goldens.py's grads(); out is
  // disposed here.
  static void BackwardOfSquares(Tensor output) {
    using (output)
    using (var square = output * output)
    using (var sum = square.Sum(new long[0]))
      sum.Backward();
  }

  [Test]
  public static void GradientsMatchPyTorch() {
    using (var x = Goldens.Tensor("x", true))
    using (var w = Goldens.Tensor("w", true))
    using (var b = Goldens.Tensor("b", true)) {
      BackwardOfSquares(Tessera.Linear(x, w, b));
      Matches("linear_grad_x", x.Grad());
      Matches("linear_grad_w", w.Grad());
      Matches("linear_grad_b", b.Grad());
    }
    using (var x = Goldens.Tensor("x", true)) {
      BackwardOfSquares(Tessera.Gelu(x));
      Matches("gelu_grad_x", x.Grad());
    }
    using (var x = Goldens.Tensor("x", true))
    using (var g = Goldens.Tensor("g", true))
    using (var beta = Goldens.Tensor("beta", true)) {
      BackwardOfSquares(Tessera.LayerNorm(x, new long[] {3}, g, beta, 1e-5));
      Matches("layer_norm_grad_x", x.Grad());
      Matches("layer_norm_grad_g", g.Grad());
      Matches("layer_norm_grad_beta", beta.Grad());
    }
    using (var x = Goldens.Tensor("x", true))
    using (var y = Goldens.Tensor("y", true)) {
      BackwardOfSquares(Tessera.Cat(new[] {x, y}));
      Matches("cat_grad_x", x.Grad());
      Matches("cat_grad_y", y.Grad());
    }
    using (var x = Goldens.Tensor("x", true))
    using (var gatherIndex = Goldens.Tensor("gather_index")) {
      BackwardOfSquares(x.Gather(1, gatherIndex));
      Matches("gather_grad_x", x.Grad());
    }
    using (var w = Goldens.Tensor("w", true))
    using (var ids = Goldens.Tensor("ids")) {
      BackwardOfSquares(Tessera.Embedding(ids, w));
      Matches("embedding_grad_w", w.Grad());
    }
  }

  // action must throw status with a message containing torch's nn_error_NAME.
  static void Fails(string name, Status status, Action action) {
    TesseraException e = Check.Throws(status, action, name);
    string torch = Goldens.Message("nn_error_" + name);
    Check.True(e.Message.Contains(torch), $"{name}: \"{e.Message}\" lacks torch's \"{torch}\"");
  }

  [Test]
  public static void EachFamilyFailsAsPyTorch() {
    using (var x = Goldens.Tensor("x"))
    using (var w = Tensor.Ones(new long[] {4, 3}))
    using (var w42 = Tensor.Ones(new long[] {4, 2}))
    using (var ints = Tensor.FromArray(new long[] {1, 2}, new long[] {2}))
    using (var index3 = Tensor.FromArray(new long[] {3}, new long[] {1, 1}))
    using (var id4 = Tensor.FromArray(new long[] {4}, new long[] {1})) {
      Fails("linear", Status.ShapeMismatch, () => Tessera.Linear(x, w42));
      Fails("gelu", Status.DtypeMismatch, () => Tessera.Gelu(ints));
      Fails("layer_norm", Status.ShapeMismatch, () => Tessera.LayerNorm(x, new long[] {4}));
      Fails("cat", Status.ShapeMismatch, () => Tessera.Cat(new[] {x, w}, 1));
      Fails("gather", Status.IndexOutOfRange, () => x.Gather(1, index3));
      Fails("embedding", Status.IndexOutOfRange, () => Tessera.Embedding(id4, w));
      Fails("clamp", Status.InvalidArgument, () => x.Clamp());
      Fails("where", Status.DtypeMismatch, () => Tessera.Where(x, x, x));

      // The binding's own checks: a disposed optional tensor is not "none".
      var bias = Tensor.Zeros(new long[] {4});
      bias.Dispose();
      var e = Check.Throws(Status.InvalidArgument, () => Tessera.Linear(x, w, bias), "disposed bias");
      Check.True(e.Message.Contains("bias: tensor is disposed"), e.Message);
      Check.Throws(Status.InvalidArgument, () => Tessera.LayerNorm(x, new long[] {3}, bias), "disposed weight");
      Check.Throws(Status.InvalidArgument, () => Tessera.Cat(new Tensor[0]), "Cat of nothing");
      Check.Throws(Status.InvalidArgument, () => Tessera.Cat(null), "Cat of null");
      Check.Throws(Status.InvalidArgument, () => Tessera.Stack(new[] {x, null}), "a null entry");
      Check.Throws(Status.InvalidArgument, () => Tessera.Stack(new[] {x, bias}), "a disposed entry");
    }
  }

  [Test]
  public static void InferenceModeIsAScope() {
    Check.True(!Tessera.IsInferenceModeEnabled, "off by default");
    using (var w = Tensor.Ones(new long[] {3})) {
      w.RequiresGrad = true;
      Tensor made;
      using (var scope = Tessera.InferenceMode()) {
        Check.True(Tessera.IsInferenceModeEnabled, "on inside the scope");
        Check.True(!Tessera.IsGradEnabled, "grad mode off inside");
        made = Tensor.Zeros(new long[] {3});
        using (var y = w * 2.0)
          Check.True(y.IsInference && !y.RequiresGrad && y.GradFnName == null,
                     "results inside are inference tensors without history");
        using (Tessera.InferenceMode(false))
        using (var z = Tensor.Zeros(new long[] {1}))
          Check.True(!Tessera.IsInferenceModeEnabled && !z.IsInference, "InferenceMode(false) nests");
        Check.True(Tessera.IsInferenceModeEnabled, "inner scope restored on");
        scope.Dispose();  // disposing twice restores once
      }
      Check.True(!Tessera.IsInferenceModeEnabled && Tessera.IsGradEnabled, "restored after the scope");
      using (made) {
        Check.True(made.IsInference && !w.IsInference, "IsInference");
        var e = Check.Throws(Status.Autograd, () => { using (var product = w * made) {} }, "saving an inference tensor");
        Check.True(e.Message.Contains("Inference tensors cannot be saved for backward"), e.Message);
      }
    }
    try {
      using (Tessera.InferenceMode()) throw new InvalidOperationException("leaves the scope");
    } catch (InvalidOperationException) {}
    Check.True(!Tessera.IsInferenceModeEnabled && Tessera.IsGradEnabled, "restored on an exception");
    bool seen = true;
    using (Tessera.InferenceMode()) {
      var thread = new Thread(() => seen = Tessera.IsInferenceModeEnabled);
      thread.Start();
      thread.Join();
    }
    Check.True(!seen, "inference mode is per thread");
  }

  // (x / x).Sum().Backward() at x = 0: the gradient is NaN. Returns it.
  static double NanBackward() {
    using (var x = Tensor.Zeros(new long[] {1})) {
      x.RequiresGrad = true;
      using (var q = x / x)
      using (var s = q.Sum(new long[0]))
        s.Backward();
      using (var grad = x.Grad()) return grad.ItemDouble();
    }
  }

  // The convolutional layers on x = arange(16) as [1, 1, 4, 4], values
  // worked out by hand.
  [Test]
  public static void ConvPoolBatchNorm() {
    long[] two = {2, 2}, zero = {0, 0}, one = {1, 1};
    var data = new float[16];
    for (int i = 0; i < 16; ++i) data[i] = i;
    using (var x = Tensor.FromArray(data, new long[] {1, 1, 4, 4}))
    using (var w = Tensor.FromArray(new float[] {1, 1, 1, 1}, new long[] {1, 1, 2, 2}))
    using (var y = Tessera.Conv2d(x, w, null, two, zero, one))
    using (var a = Tessera.AvgPool2d(x, two, null, zero))
    using (var m = Tessera.AdaptiveAvgPool2d(x, one))
    using (var pair = Tessera.MaxPool2dWithIndices(x, two, null, zero, one))
    using (var values = pair[0])
    using (var indices = pair[1])
    using (var rm = Tensor.FromArray(new float[] {0}, new long[] {1}))
    using (var rv = Tensor.FromArray(new float[] {1}, new long[] {1}))
    using (var b = Tessera.BatchNorm(x, rm, rv, training: true)) {
      Check.Close(new double[] {10, 18, 42, 50}, y.ToFloat64(), 0, "conv2d");
      Check.Close(new double[] {2.5, 4.5, 10.5, 12.5}, a.ToFloat64(), 0, "avg_pool2d");
      Check.Close(new double[] {7.5}, m.ToFloat64(), 0, "adaptive_avg_pool2d");
      Check.Close(new double[] {5, 7, 13, 15}, values.ToFloat64(), 0, "max_pool2d values");
      Check.Close(new double[] {5, 7, 13, 15}, indices.ToFloat64(), 0, "max_pool2d indices");
      Check.Close(new double[] {0.75}, rm.ToFloat64(), 1e-6, "running_mean");
      var e = Check.Throws(Status.InvalidArgument,
                           () => Tessera.MaxPool2d(x, new long[] {2, 2, 2}, null, zero, one), "bad pair");
      Check.True(e.Message.Contains("kernel_size must have 2 elements"), e.Message);
    }
  }

  [Test]
  public static void DetectAnomalyThrowsOnNanGradients() {
    Check.True(!Tessera.IsAnomalyEnabled, "off by default");
    using (Tessera.DetectAnomaly()) {
      Check.True(Tessera.IsAnomalyEnabled, "on inside the scope");
      var e = Check.Throws(Status.Autograd, () => NanBackward(), "a NaN gradient");
      Check.True(e.Message.Contains("returned nan values"), e.Message);
      // torch: "Function 'DivBackward0' returned nan values in its 1th output."
      Check.True(e.Message.Contains(Goldens.Message("nn_error_anomaly")), e.Message);
    }
    Check.True(!Tessera.IsAnomalyEnabled, "restored after the scope");
    Check.True(double.IsNaN(NanBackward()), "without detection the NaN goes through");
    Check.Equal(false, Tessera.SetDetectAnomaly(true), "SetDetectAnomaly returns the previous setting");
    Check.Equal(true, Tessera.SetDetectAnomaly(false), "and sets it at once");
    try {
      using (Tessera.DetectAnomaly()) throw new InvalidOperationException("leaves the scope");
    } catch (InvalidOperationException) {}
    Check.True(!Tessera.IsAnomalyEnabled, "restored on an exception");
  }
}

}
