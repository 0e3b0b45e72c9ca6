package org.tessera;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * Module-level functions of tessera with Java names: factories (torch.zeros, ...), grad mode and
 * the no_grad scope, inference mode and anomaly detection, gradient checkpointing regions,
 * autograd.grad, dropout, the torch.nn.functional ops (linear, gelu, layerNorm, embedding, conv2d, maxPool2d, avgPool2d,
 * adaptiveAvgPool2d, batchNorm), cat,
 * stack and where, allocator statistics, save/load, version. Tensors come back as {@link Tensor}
 * proxies: close them (try-with-resources) to release memory at once; the Cleaner releases the
 * ones left to the garbage collector. Every failure throws {@link TesseraException}.
 */
public final class Tessera {
  private Tessera() {}

  // ---- version --------------------------------------------------------------

  /** The loaded library's version, major*10000 + minor*100 + patch. */
  public static int versionNumber() {
    return NativeTessera.version_number();
  }

  public static String versionString() {
    return NativeTessera.version_string();
  }

  /** The C name of a status, e.g. "TSR_ERR_NOT_VIEWABLE". */
  public static String statusName(Status status) {
    return NativeTessera.status_name(status);
  }

  public static String dtypeName(DType dtype) {
    return NativeTessera.dtype_name(dtype);
  }

  // ---- grad mode --------------------------------------------------------------

  /** torch.is_grad_enabled() for this thread. */
  public static boolean isGradEnabled() {
    return NativeTessera.is_grad_enabled();
  }

  /** torch.set_grad_enabled(enabled) for this thread; returns the previous setting. */
  public static boolean setGradEnabled(boolean enabled) {
    return NativeTessera.set_grad_enabled(enabled);
  }

  /** torch.no_grad(): {@code try (var g = Tessera.noGrad()) { ... }} restores the setting after. */
  public static GradScope noGrad() {
    return new GradScope(false);
  }

  /** torch.enable_grad() as a scope. */
  public static GradScope enableGrad() {
    return new GradScope(true);
  }

  // ---- inference mode and anomaly detection ------------------------------------------

  /** torch.is_inference_mode_enabled() for this thread. */
  public static boolean isInferenceModeEnabled() {
    return NativeTessera.is_inference_mode_enabled();
  }

  /** Turns inference mode on or off for this thread; returns the previous setting. */
  public static boolean setInferenceMode(boolean enabled) {
    return NativeTessera.set_inference_mode(enabled);
  }

  /**
   * torch.inference_mode(): {@code try (var m = Tessera.inferenceMode()) { ... }}. Inside, grad mode
   * is off and new tensors are inference tensors ({@link Tensor#isInference()}), which record no
   * history; outside, autograd refuses to save them for backward (ERR_AUTOGRAD). Closing restores
   * the previous setting (also when the block throws).
   */
  public static ModeScope inferenceMode() {
    return new ModeScope(NativeTessera::set_inference_mode, true);
  }

  /** torch.inference_mode(enabled): false turns it off inside an enclosing scope. */
  public static ModeScope inferenceMode(boolean enabled) {
    return new ModeScope(NativeTessera::set_inference_mode, enabled);
  }

  /** torch.is_anomaly_enabled(), process-wide. */
  public static boolean isAnomalyEnabled() {
    return NativeTessera.is_anomaly_enabled();
  }

  /**
   * torch.autograd.set_detect_anomaly(enabled), process-wide; returns the previous setting. While
   * on, backward checks every gradient a node returns and throws ERR_AUTOGRAD naming the node
   * ("Function 'DivBackward0' returned nan values in its 1th output. ...").
   */
  public static boolean setDetectAnomaly(boolean enabled) {
    return NativeTessera.set_detect_anomaly(enabled);
  }

  /** torch.autograd.detect_anomaly() as a scope: {@code try (var a = Tessera.detectAnomaly()) { ... }}. */
  public static ModeScope detectAnomaly() {
    return new ModeScope(NativeTessera::set_detect_anomaly, true);
  }

  // ---- torch.nn.functional, cat, stack, where -------------------------------------------

  /** torch.nn.functional.linear(input, weight) without bias. */
  public static Tensor linear(Tensor input, Tensor weight) {
    return NativeTessera.linear(input, weight, null);
  }

