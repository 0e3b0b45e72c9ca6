// TensorMap — what Tessera.Load returns: a read-only dictionary from names to
// tensors in file order, plus the file's string metadata. Every read hands
// out a new Tensor (a new reference) that the caller disposes; the tensors
// stay valid after the map is disposed.
using System.Collections;
using System.Collections.Generic;

namespace Tessera {

public partial class TensorMap : IReadOnlyDictionary<string, Tensor> {
  public int Count => checked((int)NativeCount());

  /// <summary>The tensor saved under name; KeyNotFoundException when there
  /// is none.</summary>
  public Tensor this[string name] {
    get {
      Tensor value;
      if (!TryGetValue(name, out value))
        throw new KeyNotFoundException("no tensor named '" + name + "' in the file");
      return value;
    }
  }

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

  /// <summary>The file's "__metadata__" pairs, copied.</summary>
  public IReadOnlyDictionary<string, string> Metadata {
    get {
      var pairs = new Dictionary<string, string>();
      long count = NativeMetadataCount();
      for (long i = 0; i < count; ++i) pairs[NativeMetadataKey(i)] = NativeMetadataValue(i);
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
