// Module — torch.nn.Module for C#: a layer or model that owns its
// parameters, buffers and child modules. Subclasses register them in their
// constructor and implement Forward. Names and order follow torch: a child's
// tensors have dotted names ("0.weight") in registration order, and
// StateDict lists own parameters, own persistent buffers, then each child's
// entries. Dispose releases every registered tensor and disposes the
// children; the tensors the accessors return are the module's own (do not
// dispose them). Not thread-safe, like torch modules.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;

namespace Tessera {

public abstract class Module : IDisposable {
  readonly NamedTensors parameters = new NamedTensors();
  readonly NamedTensors buffers = new NamedTensors();
  // Buffers left out of the state_dict (register_buffer(persistent=False)).
  readonly HashSet<string> nonPersistent = new HashSet<string>();
  readonly List<KeyValuePair<string, Module>> children = new List<KeyValuePair<string, Module>>();

  /// <summary>The output for input, a new tensor the caller disposes
  /// (torch's Module.forward).</summary>
  public abstract Tensor Forward(Tensor input);

  // ---- registration -------------------------------------------------------

  /// <summary>torch's register_parameter: the module takes ownership of
  /// tensor and marks it as requiring grad, as nn.Parameter does. Null
  /// registers no tensor under the name (torch's None, e.g. a Linear without
  /// bias). Registering a name again replaces (and disposes) the previous
  /// parameter. Returns tensor.</summary>
  public Tensor RegisterParameter(string name, Tensor tensor) {
    CheckName("parameter", name, parameters.ContainsKey(name));
    if (tensor != null) tensor.RequiresGrad = true;
    Replace(parameters, name, tensor);
    return tensor;
  }

  /// <summary>torch's register_buffer(name, tensor, persistent): state that is
  /// not trained (BatchNorm's running statistics), owned by the module; only
  /// persistent buffers are in the state_dict.</summary>
  public Tensor RegisterBuffer(string name, Tensor tensor, bool persistent = true) {
    CheckName("buffer", name, buffers.ContainsKey(name));
    Replace(buffers, name, tensor);
    if (persistent) nonPersistent.Remove(name); else nonPersistent.Add(name);
    return tensor;
  }

  /// <summary>torch's register_module / add_module: module becomes a child,
  /// owned by this one. Returns it.</summary>
  public M RegisterModule<M>(string name, M module) where M : Module {
    CheckName("module", name, children.Any(c => c.Key == name));
    if (module == null) throw new ArgumentNullException(nameof(module), "module \"" + name + "\" is null");
    int at = children.FindIndex(c => c.Key == name);
    if (at < 0) {
      children.Add(new KeyValuePair<string, Module>(name, module));
    } else {
      Module old = children[at].Value;
      children[at] = new KeyValuePair<string, Module>(name, module);
      if (!ReferenceEquals(old, module)) old.Dispose();
    }
    return module;
  }

  // torch's checks on a new attribute name, with its messages.
  void CheckName(string kind, string name, bool ownKind) {
    if (name == null) throw new ArgumentNullException(nameof(name), kind + " name is null");
    if (name.Contains(".")) throw new ArgumentException(kind + " name can't contain \".\", got: " + name);
    if (name.Length == 0) throw new ArgumentException(kind + " name can't be empty string \"\"");
    bool taken = parameters.ContainsKey(name) || buffers.ContainsKey(name) || children.Any(c => c.Key == name);
    if (taken && !ownKind) throw new ArgumentException("attribute '" + name + "' already exists");
  }

  static void Replace(NamedTensors slots, string name, Tensor tensor) {
    Tensor old;
    if (slots.TryGetValue(name, out old) && old != null && !ReferenceEquals(old, tensor)) old.Dispose();
    slots.Set(name, tensor);
  }

  // ---- traversal ----------------------------------------------------------

  /// <summary>torch's named_parameters(): every parameter with its dotted
  /// name, each tensor once.</summary>
  public NamedTensors NamedParameters() => Collect(true);

  /// <summary>torch's parameters(): what an optimizer takes.</summary>
  public IReadOnlyList<Tensor> Parameters() => NamedParameters().Values.ToList();

  /// <summary>torch's named_buffers(): persistent or not, each tensor once.</summary>
  public NamedTensors NamedBuffers() => Collect(false);

  public IReadOnlyList<Tensor> Buffers() => NamedBuffers().Values.ToList();

