// Optimizers (torch.optim), initializers (torch.nn.init) and the profiler
// (torch.profiler): the hand-written half of the Optimizer and ProfilerResult
// proxies (generated from bindings/optim.i) and the classes around them.
using System;
using System.Collections.Generic;

namespace Tessera {

/// <summary>A torch.optim optimizer over one parameter group (create one of
/// Tessera.Optim.SGD, Adam, AdamW). It keeps its own reference to each
/// parameter. Dispose releases it (its state and those references) at once;
/// the finalizer does otherwise.</summary>
public partial class Optimizer {
  /// <summary>param_groups[0]["lr"]; a new value takes effect at the next
  /// Step (what an LR scheduler sets). Status.InvalidArgument below 0.</summary>
  public double Lr {
    get { return NativeGetLr(); }
    set { NativeSetLr(value); }
  }

  /// <summary>Number of parameters.</summary>
  public long NumParams => NativeNumParams();

  /// <summary>zero_grad(set_to_none): setToNone drops every gradient
  /// (Grad() then gives null); otherwise they are zeroed in place. The
  /// default is torch 1.13's false (torch 2.x's is true).</summary>
  public void ZeroGrad(bool setToNone = false) => NativeZeroGrad(setToNone);

  /// <summary>optimizer.state[params[paramIndex]][key] itself (writing it
  /// changes the optimizer's state), or null before that parameter's first
  /// step. Keys: SGD "momentum_buffer"; Adam/AdamW "step", "exp_avg",
  /// "exp_avg_sq", "max_exp_avg_sq".</summary>
  public Tensor State(long paramIndex, string key) => NativeState(paramIndex, key);

  /// <summary>Builds the native parameter list, runs create, and moves the
  /// handle it returned out of its temporary proxy.</summary>
  internal static global::System.IntPtr Create(IEnumerable<Tensor> parameters, string what,
                                              Func<TensorList, Optimizer> create) {
    if (parameters == null) throw new TesseraException(Status.InvalidArgument, what + ": parameters is null");
    using (var list = new TensorList()) {
      foreach (var p in parameters) {
        if (p == null) throw new TesseraException(Status.InvalidArgument, what + ": a parameter is null");
        list.Append(p);
      }
      Optimizer made = create(list);
      return made.swigTakeHandle();
    }
  }
}

/// <summary>A stopped profiler session's events (Tessera.Profiler.Stop).</summary>
public partial class ProfilerResult {
  /// <summary>Number of recorded events.</summary>
  public long NumEvents => NativeNumEvents();

  /// <summary>prof.key_averages().table(sort_by, row_limit) as torch 1.13
  /// prints it; rowLimit below 0: every row.</summary>
  public string Table(string sortBy = "self_cpu_time_total", long rowLimit = 100) =>
      NativeTable(sortBy, rowLimit);
}

/// <summary>torch.profiler.profile: Start begins a session (one per
/// process), Stop ends it and returns its events.</summary>
public static class Profiler {
  public static void Start(bool recordShapes = false, bool profileMemory = false) {
    TesseraNative.profiler_start(recordShapes, profileMemory);
  }

  /// <summary>Ends the session; Status.InvalidArgument when none runs.</summary>
  public static ProfilerResult Stop() => TesseraNative.profiler_stop();
}

/// <summary>torch.nn.init: in-place initializers (under no_grad), each
/// returning its tensor. Random ones draw from the generator given, or from
/// DefaultGenerator (seeded with torch's default seed): torch's
/// distributions, not torch's numbers.</summary>
public static class Init {
  static readonly Lazy<Generator> defaultGenerator = new Lazy<Generator>(() => new Generator(67280421310721UL));

  public static Generator DefaultGenerator => defaultGenerator.Value;

  /// <summary>torch.nn.init.calculate_gain(nonlinearity, param); null param is None.</summary>
  public static double CalculateGain(string nonlinearity, double? param = null) =>
      TesseraNative.init_calculate_gain(nonlinearity, param.HasValue, param ?? 0.0);

  /// <summary>Uniform in [-bound, bound), bound = gain * sqrt(3 / fan);
  /// mode "fan_in" or "fan_out".</summary>
  public static Tensor KaimingUniform_(Tensor tensor, double a = 0, string mode = "fan_in",
                                       string nonlinearity = "leaky_relu", Generator generator = null) {
    TesseraNative.init_kaiming_uniform(tensor, a, mode, nonlinearity, generator ?? DefaultGenerator);
    return tensor;
  }

  /// <summary>Uniform in [-b, b), b = gain * sqrt(6 / (fan_in + fan_out)).</summary>
  public static Tensor XavierUniform_(Tensor tensor, double gain = 1.0, Generator generator = null) {
    TesseraNative.init_xavier_uniform(tensor, gain, generator ?? DefaultGenerator);
    return tensor;
  }

  public static Tensor Zeros_(Tensor tensor) {
    TesseraNative.init_zeros(tensor);
    return tensor;
  }

  public static Tensor Normal_(Tensor tensor, double mean = 0.0, double std = 1.0, Generator generator = null) {
    TesseraNative.init_normal(tensor, mean, std, generator ?? DefaultGenerator);
    return tensor;
  }

  public static Tensor Uniform_(Tensor tensor, double a = 0.0, double b = 1.0, Generator generator = null) {
    TesseraNative.init_uniform(tensor, a, b, generator ?? DefaultGenerator);
    return tensor;
  }
}

}  // namespace Tessera

namespace Tessera.Optim {

/// <summary>torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov).</summary>
public sealed class SGD : Optimizer {
  public SGD(IEnumerable<Tensor> parameters, double lr, double momentum = 0, double dampening = 0,
             double weightDecay = 0, bool nesterov = false)
      : base(Create(parameters, "SGD",
                    list => NativeSgd(list, lr, momentum, dampening, weightDecay, nesterov)), true) {}
}

/// <summary>torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
/// weight_decay=0, amsgrad=False).</summary>
public sealed class Adam : Optimizer {
  public Adam(IEnumerable<Tensor> parameters, double lr = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
              double eps = 1e-8, double weightDecay = 0, bool amsgrad = false)
      : base(Create(parameters, "Adam",
                    list => NativeAdam(list, lr, beta1, beta2, eps, weightDecay, amsgrad)), true) {}
}

/// <summary>torch.optim.AdamW: Adam with decoupled weight decay (default 1e-2).</summary>
public sealed class AdamW : Optimizer {
  public AdamW(IEnumerable<Tensor> parameters, double lr = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
               double eps = 1e-8, double weightDecay = 1e-2, bool amsgrad = false)
      : base(Create(parameters, "AdamW",
                    list => NativeAdamw(list, lr, beta1, beta2, eps, weightDecay, amsgrad)), true) {}
}

}  // namespace Tessera.Optim
