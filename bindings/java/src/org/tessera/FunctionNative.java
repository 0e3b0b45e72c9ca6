package org.tessera;

/**
 * The JNI side of custom functions (bindings/java/java_function.i): hand-written natives, since
 * tensors cross as raw tsr_tensor* values in long[] and the per-apply record is a plain Java object.
 * Failures throw TesseraException, or the exception a callback threw.
 */
final class FunctionNative {
  static {
    NativeLoader.load();
    init();
  }

  private FunctionNative() {}

  /** Caches FunctionApply's methods for the C callbacks. */
  private static native void init();

  /** tsr_tensor_retain: a new reference to tensor, returned as is. */
  static native long retain(long tensor);

  /** Records the library still holds (applied, not yet released). */
  static native long liveRecords();

  /** tsr_function_apply with record's callbacks: new references to the outputs. */
  static native long[] apply(FunctionApply record, byte[] name, long[] inputs);

  static native void saveForBackward(long ctx, long[] tensors);

  /** New references to the saved tensors (0 for a null entry). */
  static native long[] savedTensors(long ctx);

  static native boolean needsInputGrad(long ctx, long index);

  /** mark_dirty (dirty) or mark_non_differentiable. */
  static native void mark(long ctx, boolean dirty, long[] tensors);

  static native void setMaterializeGrads(long ctx, boolean value);
}
