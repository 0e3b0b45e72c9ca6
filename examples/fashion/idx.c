/* idx.c — reads the IDX files with zlib's gzread, validating the header so
 * a damaged or truncated download is reported instead of trained on. */
#include "idx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

const char* const fashion_class_names[FASHION_CLASSES] = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

enum { IDX_LABELS_MAGIC = 0x00000801, IDX_IMAGES_MAGIC = 0x00000803 };

/* Reads exactly n bytes or reports the file as truncated or unreadable. */
static int read_exact(gzFile f, const char* path, void* buf, size_t n) {
  char* p = buf;
  while (n > 0) {
    unsigned chunk = n > (1u << 30) ? (1u << 30) : (unsigned)n;
    int got = gzread(f, p, chunk);
    if (got <= 0) {
      int zerr = 0;
      const char* msg = gzerror(f, &zerr);
      fprintf(stderr, "%s: %s\n", path, got == 0 ? "truncated" : msg);
      return -1;
    }
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

static uint32_t big_endian_u32(const unsigned char b[4]) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Opens path and reads its header: the magic number must be `magic`, and
 * the dims (1 for labels, 3 for images) go to dims[]. */
static gzFile open_idx(const char* path, uint32_t magic, int ndims, uint32_t* dims) {
  gzFile f = gzopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open: %s (install the Debian package dataset-fashion-mnist)\n",
            path, strerror(errno ? errno : ENOENT));
    return NULL;
  }
  unsigned char header[16];
  if (read_exact(f, path, header, 4 + 4 * (size_t)ndims) != 0) {
    gzclose(f);
    return NULL;
  }
  uint32_t got = big_endian_u32(header);
  if (got != magic) {
    fprintf(stderr, "%s: magic number 0x%08x, expected 0x%08x: not an IDX file of this kind\n",
            path, got, magic);
    gzclose(f);
    return NULL;
  }
  for (int i = 0; i < ndims; ++i) dims[i] = big_endian_u32(header + 4 + 4 * i);
  return f;
}

/* True when f has no byte left: a file longer than its header says is
 * not the file we think it is. */
static int at_end(gzFile f, const char* path) {
  unsigned char extra;
  if (gzread(f, &extra, 1) != 0) {
    fprintf(stderr, "%s: data continues past the items its header counts\n", path);
    return 0;
  }
  return 1;
}

static char* join(const char* dir, const char* prefix, const char* suffix) {
  size_t n = strlen(dir) + strlen(prefix) + strlen(suffix) + 3;
  char* s = malloc(n);
  if (s) snprintf(s, n, "%s/%s-%s", dir, prefix, suffix);
  return s;
}

int fashion_split_load(const char* dir, const char* prefix, int64_t limit, fashion_split* out) {
  char* images_path = join(dir, prefix, "images-idx3-ubyte.gz");
  char* labels_path = join(dir, prefix, "labels-idx1-ubyte.gz");
  fashion_split s = {0, NULL, NULL};
  gzFile images = NULL, labels = NULL;
  uint8_t* raw_labels = NULL;
  int rc = -1;
  uint32_t image_dims[3], label_dims[1];
  if (!images_path || !labels_path) goto done;
  images = open_idx(images_path, IDX_IMAGES_MAGIC, 3, image_dims);
  labels = images ? open_idx(labels_path, IDX_LABELS_MAGIC, 1, label_dims) : NULL;
  if (!labels) goto done;
  if (image_dims[1] != FASHION_SIDE || image_dims[2] != FASHION_SIDE) {
    fprintf(stderr, "%s: images of %ux%u pixels, expected %dx%d\n", images_path, image_dims[1],
            image_dims[2], FASHION_SIDE, FASHION_SIDE);
    goto done;
  }
  if (image_dims[0] != label_dims[0]) {
    fprintf(stderr, "%s has %u images but %s has %u labels\n", images_path, image_dims[0],
            labels_path, label_dims[0]);
    goto done;
  }
  int64_t total = image_dims[0];
  s.n = limit > 0 && limit < total ? limit : total;
  s.pixels = malloc((size_t)total * FASHION_PIXELS);
  raw_labels = malloc((size_t)total);
  s.labels = malloc((size_t)s.n * sizeof *s.labels);
  if (!s.pixels || !raw_labels || !s.labels) {
    fprintf(stderr, "%s: out of memory for %lld images\n", images_path, (long long)total);
    goto done;
  }
  /* The whole file is read and checked even when fewer items are kept. */
  if (read_exact(images, images_path, s.pixels, (size_t)total * FASHION_PIXELS) != 0 ||
      read_exact(labels, labels_path, raw_labels, (size_t)total) != 0 ||
      !at_end(images, images_path) || !at_end(labels, labels_path))
    goto done;
  for (int64_t i = 0; i < total; ++i) {
    if (raw_labels[i] >= FASHION_CLASSES) {
      fprintf(stderr, "%s: item %lld has label %u, expected 0..9\n", labels_path, (long long)i,
              raw_labels[i]);
      goto done;
    }
    if (i < s.n) s.labels[i] = raw_labels[i];
  }
  rc = 0;
done:
  if (images) gzclose(images);
  if (labels) gzclose(labels);
  free(raw_labels);
  free(images_path);
  free(labels_path);
  if (rc == 0) {
    *out = s;
  } else {
    free(s.pixels);
    free(s.labels);
  }
  return rc;
}

void fashion_split_free(fashion_split* s) {
  free(s->pixels);
  free(s->labels);
  s->pixels = NULL;
  s->labels = NULL;
  s->n = 0;
}
