// A failing call throws TesseraException with the library's status and
// message, changes nothing, and leaves the next call unaffected.
using System;
using System.IO;

namespace Tessera.Tests {

public static class ErrorTests {
  [Test]
  public static void ViewNeedingACopyIsNotViewable() {
    using (var a = Tensor.Arange(0, 120, 1, DType.Float32))
    using (var x = a.View(new long[] {2, 3, 4, 5}))
    using (var t = x.Transpose(1, 2)) {
      var e = Check.Throws(Status.NotViewable, () => t.View(new long[] {120}), "view of a transpose");
      // torch's message, with the sizes and strides added before its advice.
      string torch = Goldens.Message("view_of_transpose");
      int advice = torch.IndexOf(". Use .reshape");
      Check.True(e.Message.StartsWith(torch.Substring(0, advice - 1)) && e.Message.EndsWith(torch.Substring(advice)),
                 "torch's message, got: " + e.Message);
      Check.Equal(new long[] {2, 4, 3, 5}, t.Sizes, "the failed call changed nothing");
      using (var r = t.Reshape(new long[] {120}))
        Check.Equal(new long[] {120}, r.Sizes, "reshape copies instead; no error left pending");
    }
  }

  [Test]
  public static void StringWithANulIsRefused() {
    // The marshaller would cut it short: Load("a\0b") would open "a".
    var e = Check.Throws(Status.InvalidArgument, () => Tessera.Load("/tmp/a\0b"), "a path with a NUL");
    Check.True(e.Message.Contains("NUL"), "the message says why, got: " + e.Message);
  }

  [Test]
  public static void StatusesByCause() {
    using (var a = Tensor.Zeros(new long[] {2, 3}))
    using (var b = Tensor.Zeros(new long[] {4}))
    using (var i = Tensor.Zeros(new long[] {2, 3}, DType.Int64)) {
      Check.Throws(Status.ShapeMismatch, () => a.Add(b), "[2,3] + [4]");
      Check.Throws(Status.IndexOutOfRange, () => a.GetDouble(new long[] {2, 0}), "element index 2 of 2");
      Check.Throws(Status.InvalidArgument, () => a.Transpose(0, 5), "dim 5 of a 2-dim tensor");
      Check.Throws(Status.InvalidArgument, () => a.View(null), "a null sizes array");
      Check.Throws(Status.InvalidArgument, () => a.Add(null), "a null tensor argument");
      Check.Throws(Status.IO, () => Tessera.Load(Path.Combine(Path.GetTempPath(), "no-such-dir-tsr", "x.tsr")),
                   "loading a missing file");
      Check.Throws(Status.InvalidArgument, () => Tensor.Empty(new long[] {-1}), "a negative size");
      using (var l = new TensorList())
        Check.Throws(Status.IndexOutOfRange, () => { var t = l[0]; }, "an empty list's element 0");
      // Errors are thrown only by the call that failed.
      Check.Equal(6L, a.Numel, "later calls succeed");
    }
  }

  [Test]
  public static void ErrorsOnOtherThreadsStayThere() {
    using (var x = Tensor.Zeros(new long[] {2, 2}))
    using (var t = x.T()) {
      TesseraException seen = null;
      var thread = new System.Threading.Thread(() => {
        try { t.View(new long[] {4}); } catch (TesseraException e) { seen = e; }
      });
      thread.Start();
      thread.Join();
      Check.True(seen != null && seen.Status == Status.NotViewable, "raised on the failing thread");
      Check.Equal(4L, x.Numel, "nothing pending on this thread");
    }
  }
}

}