  /**
   * torch.nn.functional.linear: input @ weight^T + bias, with input [*, in], weight [out, in], bias
   * null or [out]. ERR_SHAPE_MISMATCH ("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"),
   * ERR_DTYPE_MISMATCH for mixed dtypes or integers.
   */
  public static Tensor linear(Tensor input, Tensor weight, Tensor bias) {
    requireOpen(bias, "linear: bias");
    return NativeTessera.linear(input, weight, bias);
  }

  /** torch.nn.functional.gelu(input): x * Phi(x). */
  public static Tensor gelu(Tensor input) {
    return NativeTessera.gelu(input, GeluApproximate.GELU_NONE);
  }

  /** torch.nn.functional.gelu(input, approximate): GELU_NONE (erf) or GELU_TANH. */
  public static Tensor gelu(Tensor input, GeluApproximate approximate) {
    if (approximate == null) throw new NullPointerException("approximate is null");
    return NativeTessera.gelu(input, approximate);
  }

  /** torch.nn.functional.layer_norm(input, normalizedShape) without weight or bias, eps 1e-5. */
  public static Tensor layerNorm(Tensor input, long[] normalizedShape) {
    return layerNorm(input, normalizedShape, null, null, 1e-5);
  }

  /** layerNorm with weight and bias (each may be null), eps 1e-5. */
  public static Tensor layerNorm(Tensor input, long[] normalizedShape, Tensor weight, Tensor bias) {
    return layerNorm(input, normalizedShape, weight, bias, 1e-5);
  }

  /**
   * torch.nn.functional.layer_norm: (x - mean) / sqrt(var + eps) * weight + bias over the trailing
   * dims normalizedShape (biased variance); weight and bias null or of sizes normalizedShape.
   * ERR_SHAPE_MISMATCH with torch's messages.
   */
  public static Tensor layerNorm(Tensor input, long[] normalizedShape, Tensor weight, Tensor bias,
      double eps) {
    requireOpen(weight, "layerNorm: weight");
    requireOpen(bias, "layerNorm: bias");
    return NativeTessera.layer_norm(input, normalizedShape, weight, bias, eps);
  }

  /**
   * torch.nn.functional.embedding(input, weight): the rows of weight [V, D] at the int32/int64
   * indices input (any shape); the result has input's sizes + [D]. ERR_INDEX_OUT_OF_RANGE for an
   * index outside [0, V).
   */
  public static Tensor embedding(Tensor input, Tensor weight) {
    return NativeTessera.embedding(input, weight);
  }

  /** torch.cat(tensors, 0). */
  public static Tensor cat(Tensor... tensors) {
    return cat(tensors, 0);
  }

  /**
   * torch.cat(tensors, dim): the tensors joined along dim, which every other dim must agree on;
   * the dtype is their promotion. ERR_INVALID_ARGUMENT for an empty array or a closed tensor,
   * ERR_SHAPE_MISMATCH with torch's messages.
   *
   * @throws NullPointerException for a null array or entry
   */
  public static Tensor cat(Tensor[] tensors, long dim) {
    if (tensors == null) throw new NullPointerException("tensors is null");
    try (TensorList list = tensorList(tensors, false, "tensors")) {
      return NativeTessera.cat(list, dim);
    }
  }

  /** torch.stack(tensors, 0). */
  public static Tensor stack(Tensor... tensors) {
    return stack(tensors, 0);
  }

  /** torch.stack(tensors, dim): tensors of one size joined along a new dim. */
  public static Tensor stack(Tensor[] tensors, long dim) {
    if (tensors == null) throw new NullPointerException("tensors is null");
    try (TensorList list = tensorList(tensors, false, "tensors")) {
      return NativeTessera.stack(list, dim);
    }
  }

  /**
   * torch.where(condition, input, other): input where condition (bool) is true, else other; all
   * three broadcast, the dtype is torch.result_type(input, other).
   */
  public static Tensor where(Tensor condition, Tensor input, Tensor other) {
    return NativeTessera.where(condition, input, other);
  }

  /** A closed tensor passed as an optional argument must not read as null (none). */
  // ---- convolutional layers (cnn.h): pairs are long[] {H, W} -----------------------------

