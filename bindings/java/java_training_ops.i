/* bindings/java/java_training_ops.i — Java forms of the ops added for ported
 * training scripts (issue 33), over the module functions of pointwise.i,
 * linalg.i, reductions.i and loss.i (package-private in NativeTessera):
 * Tensor methods in torch's names (clamp with tensor bounds, cumsum, cumprod,
 * prod, var, std, logsumexp, any, all, min, argmin). The module-level forms are
 * hand-written: Functional (activations, losses, with Reduction), Tessera
 * (varMean, stdMean, bmm, baddbmm, outer), and the records VarMean, StdMean and
 * ValuesIndices. Included at the end of loss.i. */

%extend TsrTensor {
%proxycode %{
  // ---- issue 33: pointwise, scans and statistics (java_training_ops.i) ----------------------

  /**
   * torch.clamp(this, min, max) with tensor bounds that broadcast against this; either may be
   * null (None), not both (ERR_INVALID_ARGUMENT). The dtype is the promotion of the three.
   */
  public Tensor clamp(Tensor min, Tensor max) {
    Tessera.requireOpen(min, "clamp: min");
    Tessera.requireOpen(max, "clamp: max");
    return NativeTessera.pointwiseClampTensor(this, min, max);
  }

  /** torch.cumsum(this, dim): running sums along dim (integers and bool accumulate in int64). */
  public Tensor cumsum(long dim) { return NativeTessera.cumsum(this, dim, -1); }

  /** torch.cumsum(this, dim, dtype=dtype): this converted to dtype first. */
  public Tensor cumsum(long dim, DType dtype) { return NativeTessera.cumsum(this, dim, Tessera.dtypeValue(dtype)); }

  /** torch.cumprod(this, dim): running products along dim. */
  public Tensor cumprod(long dim) { return NativeTessera.cumprod(this, dim, -1); }

  /** torch.cumprod(this, dim, dtype=dtype). */
  public Tensor cumprod(long dim, DType dtype) { return NativeTessera.cumprod(this, dim, Tessera.dtypeValue(dtype)); }

  /** torch.prod(this): the product of every element, 0-dim. */
  public Tensor prod() { return NativeTessera.prod(this, -1); }

  /** torch.prod(this, dtype=dtype). */
  public Tensor prod(DType dtype) { return NativeTessera.prod(this, Tessera.dtypeValue(dtype)); }

  /** torch.prod(this, dim, keepdim). */
  public Tensor prod(long dim, boolean keepdim) { return NativeTessera.prod_dim(this, dim, keepdim, -1); }

  /** torch.prod(this, dim, keepdim, dtype=dtype). */
  public Tensor prod(long dim, boolean keepdim, DType dtype) {
    return NativeTessera.prod_dim(this, dim, keepdim, Tessera.dtypeValue(dtype));
  }

  /** torch.var(this): the unbiased variance of every element (correction 1). */
  public Tensor var() { return NativeTessera.var_dims(this, new long[0], 1, false); }

  /** torch.var(this, dim): the unbiased variance along dim. */
  public Tensor var(long dim) { return NativeTessera.var_dims(this, new long[] {dim}, 1, false); }

  /** torch.var(this, dims, unbiased, keepdim); an empty dims reduces over every dim. */
  public Tensor var(long[] dims, boolean unbiased, boolean keepdim) {
    return NativeTessera.var_dims(this, dims, unbiased ? 1 : 0, keepdim);
  }

  /** torch.var(this, dims, correction=correction, keepdim=keepdim): divides by N - correction. */
  public Tensor var(long[] dims, long correction, boolean keepdim) {
    return NativeTessera.var_dims(this, dims, correction, keepdim);
  }

  /** torch.std(this): the unbiased standard deviation of every element. */
  public Tensor std() { return NativeTessera.std_dims(this, new long[0], 1, false); }

  /** torch.std(this, dim). */
  public Tensor std(long dim) { return NativeTessera.std_dims(this, new long[] {dim}, 1, false); }

  /** torch.std(this, dims, unbiased, keepdim). */
  public Tensor std(long[] dims, boolean unbiased, boolean keepdim) {
    return NativeTessera.std_dims(this, dims, unbiased ? 1 : 0, keepdim);
  }

  /** torch.std(this, dims, correction=correction, keepdim=keepdim). */
  public Tensor std(long[] dims, long correction, boolean keepdim) {
    return NativeTessera.std_dims(this, dims, correction, keepdim);
  }

  /** torch.logsumexp(this, dim): log(sum(exp(this))) along dim, computed stably. */
  public Tensor logsumexp(long dim) { return NativeTessera.logsumexp(this, new long[] {dim}, false); }

  /** torch.logsumexp(this, dims, keepdim). */
  public Tensor logsumexp(long[] dims, boolean keepdim) { return NativeTessera.logsumexp(this, dims, keepdim); }

  /** torch.any(this): whether any element is nonzero, a 0-dim bool tensor. */
  public Tensor any() { return NativeTessera.any_all(this, true, 0, false, false); }

  /** torch.any(this, dim, keepdim). */
  public Tensor any(long dim, boolean keepdim) { return NativeTessera.any_all(this, false, dim, keepdim, false); }

  public Tensor any(long dim) { return any(dim, false); }

  /** torch.all(this): whether every element is nonzero, a 0-dim bool tensor. */
  public Tensor all() { return NativeTessera.any_all(this, true, 0, false, true); }

  /** torch.all(this, dim, keepdim). */
  public Tensor all(long dim, boolean keepdim) { return NativeTessera.any_all(this, false, dim, keepdim, true); }

  public Tensor all(long dim) { return all(dim, false); }

  /** torch.min(this): the smallest element, 0-dim (nan when there is one). */
  public Tensor min() { return NativeTessera.min(this); }

  /**
   * torch.min(this, dim, keepdim): the smallest values along dim and their int64 indices (the
   * first on ties), as torch's (values, indices) named tuple; close the record to close both.
   */
  public ValuesIndices min(long dim, boolean keepdim) {
    Tensor[] pair = Tessera.pair(NativeTessera.min_dim(this, dim, keepdim));
    return new ValuesIndices(pair[0], pair[1]);
  }

  public ValuesIndices min(long dim) { return min(dim, false); }

  /** torch.argmin(this, dim, keepdim): the int64 index of the smallest value along dim. */
  public Tensor argmin(long dim, boolean keepdim) { return NativeTessera.argmin(this, dim, keepdim); }

  public Tensor argmin(long dim) { return argmin(dim, false); }
%}
}
