// StateDictLoad — Module.LoadStateDict's walk, torch 1.13's load_state_dict:
// each module in pre-order checks its own entries (missing, size mismatch)
// and the keys under its prefix that name neither one of its entries nor a
// child (unexpected). Everything is checked before anything is copied, so a
// refused load leaves the module as it was (torch copies what fits first).
using System;
using System.Collections.Generic;
using System.Linq;

namespace Tessera {

sealed class StateDictLoad {
  readonly List<KeyValuePair<string, Tensor>> entries;
  readonly Dictionary<string, Tensor> byName = new Dictionary<string, Tensor>();
  readonly List<string> missing = new List<string>();
  readonly List<string> unexpected = new List<string>();
  readonly List<string> errors = new List<string>();
  // (target, source) pairs, copied once every check has passed.
  readonly List<KeyValuePair<Tensor, Tensor>> copies = new List<KeyValuePair<Tensor, Tensor>>();

  StateDictLoad(List<KeyValuePair<string, Tensor>> entries) {
    this.entries = entries;
    foreach (var e in entries) byName[e.Key] = e.Value;
  }

  internal static IncompatibleKeys Load(Module module, IEnumerable<KeyValuePair<string, Tensor>> stateDict,
                                        bool strict) {
    if (stateDict == null) throw new ArgumentNullException(nameof(stateDict), "state_dict is null");
    var entries = stateDict.ToList();
    foreach (var e in entries) {
      if (e.Key == null) throw new ArgumentNullException(nameof(stateDict), "state_dict has a null key");
      if (e.Value == null) throw new ArgumentNullException(nameof(stateDict), "state_dict[\"" + e.Key + "\"] is null");
    }
    var walk = new StateDictLoad(entries);
    walk.Visit(module, "");
    // torch puts the key lists first: missing, then unexpected, then the size mismatches.
    var messages = new List<string>();
    if (strict && walk.missing.Count > 0) messages.Add("Missing key(s) in state_dict: " + Quoted(walk.missing) + ". ");
    if (strict && walk.unexpected.Count > 0)
      messages.Add("Unexpected key(s) in state_dict: " + Quoted(walk.unexpected) + ". ");
    messages.AddRange(walk.errors);
    if (messages.Count > 0)
      throw new TesseraException(Status.InvalidArgument, "Error(s) in loading state_dict for " + module.TypeName +
                                                             ":\n\t" + string.Join("\n\t", messages));
    // Under no_grad, as torch: the targets are parameters that require grad.
    using (Tessera.NoGrad())
      foreach (var c in walk.copies) c.Key.CopyFrom(c.Value);
    return new IncompatibleKeys(walk.missing, walk.unexpected);
  }

  void Visit(Module module, string prefix) {
    NamedTensors local = module.LocalState();
    foreach (var e in local) {
      string key = prefix + e.Key;
      Tensor source;
      if (!byName.TryGetValue(key, out source)) {
        missing.Add(key);
        continue;
      }
      long[] want = e.Value.Sizes, got = source.Sizes;
      if (!want.SequenceEqual(got)) {
        errors.Add("size mismatch for " + key + ": copying a param with shape " + TorchSize(got) +
                   " from checkpoint, the shape in current model is " + TorchSize(want) + ".");
        continue;
      }
      copies.Add(new KeyValuePair<Tensor, Tensor>(e.Value, source));
    }
    var children = module.NamedChildren();
    foreach (var e in entries) {
      if (!e.Key.StartsWith(prefix, StringComparison.Ordinal)) continue;
      string first = e.Key.Substring(prefix.Length).Split(new[] {'.'}, 2)[0];
      if (!local.ContainsKey(first) && !children.Any(c => c.Key == first)) unexpected.Add(e.Key);
    }
    foreach (var child in children) Visit(child.Value, prefix + child.Key + ".");
  }

  static string Quoted(List<string> keys) => string.Join(", ", keys.Select(k => "\"" + k + "\""));

  // A shape as torch prints it: torch.Size([2, 3]).
  static string TorchSize(long[] sizes) => "torch.Size([" + string.Join(", ", sizes) + "])";
}

}
