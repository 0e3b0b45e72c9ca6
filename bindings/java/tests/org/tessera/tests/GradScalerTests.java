package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.util.List;
import org.tessera.Autocast;
import org.tessera.DType;
import org.tessera.DeviceType;
import org.tessera.GradScaler;
import org.tessera.Optimizer;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.TensorMap;
import org.tessera.Tessera;

/**
 * GradScaler (torch.cuda.amp.GradScaler) and Autocast scopes. The expected numbers come from
 * PyTorch 1.13's GradScaler run on CPU tensors (bindings/support/grad_scaler_golden.py, run with
 * /usr/bin/python3): four steps of SGD(lr=0.1) on P0 through a scaler with init_scale 8 and
 * growth_interval 2, the third step's input holding an inf.
 */
final class GradScalerTests {
  private GradScalerTests() {}

  static final double[] P0 = {1.0, -2.0, 3.0, 0.5};
  static final double[][] X = {
    {0.5, 1.0, -1.5, 2.0}, {1.0, 0.25, 0.5, -1.0}, {1.0, Double.POSITIVE_INFINITY, 0.5, -1.0},
    {-0.5, 0.75, 1.0, 0.125}};
  static final boolean[] STEPPED = {true, true, false, true};
  static final double[] SCALE = {8.0, 16.0, 8.0, 8.0};
  static final long[] TRACKER = {1, 0, 0, 1};
  static final double[][] PARAMS = {
    {0.949999988079071, -2.0999999046325684, 3.1500000953674316, 0.30000001192092896},
    {0.8499999642372131, -2.125, 3.1000001430511475, 0.4000000059604645},
    {0.8499999642372131, -2.125, 3.1000001430511475, 0.4000000059604645},
    {0.8999999761581421, -2.200000047683716, 3.000000238418579, 0.38750001788139343}};

  static void register(AllTests.Registry r) {
    r.add("grad scaler: a run with an inf matches torch", GradScalerTests::run);
    r.add("grad scaler: torch's errors, nothing changed", GradScalerTests::errors);
    r.add("grad scaler: state_dict round trip, disabled scaler", GradScalerTests::stateDict);
    r.add("autocast: a scope turns autocast on and off, and nests", GradScalerTests::autocast);
  }

  static void run() {
    try (Tensor p = Tensor.fromFloat64(P0, new long[] {4}, DType.FLOAT32);
        Optimizer opt = Optimizer.sgd(List.of(p), 0.1);
        GradScaler scaler = GradScaler.create(new GradScaler.Options().initScale(8).growthInterval(2))) {
      p.setRequiresGrad(true);
      for (int k = 0; k < X.length; ++k) {
        try (Tensor x = Tensor.fromFloat64(X[k], new long[] {4}, DType.FLOAT32);
            Tensor prod = p.mul(x);
            Tensor loss = prod.sum();
            Tensor scaled = scaler.scale(loss)) {
          equal("MulBackward0", scaled.gradFnName(), "scaled loss's grad_fn");
          equal(new long[] {1}, scaled.sizes(), "scaled loss's sizes (torch's [1])");
          scaled.backward();
        }
        equal(STEPPED[k], scaler.step(opt), "step " + k + " stepped");
        scaler.update();
        opt.zeroGrad(true);
        close(SCALE[k], scaler.getScale(), 0, "scale after step " + k);
        equal(TRACKER[k], scaler.getGrowthTracker(), "growth tracker after step " + k);
        close(PARAMS[k], p.toFloat64(), 1e-6, "parameters after step " + k);
      }
    }
  }

