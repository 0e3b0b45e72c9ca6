// Checkpoint files 2: Saver (IDisposable), progress callbacks (cancel by
// false or by an exception), shards through the index, views, zstd-planes,
// the storage-only dtypes, TensorFile (lazy, memory-mapped); every error path
// with its status and message, and nothing left behind.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Tessera.Tests {

public static class CheckpointFileTests {
  static string NewDir() {
    string dir = Path.Combine(Path.GetTempPath(), "tessera-cs-ckpt-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    return dir;
  }

  static string[] Listing(string dir) =>
      Directory.GetFiles(dir).Select(Path.GetFileName).OrderBy(n => n, StringComparer.Ordinal).ToArray();

  static byte[] WriteOld(string path) {
    using (var t = Tensor.Full(new long[] {1}, 7.0))
      Tessera.Save(path, new[] {new KeyValuePair<string, Tensor>("old", t)});
    return File.ReadAllBytes(path);
  }

  static KeyValuePair<string, Tensor> Pair(string name, Tensor t) => new KeyValuePair<string, Tensor>(name, t);

  [Test]
  public static void SaverCommitsAndAbandons() {
    string dir = NewDir();
    try {
      string path = Path.Combine(dir, "s.safetensors");
      using (var w = Tensor.FromArray(new float[] {0, 1, 2, 3, 4, 5}, new long[] {2, 3}))
      using (var wt = w.T())
      using (var saver = Saver.Open(path, new SaveOptions {
               Compression = Compression.ZstdPlanes,
               Metadata = new Dictionary<string, string> {["step"] = "4"}})) {
        saver.Add("wt", wt);
        saver.Add("w", w);
        Check.True(!File.Exists(path), "no file before Commit");
        saver.Commit();
      }
      Check.True(Listing(dir).SequenceEqual(new[] {"s.safetensors"}), "no temporary left");
      using (var map = Tessera.Load(path)) {
        Check.Equal("wt", map.Keys.First(), "in the order added");
        Check.Equal("zstd-planes", map.Metadata["tessera.compression"], "compression");
        Check.Equal("4", map.Metadata["step"], "metadata");
        using (var t = map["wt"]) Check.Close(new double[] {0, 3, 1, 4, 2, 5}, t.ToFloat64(), 0, "contents");
      }
      byte[] before = File.ReadAllBytes(path);
      using (var saver = Saver.Open(path))
      using (var t = Tensor.Zeros(new long[] {3})) {
        saver.Add("a", t);
      } // disposed without Commit
      Check.True(before.SequenceEqual(File.ReadAllBytes(path)), "old file untouched");
      Check.True(Listing(dir).SequenceEqual(new[] {"s.safetensors"}), "no temporary left");
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public static void SaverErrors() {
    string dir = NewDir();
    try {
      string path = Path.Combine(dir, "s.safetensors");
      var saver = Saver.Open(path);
      using (var t = Tensor.Zeros(new long[] {2})) {
        saver.Add("a", t);
        Check.True(Check.Throws(Status.InvalidArgument, () => saver.Add("a", t), "duplicate")
                       .Message.Contains("duplicate tensor name \"a\""), "names the tensor");
        saver.Commit();
        Check.True(Check.Throws(Status.InvalidArgument, () => saver.Commit(), "commit twice")
                       .Message.Contains("already committed"), "commit twice says so");
        Check.True(Check.Throws(Status.InvalidArgument, () => saver.Add("b", t), "add after commit")
                       .Message.Contains("already committed"), "add after commit says so");
        saver.Dispose();
        saver.Dispose(); // idempotent
        Check.Throws(Status.InvalidArgument, () => saver.Add("b", t), "add after Dispose");
      }
      string missing = Path.Combine(dir, "missing", "x.safetensors");
      Check.True(Check.Throws(Status.IO, () => Saver.Open(missing), "missing directory")
                     .Message.Contains("missing"), "names the path");
      Check.Throws(Status.InvalidArgument,
                   () => Saver.Open(Path.Combine(dir, "x.safetensors"), new SaveOptions {
                     Metadata = new Dictionary<string, string> {["tessera.x"] = "1"}}),
                   "reserved metadata key");
      Check.True(Check.Throws(Status.Unsupported,
                   () => Saver.Open(Path.Combine(dir, "x.safetensors"), new SaveOptions {MaxShardSize = 10}),
                   "sharded saver").Message.Contains("max_shard_size must be 0"), "says why");
      Check.True(Listing(dir).SequenceEqual(new[] {"s.safetensors"}), "nothing else written");
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public static void ProgressReportsAndCancels() {
    string dir = NewDir();
    try {
      string path = Path.Combine(dir, "p.safetensors");
      var calls = new List<(ulong, ulong)>();
      using (var a = Tensor.Zeros(new long[] {100}))
      using (var b = Tensor.Zeros(new long[] {50}, DType.Float64)) {
        var tensors = new[] {Pair("a", a), Pair("b", b)};
        Tessera.Save(path, tensors, new SaveOptions {Progress = (d, t) => { calls.Add((d, t)); return true; }});
        Check.Equal((0UL, 800UL), calls.First(), "first call");
        Check.Equal((800UL, 800UL), calls.Last(), "last call");
        calls.Clear();
        using (var m = Tessera.Load(path, new LoadOptions {Progress = (d, t) => { calls.Add((d, t)); return true; }}))
          Check.Equal(2, m.Count, "loaded");
        Check.Equal((800UL, 800UL), calls.Last(), "load's last call");
        byte[] before = File.ReadAllBytes(path);
        var e = Check.Throws(Status.Cancelled,
                             () => Tessera.Save(path, tensors, new SaveOptions {Progress = (d, t) => d == 0}),
                             "save cancelled by false");
        Check.True(e.Message.Contains("cancelled by the progress callback"), "message: " + e.Message);
        Check.True(e.InnerException == null, "no inner exception when the callback returned false");
        Check.True(before.SequenceEqual(File.ReadAllBytes(path)), "old file untouched");
        Check.Throws(Status.Cancelled,
                     () => Tessera.Load(path, new LoadOptions {Progress = (d, t) => false}), "load cancelled");
        e = Check.Throws(Status.Cancelled,
                         () => Tessera.Save(path, tensors, new SaveOptions {
                           Compression = Compression.Zstd,
                           Progress = (d, t) => throw new InvalidOperationException("from the callback")}),
                         "save cancelled by an exception");
        Check.True(e.InnerException is InvalidOperationException, "the callback's exception is inner");
        Check.True(before.SequenceEqual(File.ReadAllBytes(path)), "old file untouched after an exception");
        e = Check.Throws(Status.Cancelled,
                         () => Tessera.Load(path, new LoadOptions {
                           Progress = (d, t) => throw new DivideByZeroException()}),
                         "load cancelled by an exception");
        Check.True(e.InnerException is DivideByZeroException, "load: inner");
        Check.Throws(Status.Cancelled,
                     () => Saver.Open(Path.Combine(dir, "n.safetensors"), new SaveOptions {Progress = (d, t) => false}),
                     "saver cancelled at open");
        using (var saver = Saver.Open(path, new SaveOptions {
                 Progress = (d, t) => { if (d > 0) throw new ArithmeticException("enough"); return true; }})) {
          e = Check.Throws(Status.Cancelled, () => saver.Add("a", a), "saver add cancelled");
          Check.True(e.InnerException is ArithmeticException, "saver: inner");
          Check.True(Check.Throws(Status.InvalidArgument, () => saver.Commit(), "commit after cancel")
                         .Message.Contains("abandoned"), "abandoned");
        }
        Check.True(before.SequenceEqual(File.ReadAllBytes(path)), "old file untouched after the saver");
      }
      Check.True(Listing(dir).SequenceEqual(new[] {"p.safetensors"}), "no temporary left");
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public static void ShardsViewsCompressionDtypes() {
    string dir = NewDir();
    try {
      var tensors = Enumerable.Range(0, 5).Select(i => Pair("layer" + i, Tensor.Full(new long[] {64}, i))).ToList();
      try {
        Tessera.Save(Path.Combine(dir, "model.safetensors"), tensors, new SaveOptions {MaxShardSize = 600});
        var files = Listing(dir);
        Check.True(files.Contains("model.safetensors.index.json"), "index written");
        Check.Equal(3, files.Count(f => f.StartsWith("model-", StringComparison.Ordinal)), "three shards");
        using (var m = Tessera.Load(Path.Combine(dir, "model.safetensors.index.json"), null)) {
          Check.Equal(5, m.Count, "every tensor through the index");
          using (var t = m["layer3"]) Check.Equal(3.0, t.ToFloat64()[63], "values");
        }
        Check.Throws(Status.InvalidArgument,
                     () => Tessera.Save(Path.Combine(dir, "m.bin"), tensors, new SaveOptions {MaxShardSize = 600}),
                     "sharded save to a path not ending in .safetensors");
      } finally {
        foreach (var p in tensors) p.Value.Dispose();
      }
      using (var w = Tensor.FromArray(new float[] {0, 1, 2, 3, 4, 5}, new long[] {2, 3}))
      using (var wt = w.T()) {
        string views = Path.Combine(dir, "v.safetensors");
        Tessera.Save(views, new[] {Pair("w", w), Pair("wt", wt)}, (SaveOptions)null);
        using (var m = Tessera.Load(views, (LoadOptions)null))
        using (var lw = m["w"])
        using (var lwt = m["wt"])
        using (var s1 = lw.Storage())
        using (var s2 = lwt.Storage()) {
          Check.Equal(new long[] {1, 3}, lwt.Strides, "restored as a view");
          Check.Equal(s1.DataPtr, s2.DataPtr, "one storage");
        }
        string flat = Path.Combine(dir, "f.safetensors");
        Tessera.Save(flat, new[] {Pair("w", w), Pair("wt", wt)}, new SaveOptions {FlattenViews = true});
        using (var m = Tessera.Load(flat, (LoadOptions)null))
        using (var lwt = m["wt"]) Check.Equal(new long[] {2, 1}, lwt.Strides, "flattened: contiguous");
      }
      var dtypes = new[] {DType.UInt16, DType.UInt32, DType.UInt64, DType.Float8E4M3FN, DType.Float8E5M2};
      foreach (var c in new[] {Compression.None, Compression.Zstd, Compression.ZstdPlanes}) {
        string path = Path.Combine(dir, "d-" + c + ".safetensors");
        using (var bas = Tensor.Arange(0, 5)) {
          var typed = dtypes.Select(dt => Pair(dt.ToString(), bas.To(dt))).ToList();
          try {
            Tessera.Save(path, typed, new SaveOptions {Compression = c, SkipChecksums = true});
          } finally {
            foreach (var p in typed) p.Value.Dispose();
          }
        }
        using (var m = Tessera.Load(path, new LoadOptions {SkipChecksums = true})) {
          foreach (var dt in dtypes) {
            using (var t = m[dt.ToString()]) {
              Check.Equal(dt, t.Dtype, c + " dtype " + dt);
              Check.Close(new double[] {0, 1, 2, 3, 4}, t.ToFloat64(), 0, c + " values " + dt);
            }
          }
        }
      }
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public static void TensorFileLazyAndReadOnly() {
    string dir = NewDir();
    try {
      string path = Path.Combine(dir, "o.safetensors");
      using (var w = Tensor.FromArray(new float[] {0, 1, 2, 3, 4, 5}, new long[] {2, 3}))
      using (var a = Tensor.Arange(0, 2))
      using (var n = a.To(DType.UInt16)) {
        Tessera.Save(path, new[] {Pair("w", w), Pair("n", n)}, new SaveOptions {
          Metadata = new Dictionary<string, string> {["k"] = "v"}});
      }
      Tensor mapped;
      using (var f = Tessera.OpenFile(path)) {
        Check.Equal(2, f.Count, "count");
        Check.True(f.ContainsKey("w") && !f.ContainsKey("x"), "ContainsKey");
        Check.Equal(new long[] {2, 3}, f.ShapeOf("w"), "shape without reading");
        Check.Equal(DType.UInt16, f.DtypeOf("n"), "dtype without reading");
        Check.Equal("v", f.Metadata["k"], "metadata");
        Check.Equal(1, f.Metadata.Count, "the checksum entry is not listed");
        try {
          var x = f["x"];
          throw new AssertionFailed("f[\"x\"] did not throw");
        } catch (KeyNotFoundException) {
        }
        mapped = f["w"];
      }
      using (mapped) {
        Check.Close(new double[] {0, 1, 2, 3, 4, 5}, mapped.ToFloat64(), 0, "the mapping outlives the file");
        Check.True(Check.Throws(Status.InvalidArgument, () => mapped.FillInPlace(1.0), "write to a mapped tensor")
                       .Message.Contains("read-only"), "read-only");
        using (var c = mapped.Clone()) {
          c.FillInPlace(1.0);
          Check.Close(new double[] {1, 1, 1, 1, 1, 1}, c.ToFloat64(), 0, "a clone is writable");
        }
      }
      string missing = Path.Combine(dir, "missing.safetensors");
      Check.True(Check.Throws(Status.IO, () => TensorFile.Open(missing), "missing file")
                     .Message.Contains("missing.safetensors"), "names the file");
      string junk = Path.Combine(dir, "junk.safetensors");
      File.WriteAllBytes(junk, new byte[] {5, 0});
      Check.Throws(Status.CorruptFile, () => TensorFile.Open(junk), "junk");
      byte[] bytes = File.ReadAllBytes(path);
      bytes[bytes.Length - 3] ^= 1;
      File.WriteAllBytes(path, bytes);
      using (var f = TensorFile.Open(path)) {
        string last = f.Keys.Last();
        Check.True(Check.Throws(Status.CorruptFile, () => f[last].Dispose(), "checksum")
                       .Message.Contains("checksum"), "says checksum");
      }
      using (var f = TensorFile.Open(path, new LoadOptions {SkipChecksums = true}))
      using (var t = f[f.Keys.Last()]) Check.True(t.Numel > 0, "SkipChecksums reads it");
    } finally {
      Directory.Delete(dir, true);
    }
  }

  [Test]
  public static void TensorFileGetSliceRowsEqualTheWholeTensors() {
    string dir = NewDir();
    try {
      // 600 x 700 float32 rows of 2,800 bytes: two 1 MiB zstd-planes chunks, row 374 across both.
      var values = new float[600 * 700];
      for (int i = 0; i < values.Length; ++i) values[i] = i;
      foreach (var c in new[] {Compression.None, Compression.ZstdPlanes}) {
        string path = Path.Combine(dir, "slice-" + c + ".safetensors");
        using (var w = Tensor.FromArray(values, new long[] {600, 700}))
          Tessera.Save(path, new[] {Pair("w", w)}, new SaveOptions {Compression = c});
        using (var f = TensorFile.Open(path))
        using (var full = f["w"]) {
          var ranges = new long[][] {new long[] {0, 600}, new long[] {0, 1}, new long[] {370, 380},
                                     new long[] {374, 375}, new long[] {599, 600}, new long[] {5, 5}};
          foreach (var r in ranges) {
            string what = c + " rows [" + r[0] + ", " + r[1] + ")";
            using (var rows = f.GetSlice("w", r[0], r[1]))
            using (var expected = full.Narrow(0, r[0], r[1] - r[0])) {
              Check.Equal(new long[] {r[1] - r[0], 700}, rows.Sizes, what + " sizes");
              Check.Equal(DType.Float32, rows.Dtype, what + " dtype");
              Check.Close(expected.ToFloat64(), rows.ToFloat64(), 0, what);
            }
          }
          using (var row = f.GetSlice("w", 1, 2)) Check.Equal(1399.0, row.ToFloat64()[699], c + " the right row");
          var e = Check.Throws(Status.InvalidArgument, () => f.GetSlice("w", 5, 4).Dispose(), c + " start > stop");
          Check.True(e.Message.Contains("rows [5, 4) of tensor \"w\": start is after stop"), "says so: " + e.Message);
          try {
            f.GetSlice("x", 0, 1).Dispose();
            throw new AssertionFailed("GetSlice of an absent name did not throw");
          } catch (KeyNotFoundException) {
          }
          using (var again = f.GetSlice("w", 0, 2))
          using (var expected = full.Narrow(0, 0, 2))
            Check.Close(expected.ToFloat64(), again.ToFloat64(), 0, c + " still usable after the errors");
        }
      }
    } finally {
      Directory.Delete(dir, true);
    }
  }
}

}
