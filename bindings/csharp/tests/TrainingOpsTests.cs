// The ops added for ported training scripts (issue 33) in their C# forms:
// Functional's activations and losses with Reduction, the Tensor methods
// (Clamp with tensor bounds, Sin ... Sign, Bmm, Baddbmm, Outer, Cumsum,
// Cumprod, Prod, Var, Std, Logsumexp, Any, All, Min, Argmin) and
// Tessera.VarMean / StdMean / Bmm / Baddbmm / Outer, against PyTorch 1.13
// (goldens.txt's op_* tensors and messages, from
// bindings/support/training_ops_golden_cases.py, which holds the torch
// expression of each case).
using System;
using System.Collections.Generic;

namespace Tessera.Tests {

public static class TrainingOpsTests {
  const double Tolerance = 1e-5;

  // Checks got (disposed here) against tensor op_NAME: sizes, dtype, values.
  static void Matches(string name, Tensor got) {
    using (got) {
      TensorGolden want = Goldens.TensorCase("op_" + name);
      Check.Equal(want.Sizes, got.Sizes, name + " sizes");
      Check.Equal(Goldens.DTypeOf(want.Dtype), got.Dtype, name + " dtype");
      Check.Close(want.Values, got.ToFloat64(), Tolerance, name);
    }
  }

  static void MatchAll(Dictionary<string, Func<Tensor>> ops) {
    foreach (var op in ops) Matches(op.Key, op.Value());
  }

  static Tensor In(string name, bool requiresGrad = false) => Goldens.Tensor("op_" + name, requiresGrad);

  [Test]
  public static void PointwiseAndLinalgMatchPyTorch() {
    using (var x = In("x")) using (var p = In("p")) using (var r = In("r"))
    using (var lo = In("lo")) using (var hi = In("hi"))
    using (var ba = In("ba")) using (var bb = In("bb")) using (var bc = In("bc"))
    using (var u = In("u")) using (var v = In("v")) {
      MatchAll(new Dictionary<string, Func<Tensor>> {
        ["silu"] = () => Functional.Silu(x),                        // F.silu(x)
        ["leaky_relu"] = () => Functional.LeakyRelu(x),             // F.leaky_relu(x)
        ["leaky_relu_02"] = () => Functional.LeakyRelu(x, 0.2),     // F.leaky_relu(x, 0.2)
        ["elu"] = () => Functional.Elu(x),                          // F.elu(x)
        ["elu_05"] = () => Functional.Elu(x, alpha: 0.5),           // F.elu(x, 0.5)
        ["softplus"] = () => Functional.Softplus(x),                // F.softplus(x)
        ["softplus_2_1"] = () => Functional.Softplus(x, 2.0, 1.0),  // F.softplus(x, 2.0, 1.0)
        ["hardtanh"] = () => Functional.Hardtanh(x),                // F.hardtanh(x)
        ["hardtanh_05_1"] = () => Functional.Hardtanh(x, -0.5, 1.0),
        ["sin"] = () => x.Sin(),
        ["cos"] = () => x.Cos(),
        ["rsqrt"] = () => p.Rsqrt(),
        ["reciprocal"] = () => x.Reciprocal(),
        ["floor"] = () => r.Floor(),
        ["ceil"] = () => r.Ceil(),
        ["round"] = () => r.Round(),
        ["trunc"] = () => r.Trunc(),
        ["sign"] = () => r.Sign(),
        ["clamp_tensor"] = () => x.Clamp(lo, hi),                   // torch.clamp(x, lo, hi)
        ["clamp_tensor_min"] = () => x.Clamp(lo, (Tensor)null),     // torch.clamp(x, min=lo)
        ["clamp_tensor_max"] = () => x.Clamp((Tensor)null, hi),     // torch.clamp(x, max=hi)
        ["bmm"] = () => ba.Bmm(bb),                                 // torch.bmm(ba, bb)
        ["baddbmm"] = () => bc.Baddbmm(ba, bb),                     // torch.baddbmm(bc, ba, bb)
        ["baddbmm_05_2"] = () => Tessera.Baddbmm(bc, ba, bb, beta: 0.5, alpha: 2.0),
        ["outer"] = () => u.Outer(v),                               // torch.outer(u, v)
      });
      Matches("bmm", Tessera.Bmm(ba, bb));
      Matches("outer", Tessera.Outer(u, v));
      Matches("trunc", r.Fix());
    }
  }

