package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.tessera.Compression;
import org.tessera.DType;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.TensorMap;
import org.tessera.Tessera;

/** save(path, Map<String, Tensor>, metadata) and load(path) -> TensorMap. */
final class SaveLoadTests {
  private static Path dir;

  private SaveLoadTests() {}

  static void register(AllTests.Registry r, Path tmp) {
    dir = tmp;
    r.add("save/load: values, names, metadata (uncompressed)", () -> roundTrip(Compression.COMPRESSION_NONE));
    r.add("save/load: the same with zstd, smaller on disk", () -> roundTrip(Compression.COMPRESSION_ZSTD));
    r.add("save/load: missing, corrupt and oversized files", SaveLoadTests::badFiles);
    r.add("save/load: save(path, map, null) compiles and is the plain save", SaveLoadTests::nullThirdArgument);
  }

  /** A file with one tensor "w" (for tests elsewhere). */
  static String writeSmallFile() {
    String path = dir.resolve("small.tsr").toString();
    try (Tensor w = Tessera.ones(3)) {
      Tessera.save(path, Map.of("w", w));
    }
    return path;
  }

  /**
   * Issue 34 item 11: with both save(path, map, Map metadata) and save(path, map, SaveOptions),
   * this call did not compile; now null is SaveOptions' "defaults".
   */
  static void nullThirdArgument() {
    Path path = dir.resolve("null-options.tsr");
    try (Tensor w = Tessera.tensor(new float[] {1, 2}, 2)) {
      Tessera.save(path.toString(), Map.of("w", w), null);
      try (TensorMap map = Tessera.load(path.toString()); Tensor back = map.get("w")) {
        close(new double[] {1, 2}, back.toFloat64(), 0, "w");
        equal(Map.of(), map.metadata(), "no metadata");
      }
    }
  }

  static void roundTrip(Compression compression) throws IOException {
    Path path = dir.resolve("roundtrip-" + compression + ".tsr");
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("model", "digits-mlp");
    metadata.put("épochs", "twenty-five ✓"); // UTF-8 both ways
    try (Tensor weight = Tessera.tensor(new float[] {1.5f, -2f, 0f, 4f, 5f, 6f}, 2, 3);
        Tensor steps = Tessera.tensor(new long[] {7, 8, 9}, 3);
        Tensor zeros = Tessera.zeros(64, 64);
        Tensor transposed = weight.t()) {
      Map<String, Tensor> tensors = new LinkedHashMap<>();
      tensors.put("weight", weight);
      tensors.put("steps", steps);
      tensors.put("zeros", zeros);
      tensors.put("weight_t", transposed); // a non-contiguous view saves its values
      Tessera.save(path.toString(), tensors, metadata, compression);

      try (TensorMap map = Tessera.load(path.toString())) {
        equal(4, map.size(), "tensor count");
        // File order is by data offset, which the writer chooses.
        Set<String> names = new HashSet<>();
        for (long i = 0; i < map.size(); ++i) names.add(map.name(i));
        equal(tensors.keySet(), names, "names");
        equal("steps", map.name(map.find("steps")), "find");
        equal(-1, map.find("absent"), "find of an absent name");
        Map<String, String> loadedMetadata = map.metadata();
        if (compression == Compression.COMPRESSION_ZSTD) {
          isTrue(loadedMetadata.remove("tessera.compression") != null, "a compressed file says so");
        }
        equal(metadata, loadedMetadata, "metadata");
        equal("digits-mlp", map.metadataGet("model"), "metadataGet");
        equal(null, map.metadataGet("absent"), "metadataGet of an absent key");
        Map<String, Tensor> loaded = map.tensors();
        try (Tensor w = loaded.get("weight"); Tensor s = loaded.get("steps");
            Tensor z = loaded.get("zeros"); Tensor wt = loaded.get("weight_t")) {
          equal(DType.FLOAT32, w.dtype(), "weight dtype");
          equal(new long[] {2, 3}, w.sizes(), "weight sizes");
          close(weight.toFloat64(), w.toFloat64(), 0, "weight values");
          equal(DType.INT64, s.dtype(), "steps dtype");
          equal(new long[] {7, 8, 9}, s.toInt64(), "steps values");
          equal(4096, z.numel(), "zeros numel");
          equal(new long[] {3, 2}, wt.sizes(), "transposed sizes");
          close(transposed.toFloat64(), wt.toFloat64(), 0, "transposed values");
        }
      }
      // The map's own tensors survive the map.
      Tensor survivor;
      try (TensorMap map = Tessera.load(path.toString())) {
        survivor = map.get("steps");
      }
      try (Tensor s = survivor) {
        equal(new long[] {7, 8, 9}, s.toInt64(), "tensor outlives its map");
      }
    }
    if (compression == Compression.COMPRESSION_ZSTD) {
      long zstd = Files.size(path);
      long raw = Files.size(dir.resolve("roundtrip-" + Compression.COMPRESSION_NONE + ".tsr"));
      isTrue(zstd < raw / 4, "zstd file (" + zstd + " bytes) much smaller than raw (" + raw + ")");
    }
  }

  static void badFiles() throws IOException {
    String missing = dir.resolve("does-not-exist.tsr").toString();
    isTrue(throwsStatus(Status.ERR_IO, () -> Tessera.load(missing), "missing file").getMessage().contains(missing),
        "the message names the file");
    Path garbage = dir.resolve("garbage.tsr");
    Files.write(garbage, "definitely not a tessera file".getBytes());
    throwsStatus(Status.ERR_CORRUPT_FILE, () -> Tessera.load(garbage.toString()), "garbage file");
    String small = writeSmallFile();
    throwsStatus(Status.ERR_CORRUPT_FILE, () -> Tessera.load(small, 4), "file above max_bytes");
    try (TensorMap ok = Tessera.load(small, 1 << 20)) {
      equal(1, ok.size(), "file within max_bytes loads");
    }
    try (Tensor t = Tessera.zeros(2)) {
      throwsStatus(Status.ERR_IO, () -> Tessera.save(dir.resolve("no/such/dir/x.tsr").toString(), Map.of("t", t)),
          "save into a missing directory");
    }
  }
}
