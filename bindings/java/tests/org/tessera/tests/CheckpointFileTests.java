package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.tessera.Compression;
import org.tessera.DType;
import org.tessera.LoadOptions;
import org.tessera.SaveOptions;
import org.tessera.Saver;
import org.tessera.Status;
import org.tessera.Storage;
import org.tessera.Tensor;
import org.tessera.TensorFile;
import org.tessera.TensorMap;
import org.tessera.Tessera;
import org.tessera.TesseraException;

/** Saver (AutoCloseable), progress listeners, shards, views, zstd-planes, TensorFile. */
final class CheckpointFileTests {
  private static Path root;

  private CheckpointFileTests() {}

  static void register(AllTests.Registry r, Path tmp) {
    root = tmp;
    r.add("saver: add, commit, load in the order added", CheckpointFileTests::saverRoundTrip);
    r.add("saver: close without commit abandons, old file kept", CheckpointFileTests::saverAbandon);
    r.add("saver: commit twice, add after commit, closed, bad path", CheckpointFileTests::saverErrors);
    r.add("progress: save and load report, false cancels", CheckpointFileTests::progressCancel);
    r.add("progress: a listener's exception cancels, is the cause", CheckpointFileTests::progressThrows);
    r.add("save: shards through the index, views, zstd-planes, dtypes", CheckpointFileTests::shardsViewsDtypes);
    r.add("TensorFile: lazy names, shapes, read-only mapped tensors", CheckpointFileTests::tensorFile);
    r.add("TensorFile: getSlice rows equal the whole tensor's, plain and zstd-planes", CheckpointFileTests::tensorFileSlice);
  }

  /** A fresh empty directory per case (also when the test directory is reused), so listings are exact. */
  private static Path dir() throws IOException {
    return Files.createTempDirectory(Files.createDirectories(root), "ckpt-");
  }