  [Test]
  public static void ScansAndStatisticsMatchPyTorch() {
    using (var x = In("x")) using (var mask = In("mask")) {
      MatchAll(new Dictionary<string, Func<Tensor>> {
        ["cumsum"] = () => x.Cumsum(1),                                   // torch.cumsum(x, 1)
        ["cumsum_f64"] = () => x.Cumsum(0, DType.Float64),                // dtype=torch.float64
        ["cumprod"] = () => x.Cumprod(1),                                 // torch.cumprod(x, 1)
        ["prod"] = () => x.Prod(),                                        // torch.prod(x)
        ["prod_dim"] = () => x.Prod(1, keepdim: true),                    // torch.prod(x, 1, keepdim=True)
        ["var"] = () => x.Var(),                                          // torch.var(x)
        ["var_dim_biased"] = () => x.Var(1, unbiased: false),             // torch.var(x, 1, unbiased=False)
        ["var_correction"] = () => x.Var(new long[] {0, 1}, correction: 2, keepdim: true),
        ["std"] = () => x.Std(),                                          // torch.std(x)
        ["std_dim"] = () => x.Std(0),                                     // torch.std(x, 0)
        ["logsumexp"] = () => x.Logsumexp(1),                             // torch.logsumexp(x, 1)
        ["logsumexp_all"] = () => x.Logsumexp(new long[] {0, 1}, keepdim: true),
        ["any"] = () => mask.Any(),                                       // torch.any(mask)
        ["all"] = () => mask.All(),                                       // torch.all(mask)
        ["any_dim"] = () => mask.Any(1),                                  // torch.any(mask, 1)
        ["all_dim"] = () => mask.All(0, keepdim: true),                   // torch.all(mask, 0, keepdim=True)
        ["min"] = () => x.Min(),                                          // torch.min(x)
        ["argmin"] = () => x.Argmin(0),                                   // torch.argmin(x, 0)
      });
      var (variance, mean) = Tessera.VarMean(x, new long[] {1});         // torch.var_mean(x, 1)
      Matches("var_mean_var", variance);
      Matches("var_mean_mean", mean);
      var sm = Tessera.StdMean(x, new long[] {0}, correction: 0);         // torch.std_mean(x, 0, unbiased=False)
      Matches("std_mean_std", sm.Std);
      Matches("std_mean_mean", sm.Mean);
      var (values, indices) = x.Min(1);                                   // torch.min(x, 1)
      Matches("min_dim_values", values);
      Check.Equal(DType.Int64, indices.Dtype, "Min's indices are int64");
      Matches("min_dim_indices", indices);
      var kept = x.Min(0, keepdim: true);                                 // torch.min(x, 0, keepdim=True)
      Matches("min_keepdim_values", kept.Values);
      kept.Indices.Dispose();
    }
  }

