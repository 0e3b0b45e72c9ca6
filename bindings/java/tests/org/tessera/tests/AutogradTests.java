package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;

import org.tessera.DType;
import org.tessera.GradScope;
import org.tessera.Tensor;
import org.tessera.Tessera;

/** requires_grad, backward, grad against PyTorch 1.13; no_grad as a try-with-resources scope. */
final class AutogradTests {
  private static final double FLOAT32_TOLERANCE = 2e-6;

  private AutogradTests() {}

  static void register(AllTests.Registry r, Goldens g) {
    r.add("autograd: gradients of a small loss match torch", () -> gradients(g));
    r.add("autograd: leaves, grad_fn, zeroGrad, detach", AutogradTests::leaves);
    r.add("autograd: noGrad() scope restores the previous mode", AutogradTests::noGradScope);
  }

  static Tensor leaf(double[] values, long... sizes) {
    Tensor t = Tensor.fromFloat64(values, sizes, DType.FLOAT32);
    t.setRequiresGrad(true);
    return t;
  }

  static void gradients(Goldens g) {
    try (Tensor x = leaf(g.doubles("autograd.x"), 2, 3);
        Tensor w = leaf(g.doubles("autograd.w"), 3, 4);
        Tensor b = leaf(g.doubles("autograd.b"), 4);
        Tensor target = Tessera.tensor(g.longs("autograd.target"), 2);
        // loss = cross_entropy(relu(x @ w + b), target) + 0.5 * mean(exp(x))
        //        + 0.1 * sum(w * w) - mean(log_softmax(x, 1)) / 3
        Tensor h = x.matmul(w).add(b).relu();
        Tensor ce = h.crossEntropy(target);
        Tensor expMean = x.exp().mean().mul(0.5);
        Tensor wSquare = w.mul(w).sum().mul(0.1);
        Tensor logSoftmax = x.logSoftmax(1).mean().div(3.0);
        Tensor loss = ce.add(expMean).add(wSquare).sub(logSoftmax)) {
      close(g.doubles("autograd.loss")[0], loss.itemDouble(), FLOAT32_TOLERANCE, "loss");
      equal(g.string("autograd.loss_grad_fn"), loss.gradFnName(), "grad_fn of the loss");
      loss.backward();
      try (Tensor gx = x.grad(); Tensor gw = w.grad(); Tensor gb = b.grad()) {
        close(g.doubles("autograd.grad_x"), gx.toFloat64(), FLOAT32_TOLERANCE, "x.grad");
        close(g.doubles("autograd.grad_w"), gw.toFloat64(), FLOAT32_TOLERANCE, "w.grad");
        close(g.doubles("autograd.grad_b"), gb.toFloat64(), FLOAT32_TOLERANCE, "b.grad");
      }
    }
  }

  static void leaves() {
    try (Tensor w = leaf(new double[] {1, 2, 3}, 3)) {
      isTrue(w.isLeaf(), "a tensor made by the user is a leaf");
      equal(null, w.gradFnName(), "a leaf has no grad_fn");
      equal(null, w.grad(), "no grad before backward");
      try (Tensor y = w.mul(w); Tensor s = y.sum()) {
        isTrue(!y.isLeaf() && y.requiresGrad(), "an op result is not a leaf");
        equal("MulBackward0", y.gradFnName(), "grad_fn name");
        s.backward();
      }
      try (Tensor grad = w.grad()) {
        close(new double[] {2, 4, 6}, grad.toFloat64(), 0, "d sum(w*w) / dw = 2w");
      }
      w.zeroGrad();
      try (Tensor grad = w.grad()) {
        isTrue(grad == null || grad.toFloat64()[0] == 0.0, "zeroGrad clears the gradient");
      }
      try (Tensor d = w.detach()) {
        isTrue(!d.requiresGrad() && d.sharesStorage(w), "detach shares data, drops grad");
      }
    }
  }

  static void noGradScope() {
    isTrue(Tessera.isGradEnabled(), "grad mode on by default");
    try (Tensor w = leaf(new double[] {1, 2}, 2)) {
      try (GradScope outer = Tessera.noGrad()) {
        isTrue(!Tessera.isGradEnabled(), "off inside noGrad");
        try (Tensor y = w.mul(2.0)) {
          isTrue(!y.requiresGrad(), "results inside noGrad do not require grad");
        }
        w.add_(w, -0.5); // an in-place update of a leaf is allowed under no_grad, as in torch
        try (GradScope inner = Tessera.enableGrad()) {
          isTrue(Tessera.isGradEnabled(), "enableGrad inside noGrad");
        }
        isTrue(!Tessera.isGradEnabled(), "inner scope restored off");
        outer.close(); // closing twice restores once
      }
      isTrue(Tessera.isGradEnabled(), "outer scope restored on");
      close(new double[] {0.5, 1}, w.toFloat64(), 0, "SGD-like update under noGrad");
      try (Tensor y = w.mul(2.0)) {
        isTrue(y.requiresGrad(), "grad mode back on");
      }
    }
  }
}
