package org.tessera.examples;

import java.util.LinkedHashMap;
import java.util.Map;
import org.tessera.Generator;
import org.tessera.GradScope;
import org.tessera.Tensor;
import org.tessera.TensorMap;
import org.tessera.Tessera;

/**
 * A 64-128-10 perceptron with ReLU, its SGD step and its checkpoint, as examples/digits/mlp.c.
 * It owns its four parameters: close() releases them.
 */
final class Mlp implements AutoCloseable {
  static final int INPUTS = 64;
  static final int HIDDEN = 128;
  static final int OUTPUTS = 10;
  static final String[] NAMES = {"w1", "b1", "w2", "b2"};

  /** w1 [64, 128], b1 [128], w2 [128, 10], b2 [10], in NAMES order. */
  private final Tensor[] params;

  private Mlp(Tensor[] params) {
    this.params = params;
  }

  /** He-initialised weights (randn * sqrt(2 / fan_in)) and zero biases, drawn from g. */
  static Mlp create(Generator g) {
    return new Mlp(new Tensor[] {
      heWeight(INPUTS, HIDDEN, g), zeroBias(HIDDEN), heWeight(HIDDEN, OUTPUTS, g), zeroBias(OUTPUTS),
    });
  }

  private static Tensor heWeight(long fanIn, long fanOut, Generator g) {
    Tensor w = Tessera.randn(g, fanIn, fanOut);
    // Scaled while it is still an ordinary tensor: once it requires grad, an in-place write with
    // grad mode on is an autograd error, as in PyTorch.
    w.mulScalar_(Math.sqrt(2.0 / fanIn));
    w.setRequiresGrad(true);
    return w;
  }

  private static Tensor zeroBias(long n) {
    Tensor b = Tessera.zeros(n);
    b.setRequiresGrad(true);
    return b;
  }

  /** logits [N, 10] of x [N, 64]. Intermediates are closed at once; the graph keeps what backward needs. */
  Tensor forward(Tensor x) {
    try (Tensor z1 = linear(x, params[0], params[1]); Tensor h = z1.relu()) {
      return linear(h, params[2], params[3]);
    }
  }

  /** x @ w + b: the bias row broadcasts over the batch. */
  private static Tensor linear(Tensor x, Tensor w, Tensor b) {
    try (Tensor xw = x.matmul(w)) {
      return xw.add(b);
    }
  }

  /** p -= lr * p.grad under no_grad, then clears the gradients. */
  void sgdStep(double lr) {
    try (GradScope noGrad = Tessera.noGrad()) {
      for (Tensor p : params) {
        try (Tensor grad = p.grad()) {
          if (grad != null) p.add_(grad, -lr);
        }
      }
    }
    for (Tensor p : params) p.zeroGrad();
  }

  /** The predicted class of each row of x. */
  long[] predict(Tensor x) {
    try (GradScope noGrad = Tessera.noGrad(); Tensor logits = forward(x); Tensor classes = logits.argmax(1)) {
      return classes.toInt64();
    }
  }

  void save(String path, Map<String, String> metadata) {
    Map<String, Tensor> named = new LinkedHashMap<>();
    for (int i = 0; i < NAMES.length; ++i) named.put(NAMES[i], params[i]);
    Tessera.save(path, named, metadata, org.tessera.Compression.COMPRESSION_ZSTD);
  }

  /** The parameters of a checkpoint (not requiring grad: for prediction). */
  static Mlp load(TensorMap map) {
    Tensor[] params = new Tensor[NAMES.length];
    for (int i = 0; i < NAMES.length; ++i) params[i] = map.get(NAMES[i]);
    return new Mlp(params);
  }

  long parameterBytes() {
    long n = 0;
    for (Tensor p : params) n += p.nbytes();
    return n;
  }

  /** True when every parameter has the same sizes and bytes as other's. */
  boolean sameParameters(Mlp other) {
    for (int i = 0; i < params.length; ++i) {
      if (!java.util.Arrays.equals(params[i].sizes(), other.params[i].sizes())) return false;
      if (!java.util.Arrays.equals(params[i].toBytes(), other.params[i].toBytes())) return false;
    }
    return true;
  }

  @Override
  public void close() {
    for (Tensor p : params) p.close();
  }
}
