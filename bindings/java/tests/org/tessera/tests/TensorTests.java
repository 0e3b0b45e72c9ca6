package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;

import java.util.Arrays;
import java.util.List;
import org.tessera.DType;
import org.tessera.DeviceType;
import org.tessera.Generator;
import org.tessera.Status;
import org.tessera.Storage;
import org.tessera.Tensor;
import org.tessera.Tessera;

/** Construction, element access, views sharing storage, ops, version. */
final class TensorTests {
  private TensorTests() {}

  static void register(AllTests.Registry r) {
    r.add("construction: factories, dtype, numel, sizes as long[]", TensorTests::factories);
    r.add("construction: from Java arrays and back", TensorTests::fromArrays);
    r.add("construction: seeded generator reproduces rand/randn/randperm", TensorTests::generator);
    r.add("views: a write through a view is seen through the base", TensorTests::viewsShareStorage);
    r.add("views: split and chunk return java.util.List views", TensorTests::splitChunk);
    r.add("ops: arithmetic, reductions, matmul, max", TensorTests::ops);
    r.add("toString: torch-like for small tensors", TensorTests::toStringFormat);
    r.add("version: number and string agree", TensorTests::version);
  }

  static void factories() {
    try (Tensor z = Tessera.zeros(2, 3);
        Tensor o = Tessera.ones(new long[] {4}, DType.INT64);
        Tensor f = Tessera.full(new long[] {2, 2}, 2.5, DType.FLOAT64);
        Tensor e = Tessera.empty(new long[] {3, 0, 2}, DType.UINT8);
        Tensor a = Tessera.arange(5);
        Tensor s = Tessera.full(new long[0], 7.0)) {
      equal(new long[] {2, 3}, z.sizes(), "zeros sizes");
      equal(new long[] {3, 1}, z.strides(), "zeros strides");
      equal(DType.FLOAT32, z.dtype(), "default dtype");
      equal(DeviceType.DEVICE_CPU, z.deviceType(), "device");
      equal(0, z.deviceIndex(), "device index");
      equal(6, z.numel(), "numel");
      equal(4, z.elementSize(), "float32 element size");
      equal(24, z.nbytes(), "nbytes");
      equal(2, z.ndim(), "ndim");
      equal(3, z.size(1), "size(1)");
      equal(3, z.size(-1), "size(-1)");
      equal(1, z.stride(1), "stride(1)");
      close(new double[] {0, 0, 0, 0, 0, 0}, z.toFloat64(), 0, "zeros values");
      equal(DType.INT64, o.dtype(), "ones int64");
      equal(new long[] {1, 1, 1, 1}, o.toInt64(), "ones values");
      close(new double[] {2.5, 2.5, 2.5, 2.5}, f.toFloat64(), 0, "full values");
      equal(0, e.numel(), "empty with a zero size");
      equal(new long[] {3, 0, 2}, e.sizes(), "empty sizes");
      equal(DType.INT64, a.dtype(), "arange(end) is int64 like torch");
      equal(new long[] {0, 1, 2, 3, 4}, a.toInt64(), "arange values");
      equal(0, s.ndim(), "scalar ndim");
      equal(new long[0], s.sizes(), "scalar sizes");
      close(7.0, s.itemDouble(), 0, "scalar item");
    }
    // the storage-only dtypes: created and converted, no math
    try (Tensor u = Tessera.full(new long[] {3}, 2.0, DType.UINT16);
        Tensor q = Tessera.full(new long[] {3}, 1.5, DType.FLOAT8_E4M3FN)) {
      equal(DType.UINT16, u.dtype(), "uint16 dtype");
      equal(2, u.elementSize(), "uint16 element size");
      equal(new long[] {2, 2, 2}, u.toInt64(), "uint16 values");
      equal(1, q.elementSize(), "float8 element size");
      close(new double[] {1.5, 1.5, 1.5}, q.toFloat64(), 0, "float8_e4m3fn values");
    }
  }

