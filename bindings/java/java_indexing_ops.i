/* bindings/java/java_indexing_ops.i — Java forms of issue 33's indexing,
 * sorting, extrema and shape ops, over the module functions of indexing.i,
 * sorting.i, reductions.i and shape_ops.i (package-private in NativeTessera):
 * Tensor methods in torch's names (camelCase), in-place forms returning this.
 * Module-level forms (linspace, eye, einsum, maximum) are on Tessera.
 * Included at the end of shape_ops.i. */

%extend TsrTensor {
%proxycode %{
  // ---- issue 33: indexing, sorting, extrema, shape ops (java_indexing_ops.i) ---------------

  /** this[indices] (advanced indexing): int64 index tensors or bool masks; null is a full slice. */
  public Tensor index(Tensor... indices) {
    try (TensorList list = Tessera.tensorList(indices, true, "indices")) {
      return NativeTessera.index(this, list);
    }
  }

  /** this.index_put_(indices, values, accumulate): this[indices] = values (or +=). Returns this. */
  public Tensor indexPut_(Tensor[] indices, Tensor values, boolean accumulate) {
    try (TensorList list = Tessera.tensorList(indices, true, "indices")) {
      NativeTessera.index_put_(this, list, values, accumulate);
    }
    return this;
  }

  /** torch.nonzero(this): [n, ndim] int64 coordinates of the non-zero elements. */
  public Tensor nonzero() { return NativeTessera.nonzero(this); }

  /** this.masked_fill(mask, value): value where the bool mask (broadcast) is true. */
  public Tensor maskedFill(Tensor mask, double value) { return NativeTessera.masked_fill(this, mask, value); }

  /** this.masked_fill_(mask, value). Returns this. */
  public Tensor maskedFill_(Tensor mask, double value) {
    NativeTessera.masked_fill_(this, mask, value);
    return this;
  }

  /** torch.masked_select(this, mask): the elements where mask is true, 1-D. */
  public Tensor maskedSelect(Tensor mask) { return NativeTessera.masked_select(this, mask); }

  /** this.scatter(dim, index, src). */
  public Tensor scatter(long dim, Tensor index, Tensor src) { return NativeTessera.scatter(this, dim, index, src); }

  /** this.scatter(dim, index, value). */
  public Tensor scatter(long dim, Tensor index, double value) {
    return NativeTessera.scatter_value(this, dim, index, value);
  }

  /** this.scatter_add(dim, index, src): src added at index's positions. */
  public Tensor scatterAdd(long dim, Tensor index, Tensor src) {
    return NativeTessera.scatter_add(this, dim, index, src);
  }

  /** this.scatter_add_(dim, index, src). Returns this. */
  public Tensor scatterAdd_(long dim, Tensor index, Tensor src) {
    NativeTessera.scatter_add_(this, dim, index, src);
    return this;
  }

  /** this.scatter_reduce(dim, index, src, reduce, include_self=includeSelf). */
  public Tensor scatterReduce(long dim, Tensor index, Tensor src, ScatterReduction reduce, boolean includeSelf) {
    return NativeTessera.scatter_reduce(this, dim, index, src, reduce.swigValue(), includeSelf);
  }

  /** this.index_add(dim, index, source, alpha=alpha). */
  public Tensor indexAdd(long dim, Tensor index, Tensor source, double alpha) {
    return NativeTessera.index_add(this, dim, index, source, alpha);
  }

  /** this.index_copy(dim, index, source). */
  public Tensor indexCopy(long dim, Tensor index, Tensor source) {
    return NativeTessera.index_copy(this, dim, index, source);
  }

  /** this.index_fill(dim, index, value). */
  public Tensor indexFill(long dim, Tensor index, double value) {
    return NativeTessera.index_fill(this, dim, index, value);
  }

  /** torch.take_along_dim(this, indices, dim). */
  public Tensor takeAlongDim(Tensor indices, long dim) {
    return NativeTessera.take_along_dim(this, indices, dim, true);
  }

  /** torch.sort(this, dim, descending, stable=true): values and int64 positions (ties keep order). */
  public ValuesIndices sort(long dim, boolean descending) {
    Tensor[] pair = Tessera.pair(NativeTessera.sort(this, dim, descending, true));
    return new ValuesIndices(pair[0], pair[1]);
  }

  /** torch.argsort(this, dim, descending). */
  public Tensor argsort(long dim, boolean descending) { return NativeTessera.argsort(this, dim, descending); }

  /** torch.topk(this, k, dim, largest): the k largest (or smallest) along dim, in order. */
  public ValuesIndices topk(long k, long dim, boolean largest) {
    Tensor[] pair = Tessera.pair(NativeTessera.topk(this, k, dim, largest));
    return new ValuesIndices(pair[0], pair[1]);
  }

  /** torch.kthvalue(this, k, dim, keepdim): the k-th smallest (k from 1) and its position. */
  public ValuesIndices kthvalue(long k, long dim, boolean keepdim) {
    Tensor[] pair = Tessera.pair(NativeTessera.kthvalue(this, k, dim, keepdim));
    return new ValuesIndices(pair[0], pair[1]);
  }

  /** torch.maximum(this, other): the larger of each broadcast pair (NaN wins). */
  public Tensor maximum(Tensor other) { return NativeTessera.maximum(this, other); }

  /** torch.minimum(this, other). */
  public Tensor minimum(Tensor other) { return NativeTessera.minimum(this, other); }

  /** torch.amax(this, dims, keepdim) (no dims: all). */
  public Tensor amax(long[] dims, boolean keepdim) { return NativeTessera.amax(this, dims, keepdim); }

  /** torch.amin(this, dims, keepdim). */
  public Tensor amin(long[] dims, boolean keepdim) { return NativeTessera.amin(this, dims, keepdim); }

  /** torch.norm(this, p, dims, keepdim): the p-norm (Double.POSITIVE_INFINITY, 0 allowed). */
  public Tensor norm(double p, long[] dims, boolean keepdim) { return NativeTessera.norm(this, p, dims, keepdim); }

  /** torch.tril(this, diagonal). */
  public Tensor tril(long diagonal) { return NativeTessera.tril(this, diagonal); }

  /** torch.triu(this, diagonal): triu(ones(T, T, BOOL), 1) is the causal mask. */
  public Tensor triu(long diagonal) { return NativeTessera.triu(this, diagonal); }

  /** torch.flip(this, dims). */
  public Tensor flip(long... dims) { return NativeTessera.flip(this, dims); }

  /** torch.roll(this, shifts, dims) (no dims: flattened). */
  public Tensor roll(long[] shifts, long[] dims) { return NativeTessera.roll(this, shifts, dims); }

  /** this.repeat(repeats...). */
  public Tensor repeat(long... repeats) { return NativeTessera.repeat(this, repeats); }

  /** torch.tile(this, reps). */
  public Tensor tile(long... reps) { return NativeTessera.tile(this, reps); }
%}
}
