package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.fail;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.tessera.DType;
import org.tessera.DdpCommHook;
import org.tessera.DistBackend;
import org.tessera.DistributedDataParallel;
import org.tessera.ProcessGroup;
import org.tessera.Status;
import org.tessera.Tensor;

/**
 * DistributedDataParallel: two ranks in two JVMs (DdpWorker) averaging a linear layer's
 * gradients, and the options, the noSync() scope and the errors in a group of one.
 */
final class DdpTests {
  private DdpTests() {}

  static final long DEADLINE_S = 60;  // both ranks; a hang fails the test, never the suite

  static void register(AllTests.Registry r) {
    r.add("ddp: two ranks average a linear layer's gradients; noSync keeps them local", DdpTests::twoRanks);
    r.add("ddp: options, buckets, noSync scope in a group of one", DdpTests::groupOfOne);
    r.add("ddp: errors as TesseraException", DdpTests::errors);
  }

  static void twoRanks() throws Exception {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    String address = DistributedTests.freeAddress();
    List<Process> procs = new ArrayList<>();
    try {
      for (int rank = 0; rank < DdpWorker.WORLD; ++rank) {
        procs.add(new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
            DdpWorker.class.getName(), address, Integer.toString(rank))
            .redirectErrorStream(true).start());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
      for (int rank = 0; rank < procs.size(); ++rank) {
        Process p = procs.get(rank);
        long left = deadline - System.nanoTime();
        if (!p.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
          fail("rank " + rank + " did not finish within " + DEADLINE_S + " s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        equal(0L, p.exitValue(), "rank " + rank + " exit status; its output:\n" + out);
        isTrue(out.contains("ddp rank " + rank + " ok"), "rank " + rank + " output:\n" + out);
      }
    } finally {
      for (Process p : procs) p.destroyForcibly();
    }
  }

  static void groupOfOne() throws Exception {
    try (ProcessGroup pg = ProcessGroup.init(DistributedTests.freeAddress(), 0, 1);
        Tensor w = DdpWorker.leaf(DdpWorker.initial(0, 6), 2, 3);
        Tensor b = DdpWorker.leaf(DdpWorker.initial(0, 2), 2);
        DistributedDataParallel ddp = DistributedDataParallel.create(pg, List.of(w, b),
            new DistributedDataParallel.Options().bucketCapMb(1).findUnusedParameters(true)
                .gradientAsBucketView(false).commHook(DdpCommHook.DDP_ALLREDUCE))) {
      equal(2L, ddp.numParams(), "numParams");
      ddp.setParamNames(List.of("linear.weight", "linear.bias"));
      List<long[]> buckets = ddp.bucketIndices();
      equal(1L, buckets.size(), "one bucket under 1 MiB");
      equal(new long[] {0, 1}, buckets.get(0), "the bucket's parameters");
      try (DistributedDataParallel.NoSync outer = ddp.noSync()) {
        try (DistributedDataParallel.NoSync inner = ddp.noSync()) {
          isTrue(!ddp.requireSync(), "no sync inside the scopes");
        }
        isTrue(!ddp.requireSync(), "an inner scope restores the outer one's setting (torch's no_sync)");
      }
      isTrue(ddp.requireSync(), "sync again after the outer scope");
      double[] want = DdpWorker.localGradients(0);
      try (DistributedDataParallel.NoSync s = ddp.noSync()) {
        DdpWorker.backward(w, b, 0);
        s.close();
        s.close();  // idempotent
      }
      close(want, DdpWorker.concat(w, b), DdpWorker.TOLERANCE, "a group of one's gradients are its own");
      DdpWorker.backward(w, b, 0);
      close(DdpWorker.combine(want, want, 1.0), DdpWorker.concat(w, b), DdpWorker.TOLERANCE, "accumulated");
    }
  }

  static void errors() throws Exception {
    try (ProcessGroup pg = ProcessGroup.init(DistributedTests.freeAddress(), 0, 1);
        Tensor w = DdpWorker.leaf(new double[] {1, 2}, 2);
        Tensor frozen = Tensor.fromFloat64(new double[] {1, 2}, new long[] {2}, DType.FLOAT32)) {
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> DistributedDataParallel.create(pg, List.of()), "no parameters");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> DistributedDataParallel.create(pg, List.of(frozen)),
          "a parameter that does not require grad");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> DistributedDataParallel.create(pg, List.of(w, w)),
          "a parameter twice");
      throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> DistributedDataParallel.create(pg, List.of(w), new DistributedDataParallel.Options().bucketCapMb(0)),
          "bucketCapMb 0");
      DistributedDataParallel ddp = DistributedDataParallel.create(pg, List.of(w),
          new DistributedDataParallel.Options().commHook(DdpCommHook.DDP_BF16_COMPRESS));
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> ddp.registerCommHook(DdpCommHook.DDP_FP16_COMPRESS),
          "a second comm hook");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> ddp.setParamNames(List.of("a", "b")), "two names for one");
      ddp.close();
      ddp.close();  // idempotent
      isTrue(ddp.isClosed(), "isClosed");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> ddp.setRequireSync(false), "a closed reducer");
      pg.close();
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> DistributedDataParallel.create(pg, List.of(w)), "a closed group");
    }
  }
}
