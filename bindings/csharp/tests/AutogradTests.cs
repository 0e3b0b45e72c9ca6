// Gradients against PyTorch 1.13's (goldens.txt); no_grad as a using scope.
using System;

namespace Tessera.Tests {

public static class AutogradTests {
  [Test]
  public static void GradientsMatchPyTorch() {
    using (var a = Tensor.FromArray(new float[] {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f}, new long[] {2, 3}))
    using (var w = Tensor.FromArray(new float[] {0.2f, -0.4f, 0.7f, 0.1f, -0.3f, 0.6f}, new long[] {3, 2}))
    using (var target = Tensor.FromArray(new long[] {1, 0}, new long[] {2})) {
      a.RequiresGrad = true;
      w.RequiresGrad = true;
      Check.True(a.IsLeaf && a.GradFnName == null, "a is a leaf");
      using (var z = a.Matmul(w))
      using (var relu = z.Relu())
      using (var half = relu * 0.5)
      using (var exp = z.Exp())
      using (var mean = exp.Mean(new long[0]))
      using (var h = half + mean)
      using (var loss = h.CrossEntropy(target)) {
        Check.True(!loss.IsLeaf && loss.GradFnName != null, "loss has a grad_fn: " + loss.GradFnName);
        loss.Backward();
        Check.Close(Goldens.Values("autograd_loss"), new[] {loss.ItemDouble()}, 1e-6, "loss");
      }
      using (var ga = a.Grad())
      using (var gw = w.Grad()) {
        Check.Close(Goldens.Values("autograd_a_grad"), ga.ToFloat64(), 1e-5, "a.grad");
        Check.Close(Goldens.Values("autograd_w_grad"), gw.ToFloat64(), 1e-5, "w.grad");
      }
      w.ZeroGrad();
      using (var gw = w.Grad())
        Check.True(gw == null || Array.TrueForAll(gw.ToFloat64(), v => v == 0), "zero_grad");
    }
  }

  [Test]
  public static void NoGradIsAScope() {
    using (var w = Tensor.Ones(new long[] {2})) {
      w.RequiresGrad = true;
      Check.True(Tessera.IsGradEnabled, "grad mode on by default");
      using (Tessera.NoGrad()) {
        Check.True(!Tessera.IsGradEnabled, "off inside no_grad");
        using (var y = w * 2.0) Check.True(!y.RequiresGrad, "no graph recorded under no_grad");
        w.AddInPlace(w, -0.5);   // an in-place update of a leaf, allowed under no_grad
        using (Tessera.EnableGrad()) Check.True(Tessera.IsGradEnabled, "enable_grad nests");
        Check.True(!Tessera.IsGradEnabled, "restored to off");
      }
      Check.True(Tessera.IsGradEnabled, "restored to on");
      Check.Equal(0.5, w[0], "the update happened");
      using (var y = w * 2.0) Check.True(y.RequiresGrad, "graph recorded again");
      Check.Throws(Status.Autograd, () => w.AddInPlace(w, 1.0), "in-place on a leaf requiring grad");
      var scope = Tessera.NoGrad();
      scope.Dispose();
      scope.Dispose();
      Check.True(Tessera.IsGradEnabled, "disposing a scope twice restores once");
    }
  }
}

}
