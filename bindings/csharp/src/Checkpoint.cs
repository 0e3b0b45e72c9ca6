// Gradient checkpointing (include/tessera/checkpoint.h): the options of a
// region and the IDisposable scope that Tessera.Checkpoint returns.
using System.Collections.Generic;
using System.Threading;

namespace Tessera {

/// <summary>Options of a checkpoint region, set with an object initializer:
/// <c>new CheckpointOptions { KeepOps = new[] {"matmul"} }</c>. The defaults
/// are torch's.</summary>
public sealed class CheckpointOptions {
  /// <summary>Default true: random ops (Dropout) replay the same numbers
  /// when recomputed, so masks match (torch's preserve_rng_state). False: a
  /// replay draws fresh numbers.</summary>
  public bool PreserveRngState { get; set; } = true;
  /// <summary>Default true: recomputed sizes and dtypes must equal the
  /// first run's, else backward throws Status.Autograd naming the
  /// op.</summary>
  public bool DeterminismCheck { get; set; } = true;
  /// <summary>Default true: a replay stops once the tensors backward asked
  /// for exist; false replays the whole region.</summary>
  public bool EarlyStop { get; set; } = true;
  /// <summary>Op names (aten's: "matmul", "add", ...) whose outputs the
  /// region keeps instead of recomputing (selective checkpointing); null or
  /// empty keeps nothing. An unknown name makes the region's begin throw
  /// Status.InvalidArgument naming it.</summary>
  public IEnumerable<string> KeepOps { get; set; }

  /// <summary>The C API's comma-separated keep_ops, null for none.</summary>
  internal string KeepOpsString() {
    if (KeepOps == null) return null;
    var names = new List<string>();
    foreach (string name in KeepOps) {
      if (name == null) throw new TesseraException(Status.InvalidArgument, "KeepOps holds a null name");
      names.Add(name);
    }
    return names.Count == 0 ? null : string.Join(",", names);
  }
}

/// <summary>An open checkpoint region (torch.utils.checkpoint,
/// use_reentrant=False): between Tessera.Checkpoint() and Dispose(), the
/// ops this thread runs keep no activations for backward; backward
/// recomputes them from the region's inputs, with the same gradients bit for
/// bit. <c>using (Tessera.Checkpoint()) { h = Block(h); }</c> ends it on
/// every path, exceptions included.
///
/// Regions belong to the thread that opened them and nest: dispose them on
/// that thread, innermost first. Backward while a region is open on the
/// thread throws Status.Autograd. There is no finalizer (a region can only
/// be ended on its own thread): always dispose it.</summary>
public sealed class CheckpointScope : global::System.IDisposable {
  readonly int thread;
  bool disposed;

  internal CheckpointScope(CheckpointOptions options) {
    Tessera.CheckpointBegin(options);
    thread = Thread.CurrentThread.ManagedThreadId;
  }

  /// <summary>True once Dispose ended the region.</summary>
  public bool IsDisposed => disposed;

  /// <summary>Ends the region (tsr_checkpoint_end) the first time; later
  /// calls do nothing. Throws TesseraException(Status.Autograd) on another
  /// thread than the one that opened it (the region stays open), or when
  /// this thread has no region open any more (ended by
  /// Tessera.CheckpointEnd).</summary>
  public void Dispose() {
    if (disposed) return;
    if (Thread.CurrentThread.ManagedThreadId != thread)
      throw new TesseraException(Status.Autograd,
                                 "a checkpoint region must be disposed on the thread that opened it");
    disposed = true;
    TesseraNative.checkpoint_end();
  }
}

}
