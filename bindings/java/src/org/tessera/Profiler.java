package org.tessera;

/**
 * torch.profiler.profile: {@code start()} begins a session (one per process), {@code stop()} ends it
 * and returns its events as a {@link ProfilerResult} (close it, or leave it to the Cleaner):
 *
 * <pre>
 * Profiler.start(true, false);
 * ... forward, backward, optimizer steps ...
 * try (ProfilerResult r = Profiler.stop()) {
 *   System.out.println(r.table("cpu_time_total", 10));
 *   r.exportChromeTrace("trace.json");
 * }
 * </pre>
 */
public final class Profiler {
  private Profiler() {}

  /** Starts a session recording input shapes and/or allocated bytes per event. */
  public static void start(boolean recordShapes, boolean profileMemory) {
    NativeTessera.profiler_start(recordShapes, profileMemory);
  }

  public static void start() {
    start(false, false);
  }

  /** Ends the session (ERR_INVALID_ARGUMENT when none runs). */
  public static ProfilerResult stop() {
    return NativeTessera.profiler_stop();
  }
}