  NamedTensors Collect(bool wantParameters) {
    var output = new NamedTensors();
    Collect(output, "", wantParameters, new HashSet<Tensor>(new ReferenceComparer()));
    return output;
  }

  // Depth first, own entries before the children's, as torch's named_modules.
  void Collect(NamedTensors output, string prefix, bool wantParameters, HashSet<Tensor> seen) {
    foreach (var entry in wantParameters ? parameters : buffers)
      if (entry.Value != null && seen.Add(entry.Value)) output.Set(prefix + entry.Key, entry.Value);
    foreach (var child in children) child.Value.Collect(output, prefix + child.Key + ".", wantParameters, seen);
  }

  sealed class ReferenceComparer : IEqualityComparer<Tensor> {
    public bool Equals(Tensor a, Tensor b) => ReferenceEquals(a, b);
    public int GetHashCode(Tensor t) => RuntimeHelpers.GetHashCode(t);
  }

  /// <summary>torch's named_children(): the direct children in registration
  /// order.</summary>
  public IReadOnlyList<KeyValuePair<string, Module>> NamedChildren() => children.ToList();

  /// <summary>torch's children().</summary>
  public IReadOnlyList<Module> Children() => children.Select(c => c.Value).ToList();

  // ---- modes and gradients ------------------------------------------------

  /// <summary>torch's Module.training.</summary>
  public bool IsTraining { get; private set; } = true;

  /// <summary>torch's train(mode): here and in every descendant; returns this.</summary>
  public Module Train(bool mode = true) {
    IsTraining = mode;
    foreach (var child in children) child.Value.Train(mode);
    return this;
  }

  /// <summary>torch's eval(): Train(false); BatchNorm2d then normalizes with
  /// its running statistics.</summary>
  public Module Eval() => Train(false);

  /// <summary>torch 1.13's zero_grad() (set_to_none=False): every
  /// parameter's .grad filled with zeros.</summary>
  public void ZeroGrad() {
    foreach (Tensor p in Parameters()) p.ZeroGrad();
  }

  // ---- state_dict ---------------------------------------------------------

  /// <summary>torch's state_dict(): parameters and persistent buffers by
  /// dotted name; own parameters, own buffers, then each child's entries.
  /// The values are the module's own tensors.</summary>
  public NamedTensors StateDict() {
    var output = new NamedTensors();
    AddStateTo(output, "");
    return output;
  }

  void AddStateTo(NamedTensors output, string prefix) {
    foreach (var entry in LocalState()) output.Set(prefix + entry.Key, entry.Value);
    foreach (var child in children) child.Value.AddStateTo(output, prefix + child.Key + ".");
  }

  // This module's own state_dict entries, undotted (torch's local_state).
  internal NamedTensors LocalState() {
    var local = new NamedTensors();
    foreach (var entry in parameters)
      if (entry.Value != null) local.Set(entry.Key, entry.Value);
    foreach (var entry in buffers)
      if (entry.Value != null && !nonPersistent.Contains(entry.Key)) local.Set(entry.Key, entry.Value);
    return local;
  }

  /// <summary>torch's load_state_dict(state_dict, strict): copies each entry
  /// into the parameter or buffer of that name. Keys the module lacks are
  /// unexpected, entries the state_dict lacks missing; with strict either is
  /// an error, and a shape mismatch always is. Errors throw TesseraException
  /// (Status.InvalidArgument) with torch's message ("Error(s) in loading
  /// state_dict for Linear:\n\tMissing key(s) in state_dict: \"weight\". ...")
  /// before anything is copied. The state_dict's tensors stay the caller's.</summary>
  public IncompatibleKeys LoadStateDict(IEnumerable<KeyValuePair<string, Tensor>> stateDict, bool strict = true) =>
      StateDictLoad.Load(this, stateDict, strict);

  // The class name torch's messages give (type(module).__name__).
  internal string TypeName => GetType().Name;

  // ---- lifetime -----------------------------------------------------------

  /// <summary>Releases every parameter and buffer registered here and
  /// disposes the children. Idempotent.</summary>
  public void Dispose() {
    foreach (Tensor t in parameters.Values) t?.Dispose();
    foreach (Tensor t in buffers.Values) t?.Dispose();
    foreach (var child in children) child.Value.Dispose();
  }
}

}
