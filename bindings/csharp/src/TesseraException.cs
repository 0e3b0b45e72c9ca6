// TesseraException — what every failed tessera call throws: the library's
// status (a Status value, distinct for what a caller may handle differently)
// and its message, read on the thread and in the native call that failed.
namespace Tessera {

public class TesseraException : global::System.Exception {
  /// <summary>Why the call failed (never Status.Ok).</summary>
  public Status Status { get; }

  public TesseraException(Status status, string message) : base(message) {
    Status = status;
  }

  /// <summary>With the exception that caused it (a progress callback's, for
  /// Status.Cancelled).</summary>
  public TesseraException(Status status, string message, global::System.Exception inner)
      : base(message, inner) {
    Status = status;
  }

  public override string ToString() {
    return "Tessera.TesseraException (" + Status + "): " + Message;
  }
}

}
