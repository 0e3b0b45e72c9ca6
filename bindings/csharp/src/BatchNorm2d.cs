// BatchNorm2d — torch.nn.BatchNorm2d(num_features, eps, momentum) with affine
// weight (ones) and bias (zeros) and the running statistics as buffers:
// running_mean (zeros), running_var (ones), num_batches_tracked (int64 0).
// Training mode normalizes with the batch's statistics and updates the
// running ones (running = (1 - momentum) running + momentum batch); eval mode
// uses the running ones.
using System;

namespace Tessera {

public sealed class BatchNorm2d : Module {
  readonly double eps, momentum;
  public Tensor Weight { get; }
  public Tensor Bias { get; }
  public Tensor RunningMean { get; }
  public Tensor RunningVar { get; }
  public Tensor NumBatchesTracked { get; }

  public BatchNorm2d(long numFeatures, double eps = 1e-5, double momentum = 0.1) {
    this.eps = eps;
    this.momentum = momentum;
    Weight = RegisterParameter("weight", Tensor.Ones(new[] {numFeatures}));
    Bias = RegisterParameter("bias", Tensor.Zeros(new[] {numFeatures}));
    RunningMean = RegisterBuffer("running_mean", Tensor.Zeros(new[] {numFeatures}));
    RunningVar = RegisterBuffer("running_var", Tensor.Ones(new[] {numFeatures}));
    NumBatchesTracked = RegisterBuffer("num_batches_tracked", Tensor.Zeros(new long[0], DType.Int64));
  }

  /// <summary>input [N, C, H, W]; ArgumentException "expected 4D input (got
  /// 3D input)" otherwise, as torch.</summary>
  public override Tensor Forward(Tensor input) {
    if (input == null) throw new ArgumentNullException(nameof(input));
    if (input.Ndim != 4) throw new ArgumentException("expected 4D input (got " + input.Ndim + "D input)");
    // torch counts batches even with a fixed momentum (it reads the count only when momentum is None).
    if (IsTraining) NumBatchesTracked.FillInPlace(NumBatchesTracked.ItemInt64() + 1);
    return Tessera.BatchNorm(input, RunningMean, RunningVar, Weight, Bias, IsTraining, momentum, eps);
  }
}

}