  /**
   * torch.nn.functional.conv2d: input [N, C_in, H, W], weight [C_out, C_in / groups, kH, kW], bias
   * null or [C_out]; channels_last out when input or weight is channels_last. ERR_SHAPE_MISMATCH
   * with torch's messages ("Given groups=1, weight of size ..."), ERR_INVALID_ARGUMENT for a
   * non-positive stride, dilation or groups or a pair that is not two long.
   */
  public static Tensor conv2d(Tensor input, Tensor weight, Tensor bias, long[] stride, long[] padding,
      long[] dilation, long groups) {
    requireOpen(bias, "conv2d: bias");
    return NativeTessera.conv2d(input, weight, bias, stride, padding, dilation, groups);
  }

  /**
   * torch.nn.functional.max_pool2d: the maxima; stride null means kernelSize. Padding (implicit
   * -inf) at most half the kernel.
   */
  public static Tensor maxPool2d(Tensor input, long[] kernelSize, long[] stride, long[] padding,
      long[] dilation, boolean ceilMode) {
    return NativeTessera.max_pool2d(input, kernelSize, pairOrNone(stride), padding, dilation, ceilMode);
  }

  /** maxPool2d with return_indices: [values, int64 indices h * W + w within each plane]. */
  public static java.util.List<Tensor> maxPool2dWithIndices(Tensor input, long[] kernelSize, long[] stride,
      long[] padding, long[] dilation, boolean ceilMode) {
    try (TensorList list = NativeTessera.max_pool2d_with_indices(input, kernelSize, pairOrNone(stride),
        padding, dilation, ceilMode)) {
      java.util.List<Tensor> out = new java.util.ArrayList<>(2);
      for (int i = 0; i < (int) list.size(); ++i) out.add(list.get(i));
      return out;
    }
  }

  /** torch.nn.functional.avg_pool2d (no divisor_override); stride null means kernelSize. */
  public static Tensor avgPool2d(Tensor input, long[] kernelSize, long[] stride, long[] padding,
      boolean ceilMode, boolean countIncludePad) {
    return NativeTessera.avg_pool2d(input, kernelSize, pairOrNone(stride), padding, ceilMode,
        countIncludePad);
  }

  /** torch.nn.functional.adaptive_avg_pool2d(input, outputSize {H, W}). */
  public static Tensor adaptiveAvgPool2d(Tensor input, long[] outputSize) {
    return NativeTessera.adaptive_avg_pool2d(input, outputSize);
  }

  /**
   * torch.nn.functional.batch_norm: runningMean / runningVar ([C], null only when training) are
   * updated in place when training; weight and bias null or [C].
   */
  public static Tensor batchNorm(Tensor input, Tensor runningMean, Tensor runningVar, Tensor weight,
      Tensor bias, boolean training, double momentum, double eps) {
    requireOpen(runningMean, "batchNorm: runningMean");
    requireOpen(runningVar, "batchNorm: runningVar");
    requireOpen(weight, "batchNorm: weight");
    requireOpen(bias, "batchNorm: bias");
    return NativeTessera.batch_norm(input, runningMean, runningVar, weight, bias, training, momentum, eps);
  }

  private static long[] pairOrNone(long[] stride) {
    return stride == null ? new long[0] : stride;
  }

  static void requireOpen(Tensor t, String what) {
    if (t != null && t.isClosed()) {
      throw new TesseraException(Status.ERR_INVALID_ARGUMENT, what + ": tensor is closed");
    }
  }

  // ---- issue 33: bmm, baddbmm, outer, var_mean, std_mean --------------------------------------

  /** torch.bmm(input, mat2): [B, n, m] @ [B, m, p] -> [B, n, p]; no broadcasting (ERR_SHAPE_MISMATCH). */
  public static Tensor bmm(Tensor input, Tensor mat2) {
    return NativeTessera.linalgBmm(input, mat2);
  }

  /** torch.baddbmm(input, batch1, batch2): input + batch1 @ batch2 (beta 1, alpha 1). */
  public static Tensor baddbmm(Tensor input, Tensor batch1, Tensor batch2) {
    return baddbmm(input, batch1, batch2, 1.0, 1.0);
  }

  /**
   * torch.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha): beta * input + alpha * (batch1
   * @ batch2), input broadcast to [B, n, p] (with beta 0 its nan and inf are ignored).
   */
  public static Tensor baddbmm(Tensor input, Tensor batch1, Tensor batch2, double beta, double alpha) {
    return NativeTessera.linalgBaddbmm(input, batch1, batch2, beta, alpha);
  }

