// TensorBackpressure — keeps tensors that are dropped without Dispose from
// piling up faster than the finalizer releases them.
//
// The collector sees a Tensor proxy as a few dozen bytes, not the native
// tensor behind it, and one finalizer thread releases what a loop creates: a
// loop that drops [4,4] tensors without disposing them outruns it, and native
// memory grew without bound (measured on mono 6.8: +100 MiB per million
// tensors, linearly). So the proxies count the references they own and have
// not released yet; when the count passes a threshold, the creating thread
// collects and waits for the finalizer to catch up, as .NET's HandleCollector
// does for OS handles. The threshold adapts: tensors still alive after the
// wait are ones the program holds, and the next wait comes only once that
// many again have been created (threshold = twice the survivors), so holding
// many tensors costs one wait per doubling.
//
// GC.AddMemoryPressure instead was measured with the million-tensor test
// (LifetimeTests, mono 6.8): charging each [4,4] tensor its 512-byte block
// left 62 MiB of tensor memory live at the peak against a 64 MiB bound
// (resident +107 MiB); charging 4096 bytes, 35 MiB; its real 64 bytes would
// not hold at all. Pressure makes collections come sooner but never makes
// the creating thread wait for the finalizer; this counter gives 20 MiB.
//
// Dispose() never waits and keeps the count low: it is the way to go in loops.
using System;
using System.Threading;

namespace Tessera {

internal static class TensorBackpressure {
  // 50,000 [4,4] float32 tensors hold about 25 MiB of blocks plus handles.
  const long InitialThreshold = 50000;

  static long owned;   // references held by proxies, not yet released
  static long threshold = InitialThreshold;
  static readonly object relieving = new object();

  internal static void Created() {
    if (Interlocked.Increment(ref owned) > Volatile.Read(ref threshold)) Relieve();
  }

  internal static void Released() {
    Interlocked.Decrement(ref owned);
  }

  static void Relieve() {
    lock (relieving) {
      if (Volatile.Read(ref owned) <= Volatile.Read(ref threshold)) return;   // another thread did it
      // Dropped proxies are queued for finalization only once a collection
      // finds them unreachable; then the wait lets the finalizer release them.
      GC.Collect();
      GC.WaitForPendingFinalizers();
      Volatile.Write(ref threshold, Math.Max(InitialThreshold, 2 * Volatile.Read(ref owned)));
    }
  }
}

}
