package org.tessera.tests;

import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;

import org.tessera.MemoryStat;
import org.tessera.MemoryStats;
import org.tessera.Tensor;
import org.tessera.Tessera;

/** The allocator's statistics: every field present and consistent with allocations. */
final class MemoryStatsTests {
  private MemoryStatsTests() {}

  static void register(AllTests.Registry r) {
    r.add("memory stats: fields present and consistent", MemoryStatsTests::fields);
    r.add("memory stats: follow an allocation and its release", MemoryStatsTests::followAllocation);
  }

  static void fields() {
    MemoryStats s = Tessera.memoryStats();
    MemoryStat[] stats = {
      s.allocation(), s.segment(), s.active(), s.inactiveSplit(), s.allocatedBytes(),
      s.reservedBytes(), s.activeBytes(), s.inactiveSplitBytes(), s.requestedBytes(),
    };
    for (MemoryStat st : stats) {
      isTrue(st != null, "stat present");
      isTrue(st.current() >= 0 && st.peak() >= st.current(), "0 <= current <= peak: " + st);
      isTrue(st.allocated() >= 0 && st.freed() >= 0, "sums non-negative: " + st);
    }
    isTrue(s.numAllocRetries() >= 0 && s.numOoms() >= 0, "event counts");
    isTrue(s.numDeviceAlloc() >= s.numDeviceFree(), "segments obtained >= returned");
    isTrue(s.reservedBytes().current() >= s.allocatedBytes().current(), "reserved >= allocated");
    equal(s.allocation().current(), s.active().current(), "CPU: active == allocation");
    equal(Tessera.memoryAllocated(), s.allocatedBytes().current(), "memoryAllocated == allocated_bytes.current");
    equal(Tessera.memoryReserved(), s.reservedBytes().current(), "memoryReserved == reserved_bytes.current");
    isTrue(s.toString().contains("allocatedBytes="), "toString lists the fields");
  }

  static void followAllocation() {
    Tessera.resetPeakMemoryStats();
    MemoryStats before = Tessera.memoryStats();
    equal(before.allocatedBytes().current(), before.allocatedBytes().peak(), "peak reset to current");
    try (Tensor t = Tessera.zeros(1 << 18)) { // 1 MiB of float32
      MemoryStats during = Tessera.memoryStats();
      isTrue(during.allocatedBytes().current() >= before.allocatedBytes().current() + (1 << 20),
          "allocated_bytes grew by 1 MiB");
      equal(before.allocation().current() + 1, during.allocation().current(), "one more block");
      isTrue(during.requestedBytes().current() - before.requestedBytes().current() == (1 << 20),
          "requested_bytes grew by exactly 1 MiB");
    }
    MemoryStats after = Tessera.memoryStats();
    equal(before.allocatedBytes().current(), after.allocatedBytes().current(), "back after close");
    isTrue(after.allocatedBytes().peak() >= before.allocatedBytes().current() + (1 << 20), "peak kept the MiB");
    isTrue(Tessera.maxMemoryAllocated() >= Tessera.memoryAllocated(), "max >= current");
  }
}
