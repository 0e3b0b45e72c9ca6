// The issue 33 ops' Tensor methods and torch-level functions (pointwise.i,
// linalg.i, reductions.i): Clamp with tensor bounds, Cumsum, Cumprod, Prod,
// Var, Std, Logsumexp, Any, All, Min, Argmin on Tensor; Tessera.VarMean,
// StdMean, Bmm, Baddbmm, Outer. Sin ... Sign, Fix, Bmm, Baddbmm and Outer are
// also generated Tensor methods. Several results come back as named tuples,
// as torch's named tuples: var (values, indices) = x.Min(1).
namespace Tessera {

public partial class Tensor {
  /// <summary>torch.clamp(this, min, max) with tensor bounds that broadcast
  /// against this; either may be null (None), not both
  /// (Status.InvalidArgument). The dtype is the promotion of the
  /// three.</summary>
  public Tensor Clamp(Tensor min, Tensor max) {
    global::Tessera.Tessera.RequireLive(min, "Clamp: min");
    global::Tessera.Tessera.RequireLive(max, "Clamp: max");
    return TesseraNative.PointwiseClampTensor(this, min, max);
  }

  static int DTypeOrDefault(DType? dtype) => dtype.HasValue ? (int)dtype.Value : -1;

  /// <summary>torch.cumsum(this, dim, dtype): running sums along dim
  /// (integers and bool accumulate in int64 unless dtype says
  /// otherwise).</summary>
  public Tensor Cumsum(long dim, DType? dtype = null) => TesseraNative.cumsum(this, dim, DTypeOrDefault(dtype));

  /// <summary>torch.cumprod(this, dim, dtype): running products along
  /// dim.</summary>
  public Tensor Cumprod(long dim, DType? dtype = null) => TesseraNative.cumprod(this, dim, DTypeOrDefault(dtype));

  /// <summary>torch.prod(this, dtype): the product of every element,
  /// 0-dim.</summary>
  public Tensor Prod(DType? dtype = null) => TesseraNative.prod(this, DTypeOrDefault(dtype));

  /// <summary>torch.prod(this, dim, keepdim, dtype).</summary>
  public Tensor Prod(long dim, bool keepdim = false, DType? dtype = null) =>
      TesseraNative.prod_dim(this, dim, keepdim, DTypeOrDefault(dtype));

  /// <summary>torch.var(this, dims, correction=, keepdim=): the variance over
  /// dims (null or empty: every dim), divided by N - correction (1 is
  /// torch's unbiased=True).</summary>
  public Tensor Var(long[] dims = null, long correction = 1, bool keepdim = false) =>
      TesseraNative.var_dims(this, dims ?? new long[0], correction, keepdim);

  /// <summary>torch.var(this, dims, unbiased, keepdim).</summary>
  public Tensor Var(long[] dims, bool unbiased, bool keepdim = false) =>
      TesseraNative.var_dims(this, dims ?? new long[0], unbiased ? 1 : 0, keepdim);

  /// <summary>torch.var(this, dim, unbiased, keepdim).</summary>
  public Tensor Var(long dim, bool unbiased = true, bool keepdim = false) =>
      TesseraNative.var_dims(this, new[] {dim}, unbiased ? 1 : 0, keepdim);

  /// <summary>torch.std(this, dims, correction=, keepdim=): the standard
  /// deviation over dims (null or empty: every dim).</summary>
  public Tensor Std(long[] dims = null, long correction = 1, bool keepdim = false) =>
      TesseraNative.std_dims(this, dims ?? new long[0], correction, keepdim);

  /// <summary>torch.std(this, dims, unbiased, keepdim).</summary>
  public Tensor Std(long[] dims, bool unbiased, bool keepdim = false) =>
      TesseraNative.std_dims(this, dims ?? new long[0], unbiased ? 1 : 0, keepdim);

  /// <summary>torch.std(this, dim, unbiased, keepdim).</summary>
  public Tensor Std(long dim, bool unbiased = true, bool keepdim = false) =>
      TesseraNative.std_dims(this, new[] {dim}, unbiased ? 1 : 0, keepdim);

