// NamedTensors — the ordered name -> tensor map that Module's accessors
// return (torch's OrderedDict of named_parameters / state_dict): iteration in
// insertion order, lookup by name. The tensors are the module's own; the
// caller does not dispose them.
using System.Collections;
using System.Collections.Generic;

namespace Tessera {

public sealed class NamedTensors : IReadOnlyDictionary<string, Tensor> {
  readonly List<string> order = new List<string>();
  readonly Dictionary<string, Tensor> byName = new Dictionary<string, Tensor>();

  /// <summary>Sets name to tensor; a name already present keeps its place, as
  /// a Python dict does.</summary>
  internal void Set(string name, Tensor tensor) {
    if (!byName.ContainsKey(name)) order.Add(name);
    byName[name] = tensor;
  }

  public Tensor this[string name] => byName[name];
  public int Count => order.Count;
  public IEnumerable<string> Keys => order;
  public IEnumerable<Tensor> Values {
    get { foreach (string name in order) yield return byName[name]; }
  }
  public bool ContainsKey(string name) => name != null && byName.ContainsKey(name);
  public bool TryGetValue(string name, out Tensor value) {
    value = null;
    return name != null && byName.TryGetValue(name, out value);
  }

  public IEnumerator<KeyValuePair<string, Tensor>> GetEnumerator() {
    foreach (string name in order) yield return new KeyValuePair<string, Tensor>(name, byName[name]);
  }

  IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}

}
