// Tessera — the module-level functions: grad mode (NoGrad scopes), inference
// mode and anomaly detection (InferenceMode, DetectAnomaly scopes),
// checkpoint regions, AutogradGrad, Dropout, the torch.nn.functional ops
// (Linear, Gelu, LayerNorm, Embedding, Conv2d, MaxPool2d, AvgPool2d,
// AdaptiveAvgPool2d, BatchNorm), Cat, Stack and Where, save and load,
// the allocator's statistics and controls, version. The factories are
// static methods of Tensor (Tensor.Zeros, Tensor.FromArray, ...).
//
// The class shares its namespace's name, as Python's tessera module does.
// Code inside a namespace that starts with Tessera (or that puts `using
// Tessera;` inside its own namespace block) writes Tessera.NoGrad();
// elsewhere use `using static Tessera.Tessera;` or an alias.
using System.Collections.Generic;

namespace Tessera {

public static partial class Tessera {
  // ---- autograd --------------------------------------------------------------

  /// <summary>Whether operations on this thread record autograd graphs
  /// (torch.is_grad_enabled).</summary>
  public static bool IsGradEnabled => TesseraNative.is_grad_enabled();

  /// <summary>Sets grad mode on this thread; returns the previous setting
  /// (torch.set_grad_enabled).</summary>
  public static bool SetGradEnabled(bool enabled) => TesseraNative.set_grad_enabled(enabled);

  /// <summary>torch.no_grad as a scope: <c>using (Tessera.NoGrad()) { ... }</c>
  /// turns grad mode off on this thread and restores the previous setting
  /// when disposed.</summary>
  public static GradModeScope NoGrad() => new GradModeScope(false);

  /// <summary>torch.enable_grad as a scope.</summary>
  public static GradModeScope EnableGrad() => new GradModeScope(true);

  // ---- inference mode and anomaly detection --------------------------------

  /// <summary>Whether inference mode is on for this thread
  /// (torch.is_inference_mode_enabled).</summary>
  public static bool IsInferenceModeEnabled => TesseraNative.is_inference_mode_enabled();

  /// <summary>Turns inference mode on or off for this thread; returns the
  /// previous setting.</summary>
  public static bool SetInferenceMode(bool enabled) => TesseraNative.set_inference_mode(enabled);

  /// <summary>torch.inference_mode as a scope: <c>using
  /// (Tessera.InferenceMode()) { ... }</c>. Inside, grad mode is off and new
  /// tensors are inference tensors (Tensor.IsInference), which record no
  /// history; outside, autograd refuses to save them for backward
  /// (Status.Autograd). enabled false turns it off inside an enclosing
  /// scope. Disposing restores the previous setting, exceptions
  /// included.</summary>
  public static ModeScope InferenceMode(bool enabled = true) =>
      new ModeScope(TesseraNative.set_inference_mode, enabled);

  /// <summary>Whether anomaly detection is on (process-wide;
  /// torch.is_anomaly_enabled).</summary>
  public static bool IsAnomalyEnabled => TesseraNative.is_anomaly_enabled();

  /// <summary>torch.autograd.set_detect_anomaly, process-wide; returns the
  /// previous setting. While on, backward checks every gradient a node
  /// returns and throws Status.Autograd naming the node ("Function
  /// 'DivBackward0' returned nan values in its 1th output. ...").</summary>
  public static bool SetDetectAnomaly(bool enabled) => TesseraNative.set_detect_anomaly(enabled);

  /// <summary>torch.autograd.detect_anomaly as a scope: <c>using
  /// (Tessera.DetectAnomaly()) { ... }</c>.</summary>
  public static ModeScope DetectAnomaly() => new ModeScope(TesseraNative.set_detect_anomaly, true);

  // ---- torch.nn.functional, Cat, Stack, Where ----------------------------------

  /// <summary>torch.nn.functional.linear: input @ weight^T + bias, with input
  /// [*, in], weight [out, in], bias null or [out]. Status.ShapeMismatch
  /// ("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"),
  /// Status.DtypeMismatch for mixed dtypes or integers.</summary>
  public static Tensor Linear(Tensor input, Tensor weight, Tensor bias = null) {
    RequireLive(bias, "Linear: bias");
    return TesseraNative.linear(input, weight, bias);
  }

  /// <summary>torch.nn.functional.gelu(input, approximate): x * Phi(x)
  /// (GeluApproximate.None) or its tanh approximation.</summary>
  public static Tensor Gelu(Tensor input, GeluApproximate approximate = GeluApproximate.None) =>
      TesseraNative.gelu(input, approximate);

