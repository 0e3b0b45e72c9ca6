package org.tessera;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How {@link Tessera#save(String, Map, SaveOptions)} and {@link Saver#open(String, SaveOptions)}
 * write (tsr_save_options). Setters return this: {@code new
 * SaveOptions().compression(Compression.COMPRESSION_ZSTD_PLANES).progress((d, t) -> true)}. The
 * defaults: a plain safetensors file with checksums, no metadata, one file, views saved as views.
 */
public final class SaveOptions {
  private Compression compression = Compression.COMPRESSION_NONE;
  private int level;
  private final Map<String, String> metadata = new LinkedHashMap<>();
  private boolean skipChecksums;
  private long maxShardSize;
  private boolean flattenViews;
  private ProgressListener progress;

  /** NONE (plain safetensors), ZSTD (one frame per tensor) or ZSTD_PLANES (byte planes in chunks). */
  public SaveOptions compression(Compression value) {
    if (value == null) throw new NullPointerException("compression is null");
    compression = value;
    return this;
  }

  /** zstd level; 0 means the mode's default. */
  public SaveOptions level(int value) {
    level = value;
    return this;
  }

  /** Adds a "__metadata__" pair (keys starting with "tessera." are reserved). */
  public SaveOptions metadata(String key, String value) {
    metadata.put(key, value);
    return this;
  }

  /** Adds every pair of values to "__metadata__". */
  public SaveOptions metadata(Map<String, String> values) {
    metadata.putAll(values);
    return this;
  }

  /** true: no "tessera.checksum" entry (byte for byte the reference writer's file). */
  public SaveOptions skipChecksums(boolean value) {
    skipChecksums = value;
    return this;
  }

  /**
   * Bytes of tensor data per shard, 0 for one file: above it, a path ending in ".safetensors" gets
   * a Hugging Face sharded checkpoint (model-0000k-of-0000n.safetensors and
   * model.safetensors.index.json, which load reads).
   */
  public SaveOptions maxShardSize(long bytes) {
    maxShardSize = bytes;
    return this;
  }

  /** true: save tensors sharing a storage as separate copies instead of views of one storage. */
  public SaveOptions flattenViews(boolean value) {
    flattenViews = value;
    return this;
  }

  /** Called as the save goes; null for none. */
  public SaveOptions progress(ProgressListener listener) {
    progress = listener;
    return this;
  }

  public Compression compression() { return compression; }
  public int level() { return level; }
  public Map<String, String> metadata() { return metadata; }
  public boolean skipChecksums() { return skipChecksums; }
  public long maxShardSize() { return maxShardSize; }
  public boolean flattenViews() { return flattenViews; }
  public ProgressListener progress() { return progress; }

  /** A native list carrying the metadata pairs (close it). */
  TensorList metadataList() {
    TensorList list = new TensorList();
    for (Map.Entry<String, String> e : metadata.entrySet()) list.setMetadata(e.getKey(), e.getValue());
    return list;
  }
}
