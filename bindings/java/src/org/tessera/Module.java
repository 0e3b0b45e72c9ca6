package org.tessera;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * torch.nn.Module: a layer or model that owns its parameters, buffers and child modules. Subclasses
 * register them in their constructor ({@link #registerParameter}, {@link #registerBuffer}, {@link
 * #registerModule}) and implement {@link #forward}. Names follow torch: a child's tensors are
 * reached through dotted names ("0.weight"), in registration order, and {@link #stateDict()} lists
 * own parameters, own persistent buffers, then each child's entries, as torch's state_dict does.
 *
 * <p>The module owns every tensor registered with it: {@link #close()} releases them and closes the
 * children. Tensors returned by the accessors ({@link #namedParameters()}, {@link #stateDict()}, ...)
 * are the module's own, not copies: do not close them; they stay valid until the module is closed.
 * Not thread-safe, like torch modules.
 */
public abstract class Module implements AutoCloseable {
  private final Map<String, Tensor> parameters = new LinkedHashMap<>();
  private final Map<String, Tensor> buffers = new LinkedHashMap<>();
  /** Buffers left out of the state_dict (torch's register_buffer(persistent=False)). */
  private final Set<String> nonPersistent = new HashSet<>();
  private final Map<String, Module> children = new LinkedHashMap<>();
  private boolean training = true;

  /** The output for input, a new tensor the caller closes (torch's Module.forward). */
  public abstract Tensor forward(Tensor input);

  // ---- registration -----------------------------------------------------------------------------

  /**
   * torch's register_parameter: the module takes ownership of tensor and marks it as requiring
   * grad, as nn.Parameter does. Null registers no tensor under the name (torch's None, e.g. a
   * Linear without bias): it is skipped by every accessor. Registering a name again replaces (and
   * closes) the previous parameter. Returns tensor.
   */
  public Tensor registerParameter(String name, Tensor tensor) {
    checkName("parameter", name, parameters);
    if (tensor != null) tensor.setRequiresGrad(true);
    replace(parameters, name, tensor);
    return tensor;
  }

  /** torch's register_buffer(name, tensor): a persistent buffer (in the state_dict). */
  public Tensor registerBuffer(String name, Tensor tensor) {
    return registerBuffer(name, tensor, true);
  }

  /**
   * torch's register_buffer(name, tensor, persistent): state that is not trained (BatchNorm's
   * running statistics). The module takes ownership; null registers none under the name.
   */
  public Tensor registerBuffer(String name, Tensor tensor, boolean persistent) {
    checkName("buffer", name, buffers);
    replace(buffers, name, tensor);
    if (persistent) {
      nonPersistent.remove(name);
    } else {
      nonPersistent.add(name);
    }
    return tensor;
  }

  /** torch's register_module / add_module: module becomes a child, owned by this one. Returns it. */
  public <M extends Module> M registerModule(String name, M module) {
    checkName("module", name, children);
    if (module == null) throw new NullPointerException("module \"" + name + "\" is null");
    Module old = children.put(name, module);
    if (old != null && old != module) old.close();
    return module;
  }

  /**
   * torch's checks on a new attribute name (the same messages): not empty, no ".", not already
   * used by another kind of attribute (a parameter named like a child module).
   */
  private void checkName(String kind, String name, Map<String, ?> own) {
    if (name == null) throw new NullPointerException(kind + " name is null");
    if (name.contains(".")) {
      throw new IllegalArgumentException(kind + " name can't contain \".\", got: " + name);
    }
    if (name.isEmpty()) throw new IllegalArgumentException(kind + " name can't be empty string \"\"");
    boolean taken = parameters.containsKey(name) || buffers.containsKey(name) || children.containsKey(name);
    if (taken && !own.containsKey(name)) {
      throw new IllegalArgumentException("attribute '" + name + "' already exists");
    }
  }

  /** Puts tensor under name, keeping name's place (as a Python dict does), closing what it replaces. */
  private static void replace(Map<String, Tensor> map, String name, Tensor tensor) {
    Tensor old = map.put(name, tensor);
    if (old != null && old != tensor) old.close();
  }

  // ---- traversal ------------------------------------------------------------------------------

  /** torch's named_parameters(): every parameter with its dotted name, each tensor once. */
  public Map<String, Tensor> namedParameters() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    collect(out, "", true, Collections.newSetFromMap(new IdentityHashMap<>()));
    return out;
  }

  /** torch's parameters(): what an optimizer or clipGradNorm_ takes. */
  public List<Tensor> parameters() {
    return new ArrayList<>(namedParameters().values());
  }

  /** torch's named_buffers(): persistent or not, with dotted names, each tensor once. */
  public Map<String, Tensor> namedBuffers() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    collect(out, "", false, Collections.newSetFromMap(new IdentityHashMap<>()));
    return out;
  }

  public List<Tensor> buffers() {
    return new ArrayList<>(namedBuffers().values());
  }

  /** Depth first, own entries before the children's, as torch's named_modules walk. */
  private void collect(Map<String, Tensor> out, String prefix, boolean params, Set<Tensor> seen) {
    for (Map.Entry<String, Tensor> e : (params ? parameters : buffers).entrySet()) {
      if (e.getValue() != null && seen.add(e.getValue())) out.put(prefix + e.getKey(), e.getValue());
    }
    for (Map.Entry<String, Module> c : children.entrySet()) {
      c.getValue().collect(out, prefix + c.getKey() + ".", params, seen);
    }
  }

  /** torch's named_children(): the direct children in registration order. */
  public Map<String, Module> namedChildren() {
    return Collections.unmodifiableMap(children);
  }

  /** torch's children(). */
  public List<Module> children() {
    return new ArrayList<>(children.values());
  }

  // ---- modes and gradients ------------------------------------------------------------------------

  /** torch's train(mode): sets training mode here and in every descendant; returns this. */
  public Module train(boolean mode) {
    training = mode;
    for (Module c : children.values()) c.train(mode);
    return this;
  }

  /** torch's train(): training mode. */
  public Module train() {
    return train(true);
  }

  /** torch's eval(): train(false), e.g. BatchNorm normalizes with its running statistics. */
  public Module eval() {
    return train(false);
  }

  /** torch's Module.training. */
  public boolean isTraining() {
    return training;
  }

  /** torch 1.13's zero_grad() (set_to_none=False): every parameter's .grad filled with zeros. */
  public void zeroGrad() {
    for (Tensor p : namedParameters().values()) p.zeroGrad();
  }

  // ---- state_dict ---------------------------------------------------------------------------------

  /**
   * torch's state_dict(): parameters and persistent buffers by dotted name; own parameters, own
   * buffers, then each child's entries. The values are the module's own tensors (do not close
   * them); save them with {@link StateDictFile#save} or {@link Tessera#save(String, Map)}.
   */
  public Map<String, Tensor> stateDict() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    addStateTo(out, "");
    return out;
  }

  private void addStateTo(Map<String, Tensor> out, String prefix) {
    for (Map.Entry<String, Tensor> e : localState().entrySet()) out.put(prefix + e.getKey(), e.getValue());
    for (Map.Entry<String, Module> c : children.entrySet()) c.getValue().addStateTo(out, prefix + c.getKey() + ".");
  }

  /** This module's own state_dict entries, undotted (torch's local_state). */
  Map<String, Tensor> localState() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (Map.Entry<String, Tensor> e : parameters.entrySet()) {
      if (e.getValue() != null) out.put(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, Tensor> e : buffers.entrySet()) {
      if (e.getValue() != null && !nonPersistent.contains(e.getKey())) out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /**
   * torch's load_state_dict(stateDict, strict): copies each entry into the parameter or buffer of
   * that name. Keys the module lacks are unexpected, entries the map lacks missing; with strict
   * either is an error. A shape mismatch is always an error. Errors throw TesseraException
   * (ERR_INVALID_ARGUMENT) with torch's message ("Error(s) in loading state_dict for Linear:\n\t
   * Missing key(s) in state_dict: \"weight\". ...") before anything is copied (torch copies the
   * entries that fit first). The map's tensors stay the caller's.
   */
  public IncompatibleKeys loadStateDict(Map<String, Tensor> stateDict, boolean strict) {
    return StateDictLoad.load(this, stateDict, strict);
  }

  /** The class name torch's messages give (type(module).__name__). */
  String typeName() {
    return getClass().getSimpleName();
  }

  // ---- lifetime -----------------------------------------------------------------------------------

  /** Releases every parameter and buffer registered here and closes the children. Idempotent. */
  @Override
  public void close() {
    for (Tensor t : parameters.values()) if (t != null) t.close();
    for (Tensor t : buffers.values()) if (t != null) t.close();
    for (Module c : children.values()) c.close();
  }
}
