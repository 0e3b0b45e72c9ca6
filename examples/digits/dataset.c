/* dataset.c — reads examples/data/digits.csv.gz with zlib's gzgets, checking
 * every field, so a damaged file is reported instead of trained on. */
#include "dataset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Parses one CSV row into 64 pixels (scaled by 1/16) and a label. */
static int parse_row(char* line, float* pixels, int64_t* label) {
  char* p = line;
  for (int i = 0; i <= DIGITS_PIXELS; ++i) {
    char* end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno != 0) return -1;
    int last = i == DIGITS_PIXELS;
    if (last) {
      if (v < 0 || v >= DIGITS_CLASSES) return -1;
      *label = v;
      while (*end == '\r' || *end == '\n') ++end;
      return *end == '\0' ? 0 : -1;
    }
    if (v < 0 || v > 16 || *end != ',') return -1;
    pixels[i] = (float)v / 16.0f;
    p = end + 1;
  }
  return -1;
}

int digits_dataset_load(const char* path, digits_dataset* out) {
  gzFile f = gzopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno ? errno : ENOENT));
    return -1;
  }
  digits_dataset d = {0, NULL, NULL};
  int64_t capacity = 0;
  char line[1024];
  int rc = 0;
  while (gzgets(f, line, sizeof line)) {
    if (strchr(line, '\n') == NULL && !gzeof(f)) {
      fprintf(stderr, "%s:%lld: line too long\n", path, (long long)d.n + 1);
      rc = -1;
      break;
    }
    if (d.n == capacity) {
      capacity = capacity ? 2 * capacity : 1024;
      float* px = realloc(d.pixels, (size_t)capacity * DIGITS_PIXELS * sizeof *px);
      if (px) d.pixels = px;
      int64_t* lb = realloc(d.labels, (size_t)capacity * sizeof *lb);
      if (lb) d.labels = lb;
      if (!px || !lb) {
        fprintf(stderr, "%s: out of memory\n", path);
        rc = -1;
        break;
      }
    }
    if (parse_row(line, d.pixels + d.n * DIGITS_PIXELS, d.labels + d.n) != 0) {
      fprintf(stderr, "%s:%lld: expected 64 grey levels 0..16 and a label 0..9\n", path,
              (long long)d.n + 1);
      rc = -1;
      break;
    }
    ++d.n;
  }
  int zerr;
  const char* zmsg = gzerror(f, &zerr);
  if (rc == 0 && zerr != Z_OK && zerr != Z_STREAM_END) {
    fprintf(stderr, "%s: %s\n", path, zmsg);
    rc = -1;
  }
  gzclose(f);
  if (rc == 0 && d.n == 0) {
    fprintf(stderr, "%s: no rows\n", path);
    rc = -1;
  }
  if (rc != 0) {
    digits_dataset_free(&d);
    return -1;
  }
  *out = d;
  return 0;
}

void digits_dataset_free(digits_dataset* d) {
  free(d->pixels);
  free(d->labels);
  d->pixels = NULL;
  d->labels = NULL;
  d->n = 0;
}
