package org.tessera;

/**
 * One tracked quantity of the allocator, as a stat in torch.cuda.memory_stats(): its value now,
 * its peak, and the sums of all increases and decreases since the last reset.
 */
public final class MemoryStat {
  private final long current;
  private final long peak;
  private final long allocated;
  private final long freed;

  MemoryStat(long current, long peak, long allocated, long freed) {
    this.current = current;
    this.peak = peak;
    this.allocated = allocated;
    this.freed = freed;
  }

  public long current() {
    return current;
  }

  public long peak() {
    return peak;
  }

  public long allocated() {
    return allocated;
  }

  public long freed() {
    return freed;
  }

  @Override
  public String toString() {
    return "{current=" + current + ", peak=" + peak + ", allocated=" + allocated + ", freed="
        + freed + "}";
  }
}
