// IncompatibleKeys — what Module.LoadStateDict did not match, torch's
// _IncompatibleKeys: the module's keys the state_dict lacked and the
// state_dict's keys the module does not have, in torch's order.
using System.Collections.Generic;

namespace Tessera {

public sealed class IncompatibleKeys {
  public IReadOnlyList<string> MissingKeys { get; }
  public IReadOnlyList<string> UnexpectedKeys { get; }

  internal IncompatibleKeys(List<string> missing, List<string> unexpected) {
    MissingKeys = missing.AsReadOnly();
    UnexpectedKeys = unexpected.AsReadOnly();
  }
}

}
