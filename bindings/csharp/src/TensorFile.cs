// TensorFile — a checkpoint opened without reading its tensors
// (tessera/file.h), like safetensors' safe_open: a read-only dictionary from
// names to tensors, each read when asked for.
using System.Collections;
using System.Collections.Generic;

namespace Tessera {

/// <summary>Names, dtypes, shapes and metadata at once; each tensor when
/// read. A plain file's tensors are read-only views of a memory mapping of
/// the file (Clone() gives a writable copy); a compressed file's are decoded
/// one by one. The mapping lives while the TensorFile or any tensor from it
/// does. Every read hands out a new Tensor the caller disposes.</summary>
public partial class TensorFile : IReadOnlyDictionary<string, Tensor>, global::System.IDisposable {
  /// <summary>Opens path (tsr_open_file): reads and checks its header, maps
  /// a plain file. options: MaxBytes and SkipChecksums (null: defaults).</summary>
  public static TensorFile Open(string path, LoadOptions options = null) {
    options = options ?? new LoadOptions();
    return NativeOpen(path, options.MaxBytes, options.SkipChecksums);
  }

  public int Count => checked((int)NativeCount());

  long IndexOf(string name) {
    long i = name == null ? -1 : NativeFind(name);
    if (i < 0) throw new KeyNotFoundException("no tensor named '" + name + "' in the file");
    return i;
  }

  /// <summary>The tensor called name (read now); KeyNotFoundException when
  /// there is none.</summary>
  public Tensor this[string name] => NativeGet(IndexOf(name));

  /// <summary>Rows [start, stop) of dim 0 of the tensor called name, reading
  /// only what they need (tsr_file_get_slice; safetensors'
  /// get_slice(name)[start:stop]): a read-only view of the mapping for a
  /// plain file, a new tensor decoded from just the chunks holding those
  /// rows for a zstd-planes file. KeyNotFoundException when there is no such
  /// tensor; TesseraException (Status.InvalidArgument) for a 0-dim tensor, a
  /// negative start or stop (not counted from the end), start &gt; stop or
  /// stop &gt; its first size.</summary>
  public Tensor GetSlice(string name, long start, long stop) => NativeGetSlice(IndexOf(name), start, stop);

  /// <summary>The dtype of the tensor called name, without reading it.</summary>
  public DType DtypeOf(string name) => NativeDtype(IndexOf(name));

  /// <summary>The sizes of the tensor called name, without reading it.</summary>
  public long[] ShapeOf(string name) => NativeShape(IndexOf(name));

  public bool ContainsKey(string name) => name != null && NativeFind(name) >= 0;

  public bool TryGetValue(string name, out Tensor value) {
    long i = name == null ? -1 : NativeFind(name);
    value = i >= 0 ? NativeGet(i) : null;
    return value != null;
  }

  /// <summary>Names in file order.</summary>
  public IEnumerable<string> Keys {
    get {
      int count = Count;
      for (int i = 0; i < count; ++i) yield return NativeName(i);
    }
  }

  public IEnumerable<Tensor> Values {
    get {
      int count = Count;
      for (int i = 0; i < count; ++i) yield return NativeGet(i);
    }
  }

  /// <summary>The file's "__metadata__" pairs (the checksum entry left out), copied.</summary>
  public IReadOnlyDictionary<string, string> Metadata {
    get {
      var pairs = new Dictionary<string, string>();
      long n = NativeMetadataCount();
      for (long i = 0; i < n; ++i) pairs[NativeMetadataKey(i)] = NativeMetadataValue(i);
      return pairs;
    }
  }

  public IEnumerator<KeyValuePair<string, Tensor>> GetEnumerator() {
    int count = Count;
    for (int i = 0; i < count; ++i)
      yield return new KeyValuePair<string, Tensor>(NativeName(i), NativeGet(i));
  }

  IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}

}
