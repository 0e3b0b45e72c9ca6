package org.tessera;

import java.util.List;

/**
 * What {@link Module#loadStateDict} did not match, torch's _IncompatibleKeys: the module's keys
 * the state_dict lacked, and the state_dict's keys the module does not have, in torch's order.
 */
public record IncompatibleKeys(List<String> missingKeys, List<String> unexpectedKeys) {
  public IncompatibleKeys {
    missingKeys = List.copyOf(missingKeys);
    unexpectedKeys = List.copyOf(unexpectedKeys);
  }
}
