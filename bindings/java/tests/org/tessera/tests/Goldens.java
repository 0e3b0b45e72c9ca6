package org.tessera.tests;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.tessera.DType;
import org.tessera.MemoryFormat;
import org.tessera.Tensor;

/**
 * goldens.properties, written by make_goldens.py from PyTorch 1.13, and the replay of its op lists
 * on tessera (the same ops make_goldens.py replays on torch).
 */
final class Goldens {
  private final Properties p;

  private Goldens(Properties p) {
    this.p = p;
  }

  static Goldens load(Path path) throws IOException {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      p.load(in);
    }
    return new Goldens(p);
  }

  String string(String key) {
    String v = p.getProperty(key);
    if (v == null) throw new AssertionError("goldens: no key " + key);
    return v.trim();
  }

  long[] longs(String key) {
    String v = string(key);
    return v.isEmpty() ? new long[0] : Arrays.stream(v.split("\\s+")).mapToLong(Long::parseLong).toArray();
  }

  double[] doubles(String key) {
    return Arrays.stream(string(key).split("\\s+")).mapToDouble(Double::parseDouble).toArray();
  }

  boolean bool(String key) {
    return Boolean.parseBoolean(string(key));
  }

  /** Case names under prefix ("layout" gives "base", "transpose", ...), in file order is not kept: sorted. */
  List<String> cases(String prefix) {
    List<String> out = new ArrayList<>();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith(prefix + ".") && key.endsWith(".ops")) {
        out.add(key.substring(prefix.length() + 1, key.length() - ".ops".length()));
      }
    }
    out.sort(null);
    return out;
  }

  /** Tensor nn.NAME of make_goldens.py's nn_cases() (an input, or torch's result) as a tessera tensor. */
  Tensor nnTensor(String name) {
    return Tensor.fromFloat64(doubles("nn." + name + ".values"), longs("nn." + name + ".sizes"),
        nnDtype(name));
  }

  /** The same with requires_grad set (a leaf for the gradient checks). */
  Tensor nnLeaf(String name) {
    Tensor t = nnTensor(name);
    t.setRequiresGrad(true);
    return t;
  }

  DType nnDtype(String name) {
    return DType.valueOf(string("nn." + name + ".dtype").toUpperCase(java.util.Locale.ROOT));
  }

  /** arange(numel) float32 viewed as sizes: the base every layout case starts from. */
  static Tensor base(long[] sizes) {
    long numel = 1;
    for (long s : sizes) numel *= s;
    try (Tensor flat = Tensor.arange(0, numel, 1, DType.FLOAT32)) {
      return flat.view(sizes);
    }
  }

  /**
   * Applies ops (";"-separated, list arguments ","-separated) to t. Intermediate results are
   * closed as soon as the next exists, as a careful user would; t itself stays open.
   */
  static Tensor replay(Tensor t, String ops) {
    Tensor current = t.view(t.sizes()); // a new handle the loop may close
    for (String op : ops.split(";")) {
      op = op.trim();
      if (op.isEmpty()) continue;
      String[] a = op.split("\\s+");
      Tensor next = apply(current, a);
      current.close();
      current = next;
    }
    return current;
  }

  private static Tensor apply(Tensor t, String[] a) {
    switch (a[0]) {
      case "transpose": return t.transpose(l(a[1]), l(a[2]));
      case "permute": return t.permute(ls(a[1]));
      case "select": return t.select(l(a[1]), l(a[2]));
      case "narrow": return t.narrow(l(a[1]), l(a[2]), l(a[3]));
      case "slice": return t.slice(l(a[1]), l(a[2]), l(a[3]), l(a[4]));
      case "unsqueeze": return t.unsqueeze(l(a[1]));
      case "expand": return t.expand(ls(a[1]));
      case "squeeze": return t.squeeze();
      case "contiguous": return t.contiguous(format(a[1]));
      case "clone": return t.clone(format(a[1]));
      case "as_strided": return t.asStrided(ls(a[1]), ls(a[2]), l(a[3]));
      case "unfold": return t.unfold(l(a[1]), l(a[2]), l(a[3]));
      case "diagonal": return t.diagonal(l(a[1]), l(a[2]), l(a[3]));
      case "flatten": return t.flatten(l(a[1]), l(a[2]));
      case "unflatten": return t.unflatten(l(a[1]), ls(a[2]));
      case "movedim": return t.movedim(ls(a[1]), ls(a[2]));
      case "t": return t.t();
      case "reshape": return t.reshape(ls(a[1]));
      case "view": return t.view(ls(a[1]));
      default: throw new AssertionError("goldens: unknown op " + a[0]);
    }
  }

  private static long l(String s) {
    return Long.parseLong(s);
  }

  private static long[] ls(String s) {
    return Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
  }

  private static MemoryFormat format(String name) {
    switch (name) {
      case "contiguous": return MemoryFormat.CONTIGUOUS_FORMAT;
      case "channels_last": return MemoryFormat.CHANNELS_LAST;
      case "preserve": return MemoryFormat.PRESERVE_FORMAT;
      default: throw new AssertionError("goldens: unknown memory format " + name);
    }
  }
}
