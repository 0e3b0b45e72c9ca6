package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;
import static org.tessera.tests.Check.throwsType;

import java.util.LinkedHashMap;
import java.util.Map;
import org.tessera.GeluApproximate;
import org.tessera.ModeScope;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Tessera;
import org.tessera.TesseraException;

/**
 * The nn ops (linear, gelu, tanh, sigmoid, sqrt, pow, clamp, softmax, layerNorm, cat, stack, where,
 * indexSelect, gather, embedding, relu_) against PyTorch 1.13's values, gradients and messages
 * (goldens.properties; make_goldens.py's nn_cases() holds the torch expression of each case), and
 * the inferenceMode() and detectAnomaly() scopes.
 */
final class NnTests {
  private static final double TOLERANCE = 1e-5;

  private NnTests() {}

  static void register(AllTests.Registry r, Goldens g) {
    r.add("nn: forward values match torch", () -> forward(g));
    r.add("nn: clamp bounds, pow overloads, relu_", () -> javaForms(g));
    r.add("nn: gradients of linear, gelu, layerNorm, cat, gather, embedding match torch",
        () -> gradients(g));
    r.add("nn: each family fails with torch's status and message", () -> errors(g));
    r.add("nn: inferenceMode() scope", NnTests::inferenceMode);
    r.add("nn: detectAnomaly() throws on nan gradients", () -> anomaly(g));
    r.add("nn: conv2d, pooling and batchNorm on arange(16)", NnTests::cnn);
  }

