// Issue 33's indexing, sorting, extrema, factories and shape ops in their C#
// forms, against PyTorch 1.13 (goldens.txt's op_ix_* tensors, from
// bindings/support/training_ops_golden_cases.py, which holds each torch
// expression).
using System;
using System.Collections.Generic;

namespace Tessera.Tests {

public static class IndexingOpsTests {
  static void Matches(string name, Tensor got) {
    using (got) {
      TensorGolden want = Goldens.TensorCase("op_" + name);
      Check.Equal(want.Sizes, got.Sizes, name + " sizes");
      Check.Equal(Goldens.DTypeOf(want.Dtype), got.Dtype, name + " dtype");
      Check.Close(want.Values, got.ToFloat64(), 1e-5, name);
    }
  }

  static Tensor In(string name) => Goldens.Tensor("op_" + name, false);

  static Tensor Values((Tensor Values, Tensor Indices) pair) {
    pair.Indices.Dispose();
    return pair.Values;
  }

  static Tensor Indices((Tensor Values, Tensor Indices) pair) {
    pair.Values.Dispose();
    return pair.Indices;
  }

  [Test]
  public static void IndexingSortingShapeOpsMatchPyTorch() {
    using (var x = In("x")) using (var r = In("r")) using (var p = In("p")) using (var lo = In("lo"))
    using (var mask = In("mask")) using (var idx = In("ix_idx")) using (var cols = In("ix_cols"))
    using (var rows00 = In("ix_rows00")) using (var rows11 = In("ix_rows11")) using (var idx2 = In("ix_idx2"))
    using (var pos = In("ix_pos")) using (var v3 = In("ix_v3")) {
      var ops = new Dictionary<string, Func<Tensor>> {
        ["ix_index"] = () => x.Index(idx),                       // x[idx]
        ["ix_index_mask"] = () => x.Index(pos),                  // x[x > 0]
        ["ix_index_cols"] = () => x.Index(null, cols),           // x[:, cols]
        ["ix_index_put"] = () => x.Clone().IndexPut_(new[] {rows00}, v3, true),
        ["ix_masked_fill"] = () => x.MaskedFill(mask, -1.0),
        ["ix_masked_select"] = () => x.MaskedSelect(pos),
        ["ix_scatter_add"] = () => Tensor.Zeros(new long[] {2, 3}).ScatterAdd(1, idx2, x),
        ["ix_scatter_reduce_amax"] = () => x.ScatterReduce(1, idx2, r, ScatterReduction.SCATTER_AMAX, false),
        ["ix_index_add"] = () => x.IndexAdd(0, rows11, p, 0.5),
        ["ix_take_along_dim"] = () => x.TakeAlongDim(idx2, 1),
        ["ix_sort_values"] = () => Values(x.Sort(1, true)),
        ["ix_sort_indices"] = () => Indices(x.Sort(1, true)),
        ["ix_topk_values"] = () => Values(x.Topk(2, 1)),
        ["ix_topk_indices"] = () => Indices(x.Topk(2, 1)),
        ["ix_kthvalue"] = () => Values(x.Kthvalue(2, 1)),
        ["ix_maximum"] = () => x.Maximum(lo),
        ["ix_amax"] = () => x.Amax(new long[] {1}),
        ["ix_norm"] = () => x.Norm(1, new long[] {1}),
        ["ix_linspace"] = () => Tessera.Linspace(0, 1, 5),
        ["ix_eye"] = () => Tessera.Eye(2, 3),
        ["ix_triu"] = () => Tensor.Ones(new long[] {3, 3}, DType.Bool).Triu(1),
        ["ix_flip"] = () => x.Flip(1),
        ["ix_roll"] = () => x.Roll(new long[] {1}, new long[] {1}),
        ["ix_repeat"] = () => x.Repeat(2, 1),
        ["ix_einsum"] = () => Tessera.Einsum("ij,kj->ik", x, r),
      };
      foreach (var op in ops) Matches(op.Key, op.Value());
    }
  }

  [Test]
  public static void AFailedWriteChangesNothing() {
    using (var x = Tensor.Zeros(new long[] {3, 4}))
    using (var bad = Tensor.FromArray(new long[] {0, 7}, new long[] {2}))
    using (var row = Tensor.Ones(new long[] {4})) {
      TesseraException e = Check.Throws(Status.IndexOutOfRange, () => x.IndexPut_(new[] {bad}, row), "index put");
      Check.True(e.Message.Contains("index 7 is out of bounds for dimension 0 with size 3"), e.Message);
      Check.Equal(0L, x.Version, "version after a failed write");
      Check.Throws(Status.InvalidArgument, () => x.Topk(5, 0), "k out of range");
      Check.Throws(Status.InvalidArgument, () => Tessera.Einsum("ij,jk", x, x), "einsum sizes");
    }
  }
}

}
