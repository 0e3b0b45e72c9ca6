/* io_bench: file sizes and save/load throughput of tsr_save / tsr_load.
 *
 * Not part of the test suite (tests/CMakeLists.txt builds test_*.c only).
 * Build against a build tree and run:
 *   cc -O2 -I include tests/tools/io_bench.c -L BUILD/src -ltessera \
 *      -Wl,-rpath,$PWD/BUILD/src -o /tmp/io_bench
 *   /tmp/io_bench DIR [MEGABYTES]
 * Writes DIR/io_bench.safetensors (removed at the end). Tensors: randn
 * float32 of MEGABYTES MB (default 256), its bfloat16 conversion, and an
 * all-zeros float32 of the same size. Throughput is tensor bytes (raw, not
 * file bytes) per second; save includes the fsyncs, load reads through the
 * page cache (the file was just written), with checksum verification (the
 * default) and without. Each figure is the best of 3. Last, the lazy path:
 * tsr_open_file of a plain file holding a small tensor and the big one,
 * then tsr_file_get of each (a view of the mapping; checksums skipped and
 * verified), the median of 9. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tessera/tessera.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(tsr_status st, const char* what) {
  if (st != TSR_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, tsr_status_name(st), tsr_last_error_message());
    exit(1);
  }
}

static void measure(const char* label, const char* path, tsr_tensor* t, tsr_compression c,
                    int level) {
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = c;
  o.level = level;
  const char* names[1] = {"w"};
  double raw = (double)tsr_tensor_nbytes(t);
  tsr_load_options trusted = TSR_LOAD_OPTIONS_INIT;
  trusted.skip_checksums = 1;
  trusted.max_bytes = TSR_LOAD_MAX_BYTES_UNLIMITED;
  tsr_load_options checked = trusted;
  checked.skip_checksums = 0;
  double best_save = 1e30, best_load = 1e30, best_trusted = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now();
    check(tsr_save(path, 1, names, &t, &o), "save");
    double t1 = now();
    tsr_tensor_map* m = NULL;
    check(tsr_load(path, &checked, &m), "load");
    double t2 = now();
    tsr_tensor_map_release(m);
    check(tsr_load(path, &trusted, &m), "load (checksums skipped)");
    double t3 = now();
    tsr_tensor_map_release(m);
    if (t1 - t0 < best_save) best_save = t1 - t0;
    if (t2 - t1 < best_load) best_load = t2 - t1;
    if (t3 - t2 < best_trusted) best_trusted = t3 - t2;
  }
  struct stat st;
  stat(path, &st);
  printf("%-26s %-9s lvl %2d  raw %8.1f MB  file %8.1f MB  ratio %5.3f  save %7.0f MB/s  "
         "load %7.0f MB/s (checksums skipped: %7.0f MB/s)\n",
         label, c == TSR_COMPRESSION_ZSTD ? "zstd" : "plain", level, raw / 1e6,
         (double)st.st_size / 1e6, (double)st.st_size / raw, raw / 1e6 / best_save,
         raw / 1e6 / best_load, raw / 1e6 / best_trusted);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median milliseconds of tsr_open_file + tsr_file_get(name) over 9 runs. */
static double open_and_get_ms(const char* path, const char* name, int skip_checksums) {
  double ms[9];
  tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
  o.skip_checksums = skip_checksums;
  for (int rep = 0; rep < 9; ++rep) {
    double t0 = now();
    tsr_file* f = NULL;
    tsr_tensor* t = NULL;
    check(tsr_open_file(path, &o, &f), "open_file");
    check(tsr_file_get_by_name(f, name, &t), "file_get");
    ms[rep] = (now() - t0) * 1e3;
    tsr_tensor_release(t);
    tsr_file_release(f);
  }
  qsort(ms, 9, sizeof ms[0], cmp_double);
  return ms[4];
}

static void measure_open(const char* path, tsr_tensor* big) {
  const int64_t small_sizes[1] = {1000};
  tsr_tensor* small = NULL;
  check(tsr_zeros(1, small_sizes, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &small), "zeros");
  const char* names[2] = {"a_small", "big"};
  tsr_tensor* tensors[2] = {small, big};
  check(tsr_save(path, 2, names, tensors, NULL), "save");
  printf("tsr_open_file + tsr_file_get, %.0f MB plain file (median of 9):\n",
         (double)tsr_tensor_nbytes(big) / 1e6);
  printf("  small tensor (4 KB):  %8.3f ms   checksum verified: %8.3f ms\n",
         open_and_get_ms(path, "a_small", 1), open_and_get_ms(path, "a_small", 0));
  printf("  big tensor:           %8.3f ms   checksum verified: %8.3f ms\n",
         open_and_get_ms(path, "big", 1), open_and_get_ms(path, "big", 0));
  tsr_tensor_release(small);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [MEGABYTES]\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/io_bench.safetensors", argv[1]);
  int64_t mb = argc > 2 ? atoll(argv[2]) : 256;
  int64_t n = mb * 1000 * 1000 / 4;
  int64_t sizes[2] = {n / 1000, 1000};

  tsr_generator* g = NULL;
  check(tsr_generator_create(0, &g), "generator");
  tsr_tensor *f32 = NULL, *bf16 = NULL, *zeros = NULL;
  check(tsr_randn(2, sizes, TSR_FLOAT32, g, &f32), "randn");
  check(tsr_to_dtype(f32, TSR_BFLOAT16, &bf16), "to bf16");
  check(tsr_zeros(2, sizes, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &zeros), "zeros");

  measure("randn float32", path, f32, TSR_COMPRESSION_NONE, 0);
  measure("randn float32", path, f32, TSR_COMPRESSION_ZSTD, 1);
  measure("randn float32", path, f32, TSR_COMPRESSION_ZSTD, 3);
  measure("randn float32", path, f32, TSR_COMPRESSION_ZSTD, 9);
  measure("randn -> bfloat16", path, bf16, TSR_COMPRESSION_NONE, 0);
  measure("randn -> bfloat16", path, bf16, TSR_COMPRESSION_ZSTD, 3);
  measure("zeros float32", path, zeros, TSR_COMPRESSION_NONE, 0);
  measure("zeros float32", path, zeros, TSR_COMPRESSION_ZSTD, 3);
  measure_open(path, f32);

  unlink(path);
  tsr_tensor_release(f32);
  tsr_tensor_release(bf16);
  tsr_tensor_release(zeros);
  tsr_generator_release(g);
  return 0;
}
