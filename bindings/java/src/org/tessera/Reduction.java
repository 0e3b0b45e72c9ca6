package org.tessera;

/**
 * How a loss reduces its elementwise values: torch's {@code reduction="none"}, {@code "mean"} or
 * {@code "sum"} (tsr_loss_reduction; the values are the C enum's).
 */
public enum Reduction {
  /** "none": the elementwise loss, in the broadcast shape. */
  NONE(0),
  /** "mean": the mean over every element (weighted mean for nllLoss / crossEntropy with weights). */
  MEAN(1),
  /** "sum": the sum over every element. */
  SUM(2);

  private final int value;

  Reduction(int value) {
    this.value = value;
  }

  /** The tsr_loss_reduction value. */
  public int value() {
    return value;
  }

  static int of(Reduction reduction) {
    if (reduction == null) throw new NullPointerException("reduction is null");
    return reduction.value;
  }
}
