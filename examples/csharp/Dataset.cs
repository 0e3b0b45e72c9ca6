// Reads examples/data/digits.csv.gz (UCI handwritten digits: 1,797 rows of
// 64 grey levels 0..16 and a label 0..9, no header) with .NET's own gzip,
// checking every field so that a damaged file is reported, not trained on.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.IO.Compression;

namespace Tessera.Examples {

sealed class Dataset {
  public const int Side = 8, Pixels = Side * Side, Classes = 10;

  public readonly int Count;
  public readonly float[] Images;   // Count x 64, grey level / 16
  public readonly long[] Labels;

  Dataset(List<float> images, List<long> labels) {
    Count = labels.Count;
    Images = images.ToArray();
    Labels = labels.ToArray();
  }

  public static Dataset Load(string path) {
    var images = new List<float>();
    var labels = new List<long>();
    using (var file = File.OpenRead(path))
    using (var gzip = new GZipStream(file, CompressionMode.Decompress))
    using (var reader = new StreamReader(gzip)) {
      string line;
      int row = 0;
      while ((line = reader.ReadLine()) != null) {
        ++row;
        string[] fields = line.Split(',');
        if (fields.Length != Pixels + 1)
          throw new InvalidDataException($"{path}:{row}: expected 65 fields, got {fields.Length}");
        for (int i = 0; i <= Pixels; ++i) {
          int value;
          int max = i == Pixels ? Classes - 1 : 16;
          if (!int.TryParse(fields[i], NumberStyles.None, CultureInfo.InvariantCulture, out value) || value > max)
            throw new InvalidDataException($"{path}:{row}: field {i + 1} is '{fields[i]}', expected 0..{max}");
          if (i == Pixels) labels.Add(value);
          else images.Add(value / 16.0f);
        }
      }
    }
    if (labels.Count == 0) throw new InvalidDataException($"{path}: no rows");
    return new Dataset(images, labels);
  }
}

}
