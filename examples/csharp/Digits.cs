// Digits — tessera end to end from C#, as examples/digits does from C:
//   mono Digits.exe [DATA.csv.gz [CHECKPOINT]]
// reads the UCI handwritten digits, shuffles them with a seeded generator,
// splits 80/20, trains a 64-128-10 perceptron with autograd and minibatch SGD
// (no_grad updates), reports held-out accuracy, saves a zstd checkpoint,
// reloads it and checks that it predicts exactly the same classes.
// Exits non-zero if accuracy is below 0.95 or the reloaded model differs.
using System;
using System.Linq;

namespace Tessera.Examples {

static class Digits {
  const ulong Seed = 20240611;
  const int Epochs = 25, Batch = 64;
  const double LearningRate = 0.1, MinAccuracy = 0.95;

  static int Main(string[] args) {
    string dataPath = args.Length > 0 ? args[0] : "examples/data/digits.csv.gz";
    string checkpointPath = args.Length > 1 ? args[1] : "digits-checkpoint.tsr";
    Console.WriteLine($"tessera {Tessera.VersionString} from C#");

    Dataset data = Dataset.Load(dataPath);
    Console.WriteLine($"read {data.Count} images of 8x8 pixels from {dataPath}");
    int n = data.Count, nTrain = n * 8 / 10, nTest = n - nTrain;

    Tensor labels;
    using (var gen = new Generator(Seed))
    using (Tensor images = Shuffled(data, gen, out labels))
    using (labels)
    // The MLP sees each image as 64 inputs: a view, [N, 1, 8, 8] -> [N, 64];
    // the split and the minibatches are views too (narrow): no copies.
    using (var flat = images.View(new long[] {n, Dataset.Pixels}))
    using (var xTrain = flat.Narrow(0, 0, nTrain))
    using (var xTest = flat.Narrow(0, nTrain, nTest))
    using (var yTrain = labels.Narrow(0, 0, nTrain))
    using (var yTest = labels.Narrow(0, nTrain, nTest))
    using (var model = new Mlp(gen)) {
      Console.WriteLine($"images {images}, as MLP inputs {flat}");
      Console.WriteLine($"split: {nTrain} training images, {nTest} held out");
      Console.WriteLine($"training MLP 64-128-10, SGD lr {LearningRate:F2}, batch {Batch}, {Epochs} epochs");
      for (int epoch = 1; epoch <= Epochs; ++epoch)
        Console.WriteLine($"  epoch {epoch,2}  loss {TrainEpoch(model, xTrain, yTrain):F4}");

      long[] predicted = model.Predict(xTest);
      long[] truth = yTest.ToInt64();
      double accuracy = predicted.Zip(truth, (p, t) => p == t ? 1.0 : 0.0).Sum() / nTest;
      Console.WriteLine($"test accuracy: {accuracy:F4}");
      using (MemoryStats stats = Tessera.MemoryStats())
        Console.WriteLine($"allocator: {stats.AllocatedBytes.Current / 1024.0:F1} KiB allocated now, " +
                          $"{stats.AllocatedBytes.Peak / 1024.0:F1} KiB peak, {stats.Allocation.Allocated} allocations, " +
                          $"{stats.NumDeviceAlloc} of them needed a new segment");

      model.Save(checkpointPath);
      Console.WriteLine($"checkpoint {checkpointPath}: {new System.IO.FileInfo(checkpointPath).Length} bytes (zstd)");
      string name;
      bool parametersSame, predictionsSame;
      using (Mlp reloaded = Mlp.Load(checkpointPath, out name)) {
        parametersSame = model.Parameters.Zip(reloaded.Parameters,
            (a, b) => a.Sizes.SequenceEqual(b.Sizes) && a.ToBytes().SequenceEqual(b.ToBytes())).All(same => same);
        predictionsSame = reloaded.Predict(xTest).SequenceEqual(predicted);
      }
      Console.WriteLine($"reloaded model \"{name}\": parameters bit-identical: {(parametersSame ? "yes" : "NO")}, " +
                        $"predictions identical: {(predictionsSame ? "yes" : "NO")}");

      if (accuracy < MinAccuracy) {
        Console.Error.WriteLine($"FAILED: accuracy {accuracy:F4} below {MinAccuracy:F2}");
        return 1;
      }
      if (!parametersSame || !predictionsSame) {
        Console.Error.WriteLine("FAILED: the reloaded model differs from the trained one");
        return 1;
      }
    }
    return 0;
  }

  /// Images [N, 1, 8, 8] float32 and labels [N] int64, rows in the order of a
  /// seeded random permutation (torch.randperm with a generator).
  static Tensor Shuffled(Dataset data, Generator gen, out Tensor labels) {
    long[] order;
    using (var perm = Tensor.Randperm(data.Count, gen)) order = perm.ToInt64();
    var pixels = new float[data.Images.Length];
    var shuffledLabels = new long[data.Count];
    for (int i = 0; i < data.Count; ++i) {
      Array.Copy(data.Images, order[i] * Dataset.Pixels, pixels, i * Dataset.Pixels, Dataset.Pixels);
      shuffledLabels[i] = data.Labels[order[i]];
    }
    labels = Tensor.FromArray(shuffledLabels, new long[] {data.Count});
    return Tensor.FromArray(pixels, new long[] {data.Count, 1, Dataset.Side, Dataset.Side});
  }

  static double TrainEpoch(Mlp model, Tensor x, Tensor y) {
    long n = y.Numel;
    double lossSum = 0;
    int batches = 0;
    for (long start = 0; start < n; start += Batch) {
      long length = Math.Min(Batch, n - start);
      using (var xb = x.Narrow(0, start, length))
      using (var yb = y.Narrow(0, start, length))
      using (var logits = model.Forward(xb))
      using (var loss = logits.CrossEntropy(yb)) {
        loss.Backward();
        model.SgdStep(LearningRate);
        lossSum += loss.ItemDouble();
        ++batches;
      }
    }
    return lossSum / batches;
  }
}

}
