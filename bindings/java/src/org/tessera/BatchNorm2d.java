package org.tessera;

/**
 * torch.nn.BatchNorm2d(numFeatures, eps, momentum) with affine weight (ones) and bias (zeros) and
 * the running statistics as buffers: running_mean (zeros), running_var (ones), num_batches_tracked
 * (int64 0). In training mode it normalizes with the batch's statistics and updates the running
 * ones (running = (1 - momentum) running + momentum batch); in eval mode it uses the running ones.
 */
public final class BatchNorm2d extends Module {
  private final double eps;
  private final double momentum;
  private final Tensor weight;
  private final Tensor bias;
  private final Tensor runningMean;
  private final Tensor runningVar;
  private final Tensor numBatchesTracked;

  /** torch's defaults: eps 1e-5, momentum 0.1. */
  public BatchNorm2d(long numFeatures) {
    this(numFeatures, 1e-5, 0.1);
  }

  public BatchNorm2d(long numFeatures, double eps, double momentum) {
    this.eps = eps;
    this.momentum = momentum;
    this.weight = registerParameter("weight", Tessera.ones(numFeatures));
    this.bias = registerParameter("bias", Tessera.zeros(numFeatures));
    this.runningMean = registerBuffer("running_mean", Tessera.zeros(numFeatures));
    this.runningVar = registerBuffer("running_var", Tessera.ones(numFeatures));
    this.numBatchesTracked = registerBuffer("num_batches_tracked", Tessera.zeros(new long[0], DType.INT64));
  }

  /** input [N, C, H, W]; IllegalArgumentException "expected 4D input (got 3D input)" otherwise, as torch. */
  @Override
  public Tensor forward(Tensor input) {
    if (input.ndim() != 4) throw new IllegalArgumentException("expected 4D input (got " + input.ndim() + "D input)");
    if (isTraining()) {
      // torch counts batches even with a fixed momentum (it only reads the count when momentum is None).
      numBatchesTracked.fill_(numBatchesTracked.itemInt64() + 1);
    }
    return Tessera.batchNorm(input, runningMean, runningVar, weight, bias, isTraining(), momentum, eps);
  }

  public Tensor weight() {
    return weight;
  }

  public Tensor bias() {
    return bias;
  }

  public Tensor runningMean() {
    return runningMean;
  }

  public Tensor runningVar() {
    return runningVar;
  }

  public Tensor numBatchesTracked() {
    return numBatchesTracked;
  }
}
