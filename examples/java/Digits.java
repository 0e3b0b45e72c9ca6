package org.tessera.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.tessera.Generator;
import org.tessera.MemoryFormat;
import org.tessera.MemoryStats;
import org.tessera.Tensor;
import org.tessera.TensorMap;
import org.tessera.Tessera;

/**
 * digits — examples/digits in Java: reads the UCI handwritten digits, shuffles them with a seeded
 * generator and splits 80/20, trains a 64-128-10 perceptron with minibatch SGD and autograd,
 * reports held-out accuracy, saves a zstd checkpoint, loads it back and checks that the reloaded
 * model predicts the same classes. Every tensor is closed by try-with-resources, so at the end no
 * tensor memory is in use. Exits 1 if accuracy is below 0.95, if the reloaded model differs or if
 * memory is left allocated.
 *
 * <pre>java -cp tessera.jar:classes org.tessera.examples.Digits [DATA.csv.gz [CHECKPOINT]]</pre>
 */
public final class Digits {
  static final long SEED = 20240611;
  static final int EPOCHS = 25;
  static final int BATCH = 64;
  static final double LEARNING_RATE = 0.1;
  static final double MIN_ACCURACY = 0.95;

  private Digits() {}

  public static void main(String[] args) throws Exception {
    Path data = Paths.get(args.length > 0 ? args[0] : "examples/data/digits.csv.gz");
    Path checkpoint = Paths.get(args.length > 1 ? args[1] : "digits-checkpoint.tsr");
    System.out.println("tessera " + Tessera.versionString() + " from Java " + System.getProperty("java.version"));
    DigitsData digits = DigitsData.load(data);
    System.out.printf("read %d images of 8x8 pixels from %s%n", digits.size(), data);

    double accuracy;
    boolean sameParameters;
    boolean samePredictions;
    try (Generator gen = new Generator(SEED); Shuffled shuffled = new Shuffled(digits, gen)) {
      Tensor images = shuffled.images;
      Tensor labels = shuffled.labels;
      layoutTour(images);
      int n = digits.size();
      int nTrain = n * 8 / 10;
      int nTest = n - nTrain;
      try (Tensor flat = images.view(new long[] {n, DigitsData.PIXELS}); // [N, 1, 8, 8] -> [N, 64]
          Tensor xTrain = flat.narrow(0, 0, nTrain);
          Tensor xTest = flat.narrow(0, nTrain, nTest);
          Tensor yTrain = labels.narrow(0, 0, nTrain);
          Tensor yTest = labels.narrow(0, nTrain, nTest);
          Mlp model = new Mlp(gen)) {
        System.out.printf("%nsplit: %d training images, %d held out%n", nTrain, nTest);
        System.out.printf(Locale.ROOT, "training MLP %d-%d-%d, SGD lr %.2f, batch %d, %d epochs%n",
            Mlp.INPUTS, Mlp.HIDDEN, Mlp.OUTPUTS, LEARNING_RATE, BATCH, EPOCHS);
        for (int epoch = 1; epoch <= EPOCHS; ++epoch) {
          System.out.printf(Locale.ROOT, "  epoch %2d  loss %.4f%n", epoch, trainEpoch(model, xTrain, yTrain));
        }
        long[] predicted = model.predict(xTest);
        accuracy = accuracy(predicted, yTest.toInt64());
        System.out.printf(Locale.ROOT, "test accuracy: %.4f%n", accuracy);
        printAllocatorStats();

        model.save(checkpoint.toString(), Map.of("model", "digits-mlp-64-128-10"));
        System.out.printf(Locale.ROOT,
            "%ncheckpoint %s: %d bytes on disk (zstd, header included) for %d bytes of float32 parameters%n",
            checkpoint, Files.size(checkpoint), model.parameterBytes());
        try (TensorMap map = Tessera.load(checkpoint.toString())) {
          java.util.List<String> names = new java.util.ArrayList<>();
          for (long i = 0; i < map.size(); ++i) names.add(map.name(i));
          System.out.printf("checkpoint holds the state_dict %s, model \"%s\"%n", names, map.metadataGet("model"));
        }
        try (Mlp reloaded = Mlp.load(checkpoint.toString())) {
          sameParameters = model.sameParameters(reloaded);
          samePredictions = Arrays.equals(predicted, reloaded.predict(xTest));
        }
      }
    }
    System.out.println("reloaded parameters bit-identical: " + (sameParameters ? "yes" : "NO"));
    System.out.println("reloaded predictions identical: " + (samePredictions ? "yes" : "NO"));
    // Every handle was closed by its try block: no tensor memory is in use any more (the
    // allocator keeps its segments cached; that is reserved, not allocated).
    long stillAllocated = Tessera.memoryAllocated();
    System.out.println("after closing every handle: " + stillAllocated + " bytes allocated");

    if (accuracy < MIN_ACCURACY) fail(String.format(Locale.ROOT, "accuracy %.4f below %.2f", accuracy, MIN_ACCURACY));
    if (!sameParameters || !samePredictions) fail("the reloaded model differs from the trained one");
    if (stillAllocated != 0) fail("tensor memory still allocated after every close");
  }

