// bench/bindings/csharp/CallBench.cs — the per-call cost of the C# binding:
// the five cases of bench/bindings/c/call_bench.c on a float32 [4, 4] tensor,
// the same protocol (median over 15 batches of 200,000 calls, monotonic clock
// Stopwatch), one line per case:
//   tessera-bench csharp CASE MEDIAN_NS
using System;
using System.Diagnostics;

namespace Tessera.Bench {

static class CallBench {
  const int Batches = 15, Calls = 200000;
  static Tensor subject;
  internal static long sink;   // keeps results observable

  static void View() {
    using (subject.Transpose(0, 1)) {}
  }
  static void Shape() { sink = subject.Sizes[0]; }
  static void Ndim() { sink = subject.Ndim; }
  static readonly long[] sizes = {4, 4};
  static void CreateRelease() {
    using (Tensor.Empty(sizes, DType.Float32)) {}
  }
  static readonly long[] badSizes = {7};
  static void Error() {
    try {
      subject.View(badSizes);
    } catch (TesseraException e) {
      sink = e.Message.Length;
    }
  }

  static void Measure(string name, Action call) {
    var perCall = new double[Batches];
    for (int i = 0; i < Calls / 10; ++i) call();   // JIT and caches warm
    for (int b = 0; b < Batches; ++b) {
      long start = Stopwatch.GetTimestamp();
      for (int i = 0; i < Calls; ++i) call();
      long ticks = Stopwatch.GetTimestamp() - start;
      perCall[b] = ticks * (1e9 / Stopwatch.Frequency) / Calls;
    }
    Array.Sort(perCall);
    Console.WriteLine(FormattableString.Invariant($"tessera-bench csharp {name} {perCall[Batches / 2]:F1}"));
  }

  static int Main() {
    if (!Stopwatch.IsHighResolution) Console.Error.WriteLine("CallBench: Stopwatch is not high-resolution");
    using (subject = Tensor.Empty(sizes, DType.Float32)) {
      Measure("view", View);
      Measure("shape", Shape);
      Measure("ndim", Ndim);
      Measure("create_release", CreateRelease);
      Measure("error", Error);
    }
    return 0;
  }
}

}
