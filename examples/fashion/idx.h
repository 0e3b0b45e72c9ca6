/* idx.h — Fashion-MNIST in host memory, read from its gzip-compressed IDX
 * files (the MNIST format: a big-endian header, then unsigned bytes). */
#ifndef FASHION_IDX_H
#define FASHION_IDX_H

#include <stdint.h>

#define FASHION_SIDE 28
#define FASHION_PIXELS (FASHION_SIDE * FASHION_SIDE)
#define FASHION_CLASSES 10

typedef struct fashion_split {
  int64_t n;       /* number of images                                       */
  uint8_t* pixels; /* n * 784 grey levels 0..255, row-major images, as stored */
  int64_t* labels; /* n classes in [0, 10)                                   */
} fashion_split;

/* Reads "<dir>/<prefix>-images-idx3-ubyte.gz" and
 * "<dir>/<prefix>-labels-idx1-ubyte.gz" (prefix "train" or "t10k") with
 * zlib, checking the magic numbers, the 28x28 image size, that both files
 * hold the same number of items, that every label is < 10 and that nothing
 * follows the data. At most `limit` items are kept (limit <= 0: all).
 * Returns 0 and fills *out (free with fashion_split_free), or prints what
 * was wrong and returns -1. */
int fashion_split_load(const char* dir, const char* prefix, int64_t limit, fashion_split* out);
void fashion_split_free(fashion_split* s);

/* The class names, in label order, from the data set's README. */
extern const char* const fashion_class_names[FASHION_CLASSES];

#endif
