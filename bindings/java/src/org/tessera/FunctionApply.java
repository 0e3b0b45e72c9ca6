package org.tessera;

import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;

/**
 * One apply of a {@link Function}: what the library holds as user_data (a JNI global reference)
 * until the graph that may call backward is gone. java_function.i's C callbacks call {@link
 * #forward} and {@link #backward} with raw tsr_tensor* values; an exception thrown here reaches
 * the C callback, which keeps it for the caller and fails (it never unwinds through C).
 */
final class FunctionApply {
  private final Function function;
  private final FunctionContext ctx = new FunctionContext();
  private final int nInputs;

  private FunctionApply(Function function, int nInputs) {
    this.function = function;
    this.nInputs = nInputs;
  }

  /** Function.apply: runs forward through tsr_function_apply and wraps the outputs. */
  static Tensor[] run(Function function, Tensor[] inputs) {
    if (inputs == null) throw new NullPointerException("inputs is null");
    long[] handles = FunctionContext.handles(inputs);
    FunctionApply record = new FunctionApply(function, inputs.length);
    long[] outputs = FunctionNative.apply(record, Utf8.encode(function.name()), handles);
    Reference.reachabilityFence(inputs);
    Tensor[] out = new Tensor[outputs.length];
    for (int i = 0; i < outputs.length; ++i) out[i] = new Tensor(outputs[i], true);
    return out;
  }

  /** Called from C: forward on wrapped inputs; new references to at most maxOutputs outputs. */
  long[] forward(long nativeCtx, long[] inputs, int maxOutputs) {
    Tensor[] args = wrap(inputs);
    ctx.enter(nativeCtx);
    try {
      Tensor[] outputs = function.forward(ctx, args);
      String where = function.name() + ".forward";
      if (outputs == null || outputs.length == 0) throw new IllegalStateException(where + " returned no tensors");
      if (outputs.length > maxOutputs) {
        throw new IllegalStateException(where + " returned " + outputs.length + " tensors (at most " + maxOutputs + ")");
      }
      for (int i = 0; i < outputs.length; ++i) {
        if (outputs[i] == null) throw new IllegalStateException(where + " returned null as output " + i);
      }
      return retain(outputs, where);
    } finally {
      ctx.leave();
      close(args);
    }
  }

  /** Called from C: backward on wrapped gradients; a new reference (or 0) per input. */
  long[] backward(long nativeCtx, long[] gradOutputs, int inputs) {
    Tensor[] grads = wrap(gradOutputs);
    ctx.enter(nativeCtx);
    try {
      Tensor[] result = function.backward(ctx, grads);
      String name = function.name() + "Backward";
      int got = result == null ? 0 : result.length;
      if (got != nInputs || got != inputs) {
        throw new IllegalStateException("function " + name + " returned an incorrect number of gradients (expected "
            + nInputs + ", got " + got + ")");
      }
      return retain(result, name);
    } finally {
      ctx.leave();
      close(grads);
    }
  }

  /**
   * The callbacks' tensors as Tensor objects owning a new reference each: they are closed when the
   * callback returns (keep one with saveForBackward, or return it).
   */
  private static Tensor[] wrap(long[] handles) {
    Tensor[] out = new Tensor[handles.length];
    for (int i = 0; i < handles.length; ++i) {
      if (handles[i] != 0) out[i] = new Tensor(FunctionNative.retain(handles[i]), true);
    }
    return out;
  }

  private static void close(Tensor[] tensors) {
    for (Tensor t : tensors) {
      if (t != null) t.close();
    }
  }

  /**
   * New references for the C slots (0 for null), taken only once every tensor is known usable. The
   * Tensor objects are then closed: a callback hands its results over, as a C callback returns new
   * references, so they never wait for the Cleaner while holding the graph (and this record).
   */
  private static long[] retain(Tensor[] tensors, String where) {
    long[] handles = new long[tensors.length];
    for (int i = 0; i < tensors.length; ++i) {
      if (tensors[i] == null) continue;
      handles[i] = Tensor.getCPtr(tensors[i]);
      if (handles[i] == 0) throw new IllegalStateException(where + " returned a closed tensor at " + i);
    }
    for (long h : handles) {
      if (h != 0) FunctionNative.retain(h);
    }
    close(tensors);
    return handles;
  }

  /** Called from C: the status recorded for a callback's exception. */
  static int failureStatus(Throwable error) {
    if (error instanceof TesseraException) return ((TesseraException) error).status().swigValue();
    return Status.ERR_INVALID_ARGUMENT.swigValue();
  }

  /** Called from C: the message recorded for it (a TesseraException's own, else toString()). */
  static byte[] failureMessage(Throwable error) {
    String text = error instanceof TesseraException ? error.getMessage() : error.toString();
    return (text == null ? "" : text).getBytes(StandardCharsets.UTF_8);
  }
}