  static void errors() {
    try (Tensor p = Tensor.fromFloat64(P0, new long[] {4}, DType.FLOAT32);
        Optimizer opt = Optimizer.sgd(List.of(p), 1.0);
        GradScaler scaler = GradScaler.create(new GradScaler.Options().initScale(2))) {
      p.setRequiresGrad(true);
      var e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> scaler.step(opt), "step before scale");
      isTrue(e.getMessage().startsWith("Attempted step but _scale is None."), e.getMessage());
      try (Tensor one = Tessera.ones(4); Tensor s = scaler.scale(one)) {
        p.setGrad(one);
      }
      scaler.unscale_(opt);
      e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> scaler.unscale_(opt), "unscale_ twice");
      equal("unscale_() has already been called on this optimizer since the last update().", e.getMessage(), "message");
      isTrue(scaler.step(opt), "a clean step runs");
      e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> scaler.step(opt), "step twice");
      equal("step() has already been called since the last update().", e.getMessage(), "message");
      scaler.update();
      e = throwsStatus(Status.ERR_INVALID_ARGUMENT, scaler::update, "update without a step");
      equal("No inf checks were recorded prior to update.", e.getMessage(), "message");
      close(new double[] {0.5, -2.5, 2.5, 0.0}, p.toFloat64(), 0, "one step of the unscaled gradient 0.5");
      e = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> GradScaler.create(new GradScaler.Options().growthFactor(1.0)), "growth factor 1");
      equal("The growth factor must be > 1.0.", e.getMessage(), "message");
    }
  }

  static void stateDict() {
    try (GradScaler a = GradScaler.create(new GradScaler.Options().initScale(4).backoffFactor(0.25));
        GradScaler b = GradScaler.create()) {
      a.setGrowthInterval(7);
      a.setGrowthFactor(3.0);
      try (TensorMap sd = a.stateDict()) {
        equal(5L, sd.size(), "five entries");
        b.loadStateDict(sd);
      }
      close(4.0, b.getScale(), 0, "scale");
      close(3.0, b.getGrowthFactor(), 0, "growth factor");
      close(0.25, b.getBackoffFactor(), 0, "backoff factor");
      equal(7L, b.getGrowthInterval(), "growth interval");
      var e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> b.update(5.0), "update(newScale) before scale");
      isTrue(e.getMessage().startsWith("Attempted update but _scale is None."), e.getMessage());
    }
    try (GradScaler off = GradScaler.create(new GradScaler.Options().enabled(false));
        Tensor t = Tessera.ones(2);
        Tensor s = off.scale(t);
        TensorMap sd = off.stateDict()) {
      isTrue(!off.isEnabled(), "disabled");
      close(1.0, off.getScale(), 0, "a disabled scaler's scale");
      close(new double[] {1, 1}, s.toFloat64(), 0, "scale() passes the tensor through");
      equal(0L, sd.size(), "a disabled scaler's state_dict is empty");
    }
  }

  static void autocast() {
    isTrue(!Autocast.isEnabled(DeviceType.DEVICE_CPU), "off outside a scope");
    try (Autocast outer = Autocast.begin(DeviceType.DEVICE_CPU, DType.BFLOAT16)) {
      isTrue(Autocast.isEnabled(DeviceType.DEVICE_CPU), "on in a scope");
      equal(DType.BFLOAT16, Autocast.dtype(DeviceType.DEVICE_CPU), "the scope's dtype");
      isTrue(!Autocast.isEnabled(DeviceType.DEVICE_CUDA), "another device type is not affected");
      try (Autocast inner = Autocast.begin(DeviceType.DEVICE_CPU, DType.BFLOAT16, false)) {
        isTrue(!Autocast.isEnabled(DeviceType.DEVICE_CPU), "off in a nested disabled scope");
      }
      isTrue(Autocast.isEnabled(DeviceType.DEVICE_CPU), "on again after the nested scope");
      outer.close();
      outer.close();
      isTrue(!Autocast.isEnabled(DeviceType.DEVICE_CPU), "off after close");
    }
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Autocast.begin(DeviceType.DEVICE_CPU, DType.INT64),
        "an integer dtype");
    isTrue(!Autocast.isEnabled(DeviceType.DEVICE_CPU), "a failed begin opens nothing");
  }
}
