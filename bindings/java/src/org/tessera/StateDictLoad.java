package org.tessera;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Module.loadStateDict's walk, torch 1.13's load_state_dict: each module in pre-order checks its
 * own entries (missing, size mismatch) and the keys under its prefix that name neither one of its
 * entries nor a child (unexpected). Everything is checked before anything is copied, so a refused
 * load leaves the module as it was.
 */
final class StateDictLoad {
  private final Map<String, Tensor> stateDict;
  private final List<String> missing = new ArrayList<>();
  private final List<String> unexpected = new ArrayList<>();
  private final List<String> errors = new ArrayList<>();
  /** target, source pairs, copied once every check has passed. */
  private final List<Tensor[]> copies = new ArrayList<>();

  private StateDictLoad(Map<String, Tensor> stateDict) {
    this.stateDict = stateDict;
  }

  static IncompatibleKeys load(Module module, Map<String, Tensor> stateDict, boolean strict) {
    if (stateDict == null) throw new NullPointerException("state_dict is null");
    for (Map.Entry<String, Tensor> e : stateDict.entrySet()) {
      if (e.getKey() == null) throw new NullPointerException("state_dict has a null key");
      if (e.getValue() == null) throw new NullPointerException("state_dict[\"" + e.getKey() + "\"] is null");
    }
    StateDictLoad walk = new StateDictLoad(stateDict);
    walk.visit(module, "");
    // torch puts the key lists first: missing, then unexpected, then the size mismatches.
    List<String> messages = new ArrayList<>();
    if (strict && !walk.missing.isEmpty()) messages.add("Missing key(s) in state_dict: " + quoted(walk.missing) + ". ");
    if (strict && !walk.unexpected.isEmpty()) {
      messages.add("Unexpected key(s) in state_dict: " + quoted(walk.unexpected) + ". ");
    }
    messages.addAll(walk.errors);
    if (!messages.isEmpty()) {
      throw new TesseraException(Status.ERR_INVALID_ARGUMENT,
          "Error(s) in loading state_dict for " + module.typeName() + ":\n\t" + String.join("\n\t", messages));
    }
    // Under no_grad, as torch: the targets are parameters that require grad.
    boolean gradWas = Tessera.setGradEnabled(false);
    try {
      for (Tensor[] c : walk.copies) c[0].copy_(c[1]);
    } finally {
      Tessera.setGradEnabled(gradWas);
    }
    return new IncompatibleKeys(walk.missing, walk.unexpected);
  }

  private void visit(Module module, String prefix) {
    Map<String, Tensor> local = module.localState();
    for (Map.Entry<String, Tensor> e : local.entrySet()) {
      String key = prefix + e.getKey();
      Tensor source = stateDict.get(key);
      if (source == null) {
        missing.add(key);
        continue;
      }
      long[] want = e.getValue().sizes();
      long[] got = source.sizes();
      if (!Arrays.equals(want, got)) {
        errors.add("size mismatch for " + key + ": copying a param with shape " + torchSize(got)
            + " from checkpoint, the shape in current model is " + torchSize(want) + ".");
        continue;
      }
      copies.add(new Tensor[] {e.getValue(), source});
    }
    Map<String, Module> children = module.namedChildren();
    for (String key : stateDict.keySet()) {
      if (!key.startsWith(prefix)) continue;
      String rest = key.substring(prefix.length());
      int dot = rest.indexOf('.');
      String first = dot < 0 ? rest : rest.substring(0, dot);
      if (!children.containsKey(first) && !local.containsKey(first)) unexpected.add(key);
    }
    for (Map.Entry<String, Module> c : children.entrySet()) visit(c.getValue(), prefix + c.getKey() + ".");
  }

  private static String quoted(List<String> keys) {
    return keys.stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(", "));
  }

  /** A shape as torch prints it: torch.Size([2, 3]). */
  static String torchSize(long[] sizes) {
    return "torch.Size([" + Arrays.stream(sizes).mapToObj(Long::toString).collect(Collectors.joining(", ")) + "])";
  }
}
