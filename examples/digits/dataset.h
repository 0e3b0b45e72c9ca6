/* dataset.h — the digits data set in host memory. */
#ifndef DIGITS_DATASET_H
#define DIGITS_DATASET_H

#include <stdint.h>

#define DIGITS_SIDE 8
#define DIGITS_PIXELS (DIGITS_SIDE * DIGITS_SIDE)
#define DIGITS_CLASSES 10

typedef struct digits_dataset {
  int64_t n;       /* number of images                                     */
  float* pixels;   /* n * 64 grey levels scaled to [0, 1], row-major images */
  int64_t* labels; /* n classes in [0, 10)                                 */
} digits_dataset;

/* Reads a gzip-compressed CSV of rows "p0,...,p63,label" (grey levels 0..16,
 * label 0..9) with zlib. Returns 0 and fills *out (free with
 * digits_dataset_free), or prints what was wrong (file, line) and returns -1. */
int digits_dataset_load(const char* path, digits_dataset* out);
void digits_dataset_free(digits_dataset* d);

#endif
