package org.tessera;

/**
 * A custom differentiable function, as torch.autograd.Function: subclass it with {@link #forward}
 * and {@link #backward}, then call {@link #apply}. The outputs' grad_fn is named "<name>Backward".
 *
 * <pre>{@code
 * final class Swish extends Function {
 *   public Tensor[] forward(FunctionContext ctx, Tensor... in) {
 *     ctx.saveForBackward(in[0]);
 *     try (Tensor s = in[0].sigmoid()) { return new Tensor[] {in[0].mul(s)}; }
 *   }
 *   public Tensor[] backward(FunctionContext ctx, Tensor... grad) {
 *     Tensor x = ctx.savedTensors()[0];
 *     ... return new Tensor[] {grad[0].mul(dydx)};
 *   }
 * }
 * Tensor y = new Swish().apply1(x);   // y.gradFnName(): "SwishBackward"
 * }</pre>
 *
 * <p>As torch's: forward runs with grad mode off; backward runs with the engine's grad mode (under
 * createGraph its ops record history). The Tensor objects the callbacks receive are closed when
 * they return: keep one for backward with {@link FunctionContext#saveForBackward}, other values
 * in {@link FunctionContext#state()} or fields. The tensors they return are handed over (closed
 * once the library holds its own reference, as a C callback returns new references): return a
 * tensor made for the purpose, or an input. An exception thrown in forward or backward reaches
 * the caller of apply (or of backward / Tessera.autogradGrad) as itself. Callbacks run on the
 * thread that applies, or that runs backward; inside a checkpoint region forward runs again
 * during backward. One Function object may be applied from several threads at once, as long as
 * its own fields allow it.
 */
public abstract class Function {
  /**
   * Computes the outputs (at least one, no null; handed over to the library) from the inputs, which
   * it must not keep.
   */
  public abstract Tensor[] forward(FunctionContext ctx, Tensor... inputs);

  /**
   * The vector-Jacobian product: one gradient per input of forward, in order (null for none; handed
   * over to the library),
   * each of that input's sizes, from one gradient per output (null for an output whose gradient
   * was never computed, with setMaterializeGrads(false)).
   */
  public abstract Tensor[] backward(FunctionContext ctx, Tensor... gradOutputs);

  /** The name of the function ("<name>Backward" for grad_fn): the class's simple name by default. */
  public String name() {
    String simple = getClass().getSimpleName();
    if (!simple.isEmpty()) return simple;
    String full = getClass().getName(); // an anonymous class: Outer$1
    return full.substring(full.lastIndexOf('.') + 1);
  }

  /**
   * torch.autograd.Function.apply: runs forward and, when an input requires grad (and grad mode is
   * on), records the function for backward. Inputs may be null (no tensor).
   *
   * @return new tensors (close them)
   * @throws TesseraException for bad outputs (a non-input marked dirty, ...) or ERR_AUTOGRAD for a
   *     leaf requiring grad marked dirty; or whatever forward threw, as itself
   */
  public final Tensor[] apply(Tensor... inputs) {
    return FunctionApply.run(this, inputs);
  }

  /** {@link #apply} for a function of one output: that output (any others are closed). */
  public final Tensor apply1(Tensor... inputs) {
    Tensor[] out = apply(inputs);
    for (int i = 1; i < out.length; ++i) out[i].close();
    return out[0];
  }

  /**
   * How many applies' records the library still holds (their graphs alive): a leak check, back to
   * its earlier value once those outputs and graphs are gone.
   */
  public static long liveRecords() {
    return FunctionNative.liveRecords();
  }
}
