package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import org.tessera.DType;
import org.tessera.Generator;
import org.tessera.Status;
import org.tessera.Storage;
import org.tessera.Tensor;
import org.tessera.TensorList;
import org.tessera.TensorMap;
import org.tessera.Tessera;

/** close(): releases at once, at most once; afterwards every call is the library's error. */
final class LifetimeTests {
  private LifetimeTests() {}

  static void register(AllTests.Registry r) {
    r.add("lifetime: close releases the memory at once", LifetimeTests::closeReleases);
    r.add("lifetime: use after close -> ERR_INVALID_ARGUMENT, no crash", LifetimeTests::useAfterClose);
    r.add("lifetime: a closed tensor as an argument -> ERR_INVALID_ARGUMENT", LifetimeTests::closedArgument);
    r.add("lifetime: double close is harmless", LifetimeTests::doubleClose);
    r.add("lifetime: other handle classes after close", LifetimeTests::otherHandles);
    r.add("lifetime: a view outlives its closed base", LifetimeTests::viewOutlivesBase);
    r.add("lifetime: close on another thread", LifetimeTests::closeOnAnotherThread);
  }

  static void closeReleases() {
    long before = Tessera.memoryAllocated();
    Tensor t = Tessera.zeros(256, 1024); // 1 MiB
    isTrue(Tessera.memoryAllocated() >= before + (1 << 20), "1 MiB allocated");
    t.close();
    equal(before, Tessera.memoryAllocated(), "released by close()");
    isTrue(t.isClosed(), "isClosed");
  }

  static void useAfterClose() {
    Tensor t = Tessera.ones(2, 2);
    t.close();
    Check.Action[] calls = {
      t::ndim, t::sizes, t::strides, t::numel, t::dtype, t::storageOffset, t::itemDouble,
      t::toFloat64, t::toBytes, t::storage, t::clone, t::contiguous, t::relu, t::t,
      t::isContiguous, t::requiresGrad, t::backward, t::detach, t::zero_,
      () -> t.view(new long[] {4}), () -> t.transpose(0, 1), () -> t.add(1.0),
      () -> t.setRequiresGrad(true), () -> t.getDouble(new long[] {0, 0}), () -> t.split(1),
      () -> t.fill_(3.0),
    };
    for (int i = 0; i < calls.length; ++i) {
      throwsStatus(Status.ERR_INVALID_ARGUMENT, calls[i], "call " + i + " on a closed tensor");
    }
    equal("tensor(<closed>)", t.toString(), "toString of a closed tensor does not throw");
  }

  static void closedArgument() {
    try (Tensor a = Tessera.ones(2)) {
      Tensor b = Tessera.ones(2);
      b.close();
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> a.add(b), "add(closed)");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> a.copy_(b), "copy_(closed)");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> a.sharesStorage(b), "sharesStorage(closed)");
      close(new double[] {1, 1}, a.toFloat64(), 0, "a untouched");
    }
  }

  static void doubleClose() {
    long before = Tessera.memoryAllocated();
    Tensor t = Tessera.zeros(1000);
    try (Tensor alias = t) {
      t.close();
    } // try-with-resources closes the same proxy again
    t.close();
    equal(before, Tessera.memoryAllocated(), "released exactly once");
    try (Tensor other = Tessera.zeros(1000)) {
      equal(1000, other.numel(), "the allocator still works");
    }
  }

  static void otherHandles() {
    Generator g = new Generator(1);
    g.close();
    g.close();
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> g.manualSeed(2), "manualSeed on a closed generator");
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.rand(g, 2), "rand with a closed generator");

    Storage s;
    try (Tensor t = Tessera.zeros(4)) {
      s = t.storage();
    }
    equal(16, s.nbytes(), "a storage keeps its memory after the tensor closed");
    s.close();
    throwsStatus(Status.ERR_INVALID_ARGUMENT, s::nbytes, "nbytes of a closed storage");

    TensorList list = new TensorList();
    list.close();
    throwsStatus(Status.ERR_INVALID_ARGUMENT, list::size, "size of a closed list");
    try (Tensor t = Tessera.zeros(1)) {
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> list.append(t, "t"), "append to a closed list");
    }

    TensorMap map = TensorMap.load(SaveLoadTests.writeSmallFile());
    map.close();
    throwsStatus(Status.ERR_INVALID_ARGUMENT, map::size, "size of a closed map");
    throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> map.get("w"), "get of a closed map");
  }

  static void viewOutlivesBase() {
    Tensor base = Tessera.arange(0, 6, 1, DType.FLOAT32);
    try (Tensor v = base.narrow(0, 2, 3)) {
      base.close();
      close(new double[] {2, 3, 4}, v.toFloat64(), 0, "view still reads the storage");
    }
  }

  static void closeOnAnotherThread() throws InterruptedException {
    long before = Tessera.memoryAllocated();
    Tensor t = Tessera.zeros(10000);
    Thread closer = new Thread(t::close);
    closer.start();
    closer.join();
    equal(before, Tessera.memoryAllocated(), "released from the other thread");
    throwsStatus(Status.ERR_INVALID_ARGUMENT, t::ndim, "closed for this thread too");
  }
}
