package org.tessera.tests;

import static org.tessera.tests.Check.isTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.tessera.Tensor;
import org.tessera.Tessera;

/**
 * A million tensors dropped without close(): the Cleaner must release them as the collector finds
 * them, so tensor memory and the process's resident set stay bounded, and once the garbage is
 * collected every byte comes back. Run with -Xmx64m. Never released, the 512-byte blocks alone
 * would reach 512 MiB; left to heap pressure only (no NativeCleaner threshold), about 130 MiB
 * piled up here before the collector ran; with the threshold (32 MiB base) 30-60 MiB.
 */
final class UnclosedTensorsTest {
  static final int TENSORS = 1_000_000;
  /** Live tensor bytes allowed at any sample: under 1/5 of what a leak would reach. */
  static final long MAX_ALLOCATED = 96L << 20;
  /** Resident-set growth allowed over the start. */
  static final long MAX_RSS_GROWTH = 256L << 20;

  private UnclosedTensorsTest() {}

  static void register(AllTests.Registry r) {
    r.add("GC: 1,000,000 unclosed tensors stay bounded and are all released", UnclosedTensorsTest::run);
  }

  static long residentBytes() throws IOException {
    String[] statm = Files.readString(Paths.get("/proc/self/statm")).trim().split("\\s+");
    return Long.parseLong(statm[1]) * 4096L;
  }

  static void run() throws Exception {
    System.gc();
    long baseAllocated = Tessera.memoryAllocated();
    long baseRss = residentBytes();
    long maxAllocated = 0;
    long maxRss = 0;
    long[] sizes = {4, 4};
    long checksum = 0;
    for (int i = 0; i < TENSORS; ++i) {
      Tensor t = Tensor.empty(sizes); // never closed
      checksum += t.ndim();
      if (i % 10_000 == 0) {
        maxAllocated = Math.max(maxAllocated, Tessera.memoryAllocated() - baseAllocated);
        if (i % 100_000 == 0) maxRss = Math.max(maxRss, residentBytes() - baseRss);
      }
    }
    isTrue(checksum == 2L * TENSORS, "every tensor was usable");
    System.out.printf("      max tensor bytes live %.1f MiB, max RSS growth %.1f MiB%n",
        maxAllocated / 1048576.0, maxRss / 1048576.0);
    isTrue(maxAllocated < MAX_ALLOCATED, "tensor memory bounded: " + maxAllocated);
    isTrue(maxRss < MAX_RSS_GROWTH, "resident set bounded: grew " + maxRss);

    // Everything unreachable is released once collected and cleaned (another thread: poll).
    long deadline = System.nanoTime() + 20_000_000_000L;
    long left;
    do {
      System.gc();
      Thread.sleep(20);
      left = Tessera.memoryAllocated() - baseAllocated;
    } while (left > 0 && System.nanoTime() < deadline);
    isTrue(left <= 0, "all tensor memory released after GC, " + left + " bytes left");
  }
}
