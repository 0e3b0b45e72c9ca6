// Save then load: values, names (in order), metadata; plain and zstd.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Tessera.Tests {

public static class SaveLoadTests {
  [Test]
  public static void RoundTripPlainAndZstd() {
    string dir = Path.Combine(Path.GetTempPath(), "tessera-cs-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    try {
      using (var w = Tensor.FromArray(new float[] {1, 2, 3, 4, 5, 6}, new long[] {2, 3}))
      using (var wt = w.T())
      using (var steps = Tensor.Arange(0, 1000))
      using (var flags = Tensor.FromBytes(new byte[] {1, 0}, new long[] {2}, DType.Bool)) {
        var tensors = new List<KeyValuePair<string, Tensor>> {
          new KeyValuePair<string, Tensor>("weight_t", wt),   // non-contiguous: saved in C order
          new KeyValuePair<string, Tensor>("steps", steps),
          new KeyValuePair<string, Tensor>("flags", flags),
        };
        var metadata = new Dictionary<string, string> {["model"] = "test", ["epoch"] = "3"};
        foreach (var compression in new[] {Compression.None, Compression.Zstd}) {
          string path = Path.Combine(dir, compression + ".tsr");
          Tessera.Save(path, tensors, metadata, compression);
          using (TensorMap map = Tessera.Load(path)) {
            Check.Equal(3, map.Count, compression + ": count");
            Check.True(map.Keys.OrderBy(k => k).SequenceEqual(new[] {"flags", "steps", "weight_t"}),
                       compression + ": names");
            Check.True(map.ContainsKey("steps") && !map.ContainsKey("nope"), compression + ": ContainsKey");
            using (var t = map["weight_t"]) {
              Check.Equal(new long[] {3, 2}, t.Sizes, compression + ": sizes");
              Check.True(t.ToFloat64().SequenceEqual(new double[] {1, 4, 2, 5, 3, 6}), compression + ": values");
            }
            using (var s = map["steps"]) Check.True(s.ToInt64().SequenceEqual(Enumerable.Range(0, 1000).Select(i => (long)i)), compression + ": int64 values");
            using (var f = map["flags"]) Check.Equal(DType.Bool, f.Dtype, compression + ": bool dtype");
            Check.Equal("test", map.Metadata["model"], compression + ": metadata");
            Check.Equal("3", map.Metadata["epoch"], compression + ": metadata");
            Tensor missing;
            Check.True(!map.TryGetValue("nope", out missing) && missing == null, "TryGetValue of a missing name");
            Check.True(Throws<KeyNotFoundException>(() => { var t = map["nope"]; }), "indexer of a missing name");
            foreach (var entry in map) using (entry.Value) Check.True(entry.Value.Numel > 0, entry.Key);
          }
        }
        long plain = new FileInfo(Path.Combine(dir, "None.tsr")).Length;
        long zstd = new FileInfo(Path.Combine(dir, "Zstd.tsr")).Length;
        Check.True(zstd < plain, $"zstd file ({zstd} B) smaller than plain ({plain} B)");
        Check.Throws(Status.InvalidArgument,
                     () => Tessera.Save(Path.Combine(dir, "bad.tsr"), new[] {new KeyValuePair<string, Tensor>(null, w)}),
                     "a tensor without a name");
      }
    } finally {
      Directory.Delete(dir, true);
    }
  }

  // Issue 34 item 11: with the metadata overload's compression optional,
  // Save(path, tensors, null) matched it and Save(path, tensors, SaveOptions)
  // and did not compile; now null is SaveOptions' "defaults".
  [Test]
  public static void SaveWithNullThirdArgument() {
    string path = Path.GetTempFileName();
    try {
      using (var w = Tensor.FromArray(new float[] {1, 2}, new long[] {2})) {
        Tessera.Save(path, new[] {new KeyValuePair<string, Tensor>("w", w)}, null);
        using (TensorMap map = Tessera.Load(path))
        using (var back = map["w"]) {
          Check.True(back.ToFloat64().SequenceEqual(new double[] {1, 2}), "values");
          Check.Equal(0, map.Metadata.Count, "no metadata");
        }
      }
    } finally {
      File.Delete(path);
    }
  }

  [Test]
  public static void CorruptFileIsRefused() {
    string path = Path.GetTempFileName();
    try {
      File.WriteAllBytes(path, new byte[] {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2});
      Check.Throws(Status.CorruptFile, () => Tessera.Load(path), "a header length past the end");
    } finally {
      File.Delete(path);
    }
  }

  static bool Throws<E>(Action action) where E : Exception {
    try { action(); } catch (E) { return true; }
    return false;
  }
}

}
