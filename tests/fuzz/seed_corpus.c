/* Writes the fuzzers' seed corpus: small valid files of every mode into the
 * directory given, through the public API, so the corpus always matches
 * the format this build writes (nothing binary is kept in the repository).
 * Usage: fuzz_seed_corpus DIR */
#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

#define OK(call)                                                          \
  do {                                                                    \
    if ((call) != TSR_OK) {                                               \
      fprintf(stderr, "%s: %s\n", #call, tsr_last_error_message());       \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

static void save(const char* dir, const char* name, int64_t n, const char* const* names,
                 tsr_tensor* const* ts, tsr_compression mode, int checksums) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-%s%s.safetensors", dir, name,
           mode == TSR_COMPRESSION_ZSTD          ? "zstd"
           : mode == TSR_COMPRESSION_ZSTD_PLANES ? "zstd-planes"
                                                 : "plain",
           checksums ? "" : "-nosum");
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = mode;
  o.skip_checksums = !checksums;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"format"};
  o.metadata_values = (const char*[]){"pt"};
  OK(tsr_save(path, n, names, ts, &o));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  tsr_tensor *f32 = NULL, *i64 = NULL, *b = NULL, *bf = NULL, *h = NULL, *zeros = NULL, *scalar = NULL,
             *empty = NULL;
  OK(tsr_arange(0, 12, 1, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &f32));
  OK(tsr_arange(-4, 4, 1, TSR_INT64, TSR_DEVICE_CPU, 0, &i64));
  OK(tsr_full(2, (int64_t[]){2, 2}, 1, TSR_BOOL, TSR_DEVICE_CPU, 0, &b));
  OK(tsr_full(1, (int64_t[]){5}, 1.5, TSR_BFLOAT16, TSR_DEVICE_CPU, 0, &bf));
  OK(tsr_full(1, (int64_t[]){3}, -2.25, TSR_FLOAT16, TSR_DEVICE_CPU, 0, &h));
  OK(tsr_zeros(1, (int64_t[]){4096}, TSR_UINT8, TSR_DEVICE_CPU, 0, &zeros));
  OK(tsr_full(0, NULL, 7, TSR_INT32, TSR_DEVICE_CPU, 0, &scalar));
  OK(tsr_empty(2, (int64_t[]){0, 3}, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &empty));
  /* the storage-only dtypes: U16, U32, U64, F8_E4M3, F8_E5M2 */
  const tsr_dtype storage_dtypes[] = {TSR_UINT16, TSR_UINT32, TSR_UINT64, TSR_FLOAT8_E4M3FN,
                                      TSR_FLOAT8_E5M2};
  tsr_tensor* storage[5] = {NULL};
  for (int i = 0; i < 5; ++i)
    OK(tsr_full(1, (int64_t[]){3 + i}, 3, storage_dtypes[i], TSR_DEVICE_CPU, 0, &storage[i]));
  const char* storage_names[] = {"u16", "u32", "u64", "f8e4m3", "f8e5m2"};
  const char* mixed_names[] = {"w", "idx", "mask", "bf", "h", "s", "e"};
  tsr_tensor* mixed[] = {f32, i64, b, bf, h, scalar, empty};
  /* zstd-planes (format 0.2) seeds reach the chunked byte-plane decoder. */
  const tsr_compression modes[] = {TSR_COMPRESSION_NONE, TSR_COMPRESSION_ZSTD,
                                   TSR_COMPRESSION_ZSTD_PLANES};
  for (int m = 0; m < 3; ++m)
    for (int sum = 0; sum < 2; ++sum) {
      save(argv[1], "mixed", 7, mixed_names, mixed, modes[m], sum);
      save(argv[1], "zeros", 1, (const char*[]){"z"}, &zeros, modes[m], sum);
      save(argv[1], "none", 0, NULL, NULL, modes[m], sum);
      save(argv[1], "storage", 5, storage_names, storage, modes[m], sum);
    }
  for (int i = 0; i < 5; ++i) tsr_tensor_release(storage[i]);
  tsr_tensor* all[] = {f32, i64, b, bf, h, zeros, scalar, empty};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
  return 0;
}
