/* bindings/python/python_distributed.i — Python part of bindings/distributed.i:
 * a wait that Ctrl-C interrupts. Included by distributed.i before its
 * declarations (the helpers below must precede the generated wrappers).
 *
 * A blocking call holds no GIL, but Python runs its signal handlers only
 * between bytecodes, so a collective stuck on a hung peer would ignore
 * Ctrl-C until the group's timeout (30 minutes by default; torch 1.13 does
 * the same). The package's collectives on the main thread therefore queue
 * the work and wait here: completion is polled without the GIL (a few
 * yields, then sleeps of 100 µs, 5 ms after the first 100 ms), and Python's
 * signal handlers run every 100 ms. When one raises (KeyboardInterrupt),
 * the group's flight recorder is printed (a wait of 1 ms that times out)
 * and the exception propagates. Gloo cannot cancel the collective in
 * flight: it goes on in the group's worker thread until its timeout, and
 * the group's last release would join that thread, so the package
 * abandons the group (one reference never released) and the exit does not
 * wait. The process's exit closes its connections, so the peers fail with
 * DistBackendError instead of hanging. */

%{
#include <sched.h>
#include <time.h>

static double tsr_py_seconds_since(const struct timespec* start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}
%}

%extend TsrProcessGroup {
  /* One more reference, never released: the group outlives the process's
   * Python objects, so no release joins its worker thread (after a Ctrl-C,
   * see above). */
  void abandon() { tsr_process_group_retain($self); }
}

%extend TsrWork {
  /* wait() with the group's timeout, interruptible by Python's signal
   * handlers (see above). None, or raises the collective's failure or the
   * handler's exception. */
  PyObject* wait_interruptible() {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int done = 0;
    int spins = 0;
    for (;;) {
      Py_BEGIN_ALLOW_THREADS
      const double slice_end = tsr_py_seconds_since(&start) + 0.1;
      for (;;) {
        if (tsr_work_is_completed($self)) {
          done = 1;
          break;
        }
        const double waited = tsr_py_seconds_since(&start);
        if (waited >= slice_end) break;
        if (spins < 64) {
          ++spins;
          sched_yield();
        } else {
          const struct timespec pause = {0, waited < 0.1 ? 100000L : 5000000L};
          nanosleep(&pause, NULL);
        }
      }
      Py_END_ALLOW_THREADS
      if (done) break;
      if (PyErr_CheckSignals() < 0) {
        /* The flight recorder on stderr; the wait's own failure is not the
         * exception to raise. */
        Py_BEGIN_ALLOW_THREADS
        tsr_work_wait($self, 1);
        Py_END_ALLOW_THREADS
        tsr_clear_last_error();
        return NULL;
      }
    }
    tsr_status status;
    TSR_BLOCKING(status = tsr_work_wait($self, -1)); /* complete: its status at once */
    if (status != TSR_OK) return NULL;                /* raised by the error bracket */
    Py_RETURN_NONE;
  }
}