  /// <summary>torch.nn.functional.layer_norm: (x - mean) / sqrt(var + eps)
  /// * weight + bias over the trailing dims normalizedShape (biased
  /// variance); weight and bias null or of sizes normalizedShape.
  /// Status.ShapeMismatch with torch's messages.</summary>
  public static Tensor LayerNorm(Tensor input, long[] normalizedShape, Tensor weight = null,
                                 Tensor bias = null, double eps = 1e-5) {
    RequireLive(weight, "LayerNorm: weight");
    RequireLive(bias, "LayerNorm: bias");
    return TesseraNative.layer_norm(input, normalizedShape, weight, bias, eps);
  }

  /// <summary>torch.nn.functional.embedding(input, weight): the rows of
  /// weight [V, D] at the int32/int64 indices input (any shape); the result
  /// has input's sizes + [D]. Status.IndexOutOfRange for an index outside
  /// [0, V).</summary>
  public static Tensor Embedding(Tensor input, Tensor weight) => TesseraNative.embedding(input, weight);

  /// <summary>torch.cat(tensors, dim): the tensors joined along dim, which
  /// every other dim must agree on; the dtype is their promotion.
  /// Status.InvalidArgument for no tensors or a null/disposed one,
  /// Status.ShapeMismatch with torch's messages.</summary>
  public static Tensor Cat(IEnumerable<Tensor> tensors, long dim = 0) {
    using (var list = NativeList(tensors, false, "Cat: tensors")) return TesseraNative.cat(list, dim);
  }

  /// <summary>torch.stack(tensors, dim): tensors of one size joined along a
  /// new dim.</summary>
  public static Tensor Stack(IEnumerable<Tensor> tensors, long dim = 0) {
    using (var list = NativeList(tensors, false, "Stack: tensors")) return TesseraNative.stack(list, dim);
  }

  /// <summary>torch.where(condition, input, other): input where condition
  /// (bool) is true, else other; all three broadcast, the dtype is
  /// torch.result_type(input, other).</summary>
  public static Tensor Where(Tensor condition, Tensor input, Tensor other) =>
      TesseraNative.where(condition, input, other);

  // A disposed tensor passed as an optional argument must not read as null.
  // ---- convolutional layers (include/tessera/cnn.h): pairs are {H, W} -------

  /// <summary>torch.nn.functional.conv2d: input [N, C_in, H, W], weight
  /// [C_out, C_in / groups, kH, kW], bias null or [C_out]; channels_last out
  /// when input or weight is channels_last. Status.ShapeMismatch with
  /// torch's messages, Status.InvalidArgument for a non-positive stride,
  /// dilation or groups.</summary>
  public static Tensor Conv2d(Tensor input, Tensor weight, Tensor bias, long[] stride, long[] padding,
                              long[] dilation, long groups = 1) {
    RequireLive(bias, "Conv2d: bias");
    return TesseraNative.conv2d(input, weight, bias, stride, padding, dilation, groups);
  }

  /// <summary>torch.nn.functional.max_pool2d: the maxima; stride null means
  /// kernelSize.</summary>
  public static Tensor MaxPool2d(Tensor input, long[] kernelSize, long[] stride, long[] padding,
                                 long[] dilation, bool ceilMode = false) =>
      TesseraNative.max_pool2d(input, kernelSize, stride ?? new long[0], padding, dilation, ceilMode);

  /// <summary>MaxPool2d with return_indices: a list [values, int64 indices
  /// h * W + w within each plane], to be disposed.</summary>
  public static TensorList MaxPool2dWithIndices(Tensor input, long[] kernelSize, long[] stride, long[] padding,
                                                long[] dilation, bool ceilMode = false) =>
      TesseraNative.max_pool2d_with_indices(input, kernelSize, stride ?? new long[0], padding, dilation, ceilMode);

  /// <summary>torch.nn.functional.avg_pool2d (no divisor_override); stride
  /// null means kernelSize.</summary>
  public static Tensor AvgPool2d(Tensor input, long[] kernelSize, long[] stride, long[] padding,
                                 bool ceilMode = false, bool countIncludePad = true) =>
      TesseraNative.avg_pool2d(input, kernelSize, stride ?? new long[0], padding, ceilMode, countIncludePad);

  /// <summary>torch.nn.functional.adaptive_avg_pool2d(input, outputSize {H, W}).</summary>
  public static Tensor AdaptiveAvgPool2d(Tensor input, long[] outputSize) =>
      TesseraNative.adaptive_avg_pool2d(input, outputSize);

