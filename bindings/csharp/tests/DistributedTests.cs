// Process groups (torch.distributed) in a group of one: tcp:// on a free
// port of 127.0.0.1. The collectives across processes are tested in C
// (tests/test_distributed.c) and Python (bindings/python/tests/
// test_distributed.py, against torch 1.13's Gloo).
using System.Net;
using System.Net.Sockets;

namespace Tessera.Tests {

public static class DistributedTests {
  static string FreeAddress() {
    var listener = new TcpListener(IPAddress.Loopback, 0);
    listener.Start();
    int port = ((IPEndPoint)listener.LocalEndpoint).Port;
    listener.Stop();
    return "tcp://127.0.0.1:" + port;
  }

  internal static string FreeAddressForRanks() => FreeAddress();

  [Test]
  public static void GroupOfOneReducesBroadcastsGathersWaits() {
    using (var pg = ProcessGroup.Create(DistBackend.Gloo, FreeAddress(), 0, 1, 0))
    using (var t = Tensor.FromFloat64(new double[] {1, 2, 3, 4}, new long[] {2, 2}, DType.Float32))
    using (var v = t.T())
    using (var outp = Tensor.FromFloat64(new double[8], new long[] {2, 4}, DType.Float32))
    using (var half = outp.Narrow(1, 0, 2)) {
      Check.Equal(0, pg.Rank(), "rank");
      Check.Equal(1, pg.Size(), "world size");
      Check.Equal("gloo", pg.Backend(), "backend");
      Check.True(pg.AllReduce(v, ReduceOp.Sum, false) == null, "a blocking collective gives no Work");
      pg.Broadcast(t, 0, false);
      Check.Close(new double[] {1, 2, 3, 4}, t.ToFloat64(), 0, "all_reduce in a group of one");
      using (var w = pg.AllGatherIntoTensor(half, t, true)) {
        w.Wait(-1);
        Check.True(w.IsCompleted(), "completed after Wait");
      }
      Check.Close(new double[] {1, 2, 0, 0, 3, 4, 0, 0}, outp.ToFloat64(), 0,
                  "all_gather_into_tensor into a strided view");
      pg.MonitoredBarrier(1000, true);
      using (var w = pg.Barrier(true)) w.Wait(10000);
    }
  }

  [Test]
  public static void TorchsErrorsAsTesseraException() {
    Check.Throws(Status.Unsupported, () => ProcessGroup.Create(DistBackend.Nccl, FreeAddress(), 0, 1, 0),
                 "the NCCL backend");
    Check.Throws(Status.InvalidArgument, () => ProcessGroup.Create(DistBackend.Gloo, FreeAddress(), 1, 1, 0),
                 "rank >= world size");
    Check.Throws(Status.Distributed, () => ProcessGroup.Create(DistBackend.Gloo, FreeAddress(), 1, 2, 300),
                 "no store at the address");
    using (var pg = ProcessGroup.Create(DistBackend.Default, FreeAddress(), 0, 1, 0))
    using (var t = Tensor.FromFloat64(new double[] {1, 2, 3}, new long[] {3}, DType.Float32))
    using (var small = Tensor.FromFloat64(new double[] {0, 0}, new long[] {2}, DType.Float32)) {
      Check.Throws(Status.InvalidArgument, () => pg.Broadcast(t, 1, false), "a root outside the group");
      Check.Throws(Status.ShapeMismatch, () => pg.AllGatherIntoTensor(small, t, false), "output size");
      pg.Dispose();
      Check.Throws(Status.InvalidArgument, () => pg.AllReduce(t, ReduceOp.Max, false), "a disposed group");
      Check.Throws(Status.InvalidArgument, () => pg.MonitoredBarrier(0, false), "monitored_barrier of a disposed group");
    }
  }
}

}