  private static void fail(String why) {
    System.err.println("FAILED: " + why);
    System.exit(1);
  }

  /**
   * The images [N, 1, 8, 8] float32 and labels [N] int64 in the order of a seeded random
   * permutation (torch.randperm with a generator).
   */
  static final class Shuffled implements AutoCloseable {
    final Tensor images;
    final Tensor labels;

    Shuffled(DigitsData d, Generator gen) {
      long[] order;
      try (Tensor perm = Tessera.randperm(d.size(), gen)) {
        order = perm.toInt64();
      }
      float[] pixels = new float[d.pixels.length];
      long[] labels = new long[d.size()];
      for (int i = 0; i < order.length; ++i) {
        int from = (int) order[i];
        System.arraycopy(d.pixels, from * DigitsData.PIXELS, pixels, i * DigitsData.PIXELS, DigitsData.PIXELS);
        labels[i] = d.labels[from];
      }
      this.images = Tessera.tensor(pixels, d.size(), 1, DigitsData.SIDE, DigitsData.SIDE);
      this.labels = Tessera.tensor(labels, d.size());
    }

    @Override
    public void close() {
      images.close();
      labels.close();
    }
  }

  /** What PyTorch users know about memory layout, shown on the images. */
  static void layoutTour(Tensor x) {
    System.out.println("\nlayout of the images (sizes and strides count elements):");
    printGeometry("X", x);
    try (Tensor cl = x.clone(MemoryFormat.CHANNELS_LAST);
        Tensor xt = x.transpose(2, 3);
        Tensor dense = xt.contiguous()) {
      printGeometry("X.clone(channels_last)", cl);
      printGeometry("X.transpose(2, 3)", xt);
      printGeometry("X.transpose(2, 3).contiguous()", dense);
      System.out.printf("  transpose shares X's storage: %s; its contiguous copy does: %s%n",
          x.sharesStorage(xt) ? "yes" : "no", x.sharesStorage(dense) ? "yes" : "no");
    }
  }

  private static void printGeometry(String what, Tensor t) {
    System.out.printf("  %-32s sizes %s  strides %s  contiguous=%s channels_last=%s%n", what,
        Arrays.toString(t.sizes()), Arrays.toString(t.strides()), t.isContiguous() ? "yes" : "no",
        t.isContiguous(MemoryFormat.CHANNELS_LAST) ? "yes" : "no");
  }

  /** One pass over the training set in minibatches (views: narrow copies nothing); mean loss. */
  static double trainEpoch(Mlp model, Tensor x, Tensor y) {
    long n = y.numel();
    double lossSum = 0;
    int batches = 0;
    for (long start = 0; start < n; start += BATCH) {
      long len = Math.min(BATCH, n - start);
      try (Tensor xb = x.narrow(0, start, len);
          Tensor yb = y.narrow(0, start, len);
          Tensor logits = model.forward(xb);
          Tensor loss = logits.crossEntropy(yb)) {
        loss.backward();
        model.sgdStep(LEARNING_RATE);
        lossSum += loss.itemDouble();
        ++batches;
      }
    }
    return lossSum / batches;
  }

  static double accuracy(long[] predicted, long[] truth) {
    int right = 0;
    for (int i = 0; i < truth.length; ++i) right += predicted[i] == truth[i] ? 1 : 0;
    return (double) right / truth.length;
  }

  /** What the caching allocator did so far: handed out now and at most, held from the OS. */
  static void printAllocatorStats() {
    MemoryStats s = Tessera.memoryStats();
    System.out.println("\nallocator (CPU caching allocator, sizes in KiB):");
    System.out.printf(Locale.ROOT, "  allocated  %10.1f now, %10.1f peak  (%d blocks live)%n",
        s.allocatedBytes().current() / 1024.0, s.allocatedBytes().peak() / 1024.0, s.allocation().current());
    System.out.printf(Locale.ROOT, "  reserved   %10.1f now, %10.1f peak  (segments held: %d)%n",
        s.reservedBytes().current() / 1024.0, s.reservedBytes().peak() / 1024.0, s.segment().current());
    System.out.printf("  %d allocations served, %d of them needed a new segment%n",
        s.allocation().allocated(), s.numDeviceAlloc());
  }
}
