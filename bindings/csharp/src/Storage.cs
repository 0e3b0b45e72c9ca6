// Storage — the memory under one or more tensors (torch.UntypedStorage):
// its queries as properties. Disposable like Tensor.
using System;

namespace Tessera {

public partial class Storage {
  public long Nbytes => NativeNbytes();
  public IntPtr DataPtr => new IntPtr(unchecked((long)NativeDataPtr()));
  public DeviceType DeviceType => NativeDeviceType();
  /// <summary>How many tensor and storage handles use this memory.</summary>
  public long UseCount => NativeUseCount();
}

}
