/* version_check.c — the smallest program a user of an installed tessera
 * writes: it compiles against <tessera/tessera.h>, links libtessera, checks
 * that the header it was compiled with matches the library that was loaded,
 * and makes one tensor. scripts/test builds it outside the repository, once
 * with pkg-config and once through CMake's find_package(Tessera), against a
 * fresh install, so a broken tessera.pc or TesseraConfig.cmake fails CI. */
#include <stdio.h>

#include <tessera/tessera.h>

int main(void) {
  printf("tessera: header %d (%d.%d.%d), library %d (%s)\n", TSR_VERSION_NUMBER,
         TSR_VERSION_MAJOR, TSR_VERSION_MINOR, TSR_VERSION_PATCH, tsr_version_number(),
         tsr_version_string());
  if (tsr_version_number() != TSR_VERSION_NUMBER) {
    fprintf(stderr, "version check: FAILED (header and library differ)\n");
    return 1;
  }

  const int64_t sizes[] = {2, 3};
  tsr_tensor* t = NULL;
  if (tsr_ones(2, sizes, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &t) != TSR_OK) {
    fprintf(stderr, "tsr_ones: %s\n", tsr_last_error_message());
    return 1;
  }
  int64_t numel = tsr_tensor_numel(t);
  tsr_tensor_release(t);
  if (numel != 6) {
    fprintf(stderr, "version check: FAILED (numel %lld, expected 6)\n", (long long)numel);
    return 1;
  }
  printf("version check: ok\n");
  return 0;
}
