// NnUtils (torch.nn.utils.clip_grad_*), parameter groups and state_dict,
// and LrScheduler. The expected numbers come from PyTorch 1.13
// (/usr/bin/python3): SGD([{a}, {b, lr 0.01}], lr=0.1, momentum=0.9) under
// CosineAnnealingLR(T_max=4, eta_min=0.001) and OneCycleLR(max_lr=0.5,
// total_steps=6); clip_grad_norm_ of grads [3, 4] and [12] to 1.
using System;
using System.Collections.Generic;
using Tessera.Optim;

namespace Tessera.Tests {

public static class TrainingTests {
  static readonly double[] Cosine = {0.1, 0.01, 0.0855017856687341, 0.008681980515339464, 0.0505,
    0.0055000000000000005, 0.0154982143312659, 0.0023180194846605367, 0.001, 0.001,
    0.015498214331265896, 0.002318019484660536, 0.05050000000000001, 0.0055000000000000005};
  static readonly double[] OneCycleLr = {0.020000000000000018, 0.49720771772545586, 0.4058728269748815,
    0.23131855133348753, 0.0667387650944153, 2e-06};
  static readonly double[] OneCycleMomentum = {0.95, 0.8505584586887436, 0.8688255099070633,
    0.9037365046793212, 0.9366525935914912, 0.95};

  static Tensor Param(params double[] v) {
    var p = Tensor.FromFloat64(v, new long[] {v.Length}, DType.Float32);
    p.RequiresGrad = true;
    return p;
  }

  static void SetGrad(Tensor p, params double[] v) {
    using (var g = Tensor.FromFloat64(v, new long[] {v.Length}, DType.Float32)) p.SetGrad(g);
  }

  static double[] GradOf(Tensor p) {
    using (var g = p.Grad()) return g.ToFloat64();
  }

  static Optimizer TwoGroups(Tensor a, Tensor b) {
    var opt = new SGD(new[] {a}, lr: 0.1, momentum: 0.9);
    opt.AddParamGroup(new[] {b}, new Dictionary<string, double> {{"lr", 0.01}});
    return opt;
  }

  [Test]
  public static void ClipGradMatchesPyTorch() {
    using (var a = Param(0, 0))
    using (var b = Param(0)) {
      SetGrad(a, 3, 4);
      SetGrad(b, 12);
      using (var total = NnUtils.ClipGradNorm_(new[] {a, b}, 1.0)) Check.Equal(13.0, total.ToFloat64()[0], "total");
      Check.Close(new[] {0.23076921701431274, 0.307692289352417}, GradOf(a), 0, "a.grad");
      Check.Close(new[] {0.923076868057251}, GradOf(b), 0, "b.grad");
      SetGrad(a, 3, -4);
      NnUtils.ClipGradValue_(new[] {a}, 0.5);
      Check.Close(new[] {0.5, -0.5}, GradOf(a), 0, "clip_grad_value_");
      SetGrad(a, double.NaN, 1);
      var e = Check.Throws(Status.InvalidArgument, () => NnUtils.ClipGradNorm_(new[] {a}, 1.0, 2.0, true), "NaN");
      Check.True(e.Message.Contains("The total norm of order 2.0"), e.Message);
    }
  }

  [Test]
  public static void CosineAnnealingOnTwoGroupsMatchesPyTorchExactly() {
    using (var a = Param(0, 0))
    using (var b = Param(0))
    using (var opt = TwoGroups(a, b))
    using (var s = LrScheduler.CosineAnnealingLR(opt, 4, 0.001)) {
      Check.Equal(2L, opt.ParamGroupCount(), "groups");
      for (int step = 0; step <= 6; ++step) {
        if (step > 0) {
          opt.Step();
          s.Step();
        }
        Check.Close(new[] {Cosine[2 * step], Cosine[2 * step + 1]}, s.GetLastLr(), 0, $"lr at step {step}");
        Check.Equal(Cosine[2 * step + 1], opt.GetGroupOption(1, "lr"), "group 1's lr");
      }
      Check.Equal(6L, s.LastEpoch, "LastEpoch");
    }
  }

  [Test]
  public static void OneCycleCyclesLrAndMomentum() {
    using (var a = Param(0, 0))
    using (var b = Param(0))
    using (var opt = TwoGroups(a, b))
    using (var s = LrScheduler.OneCycleLR(opt, new[] {0.5}, totalSteps: 6)) {
      for (int step = 0; step < 6; ++step) {
        if (step > 0) s.Step();
        Check.Equal(OneCycleLr[step], s.GetLastLr()[0], $"lr at step {step}");
        Check.Equal(OneCycleMomentum[step], opt.GetGroupOption(0, "momentum"), $"momentum at step {step}");
      }
      s.Step();  // last_epoch 6 == total_steps: still allowed, as in torch
      Check.Throws(Status.InvalidArgument, () => s.Step(), "past total_steps");
      Check.Throws(Status.InvalidArgument, () => LrScheduler.LinearLR(opt, 1.5), "start_factor > 1");
    }
  }

  static void Train(Optimizer opt, Tensor a, Tensor b, int from, int to) {
    for (int k = from; k < to; ++k) {
      SetGrad(a, 0.5 * (k + 1), -0.25);
      SetGrad(b, 1.0 / (k + 1));
      opt.Step();
    }
  }

  [Test]
  public static void StateDictRoundTripResumesBitForBit() {
    using (var a = Param(1, 2))
    using (var b = Param(3))
    using (var opt = TwoGroups(a, b))
    using (var ra = Param(1, 2))
    using (var rb = Param(3))
    using (var reference = TwoGroups(ra, rb)) {
      Train(reference, ra, rb, 0, 6);
      Train(opt, a, b, 0, 3);
      using (var sd = opt.StateDict())
      using (var a2 = Param(a.ToFloat64()))
      using (var b2 = Param(b.ToFloat64()))
      using (var resumed = TwoGroups(a2, b2)) {
        Check.True(sd.ContainsKey("state.0.momentum_buffer"), "state_dict holds the momentum buffers");
        resumed.LoadStateDict(sd);
        Train(resumed, a2, b2, 3, 6);
        Check.Close(ra.ToFloat64(), a2.ToFloat64(), 0, "a after resuming");
        Check.Close(rb.ToFloat64(), b2.ToFloat64(), 0, "b after resuming");
      }
      Check.Throws(Status.InvalidArgument, () => opt.AddParamGroup(new[] {a}), "a parameter twice");
      Check.Throws(Status.InvalidArgument, () => opt.SetGroupOption(1, "lr", -1), "negative lr");
    }
  }
}

}