  private static List<String> listing(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private static byte[] writeOld(Path path) throws IOException {
    try (Tensor t = Tessera.full(new long[] {1}, 7.0)) {
      Tessera.save(path.toString(), Map.of("old", t));
    }
    return Files.readAllBytes(path);
  }

  static void saverRoundTrip() throws IOException {
    Path d = dir();
    Path path = d.resolve("s.safetensors");
    try (Tensor w = Tessera.tensor(new float[] {0, 1, 2, 3, 4, 5}, 2, 3); Tensor wt = w.t();
        Saver saver = Saver.open(path.toString(), new SaveOptions()
            .compression(Compression.COMPRESSION_ZSTD_PLANES).metadata("step", "4"))) {
      saver.add("wt", wt);
      saver.add("w", w);
      isTrue(!Files.exists(path), "no file before commit");
      saver.commit();
    }
    equal(List.of("s.safetensors"), listing(d), "no temporary left");
    try (TensorMap map = Tessera.load(path.toString())) {
      equal("wt", map.name(0), "order added");
      equal("zstd-planes", map.metadataGet("tessera.compression"), "compression");
      equal("4", map.metadataGet("step"), "metadata");
      try (Tensor wt = map.get("wt")) {
        close(new double[] {0, 3, 1, 4, 2, 5}, wt.toFloat64(), 0, "transposed contents");
      }
    }
  }

  static void saverAbandon() throws IOException {
    Path d = dir();
    Path path = d.resolve("s.safetensors");
    byte[] old = writeOld(path);
    try (Saver saver = Saver.open(path.toString()); Tensor t = Tessera.ones(3)) {
      saver.add("a", t);
    } // no commit
    isTrue(Arrays.equals(old, Files.readAllBytes(path)), "old file untouched");
    equal(List.of("s.safetensors"), listing(d), "no temporary left");
  }

  static void saverErrors() throws IOException {
    Path d = dir();
    String path = d.resolve("s.safetensors").toString();
    Saver saver = Saver.open(path);
    try (Tensor t = Tessera.ones(2)) {
      saver.add("a", t);
      isTrue(throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> saver.add("a", t), "duplicate name")
          .getMessage().contains("duplicate tensor name \"a\""), "the message names the tensor");
      saver.commit();
      isTrue(throwsStatus(Status.ERR_INVALID_ARGUMENT, saver::commit, "commit twice")
          .getMessage().contains("already committed"), "commit twice says so");
      isTrue(throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> saver.add("b", t), "add after commit")
          .getMessage().contains("already committed"), "add after commit says so");
      saver.close();
      saver.close(); // idempotent
      isTrue(saver.isClosed(), "closed");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> saver.add("b", t), "add on a closed saver");
    }
    String missing = d.resolve("missing/x.safetensors").toString();
    isTrue(throwsStatus(Status.ERR_IO, () -> Saver.open(missing), "bad directory")
        .getMessage().contains("missing"), "the message names the path");
    throwsStatus(Status.ERR_INVALID_ARGUMENT,
        () -> Saver.open(d.resolve("x.safetensors").toString(), new SaveOptions().metadata("tessera.x", "1")),
        "reserved metadata key");
    isTrue(throwsStatus(Status.ERR_UNSUPPORTED,
        () -> Saver.open(d.resolve("x.safetensors").toString(), new SaveOptions().maxShardSize(10)),
        "a sharded saver").getMessage().contains("max_shard_size must be 0"), "says why");
    equal(List.of("s.safetensors"), listing(d), "nothing else written");
  }

  static void progressCancel() throws IOException {
    Path d = dir();
    Path path = d.resolve("p.safetensors");
    List<long[]> calls = new ArrayList<>();
    try (Tensor a = Tessera.zeros(100); Tensor b = Tessera.zeros(new long[] {50}, DType.FLOAT64)) {
      Map<String, Tensor> tensors = new LinkedHashMap<>();
      tensors.put("a", a);
      tensors.put("b", b);
      Tessera.save(path.toString(), tensors, new SaveOptions().progress((done, total) -> {
        calls.add(new long[] {done, total});
        return true;
      }));
      equal(new long[] {0, 800}, calls.get(0), "first call");
      equal(new long[] {800, 800}, calls.get(calls.size() - 1), "last call");
      calls.clear();
      try (TensorMap m = Tessera.load(path.toString(), new LoadOptions().progress((done, total) -> {
        calls.add(new long[] {done, total});
        return true;
      }))) {
        equal(2, m.size(), "loaded");
      }
      equal(new long[] {800, 800}, calls.get(calls.size() - 1), "load's last call");
      byte[] before = Files.readAllBytes(path);
      TesseraException e = throwsStatus(Status.ERR_CANCELLED,
          () -> Tessera.save(path.toString(), tensors, new SaveOptions().progress((done, total) -> done == 0)),
          "save cancelled by false");
      isTrue(e.getMessage().contains("cancelled by the progress callback"), "message: " + e.getMessage());
      isTrue(e.getCause() == null, "no cause when the listener returned false");
      isTrue(Arrays.equals(before, Files.readAllBytes(path)), "old file untouched");
      throwsStatus(Status.ERR_CANCELLED,
          () -> Tessera.load(path.toString(), new LoadOptions().progress((done, total) -> false)),
          "load cancelled by false");
      throwsStatus(Status.ERR_CANCELLED,
          () -> Saver.open(d.resolve("n.safetensors").toString(), new SaveOptions().progress((x, y) -> false)),
          "saver cancelled at open");
    }
    equal(List.of("p.safetensors"), listing(d), "no temporary left");
  }

  static void progressThrows() throws IOException {
    Path d = dir();
    Path path = d.resolve("p.safetensors");
    byte[] before = writeOld(path);
    try (Tensor a = Tessera.zeros(10)) {
      TesseraException e = throwsStatus(Status.ERR_CANCELLED,
          () -> Tessera.save(path.toString(), Map.of("a", a), new SaveOptions()
              .compression(Compression.COMPRESSION_ZSTD)
              .progress((done, total) -> { throw new IllegalStateException("from the listener"); })),
          "save cancelled by an exception");
      isTrue(e.getCause() instanceof IllegalStateException, "the cause is the listener's exception");
      isTrue(Arrays.equals(before, Files.readAllBytes(path)), "old file untouched");
      e = throwsStatus(Status.ERR_CANCELLED,
          () -> Tessera.load(path.toString(), new LoadOptions().progress((x, y) -> { throw new IOException("io"); })),
          "load cancelled by a checked exception");
      isTrue(e.getCause() instanceof IOException, "checked exceptions too");
      try (Saver saver = Saver.open(path.toString(), new SaveOptions().progress((done, total) -> {
        if (done > 0) throw new ArithmeticException("enough");
        return true;
      }))) {
        e = throwsStatus(Status.ERR_CANCELLED, () -> saver.add("a", a), "saver add cancelled");
        isTrue(e.getCause() instanceof ArithmeticException, "saver: the cause");
        isTrue(throwsStatus(Status.ERR_INVALID_ARGUMENT, saver::commit, "commit after cancel")
            .getMessage().contains("abandoned"), "abandoned");
      }
    }
    isTrue(Arrays.equals(before, Files.readAllBytes(path)), "old file still untouched");
    equal(List.of("p.safetensors"), listing(d), "no temporary left");
  }

  static void shardsViewsDtypes() throws IOException {
    Path d = dir();
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    for (int i = 0; i < 5; ++i) tensors.put("layer" + i, Tessera.full(new long[] {64}, i));
    try {
      String model = d.resolve("model.safetensors").toString();
      Tessera.save(model, tensors, new SaveOptions().maxShardSize(600));
      List<String> files = listing(d);
      isTrue(files.contains("model.safetensors.index.json"), "index written: " + files);
      equal(3, files.stream().filter(f -> f.startsWith("model-")).count(), "three shards");
      try (TensorMap m = Tessera.load(d.resolve("model.safetensors.index.json").toString(), (LoadOptions) null)) {
        equal(5, m.size(), "every tensor through the index");
        try (Tensor t = m.get("layer3")) {
          close(3.0, t.toFloat64()[63], 0, "values");
        }
      }
      throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> Tessera.save(d.resolve("m.bin").toString(), tensors, new SaveOptions().maxShardSize(600)),
          "sharded save to a path not ending in .safetensors");
    } finally {
      for (Tensor t : tensors.values()) t.close();
    }
    try (Tensor w = Tessera.tensor(new float[] {0, 1, 2, 3, 4, 5}, 2, 3); Tensor wt = w.t()) {
      Map<String, Tensor> pair = new LinkedHashMap<>();
      pair.put("w", w);
      pair.put("wt", wt);
      String views = d.resolve("v.safetensors").toString();
      Tessera.save(views, pair, (SaveOptions) null);
      try (TensorMap m = Tessera.load(views, (LoadOptions) null); Tensor lw = m.get("w");
          Tensor lwt = m.get("wt"); Storage s1 = lw.storage(); Storage s2 = lwt.storage()) {
        equal(new long[] {1, 3}, lwt.strides(), "restored as a view");
        equal(s1.dataPtr(), s2.dataPtr(), "one storage");
      }
      String flat = d.resolve("f.safetensors").toString();
      Tessera.save(flat, pair, new SaveOptions().flattenViews(true));
      try (TensorMap m = Tessera.load(flat, (LoadOptions) null); Tensor lwt = m.get("wt")) {
        equal(new long[] {2, 1}, lwt.strides(), "flattened: contiguous");
      }
    }
    DType[] dtypes = {DType.UINT16, DType.UINT32, DType.UINT64, DType.FLOAT8_E4M3FN, DType.FLOAT8_E5M2};
    for (Compression c : new Compression[] {Compression.COMPRESSION_NONE, Compression.COMPRESSION_ZSTD,
        Compression.COMPRESSION_ZSTD_PLANES}) {
      Map<String, Tensor> typed = new LinkedHashMap<>();
      try (Tensor base = Tessera.arange(5)) {
        for (DType dt : dtypes) typed.put(dt.toString(), base.to(dt));
      }
      String path = d.resolve("d-" + c + ".safetensors").toString();
      try {
        Tessera.save(path, typed, new SaveOptions().compression(c).skipChecksums(true));
        try (TensorMap m = Tessera.load(path, new LoadOptions().skipChecksums(true))) {
          for (DType dt : dtypes) {
            try (Tensor t = m.get(dt.toString())) {
              equal(dt, t.dtype(), c + " dtype " + dt);
              close(new double[] {0, 1, 2, 3, 4}, t.toFloat64(), 0, c + " values " + dt);
            }
          }
        }
      } finally {
        for (Tensor t : typed.values()) t.close();
      }
    }
  }

  static void tensorFile() throws IOException {
    Path d = dir();
    Path path = d.resolve("o.safetensors");
    try (Tensor w = Tessera.tensor(new float[] {0, 1, 2, 3, 4, 5}, 2, 3);
        Tensor n = Tessera.arange(2).to(DType.UINT16)) {
      Map<String, Tensor> tensors = new LinkedHashMap<>();
      tensors.put("w", w);
      tensors.put("n", n);
      Tessera.save(path.toString(), tensors, new SaveOptions().metadata("k", "v"));
    }
    Tensor mapped;
    try (TensorFile f = Tessera.openFile(path.toString())) {
      equal(2, f.size(), "count");
      isTrue(f.names().contains("w") && f.names().contains("n"), "names");
      equal(new long[] {2, 3}, f.shape("w"), "shape without reading");
      equal(DType.UINT16, f.dtype("n"), "dtype without reading");
      equal(Map.of("k", "v"), f.metadata(), "metadata");
      isTrue(throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> f.get("x"), "absent name")
          .getMessage().contains("no tensor named"), "says so");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> f.shape("x"), "shape of an absent name");
      mapped = f.get("w");
    }
    try (Tensor w = mapped) {
      close(new double[] {0, 1, 2, 3, 4, 5}, w.toFloat64(), 0, "the mapping outlives the file");
      isTrue(throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> w.fill_(1.0), "write to a mapped tensor")
          .getMessage().contains("read-only"), "read-only");
      try (Tensor c = w.clone()) {
        c.fill_(1.0);
        close(new double[] {1, 1, 1, 1, 1, 1}, c.toFloat64(), 0, "clone is writable");
      }
    }
    String missing = d.resolve("missing.safetensors").toString();
    isTrue(throwsStatus(Status.ERR_IO, () -> TensorFile.open(missing), "missing file")
        .getMessage().contains("missing.safetensors"), "names the file");
    Path junk = d.resolve("junk.safetensors");
    Files.write(junk, new byte[] {5, 0});
    throwsStatus(Status.ERR_CORRUPT_FILE, () -> TensorFile.open(junk.toString()), "junk");
    // A flipped bit in the data: open reads the header only; get verifies.
    try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
      long at = raf.length() - 3;
      raf.seek(at);
      int b = raf.read();
      raf.seek(at);
      raf.write(b ^ 1);
    }
    try (TensorFile f = TensorFile.open(path.toString())) {
      String last = f.name(f.size() - 1);
      isTrue(throwsStatus(Status.ERR_CORRUPT_FILE, () -> f.get(last), "checksum")
          .getMessage().contains("checksum"), "says checksum");
    }
    try (TensorFile f = TensorFile.open(path.toString(), new LoadOptions().skipChecksums(true));
        Tensor t = f.get(f.name(f.size() - 1))) {
      isTrue(t.numel() > 0, "skipChecksums reads it");
    }
  }

  static void tensorFileSlice() throws IOException {
    Path d = dir();
    // 600 x 700 float32 rows of 2,800 bytes: two 1 MiB zstd-planes chunks, row 374 across both.
    float[] values = new float[600 * 700];
    for (int i = 0; i < values.length; ++i) values[i] = i;
    for (Compression c : new Compression[] {Compression.COMPRESSION_NONE, Compression.COMPRESSION_ZSTD_PLANES}) {
      String path = d.resolve("slice-" + c + ".safetensors").toString();
      try (Tensor w = Tessera.tensor(values, 600, 700)) {
        Tessera.save(path, Map.of("w", w), new SaveOptions().compression(c));
      }
      try (TensorFile f = TensorFile.open(path); Tensor full = f.get("w")) {
        long[][] ranges = {{0, 600}, {0, 1}, {370, 380}, {374, 375}, {599, 600}, {5, 5}};
        for (long[] r : ranges) {
          String what = c + " rows [" + r[0] + ", " + r[1] + ")";
          try (Tensor byName = f.getSlice("w", r[0], r[1]); Tensor byIndex = f.getSlice(f.find("w"), r[0], r[1]);
              Tensor expected = full.narrow(0, r[0], r[1] - r[0])) {
            equal(new long[] {r[1] - r[0], 700}, byName.sizes(), what + " sizes");
            equal(DType.FLOAT32, byName.dtype(), what + " dtype");
            close(expected.toFloat64(), byName.toFloat64(), 0, what + " by name");
            close(expected.toFloat64(), byIndex.toFloat64(), 0, what + " by index");
          }
        }
        try (Tensor row = f.getSlice("w", 1, 2)) {
          equal(1399.0, row.toFloat64()[699], c + " the right row, not just an equal one");
        }
        TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> f.getSlice("w", 5, 4), c + " start > stop");
        isTrue(e.getMessage().contains("rows [5, 4) of tensor \"w\": start is after stop"), "says so: " + e.getMessage());
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> f.getSlice("x", 0, 1), c + " absent name");
        throwsStatus(Status.ERR_INDEX_OUT_OF_RANGE, () -> f.getSlice(1, 0, 1), c + " index out of range");
        try (Tensor again = f.getSlice("w", 0, 2); Tensor expected = full.narrow(0, 0, 2)) {
          close(expected.toFloat64(), again.toFloat64(), 0, c + " still usable after the errors");
        }
      }
    }
  }
}
