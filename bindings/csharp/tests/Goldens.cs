// Reads goldens.txt, written by make_goldens.py from PyTorch 1.13.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Tessera.Tests {

sealed class TensorGolden {
  public string Dtype;
  public long[] Sizes;
  public double[] Values;
}

sealed class LayoutGolden {
  public long[] Sizes, Strides;
  public bool Contiguous, ChannelsLast;
  public long StorageOffset;
}

static class Goldens {
  public static readonly Dictionary<string, LayoutGolden> Layouts = new Dictionary<string, LayoutGolden>();
  static readonly Dictionary<string, double[]> values = new Dictionary<string, double[]>();
  static readonly Dictionary<string, string> messages = new Dictionary<string, string>();
  static readonly Dictionary<string, TensorGolden> tensors = new Dictionary<string, TensorGolden>();

  public static double[] Values(string name) => values[name];
  public static string Message(string name) => messages[name];
  public static TensorGolden TensorCase(string name) => tensors[name];

  /// Tensor NAME of make_goldens.py's nn_cases() (an input, or torch's result)
  /// as a tessera tensor of its dtype, a leaf requiring grad when asked.
  public static Tensor Tensor(string name, bool requiresGrad = false) {
    TensorGolden g = tensors[name];
    var t = global::Tessera.Tensor.FromFloat64(g.Values, g.Sizes, DTypeOf(g.Dtype));
    if (requiresGrad) t.RequiresGrad = true;
    return t;
  }

  public static DType DTypeOf(string torchName) {
    switch (torchName) {
      case "float32": return DType.Float32;
      case "float64": return DType.Float64;
      case "int64": return DType.Int64;
      case "bool": return DType.Bool;
      default: throw new InvalidDataException("goldens: unexpected dtype " + torchName);
    }
  }

  public static void Load(string path) {
    foreach (string line in File.ReadAllLines(path)) {
      if (line.Trim().Length == 0) continue;
      string[] fields = line.Split(new[] {" | "}, StringSplitOptions.None);
      string[] head = fields[0].Split(' ');
      string kind = head[0], name = head[1];
      switch (kind) {
        case "layout":
          Layouts[name] = new LayoutGolden {
            Sizes = Longs(fields[1]), Strides = Longs(fields[2]),
            Contiguous = fields[3] == "1", ChannelsLast = fields[4] == "1",
            StorageOffset = long.Parse(fields[5]),
          };
          break;
        case "value":
          values[name] = fields[1].Split(' ').Select(s => double.Parse(s, System.Globalization.CultureInfo.InvariantCulture)).ToArray();
          break;
        case "tensor":
          tensors[name] = new TensorGolden {
            Dtype = fields[1], Sizes = Longs(fields[2]),
            Values = fields[3].Split(' ').Select(v => double.Parse(v, System.Globalization.CultureInfo.InvariantCulture)).ToArray(),
          };
          break;
        case "message":
          messages[name] = fields[1];
          break;
        default:
          throw new InvalidDataException($"{path}: unknown line kind '{kind}'");
      }
    }
  }

  static long[] Longs(string field) =>
      field.Trim().Length == 0 ? new long[0] : field.Split(' ').Select(long.Parse).ToArray();
}

}
