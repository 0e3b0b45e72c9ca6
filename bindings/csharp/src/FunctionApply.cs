// FunctionApply — one apply of a custom Function: the record the library
// holds (bindings/csharp/csharp_function.i) and the callbacks it calls.
using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace Tessera {

/// <summary>The library holds a GCHandle to this record as user_data until
/// the graph that may call Backward is gone. The static callbacks below are
/// the managed side of csharp_function.i's C callbacks: they never let an
/// exception out (CallbackErrors keeps it) and return a status.</summary>
internal sealed class FunctionApply {
  const string Lib = "tessera_csharp";
  internal const int MaxTensors = 64; // function.h's limit per call

  [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
  delegate int ForwardNative(IntPtr record, IntPtr ctx, long nInputs, IntPtr inputs, long maxOutputs,
                             IntPtr nOutputs, IntPtr outputs);
  [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
  delegate int BackwardNative(IntPtr record, IntPtr ctx, long nGrads, IntPtr grads, long nInputs,
                              IntPtr gradInputs);
  [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
  delegate void ReleaseNative(IntPtr record);

  // Static: registered once, never collected while native code may call them.
  static readonly ForwardNative forwardNative = ForwardCallback;
  static readonly BackwardNative backwardNative = BackwardCallback;
  static readonly ReleaseNative releaseNative = ReleaseCallback;
  static long live;

  static FunctionApply() {
    NativeResolver.Ensure();
    FunctionRegister(forwardNative, backwardNative, releaseNative);
  }

  readonly Function function;
  readonly FunctionContext ctx = new FunctionContext();
  readonly int nInputs;

  FunctionApply(Function function, int nInputs) {
    this.function = function;
    this.nInputs = nInputs;
  }

  internal static long Live => Interlocked.Read(ref live);

  /// <summary>Function.Apply: Forward through tsr_function_apply.</summary>
  internal static Tensor[] Run(Function function, Tensor[] inputs) {
    IntPtr[] handles = FunctionContext.Handles(inputs);
    var record = new FunctionApply(function, inputs.Length);
    IntPtr user = GCHandle.ToIntPtr(GCHandle.Alloc(record)); // freed by ReleaseCallback, also on failure
    Interlocked.Increment(ref live);
    var outputs = new IntPtr[MaxTensors];
    int status = FunctionApplyNative(function.Name, user, handles.Length, handles, outputs.Length, out long n,
                                     outputs);
    GC.KeepAlive(inputs);
    Check(status);
    var tensors = new Tensor[n];
    for (long i = 0; i < n; ++i) tensors[i] = new Tensor(outputs[i], true);
    return tensors;
  }

  /// <summary>Throws the pending exception of a failed glue call.</summary>
  internal static void Check(int status) {
    if (status == (int)Status.Ok) return;
    if (TesseraNativePINVOKE.SWIGPendingException.Pending) throw TesseraNativePINVOKE.SWIGPendingException.Retrieve();
    throw new TesseraException((Status)status, "tessera call failed");
  }

  static int ForwardCallback(IntPtr user, IntPtr nativeCtx, long nIn, IntPtr inputs, long maxOutputs,
                             IntPtr nOutputs, IntPtr outputs) {
    try {
      var record = (FunctionApply)GCHandle.FromIntPtr(user).Target;
      Tensor[] args = Wrap(inputs, nIn);
      record.ctx.Enter(nativeCtx);
      try {
        Tensor[] result = record.function.Forward(record.ctx, args);
        string where = record.function.Name + ".Forward";
        if (result == null || result.Length == 0) throw new InvalidOperationException(where + " returned no tensors");
        if (result.Length > maxOutputs)
          throw new InvalidOperationException(where + " returned " + result.Length + " tensors (at most " + maxOutputs + ")");
        for (int i = 0; i < result.Length; ++i)
          if (result[i] == null) throw new InvalidOperationException(where + " returned null as output " + i);
        HandOver(result, where, outputs);
        Marshal.WriteInt64(nOutputs, result.Length);
        return (int)Status.Ok;
      } finally {
        record.ctx.Leave();
        Dispose(args);
      }
    } catch (Exception e) {
      return Failed(e);
    }
  }

  static int BackwardCallback(IntPtr user, IntPtr nativeCtx, long nGrads, IntPtr grads, long nInputs,
                              IntPtr gradInputs) {
    try {
      var record = (FunctionApply)GCHandle.FromIntPtr(user).Target;
      Tensor[] gradOutputs = Wrap(grads, nGrads);
      record.ctx.Enter(nativeCtx);
      try {
        Tensor[] result = record.function.Backward(record.ctx, gradOutputs);
        string name = record.function.Name + "Backward";
        int got = result == null ? 0 : result.Length;
        if (got != record.nInputs || got != nInputs)
          throw new InvalidOperationException("function " + name + " returned an incorrect number of gradients (expected " +
                                              record.nInputs + ", got " + got + ")");
        HandOver(result, name, gradInputs);
        return (int)Status.Ok;
      } finally {
        record.ctx.Leave();
        Dispose(gradOutputs);
      }
    } catch (Exception e) {
      return Failed(e);
    }
  }

  static void ReleaseCallback(IntPtr user) {
    GCHandle.FromIntPtr(user).Free();
    Interlocked.Decrement(ref live);
  }

  static int Failed(Exception e) {
    Status status = CallbackErrors.Keep(e, out string message);
    SetLastError((int)status, message);
    return (int)status;
  }

  /// <summary>The callback's tensors, each owning a new reference; disposed
  /// when it returns.</summary>
  static Tensor[] Wrap(IntPtr array, long n) {
    var tensors = new Tensor[n];
    for (long i = 0; i < n; ++i) {
      IntPtr t = Marshal.ReadIntPtr(array, (int)(i * IntPtr.Size));
      if (t != IntPtr.Zero) tensors[i] = new Tensor(TensorRetain(t), true);
    }
    return tensors;
  }

  static void Dispose(Tensor[] tensors) {
    foreach (Tensor t in tensors) t?.Dispose();
  }

  /// <summary>Writes a new reference per tensor (zero for null) into the C
  /// slots, once every tensor is known usable, then disposes the objects: a
  /// callback hands its results over, as a C callback returns new
  /// references, so they never wait for a finalizer holding the graph.</summary>
  static void HandOver(Tensor[] tensors, string where, IntPtr slots) {
    var handles = new IntPtr[tensors.Length];
    for (int i = 0; i < tensors.Length; ++i) {
      if (tensors[i] == null) continue;
      handles[i] = Tensor.getCPtr(tensors[i]).Handle;
      if (handles[i] == IntPtr.Zero) throw new InvalidOperationException(where + " returned a disposed tensor at " + i);
    }
    for (int i = 0; i < handles.Length; ++i) {
      if (handles[i] != IntPtr.Zero) TensorRetain(handles[i]);
      Marshal.WriteIntPtr(slots, i * IntPtr.Size, handles[i]);
    }
    Dispose(tensors);
  }

  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionRegister")]
  static extern void FunctionRegister(ForwardNative forward, BackwardNative backward, ReleaseNative release);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_FunctionApply")]
  static extern int FunctionApplyNative([MarshalAs(UnmanagedType.LPUTF8Str)] string name, IntPtr record, long nInputs,
                                        IntPtr[] inputs, long maxOutputs, out long nOutputs, [Out] IntPtr[] outputs);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_TensorRetain")]
  static extern IntPtr TensorRetain(IntPtr tensor);
  [DllImport(Lib, EntryPoint = "TesseraCSharp_SetLastError")]
  static extern void SetLastError(int status, [MarshalAs(UnmanagedType.LPUTF8Str)] string message);
}

}
