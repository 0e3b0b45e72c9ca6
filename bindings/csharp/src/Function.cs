// Function — custom differentiable functions, as torch.autograd.Function.
using System;

namespace Tessera {

/// <summary>A custom differentiable function (torch.autograd.Function):
/// subclass it with <see cref="Forward"/> and <see cref="Backward"/>, then
/// call <see cref="Apply"/>. The outputs' GradFnName is "&lt;Name&gt;Backward".
/// As torch's: Forward runs with grad mode off; Backward with the engine's
/// (under createGraph its ops record history). The Tensor objects the
/// callbacks receive are disposed when they return (keep one for backward
/// with <see cref="FunctionContext.SaveForBackward"/>, other values in
/// <see cref="FunctionContext.State"/> or fields); the tensors they return are
/// handed over (disposed once the library holds its own reference). An
/// exception thrown in Forward or Backward reaches the caller of Apply (or of
/// Backward / Tessera.AutogradGrad) as itself. Callbacks run on the thread
/// that applies, or that runs backward; inside a checkpoint region Forward
/// runs again during backward.</summary>
public abstract class Function {
  /// <summary>The outputs (at least one, no null) from the inputs, which it
  /// must not keep.</summary>
  public abstract Tensor[] Forward(FunctionContext ctx, params Tensor[] inputs);

  /// <summary>The vector-Jacobian product: one gradient per input of
  /// Forward, in order (null for none), from one gradient per output (null
  /// for an output whose gradient was never computed, with
  /// SetMaterializeGrads(false)).</summary>
  public abstract Tensor[] Backward(FunctionContext ctx, params Tensor[] gradOutputs);

  /// <summary>"&lt;Name&gt;Backward" names grad_fn: the class's name by
  /// default.</summary>
  public virtual string Name => GetType().Name;

  /// <summary>torch.autograd.Function.apply: runs Forward and, when an input
  /// requires grad (and grad mode is on), records the function for backward.
  /// Inputs may be null (no tensor). Returns new tensors (dispose them).
  /// Throws TesseraException for bad outputs (a non-input marked dirty, ...)
  /// or Status.Autograd for a leaf requiring grad marked dirty; or whatever
  /// Forward threw, as itself.</summary>
  public Tensor[] Apply(params Tensor[] inputs) => FunctionApply.Run(this, inputs);

  /// <summary>Apply for a function of one output: that output (any others
  /// are disposed).</summary>
  public Tensor Apply1(params Tensor[] inputs) {
    Tensor[] outputs = Apply(inputs);
    for (int i = 1; i < outputs.Length; ++i) outputs[i].Dispose();
    return outputs[0];
  }

  /// <summary>How many applies' records the library still holds (their
  /// graphs alive): a leak check.</summary>
  public static long LiveRecords => FunctionApply.Live;
}

}