  /// <summary>torch.logsumexp(this, dim, keepdim): log(sum(exp(this))) along
  /// dim, computed stably.</summary>
  public Tensor Logsumexp(long dim, bool keepdim = false) => TesseraNative.logsumexp(this, new[] {dim}, keepdim);

  /// <summary>torch.logsumexp(this, dims, keepdim).</summary>
  public Tensor Logsumexp(long[] dims, bool keepdim = false) => TesseraNative.logsumexp(this, dims, keepdim);

  /// <summary>torch.any(this): whether any element is nonzero, a 0-dim bool
  /// tensor.</summary>
  public Tensor Any() => TesseraNative.any_all(this, true, 0, false, false);

  /// <summary>torch.any(this, dim, keepdim).</summary>
  public Tensor Any(long dim, bool keepdim = false) => TesseraNative.any_all(this, false, dim, keepdim, false);

  /// <summary>torch.all(this): whether every element is nonzero, a 0-dim bool
  /// tensor.</summary>
  public Tensor All() => TesseraNative.any_all(this, true, 0, false, true);

  /// <summary>torch.all(this, dim, keepdim).</summary>
  public Tensor All(long dim, bool keepdim = false) => TesseraNative.any_all(this, false, dim, keepdim, true);

  /// <summary>torch.min(this): the smallest element, 0-dim.</summary>
  public Tensor Min() => TesseraNative.min(this);

  /// <summary>torch.min(this, dim, keepdim): the smallest values along dim and
  /// their int64 indices (the first on ties), as torch's (values, indices)
  /// named tuple. Dispose both.</summary>
  public (Tensor Values, Tensor Indices) Min(long dim, bool keepdim = false) {
    var pair = global::Tessera.Tessera.Pair(TesseraNative.min_dim(this, dim, keepdim));
    return (pair[0], pair[1]);
  }

  /// <summary>torch.argmin(this, dim, keepdim): the int64 index of the
  /// smallest value along dim.</summary>
  public Tensor Argmin(long dim, bool keepdim = false) => TesseraNative.argmin(this, dim, keepdim);
}

public static partial class Tessera {
  /// <summary>torch.bmm(input, mat2): [B, n, m] @ [B, m, p] -> [B, n, p]; no
  /// broadcasting (Status.ShapeMismatch).</summary>
  public static Tensor Bmm(Tensor input, Tensor mat2) => TesseraNative.LinalgBmm(input, mat2);

  /// <summary>torch.baddbmm(input, batch1, batch2, beta=, alpha=): beta *
  /// input + alpha * (batch1 @ batch2), input broadcast to [B, n, p].</summary>
  public static Tensor Baddbmm(Tensor input, Tensor batch1, Tensor batch2, double beta = 1.0,
                               double alpha = 1.0) =>
      TesseraNative.LinalgBaddbmm(input, batch1, batch2, beta, alpha);

  /// <summary>torch.outer(input, vec2): the [n, m] outer product of two 1-d
  /// tensors.</summary>
  public static Tensor Outer(Tensor input, Tensor vec2) => TesseraNative.LinalgOuter(input, vec2);

  /// <summary>torch.var_mean(input, dims, correction=, keepdim=): the
  /// variance (divided by N - correction; 1 is torch's unbiased=True) and the
  /// mean over dims (null or empty: every dim), as torch's (var, mean)
  /// tuple.</summary>
  public static (Tensor Var, Tensor Mean) VarMean(Tensor input, long[] dims = null, long correction = 1,
                                                  bool keepdim = false) {
    var pair = Pair(TesseraNative.var_mean_pair(input, dims ?? new long[0], correction, keepdim, false));
    return (pair[0], pair[1]);
  }

  /// <summary>torch.std_mean(input, dims, correction=, keepdim=): the
  /// standard deviation and the mean, as torch's (std, mean) tuple.</summary>
  public static (Tensor Std, Tensor Mean) StdMean(Tensor input, long[] dims = null, long correction = 1,
                                                  bool keepdim = false) {
    var pair = Pair(TesseraNative.var_mean_pair(input, dims ?? new long[0], correction, keepdim, true));
    return (pair[0], pair[1]);
  }

  // The two tensors of a native pair; the list is disposed here.
  internal static Tensor[] Pair(TensorList list) {
    using (list) return new[] {list[0], list[1]};
  }
}

}