  static void fromArrays() {
    float[] values = {1.5f, -2f, 3.25f, 0f, 1e-3f, 6f};
    try (Tensor t = Tessera.tensor(values, 2, 3);
        Tensor d = Tessera.tensor(new double[] {0.1, 0.2}, 2);
        Tensor l = Tessera.tensor(new long[] {Long.MAX_VALUE, -1}, 2);
        Tensor h = Tensor.fromFloat64(new double[] {1.5, 2.5}, new long[] {2}, DType.FLOAT16);
        Tensor i = Tensor.fromInt64(new long[] {300, -5}, new long[] {2}, DType.INT32)) {
      equal(DType.FLOAT32, t.dtype(), "float[] gives float32");
      double[] expected = new double[values.length];
      for (int k = 0; k < values.length; ++k) expected[k] = values[k];
      close(expected, t.toFloat64(), 0, "float32 round trip");
      equal(24, t.toBytes().length, "toBytes length");
      close(3.25, t.getDouble(new long[] {0, 2}), 0, "getDouble");
      t.setDouble(new long[] {1, 0}, 9.0);
      close(9.0, t.getDouble(new long[] {1, 0}), 0, "setDouble");
      equal(DType.FLOAT64, d.dtype(), "double[] gives float64");
      close(new double[] {0.1, 0.2}, d.toFloat64(), 0, "float64 exact");
      equal(new long[] {Long.MAX_VALUE, -1}, l.toInt64(), "int64 exact");
      equal(DType.FLOAT16, h.dtype(), "fromFloat64 converts");
      close(new double[] {1.5, 2.5}, h.toFloat64(), 0, "float16 values");
      equal(new long[] {300, -5}, i.toInt64(), "int32 values");
      try (Tensor back = Tensor.fromBytes(t.toBytes(), new long[] {3, 2}, DType.FLOAT32)) {
        close(t.toFloat64(), back.toFloat64(), 0, "fromBytes(toBytes())");
      }
    }
  }

  static void generator() {
    try (Generator g1 = new Generator(42);
        Generator g2 = new Generator(42);
        Tensor a = Tessera.rand(g1, 3, 4);
        Tensor b = Tessera.rand(g2, 3, 4);
        Tensor n = Tessera.randn(g1, 1000);
        Tensor p = Tessera.randperm(10, g1)) {
      close(a.toFloat64(), b.toFloat64(), 0, "same seed, same numbers");
      for (double v : a.toFloat64()) isTrue(v >= 0 && v < 1, "rand in [0, 1): " + v);
      double mean = Arrays.stream(n.toFloat64()).average().orElse(99);
      isTrue(Math.abs(mean) < 0.2, "randn mean near 0: " + mean);
      long[] perm = p.toInt64();
      Arrays.sort(perm);
      equal(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, perm, "randperm is a permutation");
      g2.manualSeed(42);
      try (Tensor again = Tessera.rand(g2, 3, 4)) {
        close(a.toFloat64(), again.toFloat64(), 0, "manualSeed restarts the stream");
      }
    }
  }

  static void viewsShareStorage() {
    try (Tensor x = Tessera.zeros(3, 4);
        Tensor t = x.transpose(0, 1);
        Tensor row = x.select(0, 1);
        Tensor copy = x.clone();
        Storage sx = x.storage();
        Storage st = t.storage()) {
      t.setDouble(new long[] {2, 1}, 7.5);
      close(7.5, x.getDouble(new long[] {1, 2}), 0, "write through transpose seen in base");
      close(7.5, row.getDouble(new long[] {2}), 0, "and in another view");
      row.fill_(1.0);
      close(1.0, t.getDouble(new long[] {0, 1}), 0, "fill_ through select seen in transpose");
      close(0.0, copy.getDouble(new long[] {1, 2}), 0, "clone does not share");
      isTrue(x.sharesStorage(t), "transpose shares storage");
      isTrue(!x.sharesStorage(copy), "clone does not share storage");
      equal(sx.dataPtr(), st.dataPtr(), "one storage");
      equal(48, sx.nbytes(), "storage bytes");
      isTrue(sx.useCount() >= 3, "storage used by x, t, row: " + sx.useCount());
      equal(x.dataPtr() + 4 * 4, row.dataPtr(), "select(0, 1) starts one row in");
    }
  }