  /** The convolutional layers on x = arange(16) as [1, 1, 4, 4], values worked out by hand. */
  static void cnn() {
    long[] two = {2, 2}, zero = {0, 0}, one = {1, 1};
    try (Tensor flat = Tessera.arange(0, 16, 1, org.tessera.DType.FLOAT32);
        Tensor x = flat.view(new long[] {1, 1, 4, 4});
        Tensor w = Tessera.full(new long[] {1, 1, 2, 2}, 1.0, org.tessera.DType.FLOAT32);
        Tensor y = Tessera.conv2d(x, w, null, two, zero, one, 1);
        Tensor a = Tessera.avgPool2d(x, two, null, zero, false, true);
        Tensor m = Tessera.adaptiveAvgPool2d(x, one)) {
      close(new double[] {10, 18, 42, 50}, y.toFloat64(), 0, "conv2d");
      close(new double[] {2.5, 4.5, 10.5, 12.5}, a.toFloat64(), 0, "avgPool2d");
      close(new double[] {7.5}, m.toFloat64(), 0, "adaptiveAvgPool2d");
      java.util.List<Tensor> pair = Tessera.maxPool2dWithIndices(x, two, null, zero, one, false);
      try (Tensor values = pair.get(0); Tensor indices = pair.get(1)) {
        close(new double[] {5, 7, 13, 15}, values.toFloat64(), 0, "maxPool2d values");
        close(new double[] {5, 7, 13, 15}, indices.toFloat64(), 0, "maxPool2d indices");
      }
      try (Tensor rm = Tessera.full(new long[] {1}, 0.0, org.tessera.DType.FLOAT32);
          Tensor rv = Tessera.full(new long[] {1}, 1.0, org.tessera.DType.FLOAT32);
          Tensor b = Tessera.batchNorm(x, rm, rv, null, null, true, 0.1, 1e-5)) {
        close(new double[] {0.75}, rm.toFloat64(), 1e-6, "running_mean");
      }
      TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> Tessera.maxPool2d(x, new long[] {2, 2, 2}, null, zero, one, false), "maxPool2d pair");
      isTrue(e.getMessage().contains("kernel_size must have 2 elements"), e.getMessage());
    }
  }

  interface Op {
    Tensor apply();
  }

  /** Checks got (closed here) against nn.NAME: sizes, dtype, values. */
  static void check(Goldens g, String name, Tensor got) {
    try (got) {
      equal(g.longs("nn." + name + ".sizes"), got.sizes(), name + " sizes");
      equal(g.nnDtype(name), got.dtype(), name + " dtype");
      close(g.doubles("nn." + name + ".values"), got.toFloat64(), TOLERANCE, name);
    }
  }

  static void forward(Goldens g) {
    try (Tensor x = g.nnTensor("x");
        Tensor p = g.nnTensor("p");
        Tensor exponent = g.nnTensor("e");
        Tensor w = g.nnTensor("w");
        Tensor b = g.nnTensor("b");
        Tensor gamma = g.nnTensor("g");
        Tensor beta = g.nnTensor("beta");
        Tensor y = g.nnTensor("y");
        Tensor cond = g.nnTensor("cond");
        Tensor index = g.nnTensor("index");
        Tensor gatherIndex = g.nnTensor("gather_index");
        Tensor ids = g.nnTensor("ids")) {
      Map<String, Op> ops = new LinkedHashMap<>();
      ops.put("linear", () -> Tessera.linear(x, w, b)); // F.linear(x, w, b)
      ops.put("linear_no_bias", () -> Tessera.linear(x, w)); // F.linear(x, w)
      ops.put("gelu", () -> Tessera.gelu(x)); // F.gelu(x)
      ops.put("gelu_tanh", () -> Tessera.gelu(x, GeluApproximate.GELU_TANH)); // approximate="tanh"
      ops.put("tanh", x::tanh); // torch.tanh(x)
      ops.put("sigmoid", x::sigmoid); // torch.sigmoid(x)
      ops.put("sqrt", p::sqrt); // torch.sqrt(p)
      ops.put("pow_scalar", () -> x.pow(3.0)); // torch.pow(x, 3.0)
      ops.put("pow_half", () -> p.pow(0.5)); // torch.pow(p, 0.5)
      ops.put("pow_tensor", () -> p.pow(exponent)); // torch.pow(p, e)
      ops.put("clamp", () -> x.clamp(-0.5, 1.0)); // torch.clamp(x, min=-0.5, max=1.0)
      ops.put("clamp_min", () -> x.clamp(-0.5, null)); // torch.clamp(x, min=-0.5)
      ops.put("clamp_max", () -> x.clamp(null, 1.0)); // torch.clamp(x, max=1.0)
      ops.put("softmax", () -> x.softmax(1)); // torch.softmax(x, 1)
      ops.put("softmax_dim0", () -> x.softmax(0)); // torch.softmax(x, 0)
      // F.layer_norm(x, [3], g, beta, 1e-5), F.layer_norm(x, [3])
      ops.put("layer_norm", () -> Tessera.layerNorm(x, new long[] {3}, gamma, beta, 1e-5));
      ops.put("layer_norm_plain", () -> Tessera.layerNorm(x, new long[] {3}));
      ops.put("cat", () -> Tessera.cat(x, y)); // torch.cat([x, y], 0)
      ops.put("cat_dim1", () -> Tessera.cat(new Tensor[] {x, p}, 1)); // torch.cat([x, p], 1)
      ops.put("stack", () -> Tessera.stack(x, p)); // torch.stack([x, p], 0)
      ops.put("stack_dim2", () -> Tessera.stack(new Tensor[] {x, p}, 2)); // torch.stack([x, p], 2)
      ops.put("where", () -> Tessera.where(cond, x, p)); // torch.where(cond, x, p)
      ops.put("index_select", () -> x.indexSelect(1, index)); // torch.index_select(x, 1, index)
      ops.put("gather", () -> x.gather(1, gatherIndex)); // torch.gather(x, 1, gather_index)
      ops.put("embedding", () -> Tessera.embedding(ids, w)); // F.embedding(ids, w)
      ops.put("relu_", () -> { // x.clone().relu_()
        Tensor c = x.clone();
        c.relu_();
        return c;
      });
      for (Map.Entry<String, Op> op : ops.entrySet()) check(g, op.getKey(), op.getValue().apply());
    }
  }

  static void javaForms(Goldens g) {
    try (Tensor x = g.nnTensor("x")) {
      check(g, "clamp_min", x.clampMin(-0.5));
      check(g, "clamp_max", x.clampMax(1.0));
      try (Tensor c = x.clone()) {
        long before = c.version();
        c.relu_();
        equal(before + 1, c.version(), "relu_ writes in place");
        check(g, "relu_", c.detach());
      }
      try (Tensor s = x.softmax(1)) {
        equal(null, s.gradFnName(), "no history without requires_grad");
      }
    }
    try (Tensor ints = Tessera.tensor(new long[] {1, 2, 3}, 3); Tensor root = ints.pow(0.5)) {
      equal(org.tessera.DType.FLOAT32, root.dtype(), "an integer tensor to a double power is float32");
    }
  }

  /** The gradients of (out * out).sum(), as make_goldens.py's grads(); out is closed here. */
  static void backwardOfSquares(Tensor out) {
    try (out; Tensor square = out.mul(out); Tensor sum = square.sum()) {
      sum.backward();
    }
  }

  static void gradients(Goldens g) {
    try (Tensor x = g.nnLeaf("x"); Tensor w = g.nnLeaf("w"); Tensor b = g.nnLeaf("b")) {
      backwardOfSquares(Tessera.linear(x, w, b));
      check(g, "linear_grad_x", x.grad());
      check(g, "linear_grad_w", w.grad());
      check(g, "linear_grad_b", b.grad());
    }
    try (Tensor x = g.nnLeaf("x")) {
      backwardOfSquares(Tessera.gelu(x));
      check(g, "gelu_grad_x", x.grad());
    }
    try (Tensor x = g.nnLeaf("x"); Tensor gamma = g.nnLeaf("g"); Tensor beta = g.nnLeaf("beta")) {
      backwardOfSquares(Tessera.layerNorm(x, new long[] {3}, gamma, beta, 1e-5));
      check(g, "layer_norm_grad_x", x.grad());
      check(g, "layer_norm_grad_g", gamma.grad());
      check(g, "layer_norm_grad_beta", beta.grad());
    }
    try (Tensor x = g.nnLeaf("x"); Tensor y = g.nnLeaf("y")) {
      backwardOfSquares(Tessera.cat(x, y));
      check(g, "cat_grad_x", x.grad());
      check(g, "cat_grad_y", y.grad());
    }
    try (Tensor x = g.nnLeaf("x"); Tensor gatherIndex = g.nnTensor("gather_index")) {
      backwardOfSquares(x.gather(1, gatherIndex));
      check(g, "gather_grad_x", x.grad());
    }
    try (Tensor w = g.nnLeaf("w"); Tensor ids = g.nnTensor("ids")) {
      backwardOfSquares(Tessera.embedding(ids, w));
      check(g, "embedding_grad_w", w.grad());
    }
  }

  /** action must throw status with a message containing torch's nn_error.NAME. */
  static void fails(Goldens g, String name, Status status, Check.Action action) {
    TesseraException e = throwsStatus(status, action, name);
    String torch = g.string("nn_error." + name);
    isTrue(e.getMessage().contains(torch), name + ": \"" + e.getMessage() + "\" lacks torch's \"" + torch + "\"");
  }

  static void errors(Goldens g) {
    try (Tensor x = g.nnTensor("x");
        Tensor w = Tessera.ones(4, 3);
        Tensor w42 = Tessera.ones(4, 2);
        Tensor ints = Tessera.tensor(new long[] {1, 2}, 2);
        Tensor index3 = Tessera.tensor(new long[] {3}, 1, 1);
        Tensor id4 = Tessera.tensor(new long[] {4}, 1)) {
      fails(g, "linear", Status.ERR_SHAPE_MISMATCH, () -> Tessera.linear(x, w42));
      fails(g, "gelu", Status.ERR_DTYPE_MISMATCH, () -> Tessera.gelu(ints));
      fails(g, "layer_norm", Status.ERR_SHAPE_MISMATCH, () -> Tessera.layerNorm(x, new long[] {4}));
      fails(g, "cat", Status.ERR_SHAPE_MISMATCH, () -> Tessera.cat(new Tensor[] {x, w}, 1));
      fails(g, "gather", Status.ERR_INDEX_OUT_OF_RANGE, () -> x.gather(1, index3));
      fails(g, "embedding", Status.ERR_INDEX_OUT_OF_RANGE, () -> Tessera.embedding(id4, w));
      fails(g, "clamp", Status.ERR_INVALID_ARGUMENT, () -> x.clamp((Double) null, null));
      fails(g, "where", Status.ERR_DTYPE_MISMATCH, () -> Tessera.where(x, x, x));

      // The binding's own checks: a closed optional tensor is not "none".
      Tensor bias = Tessera.zeros(4);
      bias.close();
      TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.linear(x, w, bias), "closed bias");
      isTrue(e.getMessage().contains("bias: tensor is closed"), e.getMessage());
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.layerNorm(x, new long[] {3}, bias, null),
          "closed weight");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.cat(), "cat of nothing");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.stack(x, bias), "stack with a closed tensor");
      throwsType(NullPointerException.class, () -> Tessera.cat(x, null), "cat with a null entry");
      throwsType(NullPointerException.class, () -> Tessera.gelu(x, null), "gelu with a null approximate");
    }
  }

  static void inferenceMode() throws Exception {
    isTrue(!Tessera.isInferenceModeEnabled(), "inference mode off by default");
    try (Tensor w = Tessera.ones(3)) {
      w.setRequiresGrad(true);
      Tensor made;
      try (ModeScope scope = Tessera.inferenceMode()) {
        isTrue(Tessera.isInferenceModeEnabled(), "on inside the scope");
        isTrue(!Tessera.isGradEnabled(), "grad mode off inside");
        made = Tessera.zeros(3);
        try (Tensor y = w.mul(2.0)) {
          isTrue(y.isInference() && !y.requiresGrad() && y.gradFnName() == null,
              "results inside are inference tensors without history");
        }
        try (ModeScope off = Tessera.inferenceMode(false); Tensor z = Tessera.zeros(1)) {
          isTrue(!Tessera.isInferenceModeEnabled() && !z.isInference(), "inferenceMode(false) nests");
        }
        isTrue(Tessera.isInferenceModeEnabled(), "inner scope restored on");
        scope.close(); // closing twice restores once
      }
      isTrue(!Tessera.isInferenceModeEnabled() && Tessera.isGradEnabled(), "restored after the scope");
      try (made) {
        isTrue(made.isInference() && !w.isInference(), "isInference");
        TesseraException e = throwsStatus(Status.ERR_AUTOGRAD, () -> w.mul(made), "saving an inference tensor");
        isTrue(e.getMessage().contains("Inference tensors cannot be saved for backward"), e.getMessage());
      }
    }
    throwsType(IllegalStateException.class, () -> {
      try (ModeScope scope = Tessera.inferenceMode()) {
        throw new IllegalStateException("leaves the scope");
      }
    }, "an exception inside the scope");
    isTrue(!Tessera.isInferenceModeEnabled() && Tessera.isGradEnabled(), "restored on an exception");
    boolean[] seen = new boolean[1];
    try (ModeScope scope = Tessera.inferenceMode()) {
      Thread t = new Thread(() -> seen[0] = Tessera.isInferenceModeEnabled());
      t.start();
      t.join();
    }
    isTrue(!seen[0], "inference mode is per thread");
  }

  /** (x / x).sum().backward() at x = 0: the gradient is nan. Returns it. */
  static double nanBackward() {
    try (Tensor x = Tessera.zeros(1)) {
      x.setRequiresGrad(true);
      try (Tensor q = x.div(x); Tensor s = q.sum()) {
        s.backward();
      }
      try (Tensor grad = x.grad()) {
        return grad.itemDouble();
      }
    }
  }

  static void anomaly(Goldens g) {
    isTrue(!Tessera.isAnomalyEnabled(), "anomaly detection off by default");
    try (ModeScope scope = Tessera.detectAnomaly()) {
      isTrue(Tessera.isAnomalyEnabled(), "on inside the scope");
      TesseraException e = throwsStatus(Status.ERR_AUTOGRAD, NnTests::nanBackward, "nan gradient");
      isTrue(e.getMessage().contains("returned nan values"), e.getMessage());
      // torch: "Function 'DivBackward0' returned nan values in its 1th output."
      isTrue(e.getMessage().contains(g.string("nn_error.anomaly")), e.getMessage());
    }
    isTrue(!Tessera.isAnomalyEnabled(), "restored after the scope");
    isTrue(Double.isNaN(nanBackward()), "without detection the nan gradient goes through");
    equal(false, Tessera.setDetectAnomaly(true), "setDetectAnomaly returns the previous setting");
    equal(true, Tessera.setDetectAnomaly(false), "and turns it on at once");
    throwsType(IllegalStateException.class, () -> {
      try (ModeScope scope = Tessera.detectAnomaly()) {
        throw new IllegalStateException("leaves the scope");
      }
    }, "an exception inside the scope");
    isTrue(!Tessera.isAnomalyEnabled(), "restored on an exception");
  }
}
