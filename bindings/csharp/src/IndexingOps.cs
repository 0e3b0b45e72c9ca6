// Issue 33's indexing, sorting, extrema, factories and shape ops
// (indexing.i, sorting.i, reductions.i, shape_ops.i) as Tensor methods in
// torch's names (PascalCase; in-place forms end in an underscore and return
// this) and torch-level functions on Tessera (Linspace, Eye, Einsum,
// Maximum, Minimum). Two-tensor results are named tuples (Values, Indices).
// Every index is checked before anything is written: a failure leaves the
// tensor unchanged.
using System.Collections.Generic;

namespace Tessera {

public partial class Tensor {
  /// <summary>this[indices] (advanced indexing): int64 index tensors or bool
  /// masks; null is a full slice. A copy.</summary>
  public Tensor Index(params Tensor[] indices) {
    using (var list = global::Tessera.Tessera.NativeList(indices, true, "indices"))
      return TesseraNative.index(this, list);
  }

  /// <summary>this.index_put_(indices, values, accumulate): this[indices] =
  /// values (or +=).</summary>
  public Tensor IndexPut_(Tensor[] indices, Tensor values, bool accumulate = false) {
    using (var list = global::Tessera.Tessera.NativeList(indices, true, "indices"))
      TesseraNative.index_put_(this, list, values, accumulate);
    return this;
  }

  /// <summary>torch.nonzero(this): [n, ndim] int64 coordinates.</summary>
  public Tensor Nonzero() => TesseraNative.nonzero(this);

  /// <summary>this.masked_fill(mask, value).</summary>
  public Tensor MaskedFill(Tensor mask, double value) => TesseraNative.masked_fill(this, mask, value);

  /// <summary>this.masked_fill_(mask, value).</summary>
  public Tensor MaskedFill_(Tensor mask, double value) {
    TesseraNative.masked_fill_(this, mask, value);
    return this;
  }

  /// <summary>torch.masked_select(this, mask): 1-D.</summary>
  public Tensor MaskedSelect(Tensor mask) => TesseraNative.masked_select(this, mask);

  /// <summary>this.scatter(dim, index, src).</summary>
  public Tensor Scatter(long dim, Tensor index, Tensor src) => TesseraNative.scatter(this, dim, index, src);

  /// <summary>this.scatter(dim, index, value).</summary>
  public Tensor Scatter(long dim, Tensor index, double value) => TesseraNative.scatter_value(this, dim, index, value);

  /// <summary>this.scatter_add(dim, index, src).</summary>
  public Tensor ScatterAdd(long dim, Tensor index, Tensor src) => TesseraNative.scatter_add(this, dim, index, src);

  /// <summary>this.scatter_add_(dim, index, src).</summary>
  public Tensor ScatterAdd_(long dim, Tensor index, Tensor src) {
    TesseraNative.scatter_add_(this, dim, index, src);
    return this;
  }

  /// <summary>this.scatter_reduce(dim, index, src, reduce,
  /// include_self).</summary>
  public Tensor ScatterReduce(long dim, Tensor index, Tensor src, ScatterReduction reduce, bool includeSelf = true) =>
      TesseraNative.scatter_reduce(this, dim, index, src, (int)reduce, includeSelf);

  /// <summary>this.index_add(dim, index, source, alpha).</summary>
  public Tensor IndexAdd(long dim, Tensor index, Tensor source, double alpha = 1.0) =>
      TesseraNative.index_add(this, dim, index, source, alpha);

  /// <summary>this.index_copy(dim, index, source).</summary>
  public Tensor IndexCopy(long dim, Tensor index, Tensor source) => TesseraNative.index_copy(this, dim, index, source);

  /// <summary>this.index_fill(dim, index, value).</summary>
  public Tensor IndexFill(long dim, Tensor index, double value) => TesseraNative.index_fill(this, dim, index, value);

  /// <summary>torch.take_along_dim(this, indices, dim).</summary>
  public Tensor TakeAlongDim(Tensor indices, long dim) => TesseraNative.take_along_dim(this, indices, dim, true);

  static (Tensor Values, Tensor Indices) Both(TensorList list) {
    var pair = global::Tessera.Tessera.Pair(list);
    return (pair[0], pair[1]);
  }

