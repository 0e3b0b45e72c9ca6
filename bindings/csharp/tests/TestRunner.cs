// A small self-contained test runner (NUnit is not among the packages a
// tessera build installs): runs every public static method marked [Test] in
// namespace Tessera.Tests, prints one line per test, exits 1 if any failed.
//   mono TesseraTests.exe GOLDENS.txt [NAME-SUBSTRING]
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;

namespace Tessera.Tests {

[AttributeUsage(AttributeTargets.Method)]
sealed class TestAttribute : Attribute {}

static class TestRunner {
  static int Main(string[] args) {
    // One rank of DdpTests' two-process run: --ddp-rank ADDRESS RANK.
    if (args.Length == 3 && args[0] == "--ddp-rank") return DdpWorker.Run(args[1], int.Parse(args[2]));
    if (args.Length < 1) {
      Console.Error.WriteLine("usage: mono TesseraTests.exe GOLDENS.txt [NAME-SUBSTRING]");
      return 2;
    }
    Goldens.Load(args[0]);
    string filter = args.Length > 1 ? args[1] : "";

    var tests = typeof(TestRunner).Assembly.GetTypes()
        .Where(t => t.Namespace == "Tessera.Tests")
        .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Static))
        .Where(m => m.GetCustomAttribute<TestAttribute>() != null)
        .OrderBy(m => m.DeclaringType.Name).ThenBy(m => m.MetadataToken)
        .Where(m => (m.DeclaringType.Name + "." + m.Name).Contains(filter))
        .ToList();
    // The check that everything was freed runs last, after every other test
    // has dropped its tensors.
    tests = tests.OrderBy(m => m.Name == nameof(LifetimeTests.ZzEverythingFreedAtTheEnd)).ToList();

    var failed = new List<string>();
    foreach (MethodInfo test in tests) {
      string name = test.DeclaringType.Name + "." + test.Name;
      var clock = Stopwatch.StartNew();
      try {
        test.Invoke(null, null);
        Console.WriteLine($"ok    {name} ({clock.ElapsedMilliseconds} ms)");
      } catch (TargetInvocationException e) {
        failed.Add(name);
        Console.WriteLine($"FAIL  {name}: {e.InnerException}");
      }
    }
    Console.WriteLine($"{tests.Count - failed.Count} passed, {failed.Count} failed");
    if (tests.Count == 0) {
      Console.WriteLine("no test matched");
      return 1;
    }
    return failed.Count == 0 ? 0 : 1;
  }
}

sealed class AssertionFailed : Exception {
  public AssertionFailed(string message) : base(message) {}
}

static class Check {
  public static void True(bool condition, string what) {
    if (!condition) throw new AssertionFailed(what);
  }

  public static void Equal<T>(T expected, T actual, string what) {
    if (!EqualityComparer<T>.Default.Equals(expected, actual))
      throw new AssertionFailed($"{what}: expected {expected}, got {actual}");
  }

  public static void Equal(long[] expected, long[] actual, string what) {
    if (actual == null || !expected.SequenceEqual(actual))
      throw new AssertionFailed($"{what}: expected [{Join(expected)}], got [{Join(actual)}]");
  }

  public static void Close(double[] expected, double[] actual, double tolerance, string what) {
    bool close = actual != null && expected.Length == actual.Length &&
                 expected.Zip(actual, (e, a) => Math.Abs(e - a) <= tolerance * (1 + Math.Abs(e))).All(b => b);
    if (!close) throw new AssertionFailed($"{what}: expected [{Join(expected)}], got [{Join(actual)}]");
  }

  /// Runs action, which must throw TesseraException with status; returns it.
  public static TesseraException Throws(Status status, Action action, string what) {
    try {
      action();
    } catch (TesseraException e) {
      if (e.Status != status)
        throw new AssertionFailed($"{what}: expected status {status}, got {e.Status} ({e.Message})");
      if (string.IsNullOrEmpty(e.Message)) throw new AssertionFailed($"{what}: empty message");
      return e;
    }
    throw new AssertionFailed($"{what}: expected TesseraException({status}), nothing thrown");
  }

  /// Lets the finalizer release every proxy that is garbage now.
  public static void DrainFinalizers() {
    for (int i = 0; i < 2; ++i) {
      GC.Collect();
      GC.WaitForPendingFinalizers();
    }
  }

  static string Join<T>(IEnumerable<T> values) => values == null ? "null" : string.Join(", ", values);
}

}