  /** torch.outer(input, vec2): the [n, m] outer product of two 1-d tensors. */
  public static Tensor outer(Tensor input, Tensor vec2) {
    return NativeTessera.linalgOuter(input, vec2);
  }

  /** torch.var_mean(input): the unbiased variance and the mean of every element. */
  public static VarMean varMean(Tensor input) {
    return varMean(input, new long[0], 1, false);
  }

  /**
   * torch.var_mean(input, dims, correction=correction, keepdim=keepdim): variance (divided by N -
   * correction; 1 is torch's unbiased=True) and mean over dims (empty: every dim), in one pass.
   */
  public static VarMean varMean(Tensor input, long[] dims, long correction, boolean keepdim) {
    Tensor[] pair = pair(NativeTessera.var_mean_pair(input, dims, correction, keepdim, false));
    return new VarMean(pair[0], pair[1]);
  }

  /** torch.std_mean(input): the unbiased standard deviation and the mean of every element. */
  public static StdMean stdMean(Tensor input) {
    return stdMean(input, new long[0], 1, false);
  }

  /** torch.std_mean(input, dims, correction=correction, keepdim=keepdim). */
  public static StdMean stdMean(Tensor input, long[] dims, long correction, boolean keepdim) {
    Tensor[] pair = pair(NativeTessera.var_mean_pair(input, dims, correction, keepdim, true));
    return new StdMean(pair[0], pair[1]);
  }

  /** The two tensors of a native pair, whose list is closed here. */
  static Tensor[] pair(TensorList list) {
    try (list) {
      return new Tensor[] {list.get(0), list.get(1)};
    }
  }

  /** A DType as the int the native scans take (null is refused). */
  static int dtypeValue(DType dtype) {
    if (dtype == null) throw new NullPointerException("dtype is null");
    return dtype.swigValue();
  }

  // ---- gradient checkpointing (include/tessera/checkpoint.h) ---------------------

  /**
   * torch.utils.checkpoint as a scope: {@code try (var r = Tessera.checkpoint()) { ... }} runs the
   * block's ops on this thread without keeping their activations; backward recomputes them from the
   * region's inputs (same gradients, bit for bit, for about one extra forward of compute). The
   * region ends when the scope closes, exceptions included. Default options.
   */
  public static CheckpointRegion checkpoint() {
    return new CheckpointRegion(CheckpointOptions.defaults());
  }

  /**
   * {@link #checkpoint()} with options. Throws TesseraException(ERR_INVALID_ARGUMENT) naming an
   * unknown keepOps name; nothing is opened then.
   */
  public static CheckpointRegion checkpoint(CheckpointOptions options) {
    return new CheckpointRegion(options);
  }

  /**
   * Opens a region on this thread without a scope object (tsr_checkpoint_begin); end it with
   * {@link #checkpointEnd()} on the same thread. Prefer {@link #checkpoint(CheckpointOptions)}.
   * options null means the defaults.
   */
  public static void checkpointBegin(CheckpointOptions options) {
    CheckpointOptions o = options == null ? CheckpointOptions.defaults() : options;
    NativeTessera.checkpoint_begin(o.preserveRngState(), o.determinismCheck(), o.earlyStop(),
        o.keepOpsString());
  }

  /**
   * Closes this thread's innermost region (tsr_checkpoint_end). TesseraException(ERR_AUTOGRAD) when
   * none is open; nothing changes then.
   */
  public static void checkpointEnd() {
    NativeTessera.checkpoint_end();
  }

  /** The number of regions open on this thread (0 outside any). */
  public static long checkpointDepth() {
    return NativeTessera.checkpoint_depth();
  }

  // ---- torch.autograd.grad ------------------------------------------------------------

  /** {@link #autogradGrad(Tensor[], Tensor[], Tensor[], boolean, boolean, boolean)} with defaults. */
  public static Tensor[] autogradGrad(Tensor[] outputs, Tensor[] inputs) {
    return autogradGrad(outputs, inputs, null, false, false, false);
  }

