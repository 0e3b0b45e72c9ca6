package org.tessera;

import java.lang.ref.Reference;
import java.util.HashMap;
import java.util.Map;

/**
 * torch's ctx of a custom {@link Function}: one per apply, the same object in forward and backward.
 * Its tensor methods work only while forward or backward runs (IllegalStateException otherwise);
 * {@link #state()} carries any other value from forward to backward.
 */
public final class FunctionContext {
  /** The native tsr_function_ctx of the callback running now; 0 between callbacks. */
  private long ctx;
  private final Map<String, Object> state = new HashMap<>();

  FunctionContext() {}

  void enter(long ctx) {
    this.ctx = ctx;
  }

  void leave() {
    ctx = 0;
  }

  private long live() {
    if (ctx == 0) throw new IllegalStateException("FunctionContext is used outside its forward or backward");
    return ctx;
  }

  /**
   * ctx.save_for_backward: keeps tensors (inputs, outputs or intermediates; null entries allowed)
   * for {@link #savedTensors()}, replacing an earlier call's. Forward only.
   */
  public void saveForBackward(Tensor... tensors) {
    long[] handles = handles(tensors);
    FunctionNative.saveForBackward(live(), handles);
    Reference.reachabilityFence(tensors);
  }

  /**
   * ctx.saved_tensors: new tensors (close them) for what forward saved, in order. Backward only.
   *
   * @throws TesseraException ERR_AUTOGRAD when a saved input or output was modified in place since
   *     ("... modified by an inplace operation"), or freed by an earlier backward
   */
  public Tensor[] savedTensors() {
    long[] handles = FunctionNative.savedTensors(live());
    Tensor[] out = new Tensor[handles.length];
    for (int i = 0; i < handles.length; ++i) out[i] = handles[i] == 0 ? null : new Tensor(handles[i], true);
    return out;
  }

  /** ctx.needs_input_grad[index]: whether input index's gradient is wanted. */
  public boolean needsInputGrad(int index) {
    return FunctionNative.needsInputGrad(live(), index);
  }

  /**
   * ctx.mark_dirty: forward modified this input in place (one input, returned as output 0): its
   * version counter is bumped and the function recorded as an in-place op on it. Forward only.
   */
  public void markDirty(Tensor... tensors) {
    long[] handles = handles(tensors);
    FunctionNative.mark(live(), true, handles);
    Reference.reachabilityFence(tensors);
  }

  /** ctx.mark_non_differentiable: these outputs get no gradient. Forward only. */
  public void markNonDifferentiable(Tensor... tensors) {
    long[] handles = handles(tensors);
    FunctionNative.mark(live(), false, handles);
    Reference.reachabilityFence(tensors);
  }

  /**
   * ctx.set_materialize_grads: with false, backward gets null instead of zeros for outputs whose
   * gradient was never computed. Forward only.
   */
  public void setMaterializeGrads(boolean value) {
    FunctionNative.setMaterializeGrads(live(), value);
  }

  /** Values forward leaves for backward (torch's ctx attributes), valid for the whole apply. */
  public Map<String, Object> state() {
    return state;
  }

  /** The tsr_tensor* of each tensor (0 for null); a closed one is refused. */
  static long[] handles(Tensor[] tensors) {
    if (tensors == null) throw new NullPointerException("tensors is null");
    long[] out = new long[tensors.length];
    for (int i = 0; i < tensors.length; ++i) {
      if (tensors[i] == null) continue;
      out[i] = Tensor.getCPtr(tensors[i]);
      if (out[i] == 0) throw new TesseraException(Status.ERR_INVALID_ARGUMENT, "tensor " + i + " is closed");
    }
    return out;
  }
}
