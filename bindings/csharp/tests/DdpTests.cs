// DistributedDataParallel: two ranks in two mono processes (this test
// program run with --ddp-rank, DdpWorker below) averaging a linear layer's
// gradients, and the options, the NoSync scope and the errors in a group of
// one.
using System;
using System.Diagnostics;

namespace Tessera.Tests {

public static class DdpTests {
  const int DeadlineMs = 60000;  // both ranks; a hang fails the test, never the suite

  [Test]
  public static void TwoRanksAverageGradientsAndNoSyncKeepsThemLocal() {
    string exe = typeof(DdpTests).Assembly.Location;
    string address = DistributedTests.FreeAddressForRanks();
    var procs = new Process[DdpWorker.World];
    try {
      for (int rank = 0; rank < procs.Length; ++rank) {
        var info = new ProcessStartInfo("mono", $"--debug \"{exe}\" --ddp-rank {address} {rank}") {
          UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
        };
        procs[rank] = Process.Start(info);
      }
      var clock = Stopwatch.StartNew();
      for (int rank = 0; rank < procs.Length; ++rank) {
        var p = procs[rank];
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        int left = Math.Max(0, DeadlineMs - (int)clock.ElapsedMilliseconds);
        if (!p.WaitForExit(left)) throw new AssertionFailed($"rank {rank} did not finish within {DeadlineMs} ms");
        p.WaitForExit();
        string output = stdout.Result + stderr.Result;
        Check.Equal(0, p.ExitCode, $"rank {rank} exit status; its output:\n{output}");
        Check.True(output.Contains($"ddp rank {rank} ok"), $"rank {rank} output:\n{output}");
      }
    } finally {
      foreach (var p in procs) {
        if (p == null) continue;
        try { if (!p.HasExited) p.Kill(); } catch (InvalidOperationException) {}
        p.Dispose();
      }
    }
  }

  [Test]
  public static void OptionsBucketsAndNoSyncInAGroupOfOne() {
    using (var pg = ProcessGroup.Create(DistBackend.Gloo, DistributedTests.FreeAddressForRanks(), 0, 1, 0))
    using (var w = DdpWorker.Leaf(DdpWorker.Initial(0, 6), 2, 3))
    using (var b = DdpWorker.Leaf(DdpWorker.Initial(0, 2), 2))
    using (var ddp = DistributedDataParallel.Create(pg, new[] {w, b}, new DdpOptions {
             BucketCapMb = 1, FindUnusedParameters = true, GradientAsBucketView = false,
             CommHook = DdpCommHook.AllReduce})) {
      Check.Equal(2L, ddp.NumParams, "NumParams");
      ddp.SetParamNames(new[] {"linear.weight", "linear.bias"});
      long[][] buckets = ddp.BucketIndices();
      Check.Equal(1, buckets.Length, "one bucket under 1 MiB");
      Check.Equal(new long[] {0, 1}, buckets[0], "the bucket's parameters");
      using (ddp.NoSync()) {
        using (ddp.NoSync()) Check.True(!ddp.RequireSync, "no sync inside the scopes");
        Check.True(!ddp.RequireSync, "an inner scope restores the outer one's setting (torch's no_sync)");
      }
      Check.True(ddp.RequireSync, "sync again after the outer scope");
      double[] want = DdpWorker.LocalGradients(0);
      var scope = ddp.NoSync();
      using (scope) DdpWorker.Backward(w, b, 0);
      scope.Dispose();  // idempotent
      Check.Close(want, DdpWorker.Concat(w, b), DdpWorker.Tolerance, "a group of one's gradients are its own");
      DdpWorker.Backward(w, b, 0);
      Check.Close(DdpWorker.Combine(want, want, 1.0), DdpWorker.Concat(w, b), DdpWorker.Tolerance, "accumulated");
    }
  }

  [Test]
  public static void ErrorsAsTesseraException() {
    using (var pg = ProcessGroup.Create(DistBackend.Gloo, DistributedTests.FreeAddressForRanks(), 0, 1, 0))
    using (var w = DdpWorker.Leaf(new double[] {1, 2}, 2))
    using (var frozen = Tensor.FromFloat64(new double[] {1, 2}, new long[] {2}, DType.Float32)) {
      Check.Throws(Status.InvalidArgument, () => DistributedDataParallel.Create(pg, new Tensor[0]), "no parameters");
      Check.Throws(Status.InvalidArgument, () => DistributedDataParallel.Create(pg, new[] {frozen}),
                   "a parameter that does not require grad");
      Check.Throws(Status.InvalidArgument, () => DistributedDataParallel.Create(pg, new[] {w, w}), "a parameter twice");
      Check.Throws(Status.InvalidArgument, () => DistributedDataParallel.Create(pg, new[] {w}, new DdpOptions {
                     BucketCapMb = 0}), "BucketCapMb 0");
      var ddp = DistributedDataParallel.Create(pg, new[] {w}, new DdpOptions {CommHook = DdpCommHook.Bf16Compress});
      Check.Throws(Status.InvalidArgument, () => ddp.RegisterCommHook(DdpCommHook.Fp16Compress), "a second hook");
      Check.Throws(Status.InvalidArgument, () => ddp.SetParamNames(new[] {"a", "b"}), "two names for one");
      ddp.Dispose();
      ddp.Dispose();  // idempotent
      Check.Throws(Status.InvalidArgument, () => ddp.SetRequireSync(false), "a disposed reducer");
      pg.Dispose();
      Check.Throws(Status.InvalidArgument, () => DistributedDataParallel.Create(pg, new[] {w}), "a disposed group");
    }
  }
}

/// <summary>One rank of the two-process run: a linear layer (weight [2, 3],
/// bias [2] as leaf tensors) whose initial values differ per rank; DDP makes
/// them rank 0's, and a backward of the mean squared error on this rank's
/// batch leaves in .grad the average of both ranks' gradients, which this
/// process computes itself on copies without DDP. Inside NoSync the
/// gradients stay local; the next backward averages what was accumulated.
/// Prints "ddp rank R ok"; a failure exits non-zero.</summary>
public static class DdpWorker {
  public const int World = 2;
  public const double Tolerance = 1e-12;

