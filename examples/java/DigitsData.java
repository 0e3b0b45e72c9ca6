package org.tessera.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The UCI handwritten digits (examples/data/digits.csv.gz): 8x8 grey images, one per CSV row of 64
 * grey levels 0..16 and a label 0..9. Read with java.util.zip, every field checked, so a damaged
 * file is reported instead of trained on.
 */
final class DigitsData {
  static final int SIDE = 8;
  static final int PIXELS = SIDE * SIDE;
  static final int CLASSES = 10;

  /** Row i's pixels, scaled to [0, 1], are pixels[i*64 .. i*64+63]. */
  final float[] pixels;

  final long[] labels;

  private DigitsData(float[] pixels, long[] labels) {
    this.pixels = pixels;
    this.labels = labels;
  }

  int size() {
    return labels.length;
  }

  static DigitsData load(Path path) throws IOException {
    FloatList pixels = new FloatList();
    LongList labels = new LongList();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(path)), StandardCharsets.US_ASCII))) {
      String line;
      int row = 0;
      while ((line = in.readLine()) != null) {
        ++row;
        String[] fields = line.split(",", -1);
        if (fields.length != PIXELS + 1) throw bad(path, row, "expected 65 fields, got " + fields.length);
        for (int i = 0; i < PIXELS; ++i) {
          int v = parse(fields[i], 0, 16, path, row);
          pixels.add(v / 16.0f);
        }
        labels.add(parse(fields[PIXELS], 0, CLASSES - 1, path, row));
      }
    }
    if (labels.size == 0) throw new IOException(path + ": no rows");
    return new DigitsData(pixels.toArray(), labels.toArray());
  }

  private static int parse(String field, int min, int max, Path path, int row) throws IOException {
    try {
      int v = Integer.parseInt(field.trim());
      if (v < min || v > max) throw bad(path, row, v + " outside " + min + ".." + max);
      return v;
    } catch (NumberFormatException e) {
      throw bad(path, row, "not an integer: '" + field + "'");
    }
  }

  private static IOException bad(Path path, int row, String what) {
    return new IOException(path + ":" + row + ": " + what);
  }

  /** Growable primitive arrays (no boxing for 115,000 pixels). */
  private static final class FloatList {
    float[] a = new float[1 << 16];
    int size;

    void add(float v) {
      if (size == a.length) a = java.util.Arrays.copyOf(a, 2 * size);
      a[size++] = v;
    }

    float[] toArray() {
      return java.util.Arrays.copyOf(a, size);
    }
  }

  private static final class LongList {
    long[] a = new long[1 << 11];
    int size;

    void add(long v) {
      if (size == a.length) a = java.util.Arrays.copyOf(a, 2 * size);
      a[size++] = v;
    }

    long[] toArray() {
      return java.util.Arrays.copyOf(a, size);
    }
  }
}
