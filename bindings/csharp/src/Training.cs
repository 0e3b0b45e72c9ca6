// Training utilities: gradient clipping (torch.nn.utils), parameter groups
// and state_dict of Optimizer, LR schedulers (torch.optim.lr_scheduler): the
// hand-written half of the proxies generated from bindings/optim.i,
// clip_grad.i and lr_scheduler.i.
using System;
using System.Collections.Generic;
using System.Linq;

namespace Tessera {

public partial class Optimizer {
  /// <summary>optimizer.add_param_group({"params": parameters, **options}):
  /// options by torch's names ("lr", "momentum", "beta1"/"beta2" for betas,
  /// "nesterov" 0/1, ...); the others take the optimizer's defaults.</summary>
  public void AddParamGroup(IEnumerable<Tensor> parameters, IDictionary<string, double> options = null) {
    var keys = options == null ? new string[0] : options.Keys.ToArray();
    foreach (var k in keys)
      if (k.Contains(",")) throw new TesseraException(Status.InvalidArgument, "option name with a comma: " + k);
    var values = keys.Select(k => options[k]).ToArray();
    using (var list = new TensorList()) {
      foreach (var p in parameters) list.Append(p);
      NativeAddParamGroup(list, string.Join(",", keys), values);
    }
  }

  /// <summary>optimizer.load_state_dict from StateDict()'s map, or from a
  /// TensorMap loaded from a file saved with it (other names are
  /// skipped).</summary>
  public void LoadStateDict(TensorMap stateDict) {
    using (var list = new TensorList()) {
      foreach (var kv in stateDict) {
        using (var t = kv.Value) list.Append(t, kv.Key);
      }
      NativeLoadStateDict(list);
    }
  }
}

/// <summary>torch.optim.lr_scheduler: each Step writes the next lr into
/// every parameter group of the optimizer (torch 1.13's arithmetic, bit for
/// bit). Dispose releases the native scheduler.</summary>
public partial class LrScheduler {
  public static LrScheduler StepLR(Optimizer optimizer, long stepSize, double gamma = 0.1) =>
      NativeStepLr(optimizer, stepSize, gamma, -1);
  public static LrScheduler MultiStepLR(Optimizer optimizer, long[] milestones, double gamma = 0.1) =>
      NativeMultiStepLr(optimizer, milestones, gamma, -1);
  public static LrScheduler ExponentialLR(Optimizer optimizer, double gamma) =>
      NativeExponentialLr(optimizer, gamma, -1);
  public static LrScheduler CosineAnnealingLR(Optimizer optimizer, long tMax, double etaMin = 0) =>
      NativeCosineAnnealingLr(optimizer, tMax, etaMin, -1);
  public static LrScheduler LinearLR(Optimizer optimizer, double startFactor = 1.0 / 3, double endFactor = 1.0,
                                     long totalIters = 5) =>
      NativeLinearLr(optimizer, startFactor, endFactor, totalIters, -1);

  /// <summary>OneCycleLR: maxLr one value or one per group; totalSteps, or
  /// epochs and stepsPerEpoch; annealStrategy "cos" or "linear".</summary>
  public static LrScheduler OneCycleLR(Optimizer optimizer, double[] maxLr, long totalSteps = 0, long epochs = 0,
                                       long stepsPerEpoch = 0, double pctStart = 0.3, string annealStrategy = "cos",
                                       bool cycleMomentum = true, double[] baseMomentum = null,
                                       double[] maxMomentum = null, double divFactor = 25,
                                       double finalDivFactor = 1e4, bool threePhase = false) {
    if (annealStrategy != "cos" && annealStrategy != "linear")
      throw new TesseraException(Status.InvalidArgument,
          "anneal_strategy must by one of 'cos' or 'linear', instead got " + annealStrategy);
    return NativeOneCycleLr(optimizer, maxLr, totalSteps, epochs, stepsPerEpoch, pctStart, annealStrategy == "linear",
                            cycleMomentum, baseMomentum ?? new[] {0.85}, maxMomentum ?? new[] {0.95}, divFactor,
                            finalDivFactor, threePhase, -1);
  }

  /// <summary>SequentialLR(optimizer, schedulers, milestones): one to four
  /// schedulers in the bindings.</summary>
  public static LrScheduler SequentialLR(Optimizer optimizer, IList<LrScheduler> schedulers, long[] milestones) {
    var s = new LrScheduler[4];
    for (int i = 0; i < schedulers.Count && i < 4; ++i) s[i] = schedulers[i];
    return NativeSequentialLr(optimizer, schedulers.Count, s[0], s[1], s[2], s[3], milestones, -1);
  }

  /// <summary>The epoch of the last Step (0 after creation).</summary>
  public long LastEpoch => NativeLastEpoch();
}

/// <summary>torch.nn.utils: gradient clipping, in place.</summary>
public static class NnUtils {
  static TensorList List(IEnumerable<Tensor> parameters) {
    var list = new TensorList();
    try {
      foreach (var p in parameters) list.Append(p);
    } catch {
      list.Dispose();
      throw;
    }
    return list;
  }

  /// <summary>clip_grad_norm_: scales every gradient so that their total
  /// norm is at most maxNorm; returns the total norm (0-dim).</summary>
  public static Tensor ClipGradNorm_(IEnumerable<Tensor> parameters, double maxNorm, double normType = 2.0,
                                     bool errorIfNonfinite = false) {
    using (var list = List(parameters)) return TesseraNative.clip_grad_norm(list, maxNorm, normType, errorIfNonfinite);
  }

  /// <summary>clip_grad_value_: gradients clamped to [-clipValue, clipValue].</summary>
  public static void ClipGradValue_(IEnumerable<Tensor> parameters, double clipValue) {
    using (var list = List(parameters)) TesseraNative.clip_grad_value(list, clipValue);
  }
}

}
