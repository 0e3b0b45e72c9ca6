// Sequential — torch.nn.Sequential: children named "0", "1", ... in order,
// Forward feeding each one's output to the next, so the state_dict keys are
// "0.weight", "1.running_mean", ... as torch's.
namespace Tessera {

public sealed class Sequential : Module {
  public int Count { get; private set; }

  public Sequential(params Module[] modules) {
    foreach (Module m in modules) Append(m);
  }

  /// <summary>torch's Sequential.append: module becomes the next step, owned
  /// by this Sequential.</summary>
  public Sequential Append(Module module) {
    RegisterModule(Count.ToString(System.Globalization.CultureInfo.InvariantCulture), module);
    ++Count;
    return this;
  }

  /// <summary>Each step's output is the next one's input; intermediate
  /// outputs are disposed as soon as they are used (autograd keeps what
  /// backward needs). With no steps: a new reference to input itself, as
  /// torch returns input.</summary>
  public override Tensor Forward(Tensor input) {
    // Dropout that drops nothing (not training) is documented to return a
    // new reference to input itself, drawing nothing.
    if (Count == 0) return input.Dropout(0.0, false, Init.DefaultGenerator);
    Tensor h = input;
    foreach (Module m in Children()) {
      Tensor next;
      try {
        next = m.Forward(h);
      } finally {
        if (!ReferenceEquals(h, input)) h.Dispose();
      }
      h = next;
    }
    return h;
  }
}

}
