// Saver — a streaming save (tessera/saver.h): tensors are written as they are
// added, and the file appears at its path atomically at Commit.
namespace Tessera {

/// <summary>A save in progress. Dispose without Commit (or after a
/// failure) abandons it: any file at the path stays as it was and no
/// temporary file is left. Use it in a using block and call Commit as the
/// block's last statement:
/// <code>
/// using (var saver = Saver.Open(path, new SaveOptions {Compression = Compression.ZstdPlanes})) {
///   foreach (var (name, t) in Produce()) saver.Add(name, t);
///   saver.Commit();
/// }
/// </code></summary>
public partial class Saver : global::System.IDisposable {
  Progress progress; // reachable while native code may call it

  /// <summary>Starts a save to path (tsr_saver_open); options null for the
  /// defaults. Progress is called once here with (0, 0).</summary>
  public static Saver Open(string path, SaveOptions options = null) {
    options = options ?? new SaveOptions();
    Progress p = Progress.Wrap(options.Progress);
    using (var metadata = options.MetadataList()) {
      Saver saver = Progress.Call(
          p, () => NativeOpen(path, metadata, options.Compression, options.Level,
                              options.SkipChecksums, options.MaxShardSize, p));
      saver.progress = p;
      return saver;
    }
  }

  /// <summary>Writes tensor's contents under name now (the tensor may change
  /// or be disposed afterwards).</summary>
  public void Add(string name, Tensor tensor) =>
      Progress.Call(progress, () => NativeAdd(name, tensor));

  /// <summary>Finishes the file and renames it over the path; once only.</summary>
  public void Commit() => Progress.Call(progress, () => NativeCommit());
}

}