  /**
   * torch.autograd.grad: the gradients of outputs (weighted by gradOutputs) with respect to each of
   * inputs, one new tensor per input (close each), null for an input no output uses when
   * allowUnused. No grad() is read or written.
   *
   * @param outputs at least one tensor, each requiring grad
   * @param inputs at least one tensor, each requiring grad (leaves or not)
   * @param gradOutputs null, or one entry per output: null (ones: only for one-element outputs) or
   *     a tensor of that output's sizes
   * @param retainGraph keep the graph for another backward (pass true with createGraph when the
   *     result is differentiated again: its graph runs through this one)
   * @param createGraph record the backward itself, so the gradients require grad (higher order)
   * @param allowUnused an unused input gets null instead of an error
   * @throws TesseraException ERR_AUTOGRAD (an output or input without requires_grad, an unused
   *     input without allowUnused, a checkpoint region open on this thread, a freed graph),
   *     ERR_SHAPE_MISMATCH (a gradOutput of the wrong sizes), ERR_INVALID_ARGUMENT (empty arrays,
   *     gradOutputs of the wrong length, a closed tensor)
   * @throws NullPointerException for a null outputs/inputs array or a null entry in one
   */
  public static Tensor[] autogradGrad(Tensor[] outputs, Tensor[] inputs, Tensor[] gradOutputs,
      boolean retainGraph, boolean createGraph, boolean allowUnused) {
    if (outputs == null || inputs == null) throw new NullPointerException("outputs or inputs is null");
    try (TensorList outs = tensorList(outputs, false, "outputs");
        TensorList ins = tensorList(inputs, false, "inputs");
        TensorList gouts = gradOutputs == null ? null : tensorList(gradOutputs, true, "gradOutputs");
        TensorList grads = NativeTessera.autograd_grad(outs, ins, gouts, retainGraph, createGraph,
            allowUnused)) {
      Tensor[] out = new Tensor[(int) grads.size()];
      for (int i = 0; i < out.length; ++i) out[i] = grads.get(i);
      return out;
    }
  }

  static TensorList tensorList(Tensor[] tensors, boolean nullsAllowed, String what) {
    TensorList list = new TensorList();
    try {
      for (Tensor t : tensors) {
        if (t != null) {
          list.append(t);
        } else if (nullsAllowed) {
          list.appendNone();
        } else {
          throw new NullPointerException(what + " holds a null tensor");
        }
      }
      return list;
    } catch (RuntimeException e) {
      list.close();
      throw e;
    }
  }

  // ---- factories ----------------------------------------------------------------

  /** torch.empty(sizes): float32, uninitialised. */
  public static Tensor empty(long... sizes) {
    return Tensor.empty(sizes);
  }

  public static Tensor empty(long[] sizes, DType dtype) {
    return Tensor.empty(sizes, dtype);
  }

  public static Tensor zeros(long... sizes) {
    return Tensor.zeros(sizes);
  }

  public static Tensor zeros(long[] sizes, DType dtype) {
    return Tensor.zeros(sizes, dtype);
  }

  public static Tensor ones(long... sizes) {
    return Tensor.ones(sizes);
  }

  public static Tensor ones(long[] sizes, DType dtype) {
    return Tensor.ones(sizes, dtype);
  }

  public static Tensor full(long[] sizes, double value) {
    return Tensor.full(sizes, value);
  }

  public static Tensor full(long[] sizes, double value, DType dtype) {
    return Tensor.full(sizes, value, dtype);
  }

  /** torch.arange(end): int64 0, 1, ..., end-1. */
  public static Tensor arange(double end) {
    return Tensor.arange(0, end);
  }

  public static Tensor arange(double start, double end, double step, DType dtype) {
    return Tensor.arange(start, end, step, dtype);
  }

  /** torch.rand(sizes, generator=g): float32 uniform on [0, 1). */
  public static Tensor rand(Generator generator, long... sizes) {
    return Tensor.rand(sizes, generator);
  }

  /** torch.randn(sizes, generator=g): float32 standard normal. */
  public static Tensor randn(Generator generator, long... sizes) {
    return Tensor.randn(sizes, generator);
  }

  /** torch.randperm(n, generator=g): int64. */
  public static Tensor randperm(long n, Generator generator) {
    return Tensor.randperm(n, generator);
  }

