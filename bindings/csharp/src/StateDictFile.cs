// StateDictFile — a module's state_dict in a tessera file (safetensors
// layout, the dotted names as tensor names): torch.save(model.state_dict(),
// path) and model.load_state_dict(torch.load(path), strict).
using System;
using System.Collections.Generic;
using System.Linq;

namespace Tessera {

public static class StateDictFile {
  /// <summary>Writes module's state_dict to path with options (compression,
  /// metadata, ...; null: defaults), replacing it atomically.</summary>
  public static void Save(string path, Module module, SaveOptions options = null) {
    if (module == null) throw new ArgumentNullException(nameof(module));
    Tessera.Save(path, module.StateDict(), options);
  }

  /// <summary>Reads path and loads it into module as Module.LoadStateDict;
  /// the tensors read are disposed before returning.</summary>
  public static IncompatibleKeys Load(string path, Module module, bool strict = true) {
    if (module == null) throw new ArgumentNullException(nameof(module));
    using (TensorMap map = Tessera.Load(path)) {
      List<KeyValuePair<string, Tensor>> tensors = map.ToList();
      try {
        return module.LoadStateDict(tensors, strict);
      } finally {
        foreach (var entry in tensors) entry.Value.Dispose();
      }
    }
  }
}

}