  /// <summary>torch.nn.functional.batch_norm: runningMean / runningVar ([C],
  /// null only when training) are updated in place when training; weight
  /// and bias null or [C].</summary>
  public static Tensor BatchNorm(Tensor input, Tensor runningMean, Tensor runningVar, Tensor weight = null,
                                 Tensor bias = null, bool training = false, double momentum = 0.1,
                                 double eps = 1e-5) {
    RequireLive(runningMean, "BatchNorm: runningMean");
    RequireLive(runningVar, "BatchNorm: runningVar");
    RequireLive(weight, "BatchNorm: weight");
    RequireLive(bias, "BatchNorm: bias");
    return TesseraNative.batch_norm(input, runningMean, runningVar, weight, bias, training, momentum, eps);
  }

  internal static void RequireLive(Tensor t, string what) {
    if (t != null && t.IsDisposed)
      throw new TesseraException(Status.InvalidArgument, what + ": tensor is disposed");
  }

  // ---- gradient checkpointing (include/tessera/checkpoint.h) -----------------

  /// <summary>torch.utils.checkpoint as a scope: <c>using
  /// (Tessera.Checkpoint()) { ... }</c> runs the block's ops on this thread
  /// without keeping their activations; backward recomputes them from the
  /// region's inputs (same gradients, bit for bit, for about one extra
  /// forward of compute). options null: the defaults. An unknown KeepOps
  /// name throws Status.InvalidArgument naming it; nothing is opened
  /// then.</summary>
  public static CheckpointScope Checkpoint(CheckpointOptions options = null) =>
      new CheckpointScope(options);

  /// <summary>Opens a region on this thread without a scope object
  /// (tsr_checkpoint_begin); end it with CheckpointEnd on the same thread.
  /// Prefer Checkpoint().</summary>
  public static void CheckpointBegin(CheckpointOptions options = null) {
    var o = options ?? new CheckpointOptions();
    TesseraNative.checkpoint_begin(o.PreserveRngState, o.DeterminismCheck, o.EarlyStop,
                                   o.KeepOpsString());
  }

  /// <summary>Closes this thread's innermost region (tsr_checkpoint_end);
  /// Status.Autograd when none is open (nothing changes then).</summary>
  public static void CheckpointEnd() => TesseraNative.checkpoint_end();

  /// <summary>The number of regions open on this thread (0 outside
  /// any).</summary>
  public static long CheckpointDepth => TesseraNative.checkpoint_depth();

  /// <summary>torch.autograd.grad: the gradients of outputs (weighted by
  /// gradOutputs) with respect to each of inputs, one new tensor per input
  /// (dispose each), null for an input no output uses when allowUnused. No
  /// Grad() is read or written.
  /// gradOutputs: null, or one entry per output, each null (ones: only for
  /// one-element outputs) or a tensor of that output's sizes. retainGraph
  /// keeps the graph for another backward (pass true with createGraph when
  /// the result is differentiated again); createGraph records the backward
  /// itself, so the gradients require grad (higher order).
  /// Throws Status.Autograd (an output or input without RequiresGrad, an
  /// unused input without allowUnused, a checkpoint region open on this
  /// thread, a freed graph), Status.ShapeMismatch (a gradOutput of the wrong
  /// sizes), Status.InvalidArgument (null or empty arrays, a null entry in
  /// outputs or inputs, gradOutputs of the wrong length, a disposed
  /// tensor).</summary>
  public static Tensor[] AutogradGrad(Tensor[] outputs, Tensor[] inputs, Tensor[] gradOutputs = null,
                                      bool retainGraph = false, bool createGraph = false,
                                      bool allowUnused = false) {
    if (outputs == null || inputs == null)
      throw new TesseraException(Status.InvalidArgument, "AutogradGrad: outputs or inputs is null");
    using (var outs = NativeList(outputs, false, "AutogradGrad: outputs"))
    using (var ins = NativeList(inputs, false, "AutogradGrad: inputs"))
    using (var gouts = gradOutputs == null ? null : NativeList(gradOutputs, true, "AutogradGrad: gradOutputs"))
    using (var grads = TesseraNative.autograd_grad(outs, ins, gouts, retainGraph, createGraph, allowUnused)) {
      var result = new Tensor[grads.Count];
      for (int i = 0; i < result.Length; ++i) result[i] = grads[i];
      return result;
    }
  }

