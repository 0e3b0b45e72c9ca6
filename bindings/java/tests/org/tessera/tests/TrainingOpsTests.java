package org.tessera.tests;

import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;
import static org.tessera.tests.Check.throwsType;

import java.util.LinkedHashMap;
import java.util.Map;
import org.tessera.DType;
import org.tessera.Functional;
import org.tessera.Reduction;
import org.tessera.Status;
import org.tessera.StdMean;
import org.tessera.Tensor;
import org.tessera.Tessera;
import org.tessera.TesseraException;
import org.tessera.ValuesIndices;
import org.tessera.VarMean;

/**
 * The ops added for ported training scripts (issue 33) in their Java forms: Functional's
 * activations and losses with Reduction, the Tensor methods (clamp with tensor bounds, sin ...
 * sign, bmm, baddbmm, outer, cumsum, cumprod, prod, var, std, logsumexp, any, all, min, argmin),
 * Tessera.varMean / stdMean / bmm / baddbmm / outer, against PyTorch 1.13 (goldens.properties'
 * nn.op_* entries from bindings/support/training_ops_golden_cases.py, which holds the torch
 * expression of each case).
 */
final class TrainingOpsTests {
  private TrainingOpsTests() {}

  static void register(AllTests.Registry r, Goldens g) {
    r.add("training ops: pointwise and linalg match torch", () -> pointwise(g));
    r.add("training ops: scans and statistics match torch", () -> reductions(g));
    r.add("training ops: losses with Reduction match torch", () -> losses(g));
    r.add("training ops: loss gradients match torch", () -> gradients(g));
    r.add("training ops: errors carry torch's status and message", () -> errors(g));
  }

  interface Op {
    Tensor apply();
  }

  static void checkAll(Goldens g, Map<String, Op> ops) {
    for (Map.Entry<String, Op> op : ops.entrySet()) NnTests.check(g, "op_" + op.getKey(), op.getValue().apply());
  }

  static void pointwise(Goldens g) {
    try (Tensor x = g.nnTensor("op_x"); Tensor p = g.nnTensor("op_p"); Tensor r = g.nnTensor("op_r");
        Tensor lo = g.nnTensor("op_lo"); Tensor hi = g.nnTensor("op_hi");
        Tensor ba = g.nnTensor("op_ba"); Tensor bb = g.nnTensor("op_bb"); Tensor bc = g.nnTensor("op_bc");
        Tensor u = g.nnTensor("op_u"); Tensor v = g.nnTensor("op_v")) {
      Map<String, Op> ops = new LinkedHashMap<>();
      ops.put("silu", () -> Functional.silu(x)); // F.silu(x)
      ops.put("leaky_relu", () -> Functional.leakyRelu(x)); // F.leaky_relu(x)
      ops.put("leaky_relu_02", () -> Functional.leakyRelu(x, 0.2)); // F.leaky_relu(x, 0.2)
      ops.put("elu", () -> Functional.elu(x)); // F.elu(x)
      ops.put("elu_05", () -> Functional.elu(x, 0.5)); // F.elu(x, 0.5)
      ops.put("softplus", () -> Functional.softplus(x)); // F.softplus(x)
      ops.put("softplus_2_1", () -> Functional.softplus(x, 2.0, 1.0)); // F.softplus(x, 2.0, 1.0)
      ops.put("hardtanh", () -> Functional.hardtanh(x)); // F.hardtanh(x)
      ops.put("hardtanh_05_1", () -> Functional.hardtanh(x, -0.5, 1.0)); // F.hardtanh(x, -0.5, 1.0)
      ops.put("sin", x::sin);
      ops.put("cos", x::cos);
      ops.put("rsqrt", p::rsqrt);
      ops.put("reciprocal", x::reciprocal);
      ops.put("floor", r::floor);
      ops.put("ceil", r::ceil);
      ops.put("round", r::round);
      ops.put("trunc", r::trunc);
      ops.put("sign", r::sign);
      ops.put("clamp_tensor", () -> x.clamp(lo, hi)); // torch.clamp(x, lo, hi)
      ops.put("clamp_tensor_min", () -> x.clamp(lo, (Tensor) null)); // torch.clamp(x, min=lo)
      ops.put("clamp_tensor_max", () -> x.clamp((Tensor) null, hi)); // torch.clamp(x, max=hi)
      ops.put("bmm", () -> ba.bmm(bb)); // torch.bmm(ba, bb)
      ops.put("baddbmm", () -> bc.baddbmm(ba, bb)); // torch.baddbmm(bc, ba, bb)
      ops.put("baddbmm_05_2", () -> bc.baddbmm(ba, bb, 0.5, 2.0)); // beta=0.5, alpha=2.0
      ops.put("outer", () -> u.outer(v)); // torch.outer(u, v)
      checkAll(g, ops);
      // The torch-module forms.
      NnTests.check(g, "op_bmm", Tessera.bmm(ba, bb));
      NnTests.check(g, "op_baddbmm", Tessera.baddbmm(bc, ba, bb));
      NnTests.check(g, "op_baddbmm_05_2", Tessera.baddbmm(bc, ba, bb, 0.5, 2.0));
      NnTests.check(g, "op_outer", Tessera.outer(u, v));
      NnTests.check(g, "op_trunc", r.fix());
    }
  }