  /**
   * torch.dropout(input, p, train) with generator=g: each element kept with probability 1 - p and
   * scaled by 1 / (1 - p), or zeroed; g advances by input.numel() words (see {@link
   * Generator#getState()}). Not train, or p == 0: a new reference to input itself. Inside a
   * checkpoint region the recomputation draws the same mask. ERR_INVALID_ARGUMENT for p outside [0,
   * 1] or a closed handle, ERR_DTYPE_MISMATCH for a non-floating input.
   */
  public static Tensor dropout(Tensor input, double p, boolean train, Generator generator) {
    if (input == null) throw new NullPointerException("input is null");
    return input.dropout(p, train, generator);
  }

  /** A float32 tensor of sizes holding values (C order), copied. */
  public static Tensor tensor(float[] values, long... sizes) {
    ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.nativeOrder());
    bytes.asFloatBuffer().put(values);
    return Tensor.fromBytes(bytes.array(), sizes, DType.FLOAT32);
  }

  /** A float64 tensor of sizes holding values (C order), copied. */
  public static Tensor tensor(double[] values, long... sizes) {
    return Tensor.fromFloat64(values, sizes, DType.FLOAT64);
  }

  /** An int64 tensor of sizes holding values (C order), copied. */
  public static Tensor tensor(long[] values, long... sizes) {
    return Tensor.fromInt64(values, sizes, DType.INT64);
  }

  // ---- allocator (torch.cuda.memory_* names; CPU device 0 unless told) ---------
  // Semantics: include/tessera/allocator.h. All sizes are in bytes, counting blocks rounded up to
  // 512 bytes. A device other than (DEVICE_CPU, 0) throws TesseraException(ERR_UNSUPPORTED).

  /** torch.cuda.memory_stats(): a consistent snapshot, an immutable Java value (nothing to close). */
  public static MemoryStats memoryStats() {
    return NativeTessera.memory_stats(DeviceType.DEVICE_CPU, 0);
  }

  public static MemoryStats memoryStats(DeviceType deviceType, int deviceIndex) {
    return NativeTessera.memory_stats(deviceType, deviceIndex);
  }

  /** Bytes of tensor memory handed out now (allocated_bytes.current). */
  public static long memoryAllocated() {
    return NativeTessera.memory_allocated(DeviceType.DEVICE_CPU, 0);
  }

  public static long memoryAllocated(DeviceType deviceType, int deviceIndex) {
    return NativeTessera.memory_allocated(deviceType, deviceIndex);
  }

  /** Peak of memoryAllocated() since start or resetPeakMemoryStats(), in bytes. */
  public static long maxMemoryAllocated() {
    return NativeTessera.max_memory_allocated(DeviceType.DEVICE_CPU, 0);
  }

  /** Bytes the caching allocator holds from the OS, in use or cached (reserved_bytes.current). */
  public static long memoryReserved() {
    return NativeTessera.memory_reserved(DeviceType.DEVICE_CPU, 0);
  }

  /** Peak of memoryReserved() since start or resetPeakMemoryStats(), in bytes. */
  public static long maxMemoryReserved() {
    return NativeTessera.max_memory_reserved(DeviceType.DEVICE_CPU, 0);
  }

  /** Every stat's peak becomes its current value. */
  public static void resetPeakMemoryStats() {
    NativeTessera.reset_peak_memory_stats(DeviceType.DEVICE_CPU, 0);
  }

  /** Every stat's allocated and freed totals and the four event counters become 0. */
  public static void resetAccumulatedMemoryStats() {
    NativeTessera.reset_accumulated_memory_stats(DeviceType.DEVICE_CPU, 0);
  }

  /** Returns cached segments that hold no allocated block to the OS; memory in use is untouched. */
  public static void emptyCache() {
    NativeTessera.empty_cache(DeviceType.DEVICE_CPU, 0);
  }

  /**
   * Caps the bytes the allocator may hold from the OS, process-wide (0 removes the cap): an
   * allocation that would pass it throws ERR_OUT_OF_MEMORY after the cache is emptied. Negative
   * bytes: ERR_INVALID_ARGUMENT, cap unchanged.
   */
  public static void setMemoryLimit(long bytes) {
    NativeTessera.set_memory_limit(bytes, DeviceType.DEVICE_CPU, 0);
  }

  /** The cap set by setMemoryLimit, in bytes; 0 when there is none. */
  public static long memoryLimit() {
    return NativeTessera.memory_limit(DeviceType.DEVICE_CPU, 0);
  }

  // ---- save / load ------------------------------------------------------------------

  /*
   * No save(path, tensors, Map<String, String> metadata): beside save(path, tensors, SaveOptions),
   * save(path, tensors, null) matched both and did not compile (issue 34, item 11). Metadata goes
   * with a compression, save(path, tensors, metadata, COMPRESSION_NONE), or in SaveOptions.
   */

  /** Saves tensors under their names, in the map's iteration order, uncompressed. */
  public static void save(String path, Map<String, Tensor> tensors) {
    save(path, tensors, Map.of(), Compression.COMPRESSION_NONE, 0);
  }

  public static void save(String path, Map<String, Tensor> tensors, Map<String, String> metadata,
      Compression compression) {
    save(path, tensors, metadata, compression, 0);
  }

  /**
   * Saves tensors (name to tensor) and string metadata to path, replacing it atomically.
   *
   * @param level zstd level, 0 for zstd's default
   */
  public static void save(String path, Map<String, Tensor> tensors, Map<String, String> metadata,
      Compression compression, int level) {
    try (TensorList list = new TensorList()) {
      for (Map.Entry<String, Tensor> e : tensors.entrySet()) list.append(e.getValue(), e.getKey());
      for (Map.Entry<String, String> e : metadata.entrySet()) list.setMetadata(e.getKey(), e.getValue());
      NativeTessera.save(path, list, compression, level);
    }
  }

  /**
   * Saves tensors (name to tensor) to path with options (compression, metadata, checksums,
   * sharding, views, progress; null: defaults, so save(path, tensors, null) is the plain save),
   * replacing it atomically. A cancelled or failed save
   * leaves any file at path as it was.
   */
  public static void save(String path, Map<String, Tensor> tensors, SaveOptions options) {
    if (options == null) options = new SaveOptions();
    Progress progress = Progress.wrap(options.progress());
    try (TensorList list = options.metadataList()) {
      for (Map.Entry<String, Tensor> e : tensors.entrySet()) list.append(e.getValue(), e.getKey());
      final SaveOptions o = options;
      Progress.call(progress, () -> {
        NativeTessera.save_with(path, list, o.compression(), o.level(), o.skipChecksums(),
            o.maxShardSize(), o.flattenViews(), progress);
        return null;
      });
    }
  }

  /**
   * Loads a file (or a sharded checkpoint's model.safetensors.index.json) with options (maxBytes,
   * skipChecksums, progress; null: defaults).
   */
  public static TensorMap load(String path, LoadOptions options) {
    if (options == null) options = new LoadOptions();
    Progress progress = Progress.wrap(options.progress());
    final LoadOptions o = options;
    return Progress.call(progress,
        () -> TensorMap.loadWith(path, o.maxBytes(), o.skipChecksums(), progress));
  }

  /** Opens path lazily ({@link TensorFile#open(String, LoadOptions)}); close it when done. */
  public static TensorFile openFile(String path) {
    return TensorFile.open(path, null);
  }

  /** Loads a file written by save; close the map (and the tensors taken from it) when done. */
  public static TensorMap load(String path) {
    return TensorMap.load(path);
  }

  /** As load, refusing files whose tensors would need more than maxBytes (0: the default cap, 64 times the file's size plus 64 MiB;
   * Long.MAX_VALUE: no cap). */
  public static TensorMap load(String path, long maxBytes) {
    return TensorMap.load(path, maxBytes);
  }

  // ---- issue 33: factories, einsum, maximum (java_indexing_ops.i has the Tensor methods) --------

  /** torch.linspace(start, end, steps, dtype=dtype). */
  public static Tensor linspace(double start, double end, long steps, DType dtype) {
    return NativeTessera.linspace(start, end, steps, dtypeValue(dtype));
  }

  /** torch.eye(n, m, dtype=dtype). */
  public static Tensor eye(long n, long m, DType dtype) { return NativeTessera.eye(n, m, dtypeValue(dtype)); }

  /** torch.einsum(equation, operands...). */
  public static Tensor einsum(String equation, Tensor... operands) {
    try (TensorList list = tensorList(operands, false, "operands")) {
      return NativeTessera.einsum(equation, list);
    }
  }

  /** torch.maximum(a, b). */
  public static Tensor maximum(Tensor a, Tensor b) { return NativeTessera.maximum(a, b); }

  /** torch.minimum(a, b). */
  public static Tensor minimum(Tensor a, Tensor b) { return NativeTessera.minimum(a, b); }
}
