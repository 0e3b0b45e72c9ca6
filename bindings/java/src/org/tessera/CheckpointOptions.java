package org.tessera;

import java.util.Arrays;
import java.util.List;

/**
 * Options of a gradient-checkpointing region ({@link Tessera#checkpoint(CheckpointOptions)}), an
 * immutable value: start from {@link #defaults()} and derive, e.g. {@code
 * CheckpointOptions.defaults().keepOps("matmul", "add")}. Semantics: include/tessera/checkpoint.h.
 */
public final class CheckpointOptions {
  private static final CheckpointOptions DEFAULTS = new CheckpointOptions(true, true, true, List.of());

  private final boolean preserveRngState;
  private final boolean determinismCheck;
  private final boolean earlyStop;
  private final List<String> keepOps;

  private CheckpointOptions(boolean preserveRngState, boolean determinismCheck, boolean earlyStop,
      List<String> keepOps) {
    this.preserveRngState = preserveRngState;
    this.determinismCheck = determinismCheck;
    this.earlyStop = earlyStop;
    this.keepOps = keepOps;
  }

  /** Every option at its default: preserve the RNG state, check determinism, stop early, keep nothing. */
  public static CheckpointOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Default true: random ops (dropout) replay the same numbers when recomputed, so masks match
   * (torch's preserve_rng_state). False: a replay draws fresh numbers.
   */
  public CheckpointOptions preserveRngState(boolean value) {
    return new CheckpointOptions(value, determinismCheck, earlyStop, keepOps);
  }

  /**
   * Default true: recomputed sizes and dtypes must equal the first run's, else backward throws
   * ERR_AUTOGRAD naming the op (torch's determinism_check="default").
   */
  public CheckpointOptions determinismCheck(boolean value) {
    return new CheckpointOptions(preserveRngState, value, earlyStop, keepOps);
  }

  /** Default true: a replay stops once the tensors backward asked for exist; false replays it all. */
  public CheckpointOptions earlyStop(boolean value) {
    return new CheckpointOptions(preserveRngState, determinismCheck, value, keepOps);
  }

  /**
   * Op names (aten's: "matmul", "add", ...) whose outputs the region keeps instead of recomputing
   * (selective checkpointing); none by default. An unknown name makes the region's begin throw
   * ERR_INVALID_ARGUMENT naming it and listing the known ones.
   */
  public CheckpointOptions keepOps(String... names) {
    if (names == null) throw new NullPointerException("keepOps: names is null");
    for (String name : names) {
      if (name == null) throw new NullPointerException("keepOps: a name is null");
    }
    return new CheckpointOptions(preserveRngState, determinismCheck, earlyStop, List.of(names));
  }

  public boolean preserveRngState() {
    return preserveRngState;
  }

  public boolean determinismCheck() {
    return determinismCheck;
  }

  public boolean earlyStop() {
    return earlyStop;
  }

  /** The kept op names, an unmodifiable list. */
  public List<String> keepOps() {
    return keepOps;
  }

  /** The C API's comma-separated keep_ops string, null for none. */
  String keepOpsString() {
    return keepOps.isEmpty() ? null : String.join(",", keepOps);
  }

  @Override
  public String toString() {
    return "CheckpointOptions(preserveRngState=" + preserveRngState + ", determinismCheck="
        + determinismCheck + ", earlyStop=" + earlyStop + ", keepOps="
        + Arrays.toString(keepOps.toArray()) + ")";
  }
}
