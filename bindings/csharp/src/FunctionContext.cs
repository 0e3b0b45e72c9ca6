// FunctionContext — torch's ctx of a custom Function.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Tessera {

/// <summary>The ctx of one apply of a <see cref="Function"/>: the same object
/// in Forward and Backward. Its tensor methods work only while Forward or
/// Backward runs (InvalidOperationException otherwise); <see cref="State"/>
/// carries any other value from Forward to Backward.</summary>
public sealed class FunctionContext {
  const string Lib = "tessera_csharp";
  /// <summary>The native tsr_function_ctx of the callback running now.</summary>
  IntPtr ctx;

  internal FunctionContext() {}

  internal void Enter(IntPtr native) { ctx = native; }
  internal void Leave() { ctx = IntPtr.Zero; }

  IntPtr Live() {
    if (ctx == IntPtr.Zero)
      throw new InvalidOperationException("FunctionContext is used outside its Forward or Backward");
    return ctx;
  }

  /// <summary>Values Forward leaves for Backward (torch's ctx attributes).</summary>
  public IDictionary<string, object> State { get; } = new Dictionary<string, object>();

  /// <summary>ctx.save_for_backward: keeps tensors (null entries allowed) for
  /// <see cref="SavedTensors"/>, replacing an earlier call's. Forward only.</summary>
  public void SaveForBackward(params Tensor[] tensors) {
    IntPtr[] handles = Handles(tensors);
    FunctionApply.Check(FunctionCtxSave(Live(), handles.Length, handles));
    GC.KeepAlive(tensors);
  }

  /// <summary>ctx.saved_tensors: new tensors (dispose them) for what Forward
  /// saved, in order. Backward only. Status.Autograd when a saved input or
  /// output was modified in place since ("... modified by an inplace
  /// operation").</summary>
  public Tensor[] SavedTensors() {
    var handles = new IntPtr[FunctionApply.MaxTensors];
    FunctionApply.Check(FunctionCtxSaved(Live(), handles.Length, out long n, handles));
    var tensors = new Tensor[n];
    for (long i = 0; i < n; ++i) tensors[i] = handles[i] == IntPtr.Zero ? null : new Tensor(handles[i], true);
    return tensors;
  }

  /// <summary>ctx.needs_input_grad[index]: whether input index's gradient is
  /// wanted.</summary>
  public bool NeedsInputGrad(int index) {
    FunctionApply.Check(FunctionCtxNeedsInputGrad(Live(), index, out int needs));
    return needs != 0;
  }

  /// <summary>ctx.mark_dirty: Forward modified this input in place (one
  /// input, returned as output 0). Forward only.</summary>
  public void MarkDirty(params Tensor[] tensors) { Mark(true, tensors); }

  /// <summary>ctx.mark_non_differentiable: these outputs get no gradient.
  /// Forward only.</summary>
  public void MarkNonDifferentiable(params Tensor[] tensors) { Mark(false, tensors); }

  /// <summary>ctx.set_materialize_grads: with false, Backward gets null
  /// instead of zeros for outputs whose gradient was never computed.
  /// Forward only.</summary>
  public void SetMaterializeGrads(bool value) {
    FunctionApply.Check(FunctionCtxSetMaterializeGrads(Live(), value ? 1 : 0));
  }

  void Mark(bool dirty, Tensor[] tensors) {
    IntPtr[] handles = Handles(tensors);
    FunctionApply.Check(FunctionCtxMark(Live(), dirty ? 1 : 0, handles.Length, handles));
    GC.KeepAlive(tensors);
  }

  /// <summary>The tsr_tensor* of each tensor (zero for null); a disposed one
  /// is refused.</summary>
  internal static IntPtr[] Handles(Tensor[] tensors) {
    if (tensors == null) throw new ArgumentNullException(nameof(tensors));
    if (tensors.Length > FunctionApply.MaxTensors)
      throw new TesseraException(Status.InvalidArgument, "at most 64 tensors per call");
    var handles = new IntPtr[tensors.Length];
    for (int i = 0; i < tensors.Length; ++i) {
      if (tensors[i] == null) continue;
      handles[i] = Tensor.getCPtr(tensors[i]).Handle;
      if (handles[i] == IntPtr.Zero)
        throw new TesseraException(Status.InvalidArgument, "tensor " + i + " is disposed");
    }
    return handles;
  }

  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionCtxSave")]
  static extern int FunctionCtxSave(IntPtr ctx, long n, IntPtr[] tensors);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionCtxSaved")]
  static extern int FunctionCtxSaved(IntPtr ctx, long max, out long n, [Out] IntPtr[] tensors);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionCtxNeedsInputGrad")]
  static extern int FunctionCtxNeedsInputGrad(IntPtr ctx, long index, out int needs);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionCtxMark")]
  static extern int FunctionCtxMark(IntPtr ctx, int dirty, long n, IntPtr[] tensors);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionCtxSetMaterializeGrads")]
  static extern int FunctionCtxSetMaterializeGrads(IntPtr ctx, int value);
}

}
