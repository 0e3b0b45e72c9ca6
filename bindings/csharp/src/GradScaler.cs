// GradScaler (torch.cuda.amp.GradScaler of PyTorch 1.13): the hand-written
// half of the proxy generated from bindings/grad_scaler.i.
namespace Tessera {

/// <summary>torch.cuda.amp.GradScaler: Scale multiplies the loss by the
/// scale factor, Step unscales the optimizer's gradients and skips its step
/// when one holds an inf or NaN, Update backs the scale off after a skip or
/// grows it after GrowthInterval clean updates. Dispose releases it at once;
/// the finalizer does otherwise.
/// <code>
/// using (var scaler = new GradScaler()) {
///   using (var scaled = scaler.Scale(loss)) scaled.Backward();
///   scaler.Step(optimizer);
///   scaler.Update();
/// }
/// </code></summary>
public partial class GradScaler {
  /// <summary>GradScaler(init_scale, growth_factor, backoff_factor,
  /// growth_interval, enabled) with torch's defaults.</summary>
  public GradScaler(double initScale = 65536.0, double growthFactor = 2.0, double backoffFactor = 0.5,
                    long growthInterval = 2000, bool enabled = true)
      : this(NativeCreate(initScale, growthFactor, backoffFactor, growthInterval, enabled).swigTakeHandle(), true) {}

  /// <summary>outputs times the scale (a float32 tensor of torch's
  /// promotion and broadcasting, grad_fn MulBackward0); outputs itself when
  /// disabled.</summary>
  public Tensor Scale(Tensor outputs) => NativeScale(outputs);

  /// <summary>unscale_(optimizer): divides the optimizer's gradients by the
  /// scale in place and records whether any holds an inf/NaN (once per
  /// optimizer per Update).</summary>
  public void UnscaleInPlace(Optimizer optimizer) => NativeUnscale(optimizer);

  /// <summary>step(optimizer): unscales (unless done since the last
  /// Update), then steps the optimizer unless an inf/NaN was found. Returns
  /// whether it stepped.</summary>
  public bool Step(Optimizer optimizer) => NativeStep(optimizer);

  /// <summary>update(): backs off or grows the scale.</summary>
  public void Update() => NativeUpdate();

  /// <summary>update(new_scale): sets the scale (rounded to float32).</summary>
  public void Update(double newScale) => NativeUpdateScale(newScale);

  /// <summary>get_scale(): the scale (init_scale before the first Scale; 1
  /// when disabled).</summary>
  public double GetScale() => NativeGetScale();

  public double GrowthFactor {
    get { return NativeGetGrowthFactor(); }
    set { NativeSetGrowthFactor(value); }
  }
  public double BackoffFactor {
    get { return NativeGetBackoffFactor(); }
    set { NativeSetBackoffFactor(value); }
  }
  public long GrowthInterval {
    get { return NativeGetGrowthInterval(); }
    set { NativeSetGrowthInterval(value); }
  }
  /// <summary>Clean updates counted since the scale last changed
  /// (_get_growth_tracker()).</summary>
  public long GrowthTracker => NativeGetGrowthTracker();
  public bool IsEnabled => NativeIsEnabled();

  /// <summary>state_dict(): "scale", "growth_factor", "backoff_factor",
  /// "growth_interval", "_growth_tracker" as 0-dim tensors (Tessera.Save
  /// writes them); empty when disabled.</summary>
  public TensorMap StateDict() => NativeStateDict();

  /// <summary>load_state_dict from StateDict()'s map, or a TensorMap loaded
  /// from a file saved with it (other names are skipped).</summary>
  public void LoadStateDict(TensorMap stateDict) {
    using (var list = new TensorList()) {
      foreach (var kv in stateDict) {
        using (var t = kv.Value) list.Append(t, kv.Key);
      }
      NativeLoadStateDict(list);
    }
  }
}

/// <summary>An autocast region (torch.autocast, include/tessera/autocast.h):
/// until disposed, ops on the device type's tensors follow torch 1.13's mixed
/// precision cast policy.
/// <code>
/// using (new Autocast(DeviceType.Cpu, DType.BFloat16)) { var y = model.Forward(x); }
/// </code>
/// Regions belong to the thread that opened them and nest (a disabled inner
/// region turns autocast off); dispose them on that thread, innermost first.
/// Disposing twice ends the region once. The finalizer does not end a region
/// (it could only be ended on its own thread): always dispose it.</summary>
public sealed class Autocast : global::System.IDisposable {
  readonly global::System.Threading.Thread thread;
  bool disposed;

  /// <summary>torch.autocast(deviceType, dtype, enabled).</summary>
  public Autocast(DeviceType deviceType, DType dtype, bool enabled = true) {
    TesseraNative.autocast_begin(deviceType, dtype, enabled);
    thread = global::System.Threading.Thread.CurrentThread;
  }

  /// <summary>Whether ops on deviceType's tensors are autocast on this
  /// thread now (torch.is_autocast_cpu_enabled).</summary>
  public static bool IsEnabled(DeviceType deviceType) => TesseraNative.is_autocast_enabled(deviceType);

  /// <summary>The lower-precision dtype of deviceType's autocast on this
  /// thread (torch.get_autocast_cpu_dtype).</summary>
  public static DType Dtype(DeviceType deviceType) => TesseraNative.get_autocast_dtype(deviceType);

  /// <summary>Ends the region the first time; Status.InvalidArgument on
  /// another thread than the one that opened it (which stays open).</summary>
  public void Dispose() {
    if (disposed) return;
    if (global::System.Threading.Thread.CurrentThread != thread)
      throw new TesseraException(Status.InvalidArgument,
                                 "an autocast region must be disposed on the thread that opened it");
    disposed = true;
    TesseraNative.autocast_end();
  }
}

}
