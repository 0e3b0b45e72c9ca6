package org.tessera;

import java.util.Map;

/**
 * A module's state_dict in a tessera file (safetensors layout, the dotted names as tensor names):
 * torch.save(model.state_dict(), path) and model.load_state_dict(torch.load(path), strict).
 */
public final class StateDictFile {
  private StateDictFile() {}

  /** Writes module's state_dict to path (uncompressed), replacing it atomically. */
  public static void save(String path, Module module) {
    save(path, module, null);
  }

  /** Writes module's state_dict to path with options (compression, metadata, ...; null: defaults). */
  public static void save(String path, Module module, SaveOptions options) {
    if (module == null) throw new NullPointerException("module is null");
    Tessera.save(path, module.stateDict(), options);
  }

  /**
   * Reads path and loads it into module as {@link Module#loadStateDict}; the tensors read are
   * released before returning.
   */
  public static IncompatibleKeys load(String path, Module module, boolean strict) {
    if (module == null) throw new NullPointerException("module is null");
    try (TensorMap map = Tessera.load(path)) {
      Map<String, Tensor> tensors = map.tensors();
      try {
        return module.loadStateDict(tensors, strict);
      } finally {
        for (Tensor t : tensors.values()) t.close();
      }
    }
  }
}
