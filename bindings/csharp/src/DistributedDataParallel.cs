// DistributedDataParallel (torch.nn.parallel.DistributedDataParallel): the
// hand-written half of the proxy generated from bindings/ddp.i, with torch's
// options and no_sync() as a using scope.
using System;
using System.Collections.Generic;

namespace Tessera {

/// <summary>DistributedDataParallel's arguments, torch's defaults:
/// bucket_cap_mb 25, find_unused_parameters false, gradient_as_bucket_view
/// false, no comm hook (DdpCommHook.AllReduce).</summary>
public sealed class DdpOptions {
  /// <summary>bucket_cap_mb: MiB per bucket (the first holds 1 MiB, as torch's).</summary>
  public double BucketCapMb { get; set; } = 25;
  /// <summary>find_unused_parameters: parameters may get no gradient in an iteration.</summary>
  public bool FindUnusedParameters { get; set; }
  /// <summary>gradient_as_bucket_view: each .grad becomes a view into its bucket.</summary>
  public bool GradientAsBucketView { get; set; }
  /// <summary>register_comm_hook with a built-in hook (Fp16Compress, Bf16Compress).</summary>
  public DdpCommHook CommHook { get; set; } = DdpCommHook.AllReduce;
}

/// <summary>torch.nn.parallel.DistributedDataParallel over a set of
/// parameters: every later backward reaching them leaves each .grad averaged
/// over the group. It keeps its own references to the group and the
/// parameters (disposing the caller's handles is fine); Dispose removes its
/// hooks. Not thread-safe across concurrent backward passes through the same
/// parameters (the library refuses them).</summary>
public partial class DistributedDataParallel {
  /// <summary>DistributedDataParallel(module, process_group: pg, ...):
  /// collective; every rank of pg calls it with its replica of the same
  /// parameters (distinct leaves requiring grad, floating, CPU), whose values
  /// become rank 0's. TesseraException: Status.InvalidArgument (bad
  /// parameters or options, ranks whose parameters differ),
  /// Status.Unsupported (a parameter not on the CPU), Status.Distributed (a
  /// rank missing or dead).</summary>
  public static DistributedDataParallel Create(ProcessGroup pg, IEnumerable<Tensor> parameters,
                                               DdpOptions options = null) {
    const string what = "DistributedDataParallel";
    if (parameters == null) throw new TesseraException(Status.InvalidArgument, what + ": parameters is null");
    options = options ?? new DdpOptions();
    long cap = (long)Math.Round(options.BucketCapMb * 1024 * 1024);
    if (!(options.BucketCapMb > 0) || cap <= 0)
      throw new TesseraException(Status.InvalidArgument,
                                 what + ": BucketCapMb must be positive, got " + options.BucketCapMb);
    using (var list = new TensorList()) {
      foreach (var p in parameters) {
        if (p == null) throw new TesseraException(Status.InvalidArgument, what + ": a parameter is null");
        list.Append(p);
      }
      return NativeCreate(pg, list, cap, options.FindUnusedParameters, options.GradientAsBucketView,
                          options.CommHook);
    }
  }

  /// <summary>Number of parameters.</summary>
  public long NumParams => NativeNumParams();

  volatile bool requireSync = true;

  /// <summary>require_backward_grad_sync: whether backward passes average
  /// the gradients (true, the default) or accumulate them locally; the next
  /// backward with true averages what was accumulated.</summary>
  public void SetRequireSync(bool requireSync) {
    NativeSetRequireSync(requireSync);
    this.requireSync = requireSync;
  }

  /// <summary>require_backward_grad_sync: false inside NoSync.</summary>
  public bool RequireSync => requireSync;

  /// <summary>register_comm_hook with a built-in hook; once per reducer
  /// (Status.InvalidArgument for a second one).</summary>
  public void RegisterCommHook(DdpCommHook hook) => NativeRegisterCommHook(hook);

  /// <summary>The parameters' names (module.named_parameters()), in the
  /// order of Create's parameters: the unused-parameter error names
  /// them.</summary>
  public void SetParamNames(IEnumerable<string> names) {
    var all = new List<string>(names);
    foreach (var n in all)
      if (n == null || n.IndexOf('\n') >= 0)
        throw new TesseraException(Status.InvalidArgument, "SetParamNames: a name is null or holds a newline");
    NativeSetParamNames(string.Join("\n", all));
  }

  /// <summary>The buckets in reduction order, each the indices of its parameters.</summary>
  public long[][] BucketIndices() {
    long[] flat = NativeBucketIndices();
    int nb = (int)flat[0];
    var buckets = new long[nb][];
    int at = 1 + nb;
    for (int b = 0; b < nb; ++b) {
      int n = (int)flat[1 + b];
      buckets[b] = new long[n];
      Array.Copy(flat, at, buckets[b], 0, n);
      at += n;
    }
    return buckets;
  }

  /// <summary>torch's no_sync() as a using scope: until it is disposed,
  /// backward passes accumulate gradients locally without communication;
  /// disposing it restores the previous setting (as torch's, so scopes
  /// nest), and the first synchronized backward averages what was
  /// accumulated.
  /// <code>using (ddp.NoSync()) loss.Backward();</code></summary>
  public NoSyncScope NoSync() {
    bool old = requireSync;
    SetRequireSync(false);
    return new NoSyncScope(this, old);
  }

  /// <summary>The scope NoSync returns; Dispose restores the setting it found (once).</summary>
  public sealed class NoSyncScope : IDisposable {
    DistributedDataParallel ddp;
    readonly bool old;

    internal NoSyncScope(DistributedDataParallel ddp, bool old) {
      this.ddp = ddp;
      this.old = old;
    }

    public void Dispose() {
      var d = ddp;
      ddp = null;
      if (d != null) d.SetRequireSync(old);
    }
  }
}

}
