package org.tessera;

/** torch.nn.utils: gradient clipping over the parameters' gradients, in place. */
public final class NnUtils {
  private NnUtils() {}

  private static TensorList list(Iterable<Tensor> params) {
    if (params == null) throw new NullPointerException("params is null");
    TensorList list = new TensorList();
    try {
      for (Tensor p : params) list.append(p);
    } catch (RuntimeException e) {
      list.close();
      throw e;
    }
    return list;
  }

  /**
   * torch.nn.utils.clip_grad_norm_(params, maxNorm, normType, errorIfNonfinite): scales every
   * gradient so that their total norm is at most maxNorm; returns the total norm (a 0-dim tensor).
   * normType may be Double.POSITIVE_INFINITY.
   */
  public static Tensor clipGradNorm_(Iterable<Tensor> params, double maxNorm, double normType,
      boolean errorIfNonfinite) {
    try (TensorList l = list(params)) {
      return NativeTessera.clip_grad_norm(l, maxNorm, normType, errorIfNonfinite);
    }
  }

  /** clip_grad_norm_(params, maxNorm) with torch's defaults: the 2-norm, no error if non-finite. */
  public static Tensor clipGradNorm_(Iterable<Tensor> params, double maxNorm) {
    return clipGradNorm_(params, maxNorm, 2.0, false);
  }

  /** torch.nn.utils.clip_grad_value_(params, clipValue): gradients clamped to [-clipValue, clipValue]. */
  public static void clipGradValue_(Iterable<Tensor> params, double clipValue) {
    try (TensorList l = list(params)) {
      NativeTessera.clip_grad_value(l, clipValue);
    }
  }
}
