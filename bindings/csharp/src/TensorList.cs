// TensorList — an ordered list of tensors with optional names: what Split,
// Chunk and MaxDim return. It owns one reference per tensor; the indexer
// hands out a new Tensor (a new reference) on every read, to be disposed by
// the caller like any other.
using System.Collections;
using System.Collections.Generic;

namespace Tessera {

public partial class TensorList : IReadOnlyList<Tensor> {
  public int Count => checked((int)NativeCount());

  public Tensor this[int index] => NativeGet(index);

  /// <summary>The name tensor index was appended with, or null.</summary>
  public string Name(int index) => NativeName(index);

  public IEnumerator<Tensor> GetEnumerator() {
    int count = Count;
    for (int i = 0; i < count; ++i) yield return NativeGet(i);
  }

  IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}

}
