// Progress callbacks of saves and loads (tsr_progress_fn): the public
// ProgressCallback, and Progress, the native delegate wrapping it.
using System;
using System.Runtime.InteropServices;

namespace Tessera {

/// <summary>Progress of a save or load: tensor bytes (numel * element size,
/// before compression) done so far and in all, first with bytesDone == 0,
/// last with bytesDone == bytesTotal (for a Saver, bytesTotal counts the
/// tensors added so far). Called on the calling thread. Return false to
/// cancel: the call throws TesseraException(Status.Cancelled) and a
/// cancelled save leaves any file at its path as it was. An exception thrown
/// here cancels too and becomes that exception's InnerException. It must not
/// use the same Saver or file.</summary>
public delegate bool ProgressCallback(ulong bytesDone, ulong bytesTotal);

/// <summary>The function pointer native code calls (tsr_progress_fn).</summary>
[UnmanagedFunctionPointer(CallingConvention.Cdecl)]
internal delegate int ProgressNative(ulong bytesDone, ulong bytesTotal, IntPtr userData);

/// <summary>Wraps a ProgressCallback for native code: an exception it throws
/// must not unwind through the C library's frames, so it is kept here and
/// the call cancelled; Call then attaches it. The object (and its delegate)
/// must stay reachable while native code may call back: the caller's frame
/// or the Saver holds it.</summary>
internal sealed class Progress {
  readonly ProgressCallback callback;
  Exception thrown;
  internal readonly ProgressNative Native;

  Progress(ProgressCallback callback) {
    this.callback = callback;
    Native = Invoke;
  }

  internal static Progress Wrap(ProgressCallback callback) =>
      callback == null ? null : new Progress(callback);

  int Invoke(ulong done, ulong total, IntPtr userData) {
    try {
      return callback(done, total) ? (int)Status.Ok : (int)Status.Cancelled;
    } catch (Exception e) {
      thrown = e;
      return (int)Status.Cancelled;
    }
  }

  /// <summary>body(); a Cancelled exception caused by the callback's
  /// exception is thrown again with it as InnerException.</summary>
  internal static T Call<T>(Progress progress, Func<T> body) {
    try {
      return body();
    } catch (TesseraException e) when (progress != null && progress.thrown != null &&
                                       e.Status == Status.Cancelled) {
      Exception cause = progress.thrown;
      progress.thrown = null;
      throw new TesseraException(Status.Cancelled, e.Message, cause);
    } finally {
      GC.KeepAlive(progress);
    }
  }

  internal static void Call(Progress progress, Action body) =>
      Call<object>(progress, () => { body(); return null; });
}

/// <summary>How Tessera.Save and Saver.Open write (tsr_save_options). The
/// defaults: a plain safetensors file with checksums, no metadata, one
/// file, views saved as views.</summary>
public sealed class SaveOptions {
  /// <summary>None (plain safetensors), Zstd (one frame per tensor) or
  /// ZstdPlanes (byte planes in 1 MiB chunks, file format 0.2).</summary>
  public Compression Compression { get; set; } = Compression.None;
  /// <summary>zstd level; 0 means the mode's default.</summary>
  public int Level { get; set; }
  /// <summary>"__metadata__" pairs (keys starting with "tessera." are reserved).</summary>
  public System.Collections.Generic.IDictionary<string, string> Metadata { get; set; }
  /// <summary>true: no "tessera.checksum" entry.</summary>
  public bool SkipChecksums { get; set; }
  /// <summary>Bytes of tensor data per shard, 0 for one file: above it a
  /// path ending in ".safetensors" becomes a Hugging Face sharded checkpoint
  /// (model-0000k-of-0000n.safetensors plus model.safetensors.index.json,
  /// which Load reads). Saver.Open refuses it (Status.Unsupported).</summary>
  public long MaxShardSize { get; set; }
  /// <summary>true: tensors sharing a storage are saved as separate copies,
  /// not as views of one saved storage.</summary>
  public bool FlattenViews { get; set; }
  /// <summary>Called as the save goes; null for none.</summary>
  public ProgressCallback Progress { get; set; }

  internal TensorList MetadataList() {
    var list = new TensorList();
    if (Metadata != null)
      foreach (var entry in Metadata) list.SetMetadata(entry.Key, entry.Value);
    return list;
  }
}

/// <summary>How Tessera.Load and TensorFile.Open read (tsr_load_options).</summary>
public sealed class LoadOptions {
  /// <summary>Cap on the tensor bytes a load may allocate: 0 the default
  /// (64 x the file's size + 64 MiB), long.MaxValue none.</summary>
  public long MaxBytes { get; set; }
  /// <summary>true: do not verify the file's checksums (trusted files).</summary>
  public bool SkipChecksums { get; set; }
  /// <summary>Called as the load goes (not by TensorFile.Open); null for none.</summary>
  public ProgressCallback Progress { get; set; }
}

}
