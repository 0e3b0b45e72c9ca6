// The allocator's statistics (torch.cuda.memory_stats names) through C#.
namespace Tessera.Tests {

public static class MemoryStatsTests {
  [Test]
  public static void StatsFieldsPresentAndMoving() {
    // Exact counts below: no finalizer of an earlier test's garbage may
    // release a tensor in the middle.
    Check.DrainFinalizers();
    long allocatedBefore = Tessera.MemoryAllocated();
    using (MemoryStats before = Tessera.MemoryStats())
    using (var big = Tensor.Empty(new long[] {1000}))   // 4000 B -> a 4096 B block
    using (MemoryStats during = Tessera.MemoryStats()) {
      Check.Equal(allocatedBefore + 4096, Tessera.MemoryAllocated(), "memory_allocated counts the block");
      Check.Equal(before.AllocatedBytes.Current + 4096, during.AllocatedBytes.Current, "allocated_bytes.current");
      Check.Equal(before.Allocation.Current + 1, during.Allocation.Current, "allocation.current");
      Check.Equal(before.RequestedBytes.Current + 4000, during.RequestedBytes.Current, "requested_bytes.current");
      Check.True(during.AllocatedBytes.Peak >= during.AllocatedBytes.Current, "peak >= current");
      Check.True(during.ReservedBytes.Current >= during.AllocatedBytes.Current, "reserved >= allocated");
      Check.Equal(during.ReservedBytes.Current, Tessera.MemoryReserved(), "memory_reserved");
      Check.True(during.Segment.Current >= 1 && during.NumDeviceAlloc >= 1, "segments");
      Check.True(during.NumOoms >= 0 && during.NumAllocRetries >= 0 && during.NumDeviceFree >= 0, "counters");
      Check.True(during.Active.Current == during.Allocation.Current, "active equals allocation on CPU");
      Check.True(during.InactiveSplit.Current >= 0 && during.InactiveSplitBytes.Current >= 0 &&
                 during.ActiveBytes.Current >= 0, "split stats");
      Check.True(during.AllocatedBytes.Allocated >= during.AllocatedBytes.Freed, "allocated >= freed");
      Check.True(Tessera.MaxMemoryAllocated() >= Tessera.MemoryAllocated(), "max_memory_allocated");
      Check.True(Tessera.MaxMemoryReserved() >= Tessera.MemoryReserved(), "max_memory_reserved");
    }
    Check.Equal(allocatedBefore, Tessera.MemoryAllocated(), "block freed by Dispose");
    Check.Equal(0L, Tessera.MemoryLimit(), "no limit by default");
    Tessera.SetMemoryLimit(1 << 30);
    Check.Equal(1L << 30, Tessera.MemoryLimit(), "limit set");
    Tessera.SetMemoryLimit(0);
    Tessera.ResetPeakMemoryStats();
    Tessera.ResetAccumulatedMemoryStats();
    Tessera.EmptyCache();
    Check.Throws(Status.Unsupported, () => Tessera.MemoryAllocated(DeviceType.Cuda), "CUDA in a CPU build");
  }

  [Test]
  public static void StatOutlivesItsSnapshot() {
    MemoryStat collected = Tessera.MemoryStats().AllocatedBytes;   // the snapshot is garbage now
    System.GC.Collect();
    System.GC.WaitForPendingFinalizers();
    Check.True(collected.Current >= 0 && collected.Peak >= collected.Current, "a stat is a copy");
    MemoryStat disposed;
    var stats = Tessera.MemoryStats();
    using (stats) disposed = stats.ReservedBytes;
    Check.True(disposed.Current >= 0 && disposed.Peak >= disposed.Current, "after its snapshot was disposed");
    Check.Throws(Status.InvalidArgument, () => { var s = stats.Segment; }, "a disposed snapshot");
    Check.Throws(Status.InvalidArgument, () => { var n = stats.NumOoms; }, "a disposed snapshot's counter");
    disposed.Dispose();
    Check.Throws(Status.InvalidArgument, () => { var c = disposed.Current; }, "a disposed stat");
  }
}

}
