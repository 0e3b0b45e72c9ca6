// CallbackErrors — the exception a custom function's callback threw, kept
// for the call that entered the library on this thread.
using System;

namespace Tessera {

/// <summary>A managed exception must not unwind through the C library, so
/// a callback catches it and keeps it here, per thread, with the message it
/// recorded as the library's last error. The library fails its call with
/// that message (prefixed "Name.forward: "); the binding's error delegate
/// (csharp.i) then asks <see cref="Take"/> and throws the original exception
/// instead of a TesseraException. Matching the message keeps an exception
/// whose failure the library swallowed from resurfacing in a later call.</summary>
internal static class CallbackErrors {
  [ThreadStatic] static Exception kept;
  [ThreadStatic] static string keptMessage;

  /// <summary>Keeps error; returns the status and message to record.</summary>
  internal static Status Keep(Exception error, out string message) {
    var tessera = error as TesseraException;
    message = tessera != null ? tessera.Message : error.GetType().FullName + ": " + error.Message;
    kept = error;
    keptMessage = message;
    return tessera != null ? tessera.Status : Status.InvalidArgument;
  }

  /// <summary>The kept exception when message reports it, else null; either
  /// way nothing is kept afterwards.</summary>
  internal static Exception Take(string message) {
    Exception error = kept;
    string expected = keptMessage;
    kept = null;
    keptMessage = null;
    return error != null && message != null && message.EndsWith(expected, StringComparison.Ordinal) ? error : null;
  }
}

}
