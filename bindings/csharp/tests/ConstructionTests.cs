// Factories, dtypes, element access, random generation, version.
using System;
using System.Linq;

namespace Tessera.Tests {

public static class ConstructionTests {
  [Test]
  public static void ZerosOnesFullArange() {
    using (var z = Tensor.Zeros(new long[] {2, 3}))
    using (var o = Tensor.Ones(new long[] {2, 3}, DType.Float64))
    using (var f = Tensor.Full(new long[] {4}, 2.5))
    using (var a = Tensor.Arange(0, 5)) {
      Check.Equal(new long[] {2, 3}, z.Sizes, "zeros sizes");
      Check.Equal(DType.Float32, z.Dtype, "zeros default dtype");
      Check.Equal(6L, z.Numel, "zeros numel");
      Check.Equal(2L, z.Ndim, "zeros ndim");
      Check.Equal(4L, z.ElementSize, "float32 element size");
      Check.Equal(24L, z.Nbytes, "zeros nbytes");
      Check.True(z.ToFloat64().All(v => v == 0), "zeros are zero");
      Check.Equal(DType.Float64, o.Dtype, "ones dtype");
      Check.True(o.ToFloat64().All(v => v == 1), "ones are one");
      Check.True(f.ToFloat64().All(v => v == 2.5), "full value");
      Check.Equal(DType.Int64, a.Dtype, "arange dtype (torch: int64 for integer bounds)");
      Check.Equal(new long[] {0, 1, 2, 3, 4}, a.ToInt64(), "arange values");
      Check.Equal(DeviceType.Cpu, a.DeviceType, "device");
      Check.Equal(0, a.DeviceIndex, "device index");
    }
  }

  [Test]
  public static void FromArraysAndBack() {
    using (var f = Tensor.FromArray(new float[] {1.5f, -2, 3, 4, 5, 6}, new long[] {2, 3}))
    using (var d = Tensor.FromFloat64(new double[] {1, 2, 3, 4}, new long[] {2, 2}, DType.Int32))
    using (var l = Tensor.FromArray(new long[] {7, 8, 9}, new long[] {3}))
    using (var b = Tensor.FromBytes(new byte[] {1, 0, 1}, new long[] {3}, DType.Bool)) {
      Check.Equal(DType.Float32, f.Dtype, "FromArray(float[]) dtype");
      Check.True(f.ToFloatArray().SequenceEqual(new float[] {1.5f, -2, 3, 4, 5, 6}), "float values round trip");
      Check.Equal(-2.0, f[0, 1], "indexer get");
      f[1, 2] = 42;
      Check.Equal(42.0, f.GetDouble(new long[] {1, 2}), "indexer set");
      Check.Equal(DType.Int32, d.Dtype, "FromFloat64 converts");
      Check.Equal(new long[] {1, 2, 3, 4}, d.ToInt64(), "FromFloat64 values");
      Check.Equal(9L, l.GetInt64(new long[] {2}), "int64 element");
      Check.Equal(new long[] {1, 0, 1}, b.ToInt64(), "bool from bytes");
      Check.Equal(12, l.ToBytes().Length / 2, "ToBytes length (3 int64)");
      using (var s = Tensor.Full(new long[0], 3.25)) {
        Check.Equal(0L, s.Ndim, "0-dim tensor");
        Check.Equal(3.25, s.ItemDouble(), "item");
      }
    }
  }

  [Test]
  public static void GeneratorIsSeeded() {
    using (var g1 = new Generator(20240611))
    using (var g2 = new Generator(20240611))
    using (var a = Tensor.Randn(new long[] {3, 4}, g1))
    using (var b = Tensor.Randn(new long[] {3, 4}, g2))
    using (var p = Tensor.Randperm(10, g1))
    using (var r = Tensor.Rand(new long[] {100}, g1)) {
      Check.True(a.ToFloat64().SequenceEqual(b.ToFloat64()), "same seed, same numbers");
      Check.Equal(Enumerable.Range(0, 10).Select(i => (long)i).ToArray(),
                  p.ToInt64().OrderBy(v => v).ToArray(), "randperm is a permutation");
      Check.True(r.ToFloat64().All(v => v >= 0 && v < 1), "rand in [0, 1)");
      g1.ManualSeed(7);
      g2.ManualSeed(7);
      using (var c = Tensor.Rand(new long[] {5}, g1))
      using (var d = Tensor.Rand(new long[] {5}, g2))
        Check.True(c.ToFloat64().SequenceEqual(d.ToFloat64()), "ManualSeed resets");
    }
  }

  [Test]
  public static void OperatorsAndToString() {
    using (var a = Tensor.FromArray(new float[] {1, 2, 3, 4}, new long[] {2, 2}))
    using (var b = Tensor.Ones(new long[] {2}))
    using (var sum = a + b)
    using (var scaled = 2.0 * a - 1.0)
    using (var neg = -a)
    using (var prod = a.Matmul(a)) {
      Check.True(sum.ToFloat64().SequenceEqual(new double[] {2, 3, 4, 5}), "a + b broadcasts");
      Check.True(scaled.ToFloat64().SequenceEqual(new double[] {1, 3, 5, 7}), "2a - 1");
      Check.True(neg.ToFloat64().SequenceEqual(new double[] {-1, -2, -3, -4}), "-a");
      Check.True(prod.ToFloat64().SequenceEqual(new double[] {7, 10, 15, 22}), "matmul");
      Check.Equal("tensor([[1., 2.],\n        [3., 4.]])", a.ToString(), "ToString is torch's repr");
      using (var t = a.Transpose(0, 1))
      using (var d = t.To(DType.Float64))
        Check.Equal("tensor([[1., 3.],\n        [2., 4.]], dtype=tessera.float64)", d.ToString(),
                    "ToString of a transposed float64 view");
    }
  }

  [Test]
  public static void Version() {
    Check.True(Tessera.VersionNumber >= 100, "version number (0.1.0 = 100)");
    string[] parts = Tessera.VersionString.Split('.');
    Check.Equal(Tessera.VersionNumber,
                int.Parse(parts[0]) * 10000 + int.Parse(parts[1]) * 100 + int.Parse(parts[2]),
                "version string matches number");
    Check.Equal("TSR_ERR_NOT_VIEWABLE", Tessera.StatusName(Status.NotViewable), "status name");
    Check.Equal("bfloat16", Tessera.DTypeName(DType.BFloat16), "dtype name");
    Check.Equal("uint16", Tessera.DTypeName(DType.UInt16), "dtype name");
    Check.Equal("uint64", Tessera.DTypeName(DType.UInt64), "dtype name");
    Check.Equal("float8_e4m3fn", Tessera.DTypeName(DType.Float8E4M3FN), "dtype name");
    Check.Equal("float8_e5m2", Tessera.DTypeName(DType.Float8E5M2), "dtype name");
  }
}

}