  static void reductions(Goldens g) {
    try (Tensor x = g.nnTensor("op_x"); Tensor mask = g.nnTensor("op_mask")) {
      Map<String, Op> ops = new LinkedHashMap<>();
      ops.put("cumsum", () -> x.cumsum(1)); // torch.cumsum(x, 1)
      ops.put("cumsum_f64", () -> x.cumsum(0, DType.FLOAT64)); // torch.cumsum(x, 0, dtype=torch.float64)
      ops.put("cumprod", () -> x.cumprod(1)); // torch.cumprod(x, 1)
      ops.put("prod", x::prod); // torch.prod(x)
      ops.put("prod_dim", () -> x.prod(1, true)); // torch.prod(x, 1, keepdim=True)
      ops.put("var", x::var); // torch.var(x)
      ops.put("var_dim_biased", () -> x.var(new long[] {1}, false, false)); // unbiased=False
      ops.put("var_correction", () -> x.var(new long[] {0, 1}, 2L, true)); // correction=2, keepdim
      ops.put("std", x::std); // torch.std(x)
      ops.put("std_dim", () -> x.std(0)); // torch.std(x, 0)
      ops.put("logsumexp", () -> x.logsumexp(1)); // torch.logsumexp(x, 1)
      ops.put("logsumexp_all", () -> x.logsumexp(new long[] {0, 1}, true)); // [0, 1], keepdim
      ops.put("any", mask::any); // torch.any(mask)
      ops.put("all", mask::all); // torch.all(mask)
      ops.put("any_dim", () -> mask.any(1)); // torch.any(mask, 1)
      ops.put("all_dim", () -> mask.all(0, true)); // torch.all(mask, 0, keepdim=True)
      ops.put("min", x::min); // torch.min(x)
      ops.put("argmin", () -> x.argmin(0)); // torch.argmin(x, 0)
      checkAll(g, ops);

      try (VarMean vm = Tessera.varMean(x, new long[] {1}, 1, false)) { // torch.var_mean(x, 1)
        NnTests.check(g, "op_var_mean_var", vm.var().clone());
        NnTests.check(g, "op_var_mean_mean", vm.mean().clone());
      }
      try (StdMean sm = Tessera.stdMean(x, new long[] {0}, 0, false)) { // torch.std_mean(x, 0, unbiased=False)
        NnTests.check(g, "op_std_mean_std", sm.std().clone());
        NnTests.check(g, "op_std_mean_mean", sm.mean().clone());
      }
      try (VarMean all = Tessera.varMean(x); Tensor var = x.var()) {
        NnTests.check(g, "op_var", all.var().clone());
        isTrue(var.allclose(all.var(), 1e-6, 1e-7), "varMean(x).var() equals x.var()");
      }
      try (ValuesIndices m = x.min(1)) { // torch.min(x, 1)
        NnTests.check(g, "op_min_dim_values", m.values().clone());
        NnTests.check(g, "op_min_dim_indices", m.indices().clone());
        equal(DType.INT64, m.indices().dtype(), "min's indices are int64");
      }
      try (ValuesIndices m = x.min(0, true)) { // torch.min(x, 0, keepdim=True).values
        NnTests.check(g, "op_min_keepdim_values", m.values().clone());
      }
    }
  }

