package org.tessera;

/**
 * A snapshot of one device's allocator statistics (tsr_memory_stats, torch.cuda.memory_stats()'s
 * "all" entries with the same names). An immutable Java value: nothing to close.
 */
public final class MemoryStats {
  private final MemoryStat allocation;
  private final MemoryStat segment;
  private final MemoryStat active;
  private final MemoryStat inactiveSplit;
  private final MemoryStat allocatedBytes;
  private final MemoryStat reservedBytes;
  private final MemoryStat activeBytes;
  private final MemoryStat inactiveSplitBytes;
  private final MemoryStat requestedBytes;
  private final long numAllocRetries;
  private final long numOoms;
  private final long numDeviceAlloc;
  private final long numDeviceFree;

  /** fields: the struct's int64 fields in declaration order, as java.i lays them out. */
  MemoryStats(long[] fields) {
    allocation = stat(fields, 0);
    segment = stat(fields, 1);
    active = stat(fields, 2);
    inactiveSplit = stat(fields, 3);
    allocatedBytes = stat(fields, 4);
    reservedBytes = stat(fields, 5);
    activeBytes = stat(fields, 6);
    inactiveSplitBytes = stat(fields, 7);
    requestedBytes = stat(fields, 8);
    numAllocRetries = fields[36];
    numOoms = fields[37];
    numDeviceAlloc = fields[38];
    numDeviceFree = fields[39];
  }

  private static MemoryStat stat(long[] f, int i) {
    return new MemoryStat(f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]);
  }

  /** Allocated blocks. */
  public MemoryStat allocation() {
    return allocation;
  }

  /** Segments held (obtained from the OS). */
  public MemoryStat segment() {
    return segment;
  }

  /** Blocks in use (equals allocation on CPU). */
  public MemoryStat active() {
    return active;
  }

  /** Free blocks inside segments that are partly in use. */
  public MemoryStat inactiveSplit() {
    return inactiveSplit;
  }

  /** Bytes of allocated blocks (rounded). */
  public MemoryStat allocatedBytes() {
    return allocatedBytes;
  }

  /** Bytes of segments held. */
  public MemoryStat reservedBytes() {
    return reservedBytes;
  }

  public MemoryStat activeBytes() {
    return activeBytes;
  }

  public MemoryStat inactiveSplitBytes() {
    return inactiveSplitBytes;
  }

  /** Bytes asked for, before rounding. */
  public MemoryStat requestedBytes() {
    return requestedBytes;
  }

  public long numAllocRetries() {
    return numAllocRetries;
  }

  public long numOoms() {
    return numOoms;
  }

  /** Segments obtained from the OS. */
  public long numDeviceAlloc() {
    return numDeviceAlloc;
  }

  public long numDeviceFree() {
    return numDeviceFree;
  }

  @Override
  public String toString() {
    return "MemoryStats{allocation=" + allocation + ", segment=" + segment + ", active=" + active
        + ", inactiveSplit=" + inactiveSplit + ", allocatedBytes=" + allocatedBytes
        + ", reservedBytes=" + reservedBytes + ", activeBytes=" + activeBytes
        + ", inactiveSplitBytes=" + inactiveSplitBytes + ", requestedBytes=" + requestedBytes
        + ", numAllocRetries=" + numAllocRetries + ", numOoms=" + numOoms + ", numDeviceAlloc="
        + numDeviceAlloc + ", numDeviceFree=" + numDeviceFree + "}";
  }
}
