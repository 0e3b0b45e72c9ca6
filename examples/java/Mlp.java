package org.tessera.examples;

import java.util.Arrays;
import java.util.Map;
import org.tessera.Compression;
import org.tessera.Generator;
import org.tessera.GradScope;
import org.tessera.Init;
import org.tessera.Linear;
import org.tessera.Module;
import org.tessera.ReLU;
import org.tessera.SaveOptions;
import org.tessera.Sequential;
import org.tessera.StateDictFile;
import org.tessera.Tensor;
import org.tessera.Tessera;

/**
 * The 64-128-10 perceptron with ReLU of examples/digits/mlp.c, written as PyTorch users write it:
 * nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)), with its SGD step and its
 * state_dict checkpoint ("0.weight", "0.bias", "2.weight", "2.bias"). close() releases the layers.
 */
final class Mlp implements AutoCloseable {
  static final int INPUTS = 64;
  static final int HIDDEN = 128;
  static final int OUTPUTS = 10;

  private final Sequential net;

  /**
   * He initialisation drawn from g, as examples/digits/mlp.c: each weight normal with std
   * sqrt(2 / fan_in), each bias zero. nn.Linear's own default (kaiming_uniform_ with a = sqrt(5))
   * starts smaller and reaches only about 95% in the example's 25 epochs; re-initialising the
   * layers is how a PyTorch script chooses another init too.
   */
  Mlp(Generator g) {
    net = new Sequential(new Linear(INPUTS, HIDDEN, true, g), new ReLU(), new Linear(HIDDEN, OUTPUTS, true, g));
    for (Module m : net.children()) {
      if (m instanceof Linear l) {
        Init.normal_(l.weight(), 0.0, Math.sqrt(2.0 / l.inFeatures()), g);
        Init.zeros_(l.bias());
      }
    }
  }

  /** logits [N, 10] of x [N, 64]. */
  Tensor forward(Tensor x) {
    return net.forward(x);
  }

  /** p -= lr * p.grad under no_grad, then clears the gradients (optimizer.step; zero_grad). */
  void sgdStep(double lr) {
    try (GradScope noGrad = Tessera.noGrad()) {
      for (Tensor p : net.parameters()) {
        try (Tensor grad = p.grad()) {
          if (grad != null) p.add_(grad, -lr);
        }
      }
    }
    net.zeroGrad();
  }

  /** The predicted class of each row of x. */
  long[] predict(Tensor x) {
    try (GradScope noGrad = Tessera.noGrad(); Tensor logits = forward(x); Tensor classes = logits.argmax(1)) {
      return classes.toInt64();
    }
  }

  /** The state_dict, zstd-compressed, with metadata. */
  void save(String path, Map<String, String> metadata) {
    SaveOptions options = new SaveOptions().compression(Compression.COMPRESSION_ZSTD);
    metadata.forEach(options::metadata);
    StateDictFile.save(path, net, options);
  }

  /** A model read back from a checkpoint written by save (strict: every key must match). */
  static Mlp load(String path) {
    Mlp model = new Mlp(new Generator(0));
    try {
      StateDictFile.load(path, model.net, true);
    } catch (RuntimeException e) {
      model.close();
      throw e;
    }
    return model;
  }

  long parameterBytes() {
    long n = 0;
    for (Tensor p : net.parameters()) n += p.nbytes();
    return n;
  }

  /** True when every state_dict entry has the same sizes and bytes as other's. */
  boolean sameParameters(Mlp other) {
    Map<String, Tensor> mine = net.stateDict();
    Map<String, Tensor> theirs = other.net.stateDict();
    if (!mine.keySet().equals(theirs.keySet())) return false;
    for (Map.Entry<String, Tensor> e : mine.entrySet()) {
      Tensor t = theirs.get(e.getKey());
      if (!Arrays.equals(e.getValue().sizes(), t.sizes())) return false;
      if (!Arrays.equals(e.getValue().toBytes(), t.toBytes())) return false;
    }
    return true;
  }

  @Override
  public void close() {
    net.close();
  }
}
