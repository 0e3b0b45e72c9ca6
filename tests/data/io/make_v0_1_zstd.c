/* Wrote v0_1_zstd.safetensors (test_io.c, format_0_1_zstd_fixture_loads):
 * a format 0.1 compressed file, one zstd frame per tensor, made by tessera's
 * 0.1 writer (TSR_COMPRESSION_ZSTD) before format 0.2 was added, kept so
 * that a later change of the writer cannot hide a reader that lost 0.1.
 *   cc -Iinclude make_v0_1_zstd.c -Lbuild/src -ltessera -o /tmp/mk && /tmp/mk OUT */
#include <stdio.h>
#include <tessera/tessera.h>
#define OK(x) do { if ((x) != TSR_OK) { fprintf(stderr, "%s: %s\n", #x, tsr_last_error_message()); return 1; } } while (0)
int main(int argc, char** argv) {
  const float w[] = {0, 0.25f, 0.5f, 0.75f, 1, 1.25f};
  const long long s[] = {1, -2, 3, 1LL << 40};
  tsr_tensor *a = NULL, *b = NULL, *c = NULL, *h = NULL;
  OK(tsr_from_data(w, sizeof w, 2, (int64_t[]){2, 3}, TSR_FLOAT32, &a));
  OK(tsr_from_data(s, sizeof s, 1, (int64_t[]){4}, TSR_INT64, &b));
  OK(tsr_full(1, (int64_t[]){5}, 1.5, TSR_BFLOAT16, TSR_DEVICE_CPU, 0, &c));
  OK(tsr_arange(0, 300, 1, TSR_INT32, TSR_DEVICE_CPU, 0, &h));
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = TSR_COMPRESSION_ZSTD;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"model"};
  o.metadata_values = (const char*[]){"v0.1"};
  OK(tsr_save(argv[1], 4, (const char*[]){"weight", "steps", "half", "counts"}, (tsr_tensor*[]){a, b, c, h}, &o));
  return 0;
}
