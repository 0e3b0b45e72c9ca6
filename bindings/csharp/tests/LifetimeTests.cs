// Deterministic release (Dispose / using), release by the finalizer (each
// handle class's SafeHandle), use after Dispose as the library's error, and a
// million tensors never disposed.
using System;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Tessera.Tests {

public static class LifetimeTests {
  [Test]
  public static void UseAfterDisposeIsInvalidArgument() {
    var x = Tensor.Zeros(new long[] {2, 3});
    var other = Tensor.Zeros(new long[] {2, 3});
    x.Dispose();
    Check.True(x.IsDisposed, "IsDisposed");
    Check.Throws(Status.InvalidArgument, () => { var n = x.Ndim; }, "property after Dispose");
    Check.Throws(Status.InvalidArgument, () => { var s = x.Sizes; }, "array property after Dispose");
    Check.Throws(Status.InvalidArgument, () => x.Transpose(0, 1), "view after Dispose");
    Check.Throws(Status.InvalidArgument, () => x.ToFloat64(), "copy out after Dispose");
    Check.Throws(Status.InvalidArgument, () => other.Add(x), "a disposed argument");
    Check.Throws(Status.InvalidArgument, () => x.Backward(), "backward after Dispose");
    Check.Equal("tensor(disposed)", x.ToString(), "ToString after Dispose");
    x.Dispose();   // twice: nothing happens
    other.Dispose();
    other.Dispose();

    var list = new TensorList();
    list.Dispose();
    Check.Throws(Status.InvalidArgument, () => { var c = list.Count; }, "list after Dispose");
    list.Dispose();
    var g = new Generator(1);
    g.Dispose();
    Check.Throws(Status.InvalidArgument, () => Tensor.Rand(new long[] {2}, g), "disposed generator");
    Check.Throws(Status.InvalidArgument, () => g.ManualSeed(3), "seeding a disposed generator");
  }

  // Every handle class owns its native reference through a SafeHandle
  // subclass and declares no finalizer of its own (0.1: a HandleRef and
  // ~Tensor()), and Dispose closes that SafeHandle.
  [Test]
  public static void EveryHandleClassOwnsASafeHandle() {
    const BindingFlags hidden = BindingFlags.NonPublic | BindingFlags.Instance;
    foreach (Type t in new[] {typeof(Tensor), typeof(Storage), typeof(Generator), typeof(TensorMap),
                              typeof(TensorList), typeof(Optimizer), typeof(ProfilerResult),
                              typeof(MemoryStats), typeof(MemoryStat)}) {
      Type handle = t.GetNestedType("NativeHandle", BindingFlags.NonPublic);
      Check.True(handle != null && handle.IsSubclassOf(typeof(SafeHandle)), t.Name + ".NativeHandle is a SafeHandle");
      FieldInfo field = t.GetField("swigHandle", hidden);
      Check.True(field != null && field.FieldType == handle, t.Name + " holds its NativeHandle");
      Check.True(t.GetMethod("Finalize", hidden | BindingFlags.DeclaredOnly) == null, t.Name + " declares no finalizer");
    }
    var x = Tensor.Zeros(new long[] {2});
    var h = (SafeHandle)typeof(Tensor).GetField("swigHandle", hidden).GetValue(x);
    Check.True(!h.IsClosed && !h.IsInvalid, "a live tensor's SafeHandle is open");
    x.Dispose();
    Check.True(h.IsClosed, "Dispose closes the SafeHandle");
  }

  [Test]
  public static void MapAndStorageOutliveTheirSources() {
    string path = Path.GetTempFileName();
    try {
      using (var x = Tensor.Full(new long[] {4}, 1.25)) Tessera.Save(path, new[] {new System.Collections.Generic.KeyValuePair<string, Tensor>("x", x)});
      Tensor y;
      using (var map = Tessera.Load(path)) y = map["x"];
      Storage s;
      using (y) s = y.Storage();
      using (s) Check.Equal(16L, s.Nbytes, "storage alive after its tensor and map were disposed");
      Check.Throws(Status.InvalidArgument, () => { var n = s.Nbytes; }, "storage after Dispose");
      var map2 = Tessera.Load(path);
      map2.Dispose();
      Check.Throws(Status.InvalidArgument, () => { var c = map2.Count; }, "map after Dispose");
      Check.Throws(Status.InvalidArgument, () => { var t = map2["x"]; }, "map lookup after Dispose");
      Check.Throws(Status.InvalidArgument, () => { var m = map2.Metadata; }, "map metadata after Dispose");
      map2.Dispose();
    } finally {
      File.Delete(path);
    }
  }

  // /proc/self/statm's second field: resident pages.
  static long ResidentBytes() {
    string[] fields = File.ReadAllText("/proc/self/statm").Split(' ');
    return long.Parse(fields[1]) * Environment.SystemPageSize;
  }

  const int Tensors = 1000000;
  const long ResidentGrowthBound = 256L << 20;   // never disposed, all kept: > 1 GB
  const long AllocatedBound = 64L << 20;         // all kept: 512 MB of 512-byte blocks

  // mono scans stacks conservatively: a stale stack slot may keep a proxy or
  // two alive through a collection. Allowed: this many bytes of blocks.
  const long ConservativeScanSlack = 8 << 10;

  [Test]
  public static void MillionTensorsNeverDisposedStayBounded() {
    Check.DrainFinalizers();   // earlier tests' garbage out of the baseline
    long baseline = Tessera.MemoryAllocated();
    long residentBefore = ResidentBytes();
    long maxResident = residentBefore, maxAllocated = baseline;
    var sizes = new long[] {4, 4};
    for (int i = 1; i <= Tensors; ++i) {
      Tensor.Empty(sizes);   // dropped at once: only the finalizer releases it
      if (i % 20000 == 0) {
        maxResident = Math.Max(maxResident, ResidentBytes());
        maxAllocated = Math.Max(maxAllocated, Tessera.MemoryAllocated());
      }
    }
    Console.WriteLine($"      1,000,000 undisposed [4,4] tensors: resident +{(maxResident - residentBefore) >> 20} MiB at most, " +
                      $"tensor memory {(maxAllocated - baseline) >> 10} KiB at most above the start");
    Check.True(maxResident - residentBefore < ResidentGrowthBound,
               $"resident memory grew by {(maxResident - residentBefore) >> 20} MiB");
    Check.True(maxAllocated - baseline < AllocatedBound,
               $"allocated tensor memory grew by {(maxAllocated - baseline) >> 20} MiB");
    // Only to check that everything is released, not to keep memory bounded:
    Check.DrainFinalizers();
    long left = Tessera.MemoryAllocated() - baseline;
    Check.True(left <= ConservativeScanSlack, $"{left} bytes of dropped tensors still allocated after collection");
  }

  // Runs last (the runner orders it so): once the collector has finalized
  // every proxy that became garbage, no tensor memory is left allocated
  // (but for what a conservative stack scan keeps).
  [Test]
  public static void ZzEverythingFreedAtTheEnd() {
    long before = Tessera.MemoryAllocated();
    DropSomeTensors();
    Check.DrainFinalizers();
    long after = Tessera.MemoryAllocated();
    Console.WriteLine($"      tensor memory allocated: {before} bytes before the final collection, {after} after");
    Check.True(after <= ConservativeScanSlack, $"{after} bytes of tensor memory allocated after collecting every proxy");
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static void DropSomeTensors() {
    for (int i = 0; i < 100; ++i) Tensor.Ones(new long[] {64});
  }
}

}
