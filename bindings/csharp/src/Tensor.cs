// Tensor — the hand-written half of the SWIG proxy (generated: factories,
// views, ops such as Tanh, Sigmoid, Sqrt, Pow, Softmax, IndexSelect, Gather,
// ReluInPlace, autograd methods). Here: the queries as properties, Clamp
// with optional bounds, element access by index, operators, array factories
// and ToString.
//
// Lifetime: a Tensor owns one reference to a native tensor. Dispose() (or a
// using block) releases it at once; otherwise its SafeHandle's finalizer
// does (Tensor.NativeHandle, csharp.i), whenever the collector runs. The
// collector does not see native memory, so dispose
// tensors in loops. After Dispose every call throws TesseraException with
// Status.InvalidArgument; Dispose again does nothing.
using System;

namespace Tessera {

public partial class Tensor {
  // ---- layout and metadata (torch.Tensor's attributes) -----------------------

  /// <summary>Number of dims (torch.Tensor.ndim).</summary>
  public long Ndim => NativeNdim();
  /// <summary>Sizes in elements, a fresh array (torch.Tensor.shape).</summary>
  public long[] Sizes => NativeSizes();
  /// <summary>Strides in elements, a fresh array (torch.Tensor.stride()).</summary>
  public long[] Strides => NativeStrides();
  /// <summary>Offset of element [0, ..., 0] in the storage, in elements.</summary>
  public long StorageOffset => NativeStorageOffset();
  /// <summary>Product of the sizes (1 for a 0-dim tensor).</summary>
  public long Numel => NativeNumel();
  public long ElementSize => NativeElementSize();
  /// <summary>Numel * ElementSize: what a contiguous copy occupies.</summary>
  public long Nbytes => NativeNbytes();
  public DType Dtype => NativeDtype();
  public DeviceType DeviceType => NativeDeviceType();
  public int DeviceIndex => NativeDeviceIndex();
  /// <summary>Address of element [0, ..., 0]; valid while the storage lives.</summary>
  public IntPtr DataPtr => new IntPtr(unchecked((long)NativeDataPtr()));

  // ---- autograd ---------------------------------------------------------------

  public bool RequiresGrad {
    get { return NativeRequiresGrad(); }
    set { NativeSetRequiresGrad(value); }
  }
  public bool IsLeaf => NativeIsLeaf();
  /// <summary>Name of the node that produced this tensor ("MulBackward0"),
  /// null for leaves.</summary>
  public string GradFnName => NativeGradFnName();
  /// <summary>The in-place version counter (torch's _version).</summary>
  public long Version => NativeVersion();
  /// <summary>Whether the tensor was made under Tessera.InferenceMode()
  /// (torch.Tensor.is_inference()).</summary>
  public bool IsInference => NativeIsInference();

  // ---- math with optional arguments --------------------------------------------

  /// <summary>torch.clamp(this, min, max): elements limited to [min, max];
  /// either bound may be null (None), not both (Status.InvalidArgument).
  /// Floating tensors keep their dtype, integer and bool ones give
  /// float32.</summary>
  public Tensor Clamp(double? min = null, double? max = null) =>
      NativeClamp(min.HasValue, min ?? 0.0, max.HasValue, max ?? 0.0);
  /// <summary>torch.clamp_min: Clamp(min, null).</summary>
  public Tensor ClampMin(double min) => NativeClamp(true, min, false, 0.0);
  /// <summary>torch.clamp_max: Clamp(null, max).</summary>
  public Tensor ClampMax(double max) => NativeClamp(false, 0.0, true, max);

  /// <summary>True once Dispose has run.</summary>
  public bool IsDisposed => swigCPtr.Handle == IntPtr.Zero;

  // ---- elements ---------------------------------------------------------------

  /// <summary>One element, converted to or from double: <c>t[1, 2] = 3.0</c>.</summary>
  public double this[params long[] index] {
    get { return GetDouble(index); }
    set { SetDouble(index, value); }
  }

  /// <summary>A float32 tensor of the given sizes holding a copy of values
  /// (C order).</summary>
  public static Tensor FromArray(float[] values, long[] sizes) {
    return FromBlittable(values, values == null ? 0 : values.Length * sizeof(float), sizes, DType.Float32);
  }
  /// <summary>A float64 tensor holding a copy of values (C order).</summary>
  public static Tensor FromArray(double[] values, long[] sizes) {
    return FromBlittable(values, values == null ? 0 : values.Length * sizeof(double), sizes, DType.Float64);
  }
  /// <summary>An int64 tensor holding a copy of values (C order).</summary>
  public static Tensor FromArray(long[] values, long[] sizes) {
    return FromBlittable(values, values == null ? 0 : values.Length * sizeof(long), sizes, DType.Int64);
  }

  static Tensor FromBlittable(Array values, int nbytes, long[] sizes, DType dtype) {
    if (values == null) throw new TesseraException(Status.InvalidArgument, "FromArray: values is null");
    var bytes = new byte[nbytes];
    Buffer.BlockCopy(values, 0, bytes, 0, nbytes);
    return FromBytes(bytes, sizes, dtype);
  }

  /// <summary>All elements in C order, as float32 values.</summary>
  public float[] ToFloatArray() {
    using (var f32 = To(DType.Float32)) {
      byte[] bytes = f32.ToBytes();
      var values = new float[bytes.Length / sizeof(float)];
      Buffer.BlockCopy(bytes, 0, values, 0, bytes.Length);
      return values;
    }
  }

  // ---- operators (each returns a new tensor: dispose it, or let it be
  // collected) ------------------------------------------------------------------

  public static Tensor operator +(Tensor a, Tensor b) => Checked(a).Add(b);
  public static Tensor operator -(Tensor a, Tensor b) => Checked(a).Sub(b);
  public static Tensor operator *(Tensor a, Tensor b) => Checked(a).Mul(b);
  public static Tensor operator /(Tensor a, Tensor b) => Checked(a).Div(b);
  public static Tensor operator +(Tensor a, double b) => Checked(a).AddScalar(b);
  public static Tensor operator +(double a, Tensor b) => Checked(b).AddScalar(a);
  public static Tensor operator -(Tensor a, double b) => Checked(a).AddScalar(-b);
  public static Tensor operator *(Tensor a, double b) => Checked(a).MulScalar(b);
  public static Tensor operator *(double a, Tensor b) => Checked(b).MulScalar(a);
  public static Tensor operator /(Tensor a, double b) => Checked(a).MulScalar(1.0 / b);
  public static Tensor operator -(Tensor a) => Checked(a).Neg();

  // A null operand is the same error as a disposed one.
  static Tensor Checked(Tensor t) {
    if (t == null) throw new TesseraException(Status.InvalidArgument, "a tensor operand is null");
    return t;
  }

  // ---- printing ------------------------------------------------------------------

  /// <summary>torch's repr, from the library (tsr_tensor_to_string):
  /// "tensor([[1., 2.],\n        [3., 4.]])", summarised past 1000 elements,
  /// with dtype/device/grad_fn suffixes. Never throws.</summary>
  public override string ToString() {
    if (IsDisposed) return "tensor(disposed)";
    try {
      return NativeToString();
    } catch (TesseraException e) {
      return "tensor(" + e.Message + ")";
    }
  }
}

}