  [Test]
  public static void LossesMatchPyTorch() {
    using (var x = In("x")) using (var t = In("t"))
    using (var logits = In("logits")) using (var labels = In("labels")) using (var ignored = In("labels_ignored"))
    using (var classWeight = In("class_weight")) using (var probs = In("probs"))
    using (var logp = In("logp")) using (var q = In("q")) using (var logq = q.Log())
    using (var pr = In("pr")) using (var bt = In("bt")) using (var bw = In("bw")) using (var posWeight = In("pos_weight"))
    using (var logSoftmax = logits.LogSoftmax(1)) {
      MatchAll(new Dictionary<string, Func<Tensor>> {
        ["mse_loss"] = () => Functional.MseLoss(x, t),                          // F.mse_loss(x, t)
        ["mse_loss_none"] = () => Functional.MseLoss(x, t, Reduction.None),
        ["mse_loss_sum"] = () => Functional.MseLoss(x, t, Reduction.Sum),
        ["l1_loss"] = () => Functional.L1Loss(x, t),
        ["smooth_l1_loss"] = () => Functional.SmoothL1Loss(x, t, beta: 0.5),
        ["smooth_l1_loss_default"] = () => Functional.SmoothL1Loss(x, t),
        ["huber_loss"] = () => Functional.HuberLoss(x, t, Reduction.Sum, delta: 0.5),
        ["huber_loss_default"] = () => Functional.HuberLoss(x, t),
        ["kl_div"] = () => Functional.KlDiv(logp, q, Reduction.Sum),           // F.kl_div(logp, q, reduction="sum")
        ["kl_div_log_target"] = () => Functional.KlDiv(logp, logq, Reduction.None, logTarget: true),
        ["nll_loss"] = () => Functional.NllLoss(logSoftmax, labels),
        // F.nll_loss(log_softmax(logits, 1), labels_ignored, weight=class_weight, reduction="sum")
        ["nll_loss_weight"] = () => Functional.NllLoss(logSoftmax, ignored, classWeight, Reduction.Sum),
        ["cross_entropy"] = () => Functional.CrossEntropy(logits, labels),
        // weight=class_weight, ignore_index=-100, label_smoothing=0.1
        ["cross_entropy_full"] = () => Functional.CrossEntropy(logits, ignored, classWeight, ignoreIndex: -100,
                                                               labelSmoothing: 0.1),
        ["cross_entropy_none"] = () => Functional.CrossEntropy(logits, labels, reduction: Reduction.None),
        ["cross_entropy_probs"] = () => Functional.CrossEntropy(logits, probs, labelSmoothing: 0.2),
        ["binary_cross_entropy"] = () => Functional.BinaryCrossEntropy(pr, bt),
        ["binary_cross_entropy_weight"] = () => Functional.BinaryCrossEntropy(pr, bt, bw, Reduction.Sum),
        ["bce_with_logits"] = () => Functional.BinaryCrossEntropyWithLogits(x, bt),
        ["bce_with_logits_full"] = () => Functional.BinaryCrossEntropyWithLogits(x, bt, bw, posWeight, Reduction.None),
      });
      Check.Equal(2, (int)Reduction.Sum, "TSR_REDUCTION_SUM");
    }
  }

  [Test]
  public static void LossGradientsMatchPyTorch() {
    using (var x = In("x", true)) using (var t = In("t"))
    using (var loss = Functional.MseLoss(x, t)) {
      Check.Equal("MseLossBackward0", loss.GradFnName, "mse_loss grad_fn");
      loss.Backward();
      Matches("mse_loss_grad_x", x.Grad());
    }
    using (var logits = In("logits", true)) using (var ignored = In("labels_ignored"))
    using (var w = In("class_weight"))
    using (var loss = Functional.CrossEntropy(logits, ignored, w, labelSmoothing: 0.1)) {
      loss.Backward();
      Matches("cross_entropy_grad_logits", logits.Grad());
    }
  }

  // action must throw status with a message containing torch's op_NAME message.
  static void Fails(string name, Status status, Action action) {
    TesseraException e = Check.Throws(status, action, name);
    string torch = Goldens.Message("nn_error_op_" + name);
    Check.True(e.Message.Contains(torch), $"{name}: \"{e.Message}\" lacks torch's \"{torch}\"");
  }

  [Test]
  public static void ErrorsCarryPyTorchsStatusAndMessage() {
    using (var ba = Tensor.Ones(new long[] {2, 2, 3}))
    using (var logits = Tensor.Ones(new long[] {3, 4}))
    using (var bad = Tensor.FromArray(new long[] {1, 4, 0}, new long[] {3}))
    using (var x = In("x")) {
      Fails("bmm", Status.ShapeMismatch, () => ba.Bmm(ba));
      Fails("nll_loss", Status.IndexOutOfRange, () => Functional.NllLoss(logits, bad));
      Fails("cross_entropy", Status.IndexOutOfRange, () => Functional.CrossEntropy(logits, bad));
      Check.Throws(Status.InvalidArgument, () => x.Clamp((Tensor)null, (Tensor)null), "Clamp without bounds");
      Check.Throws(Status.InvalidArgument, () => x.Min(2), "Min over a dim out of range");
      Check.Throws(Status.InvalidArgument, () => Functional.MseLoss(x, x, (Reduction)7), "reduction out of range");
      var weight = Tensor.Ones(new long[] {4});
      weight.Dispose();
      TesseraException e = Check.Throws(Status.InvalidArgument,
          () => Functional.CrossEntropy(logits, bad, weight), "disposed weight");
      Check.True(e.Message.Contains("weight: tensor is disposed"), e.Message);
    }
  }
}

}