  /// <summary>torch.sort(this, dim, descending, stable=True): values and
  /// int64 positions (ties keep their order; NaN is the largest).</summary>
  public (Tensor Values, Tensor Indices) Sort(long dim = -1, bool descending = false) =>
      Both(TesseraNative.sort(this, dim, descending, true));

  /// <summary>torch.argsort(this, dim, descending).</summary>
  public Tensor Argsort(long dim = -1, bool descending = false) => TesseraNative.argsort(this, dim, descending);

  /// <summary>torch.topk(this, k, dim, largest).</summary>
  public (Tensor Values, Tensor Indices) Topk(long k, long dim = -1, bool largest = true) =>
      Both(TesseraNative.topk(this, k, dim, largest));

  /// <summary>torch.kthvalue(this, k, dim, keepdim).</summary>
  public (Tensor Values, Tensor Indices) Kthvalue(long k, long dim = -1, bool keepdim = false) =>
      Both(TesseraNative.kthvalue(this, k, dim, keepdim));

  /// <summary>torch.maximum(this, other).</summary>
  public Tensor Maximum(Tensor other) => TesseraNative.maximum(this, other);

  /// <summary>torch.minimum(this, other).</summary>
  public Tensor Minimum(Tensor other) => TesseraNative.minimum(this, other);

  /// <summary>torch.amax(this, dims, keepdim) (null or empty: all).</summary>
  public Tensor Amax(long[] dims = null, bool keepdim = false) => TesseraNative.amax(this, dims ?? new long[0], keepdim);

  /// <summary>torch.amin(this, dims, keepdim).</summary>
  public Tensor Amin(long[] dims = null, bool keepdim = false) => TesseraNative.amin(this, dims ?? new long[0], keepdim);

  /// <summary>torch.norm(this, p, dims, keepdim) (double.PositiveInfinity,
  /// 0 allowed; null dims: all).</summary>
  public Tensor Norm(double p = 2, long[] dims = null, bool keepdim = false) =>
      TesseraNative.norm(this, p, dims ?? new long[0], keepdim);

  /// <summary>torch.tril(this, diagonal).</summary>
  public Tensor Tril(long diagonal = 0) => TesseraNative.tril(this, diagonal);

  /// <summary>torch.triu(this, diagonal).</summary>
  public Tensor Triu(long diagonal = 0) => TesseraNative.triu(this, diagonal);

  /// <summary>torch.flip(this, dims).</summary>
  public Tensor Flip(params long[] dims) => TesseraNative.flip(this, dims);

  /// <summary>torch.roll(this, shifts, dims) (null dims: flattened).</summary>
  public Tensor Roll(long[] shifts, long[] dims = null) => TesseraNative.roll(this, shifts, dims ?? new long[0]);

  /// <summary>this.repeat(repeats).</summary>
  public Tensor Repeat(params long[] repeats) => TesseraNative.repeat(this, repeats);

  /// <summary>torch.tile(this, reps).</summary>
  public Tensor Tile(params long[] reps) => TesseraNative.tile(this, reps);
}

public static partial class Tessera {
  /// <summary>torch.linspace(start, end, steps, dtype).</summary>
  public static Tensor Linspace(double start, double end, long steps, DType dtype = DType.Float32) =>
      TesseraNative.linspace(start, end, steps, (int)dtype);

  /// <summary>torch.eye(n, m, dtype).</summary>
  public static Tensor Eye(long n, long m, DType dtype = DType.Float32) => TesseraNative.eye(n, m, (int)dtype);

  /// <summary>torch.einsum(equation, operands).</summary>
  public static Tensor Einsum(string equation, params Tensor[] operands) {
    using (var list = NativeList(operands, false, "operands")) return TesseraNative.einsum(equation, list);
  }

  /// <summary>torch.maximum(a, b).</summary>
  public static Tensor Maximum(Tensor a, Tensor b) => TesseraNative.maximum(a, b);

  /// <summary>torch.minimum(a, b).</summary>
  public static Tensor Minimum(Tensor a, Tensor b) => TesseraNative.minimum(a, b);
}

}