  internal static TensorList NativeList(IEnumerable<Tensor> tensors, bool nullsAllowed, string what) {
    if (tensors == null) throw new TesseraException(Status.InvalidArgument, what + " is null");
    var list = new TensorList();
    try {
      foreach (var t in tensors) {
        if (t != null) list.Append(t);
        else if (nullsAllowed) list.AppendNone();
        else throw new TesseraException(Status.InvalidArgument, what + " holds a null tensor");
      }
      return list;
    } catch {
      list.Dispose();
      throw;
    }
  }

  // ---- random ----------------------------------------------------------------

  /// <summary>torch.dropout(input, p, train) with generator: each element
  /// kept with probability 1 - p and scaled by 1 / (1 - p), or zeroed; the
  /// generator advances by input.Numel words (Generator.GetState). Not train,
  /// or p == 0: a new reference to input itself. Inside a checkpoint region
  /// the recomputation draws the same mask. Status.InvalidArgument for p
  /// outside [0, 1] or a null/disposed argument, Status.DtypeMismatch for a
  /// non-floating input.</summary>
  public static Tensor Dropout(Tensor input, double p, bool train, Generator generator) {
    if (input == null) throw new TesseraException(Status.InvalidArgument, "Dropout: input is null");
    return input.Dropout(p, train, generator);
  }

  // ---- save and load ---------------------------------------------------------

  /// <summary>Writes the named tensors to path, uncompressed, replacing it
  /// atomically.</summary>
  public static void Save(string path, IEnumerable<KeyValuePair<string, Tensor>> tensors) =>
      Save(path, tensors, null, Compression.None);

  /// <summary>Writes the named tensors (safetensors layout; zstd frames with
  /// Compression.Zstd, level 0 = zstd's default) and string metadata (null:
  /// none) to path, replacing it atomically. The compression is required:
  /// with it optional, Save(path, tensors, null) matched this overload and
  /// the SaveOptions one and did not compile (issue 34, item 11).</summary>
  public static void Save(string path, IEnumerable<KeyValuePair<string, Tensor>> tensors,
                          IEnumerable<KeyValuePair<string, string>> metadata,
                          Compression compression, int level = 0) {
    if (tensors == null) throw new TesseraException(Status.InvalidArgument, "Save: tensors is null");
    using (var list = new TensorList()) {
      foreach (var entry in tensors) list.Append(entry.Value, entry.Key);
      if (metadata != null)
        foreach (var entry in metadata) list.SetMetadata(entry.Key, entry.Value);
      TesseraNative.save(path, list, compression, level);
    }
  }

  /// <summary>Writes the named tensors to path with options (compression,
  /// metadata, checksums, shards, views, progress; null: defaults, so
  /// Save(path, tensors, null) is the plain save), replacing
  /// it atomically; a failed or cancelled save leaves any file there as it
  /// was.</summary>
  public static void Save(string path, IEnumerable<KeyValuePair<string, Tensor>> tensors,
                          SaveOptions options) {
    if (tensors == null) throw new TesseraException(Status.InvalidArgument, "Save: tensors is null");
    options = options ?? new SaveOptions();
    Progress progress = Progress.Wrap(options.Progress);
    using (var list = options.MetadataList()) {
      foreach (var entry in tensors) list.Append(entry.Value, entry.Key);
      Progress.Call(progress, () => TesseraNative.save_with(path, list, options.Compression, options.Level,
                                                           options.SkipChecksums, options.MaxShardSize,
                                                           options.FlattenViews, progress));
    }
  }

  /// <summary>Reads a file (or a sharded checkpoint's
  /// model.safetensors.index.json) with options (MaxBytes, SkipChecksums,
  /// Progress; null: defaults).</summary>
  public static TensorMap Load(string path, LoadOptions options) {
    options = options ?? new LoadOptions();
    Progress progress = Progress.Wrap(options.Progress);
    return Progress.Call(progress, () => TensorMap.LoadWith(path, options.MaxBytes, options.SkipChecksums,
                                                            progress));
  }

  /// <summary>Opens path lazily (TensorFile.Open); dispose it when done.</summary>
  public static TensorFile OpenFile(string path, LoadOptions options = null) =>
      TensorFile.Open(path, options);

  /// <summary>Reads a file written by Save (or any safetensors file). The map
  /// is a read-only dictionary from names to tensors, in file order, with the
  /// file's metadata; maxBytes caps the tensor bytes it may allocate (0: the
  /// default cap, 64 times the file's size plus 64 MiB; long.MaxValue: no
  /// cap).</summary>
  public static TensorMap Load(string path, long maxBytes = 0) => TensorMap.Load(path, maxBytes);

