package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.util.List;
import java.util.Map;
import org.tessera.DType;
import org.tessera.LrScheduler;
import org.tessera.NnUtils;
import org.tessera.Optimizer;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.TensorMap;

/**
 * NnUtils (torch.nn.utils.clip_grad_*), parameter groups and state_dict, and LrScheduler. The
 * expected numbers come from PyTorch 1.13 (/usr/bin/python3): SGD([{a}, {b, lr 0.01}], lr=0.1,
 * momentum=0.9) under CosineAnnealingLR(T_max=4, eta_min=0.001) and OneCycleLR(max_lr=0.5,
 * total_steps=6); clip_grad_norm_ of grads [3, 4] and [12] to 1.
 */
final class TrainingTests {
  private TrainingTests() {}

  static final double[] COSINE = {0.1, 0.01, 0.0855017856687341, 0.008681980515339464, 0.0505,
    0.0055000000000000005, 0.0154982143312659, 0.0023180194846605367, 0.001, 0.001,
    0.015498214331265896, 0.002318019484660536, 0.05050000000000001, 0.0055000000000000005};
  static final double[] ONE_CYCLE_LR = {0.020000000000000018, 0.49720771772545586, 0.4058728269748815,
    0.23131855133348753, 0.0667387650944153, 2e-06};
  static final double[] ONE_CYCLE_MOMENTUM = {0.95, 0.8505584586887436, 0.8688255099070633,
    0.9037365046793212, 0.9366525935914912, 0.95};

  static void register(AllTests.Registry r) {
    r.add("training: clipGradNorm_ / clipGradValue_ match torch", TrainingTests::clip);
    r.add("training: CosineAnnealingLR on two groups matches torch exactly", TrainingTests::cosine);
    r.add("training: OneCycleLR cycles lr and momentum as torch", TrainingTests::oneCycle);
    r.add("training: state_dict round trip resumes bit for bit", TrainingTests::stateDict);
    r.add("training: errors carry torch's messages", TrainingTests::errors);
  }

  static Tensor param(double... v) {
    Tensor p = Tensor.fromFloat64(v, new long[] {v.length}, DType.FLOAT32);
    p.setRequiresGrad(true);
    return p;
  }

  static void setGrad(Tensor p, double... v) {
    try (Tensor g = Tensor.fromFloat64(v, new long[] {v.length}, DType.FLOAT32)) {
      p.setGrad(g);
    }
  }

  static double[] grad(Tensor p) {
    try (Tensor g = p.grad()) {
      return g.toFloat64();
    }
  }

  static void clip() {
    try (Tensor a = param(0, 0); Tensor b = param(0)) {
      setGrad(a, 3, 4);
      setGrad(b, 12);
      try (Tensor total = NnUtils.clipGradNorm_(List.of(a, b), 1.0)) {
        close(13.0, total.toFloat64()[0], 0, "total norm");
      }
      close(new double[] {0.23076921701431274, 0.307692289352417}, grad(a), 0, "a.grad");
      close(new double[] {0.923076868057251}, grad(b), 0, "b.grad");
      setGrad(a, 3, -4);
      NnUtils.clipGradValue_(List.of(a), 0.5);
      close(new double[] {0.5, -0.5}, grad(a), 0, "clip_grad_value_");
    }
  }

  static Optimizer twoGroups(Tensor a, Tensor b) {
    Optimizer opt = Optimizer.sgd(List.of(a), new Optimizer.SGDOptions().lr(0.1).momentum(0.9));
    opt.addParamGroup(List.of(b), Map.of("lr", 0.01));
    return opt;
  }

  static void cosine() {
    try (Tensor a = param(0, 0); Tensor b = param(0); Optimizer opt = twoGroups(a, b);
        LrScheduler s = LrScheduler.cosineAnnealingLR(opt, 4, 0.001)) {
      equal(2L, opt.paramGroupCount(), "groups");
      for (int step = 0; step <= 6; ++step) {
        if (step > 0) {
          opt.step();
          s.step();
        }
        double[] lrs = s.getLastLr();
        close(new double[] {COSINE[2 * step], COSINE[2 * step + 1]}, lrs, 0, "lr at step " + step);
        close(COSINE[2 * step + 1], opt.getGroupOption(1, "lr"), 0, "group 1's lr");
      }
      equal(6L, s.lastEpoch(), "last_epoch");
    }
  }

  static void oneCycle() {
    try (Tensor a = param(0, 0); Tensor b = param(0); Optimizer opt = twoGroups(a, b);
        LrScheduler s = LrScheduler.oneCycleLR(opt, new LrScheduler.OneCycleOptions().maxLr(0.5).totalSteps(6))) {
      for (int step = 0; step < 6; ++step) {
        if (step > 0) s.step();
        close(ONE_CYCLE_LR[step], s.getLastLr()[0], 0, "lr at step " + step);
        close(ONE_CYCLE_MOMENTUM[step], opt.getGroupOption(0, "momentum"), 0, "momentum at step " + step);
      }
      s.step(); // last_epoch 6 == total_steps: still allowed, as in torch
      throwsStatus(Status.ERR_INVALID_ARGUMENT, s::step, "past total_steps");
    }
  }

  static void train(Optimizer opt, Tensor a, Tensor b, int from, int to) {
    for (int k = from; k < to; ++k) {
      setGrad(a, 0.5 * (k + 1), -0.25);
      setGrad(b, 1.0 / (k + 1));
      opt.step();
    }
  }

  static void stateDict() {
    try (Tensor a = param(1, 2); Tensor b = param(3); Optimizer opt = twoGroups(a, b);
        Tensor ra = param(1, 2); Tensor rb = param(3); Optimizer ref = twoGroups(ra, rb)) {
      train(ref, ra, rb, 0, 6);
      train(opt, a, b, 0, 3);
      try (TensorMap sd = opt.stateDict(); Tensor a2 = param(a.toFloat64()); Tensor b2 = param(b.toFloat64());
          Optimizer resumed = twoGroups(a2, b2)) {
        isTrue(sd.find("state.0.momentum_buffer") >= 0, "state_dict holds the momentum buffers");
        resumed.loadStateDict(sd);
        train(resumed, a2, b2, 3, 6);
        close(ra.toFloat64(), a2.toFloat64(), 0, "a after resuming");
        close(rb.toFloat64(), b2.toFloat64(), 0, "b after resuming");
      }
    }
  }

  static void errors() {
    try (Tensor a = param(0, 0); Tensor b = param(0); Optimizer opt = twoGroups(a, b)) {
      var e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> LrScheduler.linearLR(opt, 1.5, 1.0, 5),
          "start_factor > 1");
      equal("Starting multiplicative factor expected to be between 0 and 1.", e.getMessage(), "message");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> opt.addParamGroup(List.of(a), null), "a parameter twice");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> opt.setGroupOption(1, "lr", -1), "negative lr");
      close(0.01, opt.getGroupOption(1, "lr"), 0, "lr unchanged");
      setGrad(a, Double.NaN, 1);
      var n = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> NnUtils.clipGradNorm_(List.of(a), 1.0, 2.0, true), "non-finite norm");
      isTrue(n.getMessage().startsWith("The total norm of order 2.0"), n.getMessage());
    }
  }
}
