// Views share storage with their base; layouts match PyTorch 1.13's
// (goldens.txt).
using System;
using System.Collections.Generic;
using System.Linq;

namespace Tessera.Tests {

public static class ViewTests {
  [Test]
  public static void WriteThroughViewIsSeenThroughBase() {
    using (var x = Tensor.Zeros(new long[] {3, 4}))
    using (var t = x.Transpose(0, 1))
    using (var row = x.Select(0, 1)) {
      Check.True(x.SharesStorage(t) && x.SharesStorage(row), "views share storage");
      t[2, 1] = 5;                    // x[1, 2]
      Check.Equal(5.0, x[1, 2], "write through transpose seen in x");
      Check.Equal(5.0, row[2], "and through another view");
      row.FillInPlace(7);
      Check.Equal(7.0, t[0, 1], "fill_ through a row view seen through transpose");
      using (var storage = x.Storage()) {
        Check.Equal(48L, storage.Nbytes, "storage bytes");
        Check.True(storage.UseCount >= 3, "storage used by x, t, row and the handle");
        Check.Equal(x.DataPtr, storage.DataPtr, "x starts at the storage start");
      }
      using (var copy = t.Contiguous()) {
        Check.True(!x.SharesStorage(copy), "contiguous() of a transpose copies");
        copy[0, 0] = -1;
        Check.Equal(0.0, x[0, 0], "writing the copy leaves x");
      }
    }
  }

  [Test]
  public static void ViewsOutliveTheirBase() {
    Tensor view;
    using (var x = Tensor.Arange(0, 6, 1, DType.Float32)) view = x.View(new long[] {2, 3});
    using (view) Check.True(view.ToFloat64().SequenceEqual(new double[] {0, 1, 2, 3, 4, 5}), "values after the base was disposed");
  }

  static readonly Dictionary<string, Func<Tensor, Tensor>> views = new Dictionary<string, Func<Tensor, Tensor>> {
    ["x"] = x => x.View(x.Sizes),
    ["transpose_1_2"] = x => x.Transpose(1, 2),
    ["permute_0_2_3_1"] = x => x.Permute(new long[] {0, 2, 3, 1}),
    ["narrow_3_1_2"] = x => x.Narrow(3, 1, 2),
    ["select_1_2"] = x => x.Select(1, 2),
    ["slice_2_0_4_2"] = x => x.Slice(2, 0, 4, 2),
    ["unsqueeze_0"] = x => x.Unsqueeze(0),
    ["flatten_1"] = x => x.Flatten(1),
    ["diagonal_0_2_3"] = x => x.Diagonal(0, 2, 3),
    ["unfold_3_2_1"] = x => x.Unfold(3, 2, 1),
    ["as_strided_22_12_3"] = x => x.AsStrided(new long[] {2, 2}, new long[] {1, 2}, 3),
    ["channels_last"] = x => x.Contiguous(MemoryFormat.ChannelsLast),
    ["channels_last_narrow"] = x => {
      using (var cl = x.Contiguous(MemoryFormat.ChannelsLast)) return cl.Narrow(0, 1, 1);
    },
    ["expand_col_3_4"] = x => {
      using (var col = Tensor.Arange(0, 3, 1, DType.Float32))
      using (var col2 = col.View(new long[] {3, 1}))
        return col2.Expand(new long[] {3, 4});
    },
    ["t_of_view_6_20"] = x => {
      using (var v = x.View(new long[] {6, 20})) return v.T();
    },
  };

  [Test]
  public static void LayoutsMatchPyTorch() {
    Check.Equal(views.Count, Goldens.Layouts.Count, "every golden layout has a view here");
    using (var a = Tensor.Arange(0, 120, 1, DType.Float32))
    using (var x = a.View(new long[] {2, 3, 4, 5})) {
      foreach (var entry in Goldens.Layouts) {
        LayoutGolden want = entry.Value;
        using (Tensor v = views[entry.Key](x)) {
          Check.Equal(want.Sizes, v.Sizes, entry.Key + " sizes");
          Check.Equal(want.Strides, v.Strides, entry.Key + " strides");
          Check.Equal(want.Contiguous, v.IsContiguous(), entry.Key + " is_contiguous");
          bool channelsLast = v.Ndim == 4 && v.IsContiguous(MemoryFormat.ChannelsLast);
          Check.Equal(want.ChannelsLast, channelsLast, entry.Key + " is_contiguous(channels_last)");
          Check.Equal(want.StorageOffset, v.StorageOffset, entry.Key + " storage_offset");
          for (int d = 0; d < want.Sizes.Length; ++d) {
            Check.Equal(want.Sizes[d], v.Size(d), entry.Key + " size(d)");
            Check.Equal(want.Strides[d], v.Stride(d), entry.Key + " stride(d)");
          }
        }
      }
    }
  }

  [Test]
  public static void SplitChunkAndMaxReturnLists() {
    using (var x = Tensor.Arange(0, 10, 1, DType.Float32))
    using (var pieces = x.Split(4))
    using (var chunks = x.Chunk(2))
    using (var m = x.View(new long[] {2, 5}))
    using (var max = m.MaxDim(1)) {
      Check.Equal(3, pieces.Count, "split(4) of 10");
      using (var last = pieces[2]) Check.Equal(new long[] {2}, last.Sizes, "last piece");
      Check.Equal(2, chunks.Count, "chunk(2)");
      Check.Equal(new long[] {5, 5}, chunks.Select(c => { using (c) return c.Numel; }).ToArray(), "chunk sizes");
      Check.Equal("values", max.Name(0), "max_dim names");
      using (var values = max[0])
      using (var indices = max[1]) {
        Check.Equal(new long[] {4, 9}, values.ToInt64(), "max values");
        Check.Equal(new long[] {4, 4}, indices.ToInt64(), "argmax indices");
      }
    }
  }
}

}