  // ---- allocator (torch.cuda.memory_* names) ---------------------------------
  // Semantics: include/tessera/allocator.h. Sizes are in bytes, counting blocks
  // rounded up to 512 bytes. A device other than (Cpu, 0) throws
  // TesseraException(Status.Unsupported).

  /// <summary>A consistent snapshot of the caching allocator's statistics;
  /// dispose it or leave it to the finalizer (the MemoryStat values read
  /// from it are copies that outlive it).</summary>
  public static MemoryStats MemoryStats(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_stats(device, index);
  /// <summary>Bytes in blocks handed out to tensors now.</summary>
  public static long MemoryAllocated(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_allocated(device, index);
  /// <summary>Peak of MemoryAllocated since start or ResetPeakMemoryStats, in bytes.</summary>
  public static long MaxMemoryAllocated(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.max_memory_allocated(device, index);
  /// <summary>Bytes held from the OS (allocated plus cached).</summary>
  public static long MemoryReserved(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_reserved(device, index);
  /// <summary>Peak of MemoryReserved since start or ResetPeakMemoryStats, in bytes.</summary>
  public static long MaxMemoryReserved(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.max_memory_reserved(device, index);
  /// <summary>Every stat's peak becomes its current value.</summary>
  public static void ResetPeakMemoryStats(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.reset_peak_memory_stats(device, index);
  /// <summary>Every stat's Allocated and Freed totals and the four event
  /// counters become 0.</summary>
  public static void ResetAccumulatedMemoryStats(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.reset_accumulated_memory_stats(device, index);
  /// <summary>Returns cached segments with no allocated block to the OS.</summary>
  public static void EmptyCache(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.empty_cache(device, index);
  /// <summary>Caps reserved bytes, process-wide; 0 removes the cap. An
  /// allocation that would pass it throws Status.OutOfMemory after the cache
  /// is emptied; negative bytes throw Status.InvalidArgument, cap unchanged.</summary>
  public static void SetMemoryLimit(long bytes, DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.set_memory_limit(bytes, device, index);
  /// <summary>The cap set by SetMemoryLimit; 0 when there is none.</summary>
  public static long MemoryLimit(DeviceType device = DeviceType.Cpu, int index = 0) =>
      TesseraNative.memory_limit(device, index);

  // ---- names and version -------------------------------------------------------

  /// <summary>The loaded library's version, major*10000 + minor*100 + patch.</summary>
  public static int VersionNumber => TesseraNative.version_number();
  public static string VersionString => TesseraNative.version_string();
  /// <summary>The C name of a status ("TSR_ERR_NOT_VIEWABLE").</summary>
  public static string StatusName(Status status) => TesseraNative.status_name(status);
  /// <summary>A dtype's name as PyTorch prints it ("float32").</summary>
  public static string DTypeName(DType dtype) => TesseraNative.dtype_name(dtype);
}

/// <summary>torch.nn.functional.gelu's approximate argument
/// (tsr_gelu_approximate; written here because SWIG would name its None
/// after Compression.None).</summary>
public enum GeluApproximate {
  /// <summary>x * Phi(x), Phi the normal CDF (erf): approximate="none".</summary>
  None = 0,
  /// <summary>0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): approximate="tanh".</summary>
  Tanh = 1,
}

/// <summary>Restores the setting (inference mode, anomaly detection) that was
/// in force when it was created; made by Tessera.InferenceMode() and
/// Tessera.DetectAnomaly(). Inference mode is per thread: dispose its scope
/// on the thread that created it. Disposing twice restores once.</summary>
public sealed class ModeScope : global::System.IDisposable {
  readonly global::System.Func<bool, bool> setter;
  readonly bool previous;
  bool disposed;

  internal ModeScope(global::System.Func<bool, bool> setter, bool enabled) {
    this.setter = setter;
    previous = setter(enabled);
  }

  public void Dispose() {
    if (disposed) return;
    disposed = true;
    setter(previous);
  }
}

/// <summary>Restores the grad mode that was in force when it was created; made
/// by Tessera.NoGrad() and Tessera.EnableGrad(). Grad mode is per thread:
/// dispose it on the thread that created it.</summary>
public sealed class GradModeScope : global::System.IDisposable {
  readonly bool previous;
  bool disposed;

  internal GradModeScope(bool enabled) {
    previous = TesseraNative.set_grad_enabled(enabled);
  }

  public void Dispose() {
    if (disposed) return;
    disposed = true;
    TesseraNative.set_grad_enabled(previous);
  }
}

}
