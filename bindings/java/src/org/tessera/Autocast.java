package org.tessera;

/**
 * An autocast region (torch.autocast, include/tessera/autocast.h): between {@link #begin} and
 * {@link #close()}, ops on the device type's tensors follow torch 1.13's mixed precision cast policy
 * (matmul, linear, conv2d in the lower precision; losses and the float32 list in float32). Use it
 * with try-with-resources:
 *
 * <pre>{@code
 * try (Autocast a = Autocast.begin(DeviceType.DEVICE_CPU, DType.BFLOAT16)) {
 *   Tensor y = model.forward(x);   // bfloat16 matmuls
 * }
 * }</pre>
 *
 * Regions belong to the thread that opened them and nest (an inner {@code begin(..., false)} turns
 * autocast off inside an enabled region); close them on that thread, innermost first. Closing twice
 * closes once. A region left open is not closed by the garbage collector: always close it.
 */
public final class Autocast implements AutoCloseable {
  private final Thread thread;
  private boolean closed;

  private Autocast(DeviceType deviceType, DType dtype, boolean enabled) {
    NativeTessera.autocast_begin(deviceType, dtype, enabled);
    thread = Thread.currentThread();
  }

  /** torch.autocast(deviceType, dtype): an enabled region. */
  public static Autocast begin(DeviceType deviceType, DType dtype) {
    return new Autocast(deviceType, dtype, true);
  }

  /** torch.autocast(deviceType, dtype, enabled). */
  public static Autocast begin(DeviceType deviceType, DType dtype, boolean enabled) {
    return new Autocast(deviceType, dtype, enabled);
  }

  /** Whether ops on deviceType's tensors are autocast on this thread now (torch.is_autocast_cpu_enabled). */
  public static boolean isEnabled(DeviceType deviceType) {
    return NativeTessera.is_autocast_enabled(deviceType);
  }

  /** The lower-precision dtype of deviceType's autocast on this thread (torch.get_autocast_cpu_dtype). */
  public static DType dtype(DeviceType deviceType) {
    return NativeTessera.get_autocast_dtype(deviceType);
  }

  /**
   * Ends the region the first time; later calls do nothing. Throws TesseraException(ERR_INVALID_ARGUMENT)
   * on another thread than the one that opened it (which stays open).
   */
  @Override
  public void close() {
    if (closed) return;
    if (Thread.currentThread() != thread) {
      throw new TesseraException(Status.ERR_INVALID_ARGUMENT,
          "an autocast region must be closed on the thread that opened it (" + thread.getName() + ")");
    }
    closed = true;
    NativeTessera.autocast_end();
  }
}