  static void losses(Goldens g) {
    try (Tensor x = g.nnTensor("op_x"); Tensor t = g.nnTensor("op_t");
        Tensor logits = g.nnTensor("op_logits"); Tensor labels = g.nnTensor("op_labels");
        Tensor ignored = g.nnTensor("op_labels_ignored"); Tensor classWeight = g.nnTensor("op_class_weight");
        Tensor probs = g.nnTensor("op_probs"); Tensor logp = g.nnTensor("op_logp"); Tensor q = g.nnTensor("op_q");
        Tensor pr = g.nnTensor("op_pr"); Tensor bt = g.nnTensor("op_bt"); Tensor bw = g.nnTensor("op_bw");
        Tensor posWeight = g.nnTensor("op_pos_weight"); Tensor logq = q.log();
        Tensor logSoftmax = logits.logSoftmax(1)) {
      Map<String, Op> ops = new LinkedHashMap<>();
      ops.put("mse_loss", () -> Functional.mseLoss(x, t)); // F.mse_loss(x, t)
      ops.put("mse_loss_none", () -> Functional.mseLoss(x, t, Reduction.NONE));
      ops.put("mse_loss_sum", () -> Functional.mseLoss(x, t, Reduction.SUM));
      ops.put("l1_loss", () -> Functional.l1Loss(x, t));
      ops.put("smooth_l1_loss", () -> Functional.smoothL1Loss(x, t, Reduction.MEAN, 0.5)); // beta=0.5
      ops.put("smooth_l1_loss_default", () -> Functional.smoothL1Loss(x, t));
      ops.put("huber_loss", () -> Functional.huberLoss(x, t, Reduction.SUM, 0.5)); // sum, delta=0.5
      ops.put("huber_loss_default", () -> Functional.huberLoss(x, t));
      ops.put("kl_div", () -> Functional.klDiv(logp, q, Reduction.SUM, false)); // F.kl_div(logp, q, "sum")
      ops.put("kl_div_log_target", () -> Functional.klDiv(logp, logq, Reduction.NONE, true));
      ops.put("nll_loss", () -> Functional.nllLoss(logSoftmax, labels));
      // F.nll_loss(log_softmax(logits, 1), labels_ignored, weight=class_weight, reduction="sum")
      ops.put("nll_loss_weight", () -> Functional.nllLoss(logSoftmax, ignored, classWeight, Reduction.SUM, -100));
      ops.put("cross_entropy", () -> Functional.crossEntropy(logits, labels));
      // weight=class_weight, ignore_index=-100, label_smoothing=0.1
      ops.put("cross_entropy_full",
          () -> Functional.crossEntropy(logits, ignored, classWeight, Reduction.MEAN, -100, 0.1));
      ops.put("cross_entropy_none", () -> Functional.crossEntropy(logits, labels, null, Reduction.NONE, -100, 0.0));
      ops.put("cross_entropy_probs", () -> Functional.crossEntropy(logits, probs, null, Reduction.MEAN, -100, 0.2));
      ops.put("binary_cross_entropy", () -> Functional.binaryCrossEntropy(pr, bt));
      ops.put("binary_cross_entropy_weight", () -> Functional.binaryCrossEntropy(pr, bt, bw, Reduction.SUM));
      ops.put("bce_with_logits", () -> Functional.binaryCrossEntropyWithLogits(x, bt));
      ops.put("bce_with_logits_full",
          () -> Functional.binaryCrossEntropyWithLogits(x, bt, bw, posWeight, Reduction.NONE));
      checkAll(g, ops);
      equal(2, Reduction.SUM.value(), "Reduction.SUM is TSR_REDUCTION_SUM");
    }
  }

  static void gradients(Goldens g) {
    try (Tensor x = g.nnLeaf("op_x"); Tensor t = g.nnTensor("op_t"); Tensor loss = Functional.mseLoss(x, t)) {
      equal("MseLossBackward0", loss.gradFnName(), "mse_loss grad_fn");
      loss.backward();
      NnTests.check(g, "op_mse_loss_grad_x", x.grad());
    }
    try (Tensor logits = g.nnLeaf("op_logits"); Tensor ignored = g.nnTensor("op_labels_ignored");
        Tensor w = g.nnTensor("op_class_weight");
        Tensor loss = Functional.crossEntropy(logits, ignored, w, Reduction.MEAN, -100, 0.1)) {
      loss.backward();
      NnTests.check(g, "op_cross_entropy_grad_logits", logits.grad());
    }
  }

  static void errors(Goldens g) {
    try (Tensor ba = Tessera.ones(2, 2, 3); Tensor logits = Tessera.ones(3, 4);
        Tensor bad = Tessera.tensor(new long[] {1, 4, 0}, 3); Tensor x = g.nnTensor("op_x")) {
      NnTests.fails(g, "op_bmm", Status.ERR_SHAPE_MISMATCH, () -> ba.bmm(ba));
      NnTests.fails(g, "op_nll_loss", Status.ERR_INDEX_OUT_OF_RANGE, () -> Functional.nllLoss(logits, bad));
      NnTests.fails(g, "op_cross_entropy", Status.ERR_INDEX_OUT_OF_RANGE, () -> Functional.crossEntropy(logits, bad));
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> x.clamp((Tensor) null, (Tensor) null), "clamp without bounds");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> x.min(2), "min over a dim out of range");
      throwsType(NullPointerException.class, () -> Functional.mseLoss(x, x, null), "null reduction");
      // A closed optional tensor is refused, not read as none.
      Tensor weight = Tessera.ones(4);
      weight.close();
      TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> Functional.crossEntropy(logits, bad, weight, Reduction.MEAN, -100, 0.0), "closed weight");
      isTrue(e.getMessage().contains("weight: tensor is closed"), e.getMessage());
    }
  }
}
