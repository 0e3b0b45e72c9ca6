// Reads goldens.txt, written by make_goldens.py from PyTorch 1.13.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Tessera.Tests {

sealed class LayoutGolden {
  public long[] Sizes, Strides;
  public bool Contiguous, ChannelsLast;
  public long StorageOffset;
}

static class Goldens {
  public static readonly Dictionary<string, LayoutGolden> Layouts = new Dictionary<string, LayoutGolden>();
  static readonly Dictionary<string, double[]> values = new Dictionary<string, double[]>();
  static readonly Dictionary<string, string> messages = new Dictionary<string, string>();

  public static double[] Values(string name) => values[name];
  public static string Message(string name) => messages[name];

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