  static void splitChunk() {
    try (Tensor x = Tessera.arange(0, 10, 1, DType.FLOAT32)) {
      List<Tensor> parts = x.split(4);
      equal(3, parts.size(), "split(4) of 10");
      equal(new long[] {2}, parts.get(2).sizes(), "last piece");
      equal(8, parts.get(2).storageOffset(), "last piece offset");
      isTrue(parts.get(1).sharesStorage(x), "pieces are views");
      for (Tensor p : parts) p.close();
      List<Tensor> chunks = x.view(new long[] {2, 5}).chunk(2, 1);
      equal(new long[] {2, 3}, chunks.get(0).sizes(), "chunk 0");
      equal(new long[] {2, 2}, chunks.get(1).sizes(), "chunk 1");
      chunks.forEach(Tensor::close);
    }
  }

  static void ops() {
    try (Tensor a = Tessera.tensor(new float[] {1, 2, 3, 4}, 2, 2);
        Tensor b = Tessera.tensor(new float[] {10, 20}, 2);
        Tensor sum = a.add(b);
        Tensor diff = a.sub(b);
        Tensor prod = a.mul(b);
        Tensor quot = b.div(a);
        Tensor mm = a.matmul(a);
        Tensor rowSums = a.sum(new long[] {1});
        Tensor all = a.sum();
        Tensor m = a.mean();
        Tensor scaled = a.mul(0.5).add(1.0);
        Tensor relu = a.sub(2.5).relu();
        Tensor mx = a.max();
        Tensor am = a.argmax(0)) {
      close(new double[] {11, 22, 13, 24}, sum.toFloat64(), 0, "broadcast add");
      close(new double[] {-9, -18, -7, -16}, diff.toFloat64(), 0, "sub");
      close(new double[] {10, 40, 30, 80}, prod.toFloat64(), 0, "mul");
      close(new double[] {10, 10, 10.0 / 3, 5}, quot.toFloat64(), 1e-6, "div");
      close(new double[] {7, 10, 15, 22}, mm.toFloat64(), 0, "matmul");
      close(new double[] {3, 7}, rowSums.toFloat64(), 0, "sum dim 1");
      close(10, all.itemDouble(), 0, "sum all");
      close(2.5, m.itemDouble(), 0, "mean");
      close(new double[] {1.5, 2, 2.5, 3}, scaled.toFloat64(), 0, "scalar ops");
      close(new double[] {0, 0, 0.5, 1.5}, relu.toFloat64(), 0, "relu");
      close(4, mx.itemDouble(), 0, "max");
      equal(new long[] {1, 1}, am.toInt64(), "argmax dim 0");
      List<Tensor> vi = a.maxDim(1);
      close(new double[] {2, 4}, vi.get(0).toFloat64(), 0, "max_dim values");
      equal(new long[] {1, 1}, vi.get(1).toInt64(), "max_dim indices");
      vi.forEach(Tensor::close);
      a.add_(b, 2.0);
      close(new double[] {21, 42, 23, 44}, a.toFloat64(), 0, "add_ with alpha");
      a.zero_();
      close(new double[] {0, 0, 0, 0}, a.toFloat64(), 0, "zero_");
    }
  }

  static void toStringFormat() {
    try (Tensor t = Tessera.tensor(new float[] {1, 2.5f, -3, 0}, 2, 2);
        Tensor i = Tessera.arange(3);
        Tensor big = Tessera.zeros(10, 10)) {
      // repr(torch.tensor([[1, 2.5], [-3, 0]])) and friends, printed by torch 1.13.
      equal("tensor([[ 1.0000,  2.5000],\n        [-3.0000,  0.0000]])", t.toString(), "2-D float");
      equal("tensor([0, 1, 2])", i.toString(), "int64");
      equal("tensor([[0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],\n"
          + "        [0., 0., 0., 0., 0., 0., 0., 0., 0., 0.]])", big.toString(), "10x10");
    }
  }

  static void version() {
    int n = Tessera.versionNumber();
    String expected = (n / 10000) + "." + (n / 100 % 100) + "." + (n % 100);
    equal(expected, Tessera.versionString(), "version string matches number");
    equal("TSR_ERR_NOT_VIEWABLE", Tessera.statusName(Status.ERR_NOT_VIEWABLE), "status name");
    equal("float32", Tessera.dtypeName(DType.FLOAT32), "dtype name");
  }
}
