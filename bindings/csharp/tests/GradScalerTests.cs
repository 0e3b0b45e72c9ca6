// GradScaler (torch.cuda.amp.GradScaler) and Autocast scopes. The expected
// numbers come from PyTorch 1.13's GradScaler run on CPU tensors
// (bindings/support/grad_scaler_golden.py, run with /usr/bin/python3): four
// steps of SGD(lr=0.1) on P0 through a scaler with init_scale 8 and
// growth_interval 2, the third step's input holding an inf.
using System;
using Tessera.Optim;

namespace Tessera.Tests {

public static class GradScalerTests {
  static readonly double[] P0 = {1.0, -2.0, 3.0, 0.5};
  static readonly double[][] X = {
    new[] {0.5, 1.0, -1.5, 2.0}, new[] {1.0, 0.25, 0.5, -1.0}, new[] {1.0, double.PositiveInfinity, 0.5, -1.0},
    new[] {-0.5, 0.75, 1.0, 0.125}};
  static readonly bool[] Stepped = {true, true, false, true};
  static readonly double[] Scales = {8.0, 16.0, 8.0, 8.0};
  static readonly long[] Trackers = {1, 0, 0, 1};
  static readonly double[][] Params = {
    new[] {0.949999988079071, -2.0999999046325684, 3.1500000953674316, 0.30000001192092896},
    new[] {0.8499999642372131, -2.125, 3.1000001430511475, 0.4000000059604645},
    new[] {0.8499999642372131, -2.125, 3.1000001430511475, 0.4000000059604645},
    new[] {0.8999999761581421, -2.200000047683716, 3.000000238418579, 0.38750001788139343}};

  [Test]
  public static void RunWithAnInfMatchesPyTorch() {
    using (var p = Tensor.FromFloat64(P0, new long[] {4}, DType.Float32))
    using (var opt = new SGD(new[] {p}, lr: 0.1))
    using (var scaler = new GradScaler(initScale: 8, growthInterval: 2)) {
      p.RequiresGrad = true;
      for (int k = 0; k < X.Length; ++k) {
        using (var x = Tensor.FromFloat64(X[k], new long[] {4}, DType.Float32))
        using (var prod = p.Mul(x))
        using (var loss = prod.Sum(new long[0]))
        using (var scaled = scaler.Scale(loss)) {
          Check.Equal("MulBackward0", scaled.GradFnName, "scaled loss's grad_fn");
          Check.Equal(new long[] {1}, scaled.Sizes, "scaled loss's sizes (torch's [1])");
          scaled.Backward();
        }
        Check.Equal(Stepped[k], scaler.Step(opt), $"step {k} stepped");
        scaler.Update();
        opt.ZeroGrad(true);
        Check.Equal(Scales[k], scaler.GetScale(), $"scale after step {k}");
        Check.Equal(Trackers[k], scaler.GrowthTracker, $"growth tracker after step {k}");
        Check.Close(Params[k], p.ToFloat64(), 1e-6, $"parameters after step {k}");
      }
    }
  }

  [Test]
  public static void ErrorsCarryTorchsMessages() {
    using (var p = Tensor.FromFloat64(P0, new long[] {4}, DType.Float32))
    using (var opt = new SGD(new[] {p}, lr: 1.0))
    using (var scaler = new GradScaler(initScale: 2)) {
      p.RequiresGrad = true;
      var e = Check.Throws(Status.InvalidArgument, () => scaler.Step(opt), "step before scale");
      Check.True(e.Message.StartsWith("Attempted step but _scale is None."), e.Message);
      using (var one = Tensor.Ones(new long[] {4}))
      using (var s = scaler.Scale(one)) p.SetGrad(one);
      scaler.UnscaleInPlace(opt);
      e = Check.Throws(Status.InvalidArgument, () => scaler.UnscaleInPlace(opt), "unscale_ twice");
      Check.Equal("unscale_() has already been called on this optimizer since the last update().", e.Message, "message");
      Check.True(scaler.Step(opt), "a clean step runs");
      e = Check.Throws(Status.InvalidArgument, () => scaler.Step(opt), "step twice");
      Check.Equal("step() has already been called since the last update().", e.Message, "message");
      scaler.Update();
      e = Check.Throws(Status.InvalidArgument, () => scaler.Update(), "update without a step");
      Check.Equal("No inf checks were recorded prior to update.", e.Message, "message");
      Check.Close(new[] {0.5, -2.5, 2.5, 0.0}, p.ToFloat64(), 0, "one step of the unscaled gradient 0.5");
      e = Check.Throws(Status.InvalidArgument, () => new GradScaler(growthFactor: 1.0), "growth factor 1");
      Check.Equal("The growth factor must be > 1.0.", e.Message, "message");
    }
  }

  [Test]
  public static void StateDictRoundTripAndDisabled() {
    using (var a = new GradScaler(initScale: 4, backoffFactor: 0.25))
    using (var b = new GradScaler()) {
      a.GrowthInterval = 7;
      a.GrowthFactor = 3.0;
      using (var sd = a.StateDict()) {
        Check.Equal(5, sd.Count, "five entries");
        b.LoadStateDict(sd);
      }
      Check.Equal(4.0, b.GetScale(), "scale");
      Check.Equal(3.0, b.GrowthFactor, "growth factor");
      Check.Equal(0.25, b.BackoffFactor, "backoff factor");
      Check.Equal(7L, b.GrowthInterval, "growth interval");
      var e = Check.Throws(Status.InvalidArgument, () => b.Update(5.0), "update(newScale) before scale");
      Check.True(e.Message.StartsWith("Attempted update but _scale is None."), e.Message);
    }
    using (var off = new GradScaler(enabled: false))
    using (var t = Tensor.Ones(new long[] {2}))
    using (var s = off.Scale(t))
    using (var sd = off.StateDict()) {
      Check.True(!off.IsEnabled, "disabled");
      Check.Equal(1.0, off.GetScale(), "a disabled scaler's scale");
      Check.Close(new[] {1.0, 1.0}, s.ToFloat64(), 0, "Scale passes the tensor through");
      Check.Equal(0, sd.Count, "a disabled scaler's state_dict is empty");
    }
  }

  [Test]
  public static void AutocastScopeTurnsOnAndOffAndNests() {
    Check.True(!Autocast.IsEnabled(DeviceType.Cpu), "off outside a scope");
    var outer = new Autocast(DeviceType.Cpu, DType.BFloat16);
    using (outer) {
      Check.True(Autocast.IsEnabled(DeviceType.Cpu), "on in a scope");
      Check.Equal(DType.BFloat16, Autocast.Dtype(DeviceType.Cpu), "the scope's dtype");
      Check.True(!Autocast.IsEnabled(DeviceType.Cuda), "another device type is not affected");
      using (new Autocast(DeviceType.Cpu, DType.BFloat16, enabled: false))
        Check.True(!Autocast.IsEnabled(DeviceType.Cpu), "off in a nested disabled scope");
      Check.True(Autocast.IsEnabled(DeviceType.Cpu), "on again after the nested scope");
    }
    outer.Dispose();
    Check.True(!Autocast.IsEnabled(DeviceType.Cpu), "off after the scope");
    Check.Throws(Status.InvalidArgument, () => new Autocast(DeviceType.Cpu, DType.Int64), "an integer dtype");
    Check.True(!Autocast.IsEnabled(DeviceType.Cpu), "a failed begin opens nothing");
  }
}

}