  public static double[] Initial(int rank, int n) {
    var v = new double[n];
    for (int i = 0; i < n; ++i) v[i] = 0.125 * (i + 1) * (rank == 0 ? 1 : -3) + rank;
    return v;
  }

  static Tensor BatchX(int rank) {
    var v = new double[12];
    for (int i = 0; i < 12; ++i) v[i] = 0.25 * ((i * 7 + rank * 5) % 11) - 1;
    return Tensor.FromFloat64(v, new long[] {4, 3}, DType.Float64);
  }

  static Tensor BatchY(int rank) {
    var v = new double[8];
    for (int i = 0; i < 8; ++i) v[i] = 0.5 * ((i * 3 + rank) % 5) - 1;
    return Tensor.FromFloat64(v, new long[] {4, 2}, DType.Float64);
  }

  public static Tensor Leaf(double[] values, params long[] sizes) {
    var t = Tensor.FromFloat64(values, sizes, DType.Float64);
    t.RequiresGrad = true;
    return t;
  }

  /// <summary>mse(x @ w.T + b, y) on rank r's batch, then backward.</summary>
  public static void Backward(Tensor w, Tensor b, int rank) {
    using (var x = BatchX(rank))
    using (var y = BatchY(rank))
    using (var wt = w.T())
    using (var xw = x.Matmul(wt))
    using (var pred = xw + b)
    using (var diff = pred - y)
    using (var sq = diff * diff)
    using (var loss = sq.Mean(new long[0]))
      loss.Backward();
  }

  public static double[] Concat(Tensor w, Tensor b) {
    using (var gw = w.Grad())
    using (var gb = b.Grad()) {
      double[] a = gw.ToFloat64(), c = gb.ToFloat64();
      var all = new double[a.Length + c.Length];
      a.CopyTo(all, 0);
      c.CopyTo(all, a.Length);
      return all;
    }
  }

  /// <summary>Rank r's gradients of rank 0's initial parameters, without DDP.</summary>
  public static double[] LocalGradients(int rank) {
    using (var w = Leaf(Initial(0, 6), 2, 3))
    using (var b = Leaf(Initial(0, 2), 2)) {
      Backward(w, b, rank);
      return Concat(w, b);
    }
  }

  public static double[] Combine(double[] a, double[] b, double scale) {
    var all = new double[a.Length];
    for (int i = 0; i < a.Length; ++i) all[i] = (a[i] + b[i]) * scale;
    return all;
  }

  public static int Run(string address, int rank) {
    double[] g0 = LocalGradients(0), g1 = LocalGradients(1);
    double[] mine = rank == 0 ? g0 : g1;
    Check.True(!System.Linq.Enumerable.SequenceEqual(g0, g1), "the ranks' batches give different gradients");
    using (var w = Leaf(Initial(rank, 6), 2, 3))
    using (var b = Leaf(Initial(rank, 2), 2)) {
      DistributedDataParallel ddp;
      using (var pg = ProcessGroup.Create(DistBackend.Gloo, address, rank, World, 20000))
        ddp = DistributedDataParallel.Create(pg, new[] {w, b}, new DdpOptions {BucketCapMb = 1});
      // the reducer keeps the group alive
      using (ddp) {
        Check.Close(Initial(0, 6), w.ToFloat64(), 0, "weight broadcast from rank 0");
        Check.Close(Initial(0, 2), b.ToFloat64(), 0, "bias broadcast from rank 0");
        Backward(w, b, rank);
        Check.Close(Combine(g0, g1, 0.5), Concat(w, b), Tolerance, "grads = the ranks' average");
        w.ZeroGrad();
        b.ZeroGrad();
        using (ddp.NoSync()) Backward(w, b, rank);
        Check.Close(mine, Concat(w, b), Tolerance, "grads stay local in NoSync");
        Backward(w, b, rank);  // averages this pass plus what NoSync accumulated
        Check.Close(Combine(g0, g1, 1.0), Concat(w, b), Tolerance, "the next backward averages the accumulation");
      }
    }
    Console.WriteLine($"ddp rank {rank} ok");
    return 0;
  }
}

}
