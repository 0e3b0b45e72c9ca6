// Tessera.Optim (torch.optim.SGD / Adam / AdamW), Init (torch.nn.init) and
// Profiler. The expected numbers come from PyTorch 1.13
// (bindings/support/optim_golden.py, run with /usr/bin/python3): two steps on
// P0 with Grad set as the gradient before each.
using System;
using System.IO;
using Tessera.Optim;

namespace Tessera.Tests {

public static class OptimTests {
  static readonly double[] P0 = {1.0, -2.0, 3.0, 0.5};
  static readonly double[] GradValues = {0.1, -0.2, 0.3, 0.4};
  // torch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01), PyTorch 1.13
  static readonly double[][] SgdSteps = {
    new[] {0.9890000224113464, -1.9780000448226929, 2.9670000076293945, 0.4594999849796295},
    new[] {0.9681110382080078, -1.9362220764160156, 2.9043331146240234, 0.38259047269821167}};
  // torch.optim.AdamW([p], lr=0.01, weight_decay=0.1), PyTorch 1.13
  static readonly double[][] AdamWSteps = {
    new[] {0.9890000224113464, -1.9880000352859497, 2.986999988555908, 0.4895000159740448},
    new[] {0.9780110716819763, -1.976012110710144, 2.974013090133667, 0.47901052236557007}};

  static Tensor Param() {
    var p = Tensor.FromFloat64(P0, new long[] {4}, DType.Float32);
    p.RequiresGrad = true;
    return p;
  }

  static void Steps(Optimizer opt, Tensor p, double[][] expected) {
    foreach (var want in expected) {
      using (var g = Tensor.FromFloat64(GradValues, new long[] {4}, DType.Float32)) p.SetGrad(g);
      opt.Step();
      Check.Close(want, p.ToFloat64(), 1e-6, "parameter after a step");
    }
  }

  [Test]
  public static void SgdWithMomentumMatchesPyTorch() {
    using (var p = Param())
    using (var opt = new SGD(new[] {p}, lr: 0.1, momentum: 0.9, weightDecay: 0.01)) {
      Check.True(opt.State(0, "momentum_buffer") == null, "no momentum_buffer before a step");
      Steps(opt, p, SgdSteps);
      using (var buf = opt.State(0, "momentum_buffer")) Check.Equal(new long[] {4}, buf.Sizes, "buffer sizes");
      Check.Equal(1L, opt.NumParams, "NumParams");
    }
  }

  [Test]
  public static void AdamWMatchesPyTorch() {
    using (var p = Param())
    using (var opt = new AdamW(new[] {p}, lr: 0.01, weightDecay: 0.1)) {
      Steps(opt, p, AdamWSteps);
      using (var step = opt.State(0, "step")) Check.Equal(2.0, step.ItemDouble(), "step");
      opt.Lr = 0.5;
      Check.Equal(0.5, opt.Lr, "Lr");
    }
    using (var p = Param())
    using (var opt = new Adam(new[] {p})) Check.Equal(1e-3, opt.Lr, "Adam's default lr");
  }

  [Test]
  public static void ZeroGradBothWays() {
    using (var p = Param())
    using (var opt = new SGD(new[] {p}, 0.1)) {
      using (var g = Tensor.FromFloat64(GradValues, new long[] {4}, DType.Float32)) p.SetGrad(g);
      opt.ZeroGrad(setToNone: false);
      using (var g = p.Grad()) Check.Close(new double[4], g.ToFloat64(), 0, "zeroed gradient");
      opt.ZeroGrad(setToNone: true);
      Check.True(p.Grad() == null, "ZeroGrad(true) drops the gradient");
      using (var g = Tensor.FromFloat64(GradValues, new long[] {4}, DType.Float32)) p.SetGrad(g);
      opt.ZeroGrad();  // torch 1.13's default: zeroed in place
      using (var g = p.Grad()) Check.Close(new double[4], g.ToFloat64(), 0, "ZeroGrad() zeroes");
    }
  }

  [Test]
  public static void DisposeFreesState() {
    using (var p = Tensor.Zeros(new long[] {100, 100}))
    using (var g = Tensor.Ones(new long[] {100, 100})) {
      p.RequiresGrad = true;
      p.SetGrad(g);
      var opt = new SGD(new[] {p}, 0.1, momentum: 0.9);
      opt.Step();
      // The finalizer thread may free earlier tests' tensors meanwhile, never
      // allocate: Dispose must free at least the 40,000-byte momentum_buffer.
      long before = Tessera.MemoryAllocated();
      opt.Dispose();
      long freed = before - Tessera.MemoryAllocated();
      Check.True(freed >= 100 * 100 * 4, $"Dispose freed {freed} bytes, want the momentum_buffer's 40000");
    }
  }

  [Test]
  public static void ErrorsCarryPyTorchMessages() {
    using (var p = Param()) {
      var e = Check.Throws(Status.InvalidArgument, () => new SGD(new[] {p}, -0.1), "negative lr");
      Check.Equal("Invalid learning rate: -0.1", e.Message, "message");
      Check.Throws(Status.InvalidArgument, () => new Adam(new Tensor[0]), "no parameters");
      var opt = new SGD(new[] {p}, 0.1);
      Check.Throws(Status.InvalidArgument, () => opt.Lr = -1, "Lr = -1");
      opt.Dispose();
      opt.Dispose();
      Check.Throws(Status.InvalidArgument, () => opt.Step(), "Step after Dispose");
    }
  }

