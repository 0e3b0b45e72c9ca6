package org.tessera;

/**
 * torch.nn.Sequential: children named "0", "1", ... in order, forward feeding each one's output
 * to the next. Its state_dict keys are therefore "0.weight", "1.running_mean", ..., as torch's.
 */
public final class Sequential extends Module {
  private int size;

  public Sequential(Module... modules) {
    for (Module m : modules) append(m);
  }

  /** torch's Sequential.append: module becomes the next step, owned by this Sequential. */
  public Sequential append(Module module) {
    registerModule(Integer.toString(size), module);
    ++size;
    return this;
  }

  public int size() {
    return size;
  }

  /**
   * Each step's output is the next one's input; the intermediate outputs are closed as soon as
   * they are used (autograd keeps what backward needs). With no steps: a new reference to input
   * itself, as torch returns input.
   */
  @Override
  public Tensor forward(Tensor input) {
    // Dropout that drops nothing (not training) is documented to return a new reference to input
    // itself, without drawing from the generator.
    if (size == 0) return input.dropout(0.0, false, Init.defaultGenerator());
    Tensor h = input;
    for (Module m : children()) {
      Tensor next;
      try {
        next = m.forward(h);
      } finally {
        if (h != input) h.close();
      }
      h = next;
    }
    return h;
  }
}
