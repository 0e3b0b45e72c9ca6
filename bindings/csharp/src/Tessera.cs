// Tessera — the module-level functions: grad mode (NoGrad scopes), save and
// load, the allocator's statistics and controls, version. The factories are
// static methods of Tensor (Tensor.Zeros, Tensor.FromArray, ...).
//
// The class shares its namespace's name, as Python's tessera module does.
// Code inside a namespace that starts with Tessera (or that puts `using
// Tessera;` inside its own namespace block) writes Tessera.NoGrad();
// elsewhere use `using static Tessera.Tessera;` or an alias.
using System.Collections.Generic;

namespace Tessera {

public static class Tessera {
  // ---- autograd --------------------------------------------------------------

  /// <summary>Whether operations on this thread record autograd graphs
  /// (torch.is_grad_enabled).</summary>
  public static bool IsGradEnabled => TesseraNative.is_grad_enabled();

  /// <summary>Sets grad mode on this thread; returns the previous setting
  /// (torch.set_grad_enabled).</summary>
  public static bool SetGradEnabled(bool enabled) => TesseraNative.set_grad_enabled(enabled);

  /// <summary>torch.no_grad as a scope: <c>using (Tessera.NoGrad()) { ... }</c>
  /// turns grad mode off on this thread and restores the previous setting
  /// when disposed.</summary>
  public static GradModeScope NoGrad() => new GradModeScope(false);

  /// <summary>torch.enable_grad as a scope.</summary>
  public static GradModeScope EnableGrad() => new GradModeScope(true);

  // ---- save and load ---------------------------------------------------------

  /// <summary>Writes the named tensors (safetensors layout; zstd frames with
  /// Compression.Zstd, level 0 = zstd's default) and string metadata to path,
  /// replacing it atomically.</summary>
  public static void Save(string path, IEnumerable<KeyValuePair<string, Tensor>> tensors,
                          IEnumerable<KeyValuePair<string, string>> metadata = null,
                          Compression compression = Compression.None, int level = 0) {
    if (tensors == null) throw new TesseraException(Status.InvalidArgument, "Save: tensors is null");
    using (var list = new TensorList()) {
      foreach (var entry in tensors) list.Append(entry.Value, entry.Key);
      if (metadata != null)
        foreach (var entry in metadata) list.SetMetadata(entry.Key, entry.Value);
      TesseraNative.save(path, list, compression, level);
    }
  }

  /// <summary>Reads a file written by Save (or any safetensors file). The map
  /// is a read-only dictionary from names to tensors, in file order, with the
  /// file's metadata; maxBytes caps the tensor bytes it may allocate (0: no
  /// cap).</summary>
  public static TensorMap Load(string path, long maxBytes = 0) => TensorMap.Load(path, maxBytes);

  // ---- allocator (torch.cuda.memory_* names) ---------------------------------
  // Semantics: include/tessera/allocator.h. Sizes are in bytes, counting blocks
  // rounded up to 512 bytes. A device other than (Cpu, 0) throws
  // TesseraException(Status.Unsupported).

  /// <summary>A consistent snapshot of the caching allocator's statistics;
  /// dispose it or leave it to the finalizer (the MemoryStat values read
  /// from it are copies that outlive it).</summary>
  public static MemoryStats MemoryStats(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_stats(device, index);
  /// <summary>Bytes in blocks handed out to tensors now.</summary>
  public static long MemoryAllocated(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_allocated(device, index);
  /// <summary>Peak of MemoryAllocated since start or ResetPeakMemoryStats, in bytes.</summary>
  public static long MaxMemoryAllocated(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.max_memory_allocated(device, index);
  /// <summary>Bytes held from the OS (allocated plus cached).</summary>
  public static long MemoryReserved(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_reserved(device, index);
  /// <summary>Peak of MemoryReserved since start or ResetPeakMemoryStats, in bytes.</summary>
  public static long MaxMemoryReserved(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.max_memory_reserved(device, index);
  /// <summary>Every stat's peak becomes its current value.</summary>
  public static void ResetPeakMemoryStats(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.reset_peak_memory_stats(device, index);
  /// <summary>Every stat's Allocated and Freed totals and the four event
  /// counters become 0.</summary>
  public static void ResetAccumulatedMemoryStats(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.reset_accumulated_memory_stats(device, index);
  /// <summary>Returns cached segments with no allocated block to the OS.</summary>
  public static void EmptyCache(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.empty_cache(device, index);
  /// <summary>Caps reserved bytes, process-wide; 0 removes the cap. An
  /// allocation that would pass it throws Status.OutOfMemory after the cache
  /// is emptied; negative bytes throw Status.InvalidArgument, cap unchanged.</summary>
  public static void SetMemoryLimit(long bytes, DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.set_memory_limit(bytes, device, index);
  /// <summary>The cap set by SetMemoryLimit; 0 when there is none.</summary>
  public static long MemoryLimit(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_limit(device, index);

  // ---- names and version -------------------------------------------------------

  /// <summary>The loaded library's version, major*10000 + minor*100 + patch.</summary>
  public static int VersionNumber => TesseraNative.version_number();
  public static string VersionString => TesseraNative.version_string();
  /// <summary>The C name of a status ("TSR_ERR_NOT_VIEWABLE").</summary>
  public static string StatusName(Status status) => TesseraNative.status_name(status);
  /// <summary>A dtype's name as PyTorch prints it ("float32").</summary>
  public static string DTypeName(DType dtype) => TesseraNative.dtype_name(dtype);
}

/// <summary>Restores the grad mode that was in force when it was created; made
/// by Tessera.NoGrad() and Tessera.EnableGrad(). Grad mode is per thread:
/// dispose it on the thread that created it.</summary>
public sealed class GradModeScope : global::System.IDisposable {
  readonly bool previous;
  bool disposed;

  internal GradModeScope(bool enabled) {
    previous = TesseraNative.set_grad_enabled(enabled);
  }

  public void Dispose() {
    if (disposed) return;
    disposed = true;
    TesseraNative.set_grad_enabled(previous);
  }
}

}