  [Test]
  public static void InitBoundsAndGains() {
    using (var g = new Generator(0))
    using (var w = Tensor.Zeros(new long[] {4, 3})) {
      Init.KaimingUniform_(w, generator: g);
      double bound = Math.Sqrt(2.0); // gain(leaky_relu, 0) * sqrt(3 / fan_in 3)
      double max = 0;
      foreach (var v in w.ToFloat64()) {
        Check.True(v >= -bound && v < bound, $"kaiming value {v} within the bound");
        max = Math.Max(max, Math.Abs(v));
      }
      Check.True(max > bound / 4, "values spread over the bound");
      Init.Uniform_(w, 2, 3, g);
      foreach (var v in w.ToFloat64()) Check.True(v >= 2 && v < 3, "Uniform_ in [2, 3)");
      Init.XavierUniform_(w);
      Init.Normal_(w, 10, 0.01);
      foreach (var v in w.ToFloat64()) Check.True(Math.Abs(v - 10) < 0.1, "Normal_ near its mean");
      Init.Zeros_(w);
      Check.Close(new double[12], w.ToFloat64(), 0, "Zeros_");
      Check.True(Math.Abs(Init.CalculateGain("tanh") - 5.0 / 3) < 1e-12, "gain of tanh");
      var e = Check.Throws(Status.InvalidArgument, () => Init.CalculateGain("foo"), "bad nonlinearity");
      Check.Equal("Unsupported nonlinearity foo", e.Message, "message");
      using (var v = Tensor.Zeros(new long[] {3}))
        Check.Throws(Status.InvalidArgument, () => Init.KaimingUniform_(v), "1-D tensor");
    }
  }

  [Test]
  public static void ProfilerTableAndChromeTrace() {
    using (var x = Tensor.Ones(new long[] {3, 4})) {
      x.RequiresGrad = true;
      Profiler.Start(recordShapes: true);
      using (var y = x.Mul(x))
      using (var s = y.Sum(new long[0])) s.Backward();
      using (var r = Profiler.Stop()) {
        Check.True(r.NumEvents > 0, "events recorded");
        string table = r.Table("cpu_time_total", 10);
        Check.True(table.Contains("aten::mul"), "table names aten::mul:\n" + table);
        Check.True(table.Contains("MulBackward0"), "table names MulBackward0");
        string path = Path.Combine(Path.GetTempPath(), $"tessera-cs-trace-{System.Diagnostics.Process.GetCurrentProcess().Id}.json");
        try {
          r.ExportChromeTrace(path);
          string json = File.ReadAllText(path);
          new Json(json).Document();
          Check.True(json.Contains("\"traceEvents\""), "traceEvents present");
          Check.True(json.Contains("\"aten::mul\""), "trace names aten::mul");
        } finally {
          File.Delete(path);
        }
        Check.Throws(Status.InvalidArgument, () => r.Table("bogus", 10), "bad sort_by");
      }
      Check.Throws(Status.InvalidArgument, () => Profiler.Stop(), "Stop without a session");
    }
  }

  // A strict JSON syntax check (mono's default profile has no JSON parser
  // referenced here): throws on malformed text.
  sealed class Json {
    readonly string s;
    int i;

    public Json(string s) { this.s = s; }

    public void Document() {
      Value();
      Ws();
      if (i != s.Length) throw new FormatException("JSON: trailing text at " + i);
    }

    void Ws() { while (i < s.Length && " \t\r\n".IndexOf(s[i]) >= 0) ++i; }

    char Peek() {
      Ws();
      if (i >= s.Length) throw new FormatException("JSON: unexpected end");
      return s[i];
    }

    void Expect(char c) {
      if (Peek() != c) throw new FormatException($"JSON: expected {c} at {i}");
      ++i;
    }

    bool Comma() {
      if (Peek() != ',') return false;
      ++i;
      return true;
    }

    void Value() {
      char c = Peek();
      if (c == '{') {
        ++i;
        if (Peek() == '}') { ++i; return; }
        do { Str(); Expect(':'); Value(); } while (Comma());
        Expect('}');
      } else if (c == '[') {
        ++i;
        if (Peek() == ']') { ++i; return; }
        do { Value(); } while (Comma());
        Expect(']');
      } else if (c == '"') {
        Str();
      } else if (string.CompareOrdinal(s, i, "true", 0, 4) == 0) { i += 4; }
      else if (string.CompareOrdinal(s, i, "false", 0, 5) == 0) { i += 5; }
      else if (string.CompareOrdinal(s, i, "null", 0, 4) == 0) { i += 4; }
      else {
        int start = i;
        while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) ++i;
        double.Parse(s.Substring(start, i - start), System.Globalization.CultureInfo.InvariantCulture);
      }
    }

    void Str() {
      Expect('"');
      while (true) {
        if (i >= s.Length) throw new FormatException("JSON: unterminated string");
        char c = s[i++];
        if (c == '"') return;
        if (c == '\\') ++i;
        else if (c < 0x20) throw new FormatException("JSON: control character in a string");
      }
    }
  }
}

}  // namespace Tessera.Tests
