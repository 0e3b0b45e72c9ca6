package org.tessera;

/**
 * How {@link Tessera#load(String, LoadOptions)} and {@link TensorFile#open(String, LoadOptions)}
 * read (tsr_load_options). Setters return this.
 */
public final class LoadOptions {
  private long maxBytes;
  private boolean skipChecksums;
  private ProgressListener progress;

  /** Cap on the tensor bytes a load may allocate: 0 the default (64 x the file + 64 MiB), Long.MAX_VALUE none. */
  public LoadOptions maxBytes(long value) {
    maxBytes = value;
    return this;
  }

  /** true: do not verify the file's checksums (trusted files). */
  public LoadOptions skipChecksums(boolean value) {
    skipChecksums = value;
    return this;
  }

  /** Called as the load goes (not by TensorFile.open); null for none. */
  public LoadOptions progress(ProgressListener listener) {
    progress = listener;
    return this;
  }

  public long maxBytes() { return maxBytes; }
  public boolean skipChecksums() { return skipChecksums; }
  public ProgressListener progress() { return progress; }
}
