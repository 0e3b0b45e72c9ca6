package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.net.ServerSocket;
import org.tessera.DType;
import org.tessera.DistBackend;
import org.tessera.ProcessGroup;
import org.tessera.ReduceOp;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Work;

/**
 * Process groups (torch.distributed) in a group of one: tcp:// on a free port of 127.0.0.1. The
 * collectives across processes are tested in C (tests/test_distributed.c) and Python
 * (bindings/python/tests/test_distributed.py, against torch 1.13's Gloo).
 */
final class DistributedTests {
  private DistributedTests() {}

  static void register(AllTests.Registry r) {
    r.add("distributed: a group of one reduces, broadcasts, gathers, waits", DistributedTests::groupOfOne);
    r.add("distributed: torch's errors as TesseraException", DistributedTests::errors);
    r.add("distributed: new_group, send/recv checks, bitwise ops", DistributedTests::subgroups);
  }

  static String freeAddress() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return "tcp://127.0.0.1:" + s.getLocalPort();
    }
  }

  static void groupOfOne() throws Exception {
    try (ProcessGroup pg = ProcessGroup.init(freeAddress(), 0, 1);
        Tensor t = Tensor.fromFloat64(new double[] {1, 2, 3, 4}, new long[] {2, 2}, DType.FLOAT32);
        Tensor v = t.t();
        Tensor out = Tensor.fromFloat64(new double[8], new long[] {2, 4}, DType.FLOAT32)) {
      equal(0, pg.rank(), "rank");
      equal(1, pg.size(), "world size");
      equal("gloo", pg.backend(), "backend");
      pg.allReduce(v);
      pg.allReduce(t, ReduceOp.REDUCE_MAX, false);
      close(new double[] {1, 2, 3, 4}, t.toFloat64(), 0, "all_reduce in a group of one");
      isTrue(pg.broadcast(t, 0, false) == null, "a blocking collective gives no Work");
      try (Work w = pg.allGatherIntoTensor(out.narrow(1, 0, 2), t, true)) {
        w.waitFor();
        isTrue(w.isCompleted(), "completed after waitFor");
      }
      close(new double[] {1, 2, 0, 0, 3, 4, 0, 0}, out.toFloat64(), 0, "all_gather_into_tensor into a strided view");
      pg.monitoredBarrier(1000, true);
      try (Work w = pg.barrier(true)) {
        w.waitFor(10_000);
      }
    }
  }

  static void errors() throws Exception {
    throwsStatus(Status.ERR_UNSUPPORTED, () -> ProcessGroup.init(DistBackend.DIST_NCCL, freeAddress(), 0, 1, 0),
        "the NCCL backend");
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> ProcessGroup.init(freeAddress(), 1, 1), "rank >= world size");
    throwsStatus(Status.ERR_DISTRIBUTED, () -> ProcessGroup.init(DistBackend.DIST_GLOO, freeAddress(), 1, 2, 300),
        "no store at the address");
    try (ProcessGroup pg = ProcessGroup.init(freeAddress(), 0, 1);
        Tensor t = Tensor.fromFloat64(new double[] {1, 2, 3}, new long[] {3}, DType.FLOAT32);
        Tensor small = Tensor.fromFloat64(new double[] {0, 0}, new long[] {2}, DType.FLOAT32)) {
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> pg.broadcast(t, 1, false), "a root outside the group");
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> pg.allGatherIntoTensor(small, t, false), "output size");
      pg.close();
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> pg.allReduce(t), "a closed group");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> pg.monitoredBarrier(0, false), "monitored_barrier of a closed group");
    }
  }

  static void subgroups() throws Exception {
    try (ProcessGroup pg = ProcessGroup.init(freeAddress(), 0, 1);
        ProcessGroup sub = pg.newGroup(new long[] {0}, false, 0);
        Tensor t = Tensor.fromFloat64(new double[] {6, 3}, new long[] {2}, DType.INT32);
        Tensor f = Tensor.fromFloat64(new double[] {1}, new long[] {1}, DType.FLOAT32)) {
      equal(1, sub.size(), "subgroup size");
      equal(0, sub.globalRank(0), "get_global_rank");
      sub.allReduce(t, ReduceOp.REDUCE_BXOR, false);
      close(new double[] {6, 3}, t.toFloat64(), 0, "BXOR in a group of one");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> pg.newGroup(new long[] {0, 1}, false, 0), "more ranks than pg");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> pg.send(t, 0, 0, false), "send to itself");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> pg.recv(t, 1, 0), "a source outside the group");
      throwsStatus(Status.ERR_DTYPE_MISMATCH, () -> pg.allReduce(f, ReduceOp.REDUCE_BAND, false), "BAND of floats");
    }
  }
}
