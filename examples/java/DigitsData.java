package org.tessera.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    List<int[]> rows = new ArrayList<>(); // each row's 65 checked values
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(path)), StandardCharsets.US_ASCII))) {
      String line;
      while ((line = in.readLine()) != null) {
        int row = rows.size() + 1;
        String[] fields = line.split(",", -1);
        if (fields.length != PIXELS + 1) throw bad(path, row, "expected 65 fields, got " + fields.length);
        int[] values = new int[PIXELS + 1];
        for (int i = 0; i < PIXELS; ++i) values[i] = parse(fields[i], 0, 16, path, row);
        values[PIXELS] = parse(fields[PIXELS], 0, CLASSES - 1, path, row);
        rows.add(values);
      }
    }
    if (rows.isEmpty()) throw new IOException(path + ": no rows");
    float[] pixels = new float[rows.size() * PIXELS];
    long[] labels = new long[rows.size()];
    for (int r = 0; r < rows.size(); ++r) {
      int[] values = rows.get(r);
      for (int i = 0; i < PIXELS; ++i) pixels[r * PIXELS + i] = values[i] / 16.0f;
      labels[r] = values[PIXELS];
    }
    return new DigitsData(pixels, labels);
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
}
