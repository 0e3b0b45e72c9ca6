// The {data, length} structs that sizes(), to_float64(), to_bytes(), ... return
// by value (bindings/support/bind_support.h), as blittable C# structs. Each
// copies itself into a managed array and frees the native data when it owns
// it; a failed call never gets here (the proxy throws first).
using System;
using System.Runtime.InteropServices;

namespace Tessera {

#pragma warning disable 0649 // fields are written by the marshaller

[StructLayout(LayoutKind.Sequential)]
internal struct NativeInt64Array {
  IntPtr data;
  long length;
  int owned;

  internal long[] ToArray() {
    try {
      var array = new long[NativeArrays.CheckedLength(length)];
      if (array.Length > 0) Marshal.Copy(data, array, 0, array.Length);
      return array;
    } finally {
      if (owned != 0) TesseraNativePINVOKE.Free(data);
    }
  }
}

[StructLayout(LayoutKind.Sequential)]
internal struct NativeDoubleArray {
  IntPtr data;
  long length;

  internal double[] ToArray() {
    try {
      var array = new double[NativeArrays.CheckedLength(length)];
      if (array.Length > 0) Marshal.Copy(data, array, 0, array.Length);
      return array;
    } finally {
      TesseraNativePINVOKE.Free(data);
    }
  }
}

[StructLayout(LayoutKind.Sequential)]
internal struct NativeByteArray {
  IntPtr data;
  long length;

  internal byte[] ToArray() {
    try {
      var array = new byte[NativeArrays.CheckedLength(length)];
      if (array.Length > 0) Marshal.Copy(data, array, 0, array.Length);
      return array;
    } finally {
      TesseraNativePINVOKE.Free(data);
    }
  }
}

#pragma warning restore 0649

internal static class NativeArrays {
  // Marshal.Copy and .NET arrays index with int.
  internal static int CheckedLength(long length) {
    if (length < 0 || length > int.MaxValue)
      throw new TesseraException(Status.Unsupported,
          "a result of " + length + " elements does not fit in a .NET array");
    return (int)length;
  }
}

}
