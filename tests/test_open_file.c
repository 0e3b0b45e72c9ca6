/* tsr_open_file / tsr_file_get: lazy, zero-copy loading. Names, dtypes,
 * shapes and metadata before any tensor is read; plain files as read-only
 * views of a mapping that outlives the handle; compressed files one frame
 * at a time; per-tensor checksums; unaligned data copied; every error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static const char* tmp_path(char* buf, size_t cap, const char* leaf) {
  snprintf(buf, cap, "%s/open_%d_%s", TSR_TEST_TMP_DIR, (int)getpid(), leaf);
  return buf;
}
#define TMP(var, leaf) \
  char var[512];       \
  tmp_path(var, sizeof var, leaf)

enum { N_TENSORS = 4 };
static const char* const kNames[N_TENSORS] = {"weight", "steps", "mask", "empty"};

/* weight [2, 3] float32 = arange(6) / 4, steps [4] int64, mask [3] bool,
 * empty [0, 2] float64; metadata {"model": "m1"}. */
static void save_sample(const char* path, tsr_compression compression) {
  const int64_t ws[] = {2, 3}, ss[] = {4}, ms[] = {3}, es[] = {0, 2};
  const float w[] = {0, 0.25f, 0.5f, 0.75f, 1, 1.25f};
  const int64_t s[] = {1, -2, 3, 1LL << 40};
  const bool m[] = {true, false, true};
  tsr_tensor* t[N_TENSORS];
  TSR_ASSERT_OK(tsr_from_data(w, sizeof w, 2, ws, TSR_FLOAT32, &t[0]));
  TSR_ASSERT_OK(tsr_from_data(s, sizeof s, 1, ss, TSR_INT64, &t[1]));
  TSR_ASSERT_OK(tsr_from_data(m, sizeof m, 1, ms, TSR_BOOL, &t[2]));
  TSR_ASSERT_OK(tsr_zeros(2, es, TSR_FLOAT64, TSR_CPU, &t[3]));
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = compression;
  const char* keys[] = {"model"};
  const char* values[] = {"m1"};
  o.n_metadata = 1;
  o.metadata_keys = keys;
  o.metadata_values = values;
  TSR_ASSERT_OK(tsr_save(path, N_TENSORS, kNames, t, &o));
  for (int i = 0; i < N_TENSORS; ++i) tsr_tensor_release(t[i]);
}

/* a and b have the same dtype, sizes and bytes. */
static void assert_same(const tsr_tensor* a, const tsr_tensor* b) {
  cr_assert_eq(tsr_tensor_dtype(a), tsr_tensor_dtype(b));
  cr_assert_eq(tsr_tensor_ndim(a), tsr_tensor_ndim(b));
  for (int64_t d = 0; d < tsr_tensor_ndim(a); ++d)
    cr_assert_eq(tsr_tensor_sizes(a)[d], tsr_tensor_sizes(b)[d]);
  size_t n = (size_t)tsr_tensor_nbytes(a);
  char* pa = malloc(n + 1);
  char* pb = malloc(n + 1);
  TSR_ASSERT_OK(tsr_copy_to_buffer(a, pa, n, NULL));
  TSR_ASSERT_OK(tsr_copy_to_buffer(b, pb, n, NULL));
  cr_assert(memcmp(pa, pb, n) == 0);
  free(pa);
  free(pb);
}

/* Every tensor of the file at path equals tsr_load's. */
static void assert_matches_load(const char* path, tsr_file* f) {
  tsr_tensor_map* map = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &map));
  cr_assert_eq(tsr_file_count(f), tsr_tensor_map_count(map));
  for (int64_t i = 0; i < tsr_file_count(f); ++i) {
    tsr_tensor *a = NULL, *b = NULL;
    TSR_ASSERT_OK(tsr_file_get(f, i, &a));
    TSR_ASSERT_OK(tsr_tensor_map_get_by_name(map, tsr_file_name(f, i), &b));
    assert_same(a, b);
    tsr_tensor_release(b);
    tsr_tensor_release(a);
  }
  tsr_tensor_map_release(map);
}

Test(open_file, header_without_reading) {
  TMP(path, "plain.safetensors");
  save_sample(path, TSR_COMPRESSION_NONE);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  cr_assert_eq(tsr_file_count(f), N_TENSORS);
  const int64_t i = tsr_file_find(f, "weight");
  cr_assert_geq(i, 0);
  cr_assert_str_eq(tsr_file_name(f, i), "weight");
  cr_assert_eq(tsr_file_find(f, "nope"), -1);
  tsr_dtype dtype = TSR_BOOL;
  int64_t ndim = -1;
  const int64_t* sizes = NULL;
  TSR_ASSERT_OK(tsr_file_tensor_info(f, i, &dtype, &ndim, &sizes));
  cr_assert_eq(dtype, TSR_FLOAT32);
  cr_assert_eq(ndim, 2);
  cr_assert(sizes[0] == 2 && sizes[1] == 3);
  TSR_ASSERT_OK(tsr_file_tensor_info(f, i, NULL, NULL, NULL));
  cr_assert_str_eq(tsr_file_metadata_get(f, "model"), "m1");
  cr_assert_null(tsr_file_metadata_get(f, "tessera.checksum"));
  cr_assert_eq(tsr_file_metadata_count(f), 1);
  cr_assert_str_eq(tsr_file_metadata_key(f, 0), "model");
  cr_assert_str_eq(tsr_file_metadata_value(f, 0), "m1");
  assert_matches_load(path, f);
  tsr_file_release(f);
}

Test(open_file, plain_tensors_are_read_only_views) {
  TMP(path, "views.safetensors");
  save_sample(path, TSR_COMPRESSION_NONE);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  tsr_tensor *w = NULL, *w2 = NULL, *c = NULL;
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "weight", &w));
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "weight", &w2));
  /* Both are views of the one mapping: the same address. */
  cr_assert_eq(tsr_tensor_data_ptr(w), tsr_tensor_data_ptr(w2));
  const int64_t idx[] = {1, 2};
  TSR_ASSERT_FAILS(tsr_fill_(w, 3.0), TSR_ERR_INVALID_ARGUMENT,
                   "read-only view of a memory-mapped file");
  TSR_ASSERT_FAILS(tsr_set_double(w, 2, idx, 3.0), TSR_ERR_INVALID_ARGUMENT, "read-only view");
  TSR_ASSERT_FAILS(tsr_mul_scalar_(w, 2.0), TSR_ERR_INVALID_ARGUMENT, "read-only view");
  tsr_tensor* src = NULL;
  TSR_ASSERT_OK(tsr_ones(2, (const int64_t[]){2, 3}, TSR_FLOAT32, TSR_CPU, &src));
  TSR_ASSERT_FAILS(tsr_copy_(w, src), TSR_ERR_INVALID_ARGUMENT, "read-only view");
  double v = 0;
  TSR_ASSERT_OK(tsr_get_double(w, 2, idx, &v));
  cr_assert_eq(v, 1.25); /* unchanged */
  /* clone gives a writable copy. */
  TSR_ASSERT_OK(tsr_clone(w, TSR_CONTIGUOUS_FORMAT, &c));
  TSR_ASSERT_OK(tsr_set_double(c, 2, idx, 3.0));
  TSR_ASSERT_OK(tsr_get_double(c, 2, idx, &v));
  cr_assert_eq(v, 3.0);
  /* The mapping outlives the file handle while a tensor uses it. */
  tsr_file_release(f);
  tsr_tensor_release(w2);
  TSR_ASSERT_OK(tsr_get_double(w, 2, idx, &v));
  cr_assert_eq(v, 1.25);
  tsr_tensor_release(src);
  tsr_tensor_release(c);
  tsr_tensor_release(w);
}

Test(open_file, compressed_tensors_decompress_alone) {
  TMP(path, "zstd.safetensors");
  save_sample(path, TSR_COMPRESSION_ZSTD);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  cr_assert_str_eq(tsr_file_metadata_get(f, "tessera.compression"), "zstd");
  assert_matches_load(path, f);
  tsr_tensor* w = NULL;
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "weight", &w));
  TSR_ASSERT_OK(tsr_fill_(w, 2.0)); /* a decompressed copy: writable */
  tsr_tensor_release(w);
  tsr_file_release(f);
}

/* Offset of the first byte of `name`'s data in the file at path. */
static long data_offset(const char* path, const char* name) {
  size_t n = 0;
  FILE* fp = fopen(path, "rb");
  cr_assert_not_null(fp);
  unsigned char len[8];
  cr_assert_eq(fread(len, 1, 8, fp), 8u);
  uint64_t hl = 0;
  for (int i = 7; i >= 0; --i) hl = (hl << 8) | len[i];
  char* header = calloc(hl + 1, 1);
  cr_assert_eq(fread(header, 1, hl, fp), hl);
  fclose(fp);
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char* e = strstr(header, key);
  cr_assert_not_null(e);
  const char* offs = strstr(e, "\"data_offsets\":[");
  cr_assert_not_null(offs);
  long begin = strtol(offs + strlen("\"data_offsets\":["), NULL, 10);
  free(header);
  (void)n;
  return (long)(8 + hl) + begin;
}

Test(open_file, checksum_checked_per_tensor) {
  TMP(path, "flip.safetensors");
  save_sample(path, TSR_COMPRESSION_NONE);
  long off = data_offset(path, "steps");
  FILE* fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  fseek(fp, off, SEEK_SET);
  int c = fgetc(fp);
  fseek(fp, off, SEEK_SET);
  fputc(c ^ 0x10, fp);
  fclose(fp);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f)); /* the header is intact */
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_file_get_by_name(f, "steps", &t), TSR_ERR_CORRUPT_FILE,
                   "tensor \"steps\": checksum mismatch");
  cr_assert_eq(t, SENTINEL);
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "weight", &t)); /* the others are fine */
  tsr_tensor_release(t);
  tsr_file_release(f);
  /* skip_checksums: the flipped tensor is handed out as it is. */
  tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
  o.skip_checksums = true;
  TSR_ASSERT_OK(tsr_open_file(path, &o, &f));
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "steps", &t));
  tsr_tensor_release(t);
  tsr_file_release(f);
}

/* zstd-planes (format 0.2): each get decodes that tensor's chunks alone, so
 * a damaged chunk of one tensor fails its get, naming the chunk, and not
 * the others'. */
Test(open_file, zstd_planes_tensors_decode_alone) {
  TMP(path, "planes.safetensors");
  save_sample(path, TSR_COMPRESSION_ZSTD_PLANES);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  cr_assert_str_eq(tsr_file_metadata_get(f, "tessera.compression"), "zstd-planes");
  cr_assert_str_eq(tsr_file_metadata_get(f, "tessera.format"), "0.2");
  assert_matches_load(path, f);
  tsr_file_release(f);
  long off = data_offset(path, "steps");
  FILE* fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  fseek(fp, off, SEEK_SET);
  int c = fgetc(fp);
  fseek(fp, off, SEEK_SET);
  fputc(c ^ 0x10, fp);
  fclose(fp);
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_file_get_by_name(f, "steps", &t), TSR_ERR_CORRUPT_FILE,
                   "tensor \"steps\": chunk 0 (tensor bytes 0 to ");
  cr_assert_eq(t, SENTINEL);
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "weight", &t));
  tsr_tensor_release(t);
  tsr_file_release(f);
}

/* A float32 tensor after a 2-byte one sits at an address not aligned for
 * float: it is copied, not viewed (and so writable). */
Test(open_file, unaligned_data_is_copied) {
  TMP(path, "unaligned.safetensors");
  const char header[] =
      "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[2,6]}}";
  char padded[sizeof header + 8];
  size_t hl = sizeof header - 1;
  memcpy(padded, header, hl);
  while (hl % 8) padded[hl++] = ' ';
  unsigned char buf[8 + sizeof padded + 6];
  for (int i = 0; i < 8; ++i) buf[i] = (unsigned char)((uint64_t)hl >> (8 * i));
  memcpy(buf + 8, padded, hl);
  const unsigned char data[6] = {7, 9, 0, 0, 0x80, 0x3f}; /* 1.0f little-endian */
  memcpy(buf + 8 + hl, data, 6);
  FILE* fp = fopen(path, "wb");
  cr_assert_not_null(fp);
  cr_assert_eq(fwrite(buf, 1, 8 + hl + 6, fp), 8 + hl + 6);
  fclose(fp);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  tsr_tensor* b = NULL;
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "b", &b));
  double v = 0;
  TSR_ASSERT_OK(tsr_item_double(b, &v));
  cr_assert_eq(v, 1.0);
  TSR_ASSERT_OK(tsr_fill_(b, 2.0));
  tsr_tensor_release(b);
  tsr_file_release(f);
}

Test(open_file, errors_change_nothing) {
  TMP(path, "errors.safetensors");
  save_sample(path, TSR_COMPRESSION_NONE);
  tsr_file* f = (tsr_file*)0x1;
  TSR_ASSERT_FAILS(tsr_open_file(NULL, NULL, &f), TSR_ERR_INVALID_ARGUMENT, "path is NULL");
  TSR_ASSERT_FAILS(tsr_open_file(path, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TMP(missing, "missing.safetensors");
  TSR_ASSERT_FAILS(tsr_open_file(missing, NULL, &f), TSR_ERR_IO, "cannot open");
  TSR_ASSERT_FAILS(tsr_open_file(TSR_TEST_TMP_DIR, NULL, &f), TSR_ERR_IO, "not a regular file");
  tsr_load_options bad = TSR_LOAD_OPTIONS_INIT;
  bad.max_bytes = -1;
  TSR_ASSERT_FAILS(tsr_open_file(path, &bad, &f), TSR_ERR_INVALID_ARGUMENT, "max_bytes is -1");
  bad.max_bytes = 8; /* the tensors need more */
  TSR_ASSERT_FAILS(tsr_open_file(path, &bad, &f), TSR_ERR_CORRUPT_FILE, "above the limit max_bytes = 8");
  TMP(shortf, "short.safetensors");
  FILE* fp = fopen(shortf, "wb");
  fputs("abc", fp);
  fclose(fp);
  TSR_ASSERT_FAILS(tsr_open_file(shortf, NULL, &f), TSR_ERR_CORRUPT_FILE,
                   "shorter than the 8-byte header length");
  cr_assert_eq(f, (tsr_file*)0x1);

  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_file_get(f, N_TENSORS, &t), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "tensor index 4 is out of range for 4 entries");
  TSR_ASSERT_FAILS(tsr_file_get(f, -1, &t), TSR_ERR_INDEX_OUT_OF_RANGE, "out of range");
  TSR_ASSERT_FAILS(tsr_file_get(NULL, 0, &t), TSR_ERR_INVALID_ARGUMENT, "file is NULL");
  TSR_ASSERT_FAILS(tsr_file_get(f, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_file_get_by_name(f, "nope", &t), TSR_ERR_INVALID_ARGUMENT,
                   "no tensor named \"nope\" in the file (4 tensors)");
  TSR_ASSERT_FAILS(tsr_file_get_by_name(f, NULL, &t), TSR_ERR_INVALID_ARGUMENT, "name is NULL");
  cr_assert_eq(t, SENTINEL);
  tsr_dtype dtype = TSR_BOOL;
  TSR_ASSERT_FAILS(tsr_file_tensor_info(f, 9, &dtype, NULL, NULL), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "out of range");
  cr_assert_eq(dtype, TSR_BOOL);
  cr_assert_null(tsr_file_name(f, 4));
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INDEX_OUT_OF_RANGE);
  cr_assert_null(tsr_file_metadata_key(f, 1));
  cr_assert_eq(tsr_file_count(NULL), -1);
  cr_assert_eq(tsr_file_find(f, NULL), -1);
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT);
  cr_assert_null(tsr_file_metadata_get(f, NULL));
  tsr_file_release(f);
  tsr_file_release(NULL);
}

/* tsr_file_get_slice: a tensor of R x C float32 randn, R * C * 4 bytes over
 * five 1 MiB zstd-planes chunks (rows of 2800 bytes straddle chunk ends). */
enum { SLICE_R = 1500, SLICE_C = 700 };

static void save_rows(const char* path, tsr_compression compression) {
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  tsr_tensor *t[2] = {NULL, NULL};
  TSR_ASSERT_OK(tsr_randn(2, (const int64_t[]){SLICE_R, SLICE_C}, TSR_FLOAT32, g, &t[0]));
  TSR_ASSERT_OK(tsr_ones(0, NULL, TSR_FLOAT32, TSR_CPU, &t[1]));
  tsr_generator_release(g);
  const char* names[] = {"rows", "a_scalar"};
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = compression;
  TSR_ASSERT_OK(tsr_save(path, 2, names, t, &o));
  tsr_tensor_release(t[0]);
  tsr_tensor_release(t[1]);
}

/* Slice [start, stop) of tensor `name` equals rows [start, stop) of the
 * whole tensor; returns the slice (one reference). */
static tsr_tensor* check_slice(tsr_file* f, const char* name, int64_t start, int64_t stop) {
  const int64_t i = tsr_file_find(f, name);
  cr_assert_geq(i, 0);
  tsr_tensor *whole = NULL, *rows = NULL, *s = NULL;
  TSR_ASSERT_OK(tsr_file_get(f, i, &whole));
  TSR_ASSERT_OK(tsr_narrow(whole, 0, start, stop - start, &rows));
  TSR_ASSERT_OK(tsr_file_get_slice(f, i, start, stop, &s));
  cr_assert_eq(tsr_tensor_sizes(s)[0], stop - start);
  assert_same(s, rows);
  tsr_tensor_release(rows);
  tsr_tensor_release(whole);
  return s;
}

static const int64_t kSlices[][2] = {{0, SLICE_R}, {0, 0},    {SLICE_R, SLICE_R}, {1, 2},
                                     {374, 1203},  {0, 375},  {1497, 1499},       {SLICE_R - 1, SLICE_R}};

Test(open_file, slice_rows_equal_the_whole_tensors_rows) {
  const tsr_compression modes[] = {TSR_COMPRESSION_NONE, TSR_COMPRESSION_ZSTD,
                                   TSR_COMPRESSION_ZSTD_PLANES};
  for (int m = 0; m < 3; ++m) {
    TMP(path, "slice.safetensors");
    save_rows(path, modes[m]);
    tsr_file* f = NULL;
    TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
    for (size_t k = 0; k < sizeof kSlices / sizeof kSlices[0]; ++k) {
      tsr_tensor* s = check_slice(f, "rows", kSlices[k][0], kSlices[k][1]);
      cr_assert_eq(tsr_tensor_ndim(s), 2);
      cr_assert_eq(tsr_tensor_sizes(s)[1], SLICE_C);
      if (modes[m] == TSR_COMPRESSION_NONE && kSlices[k][1] > kSlices[k][0]) {
        /* A view of the mapping, read-only like tsr_file_get's. */
        TSR_ASSERT_FAILS(tsr_fill_(s, 1.0), TSR_ERR_INVALID_ARGUMENT, "read-only view");
      } else if (modes[m] != TSR_COMPRESSION_NONE) {
        TSR_ASSERT_OK(tsr_fill_(s, 1.0)); /* a new tensor: writable */
      }
      tsr_tensor_release(s);
    }
    tsr_file_release(f);
    /* The sample's small tensors: a [2, 3] float32, a bool, an empty one. */
    save_sample(path, modes[m]);
    TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
    tsr_tensor_release(check_slice(f, "weight", 1, 2));
    tsr_tensor_release(check_slice(f, "mask", 0, 3));
    tsr_tensor_release(check_slice(f, "steps", 1, 3));
    tsr_tensor_release(check_slice(f, "empty", 0, 0));
    tsr_file_release(f);
    unlink(path);
  }
}

/* A slice of a zstd-planes tensor reads only the chunks holding its rows:
 * with the last chunk damaged, rows in the others still read, the whole
 * tensor and rows in that chunk fail naming it. */
Test(open_file, slice_reads_only_its_chunks) {
  TMP(path, "slice_chunks.safetensors");
  save_rows(path, TSR_COMPRESSION_ZSTD_PLANES);
  FILE* fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  /* 1500 x 700 x 4 = 4,200,000 bytes: chunks 0-3 of 1 MiB, chunk 4 of
   * 5,696 bytes (rows 1498 and 1499 only). "a_scalar" (4 bytes) is written
   * first (the reference writer orders by name), so the file ends with
   * "rows": chunk 4, the index (5 x 16 bytes), the 24-byte footer. */
  cr_assert_eq(fseek(fp, -(5 * 16 + 24 + 100), SEEK_END), 0);
  int c = fgetc(fp);
  cr_assert_eq(fseek(fp, -(5 * 16 + 24 + 100), SEEK_END), 0);
  fputc(c ^ 0x01, fp);
  fclose(fp);
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  const int64_t i = tsr_file_find(f, "rows");
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_file_get(f, i, &t), TSR_ERR_CORRUPT_FILE,
                   "tensor \"rows\": chunk 4 (tensor bytes 4194304 to 4200000");
  TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, 1499, 1500, &t), TSR_ERR_CORRUPT_FILE,
                   "tensor \"rows\": chunk 4 (tensor bytes 4194304 to 4200000");
  /* Row 1497 straddles chunks 3 and 4. */
  TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, 1497, 1498, &t), TSR_ERR_CORRUPT_FILE, "chunk 4");
  cr_assert_eq(t, SENTINEL);
  TSR_ASSERT_OK(tsr_file_get_slice(f, i, 0, 1497, &t));
  cr_assert_eq(tsr_tensor_sizes(t)[0], 1497);
  tsr_tensor_release(t);
  tsr_file_release(f);
  unlink(path);
}

Test(open_file, slice_errors_change_nothing) {
  const tsr_compression modes[] = {TSR_COMPRESSION_NONE, TSR_COMPRESSION_ZSTD_PLANES};
  for (int m = 0; m < 2; ++m) {
    TMP(path, "slice_errors.safetensors");
    save_rows(path, modes[m]);
    tsr_file* f = NULL;
    TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
    const int64_t i = tsr_file_find(f, "rows"), s0 = tsr_file_find(f, "a_scalar");
    tsr_tensor* t = SENTINEL;
    TSR_ASSERT_FAILS(tsr_file_get_slice(NULL, i, 0, 1, &t), TSR_ERR_INVALID_ARGUMENT, "file is NULL");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, 0, 1, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, 2, 0, 1, &t), TSR_ERR_INDEX_OUT_OF_RANGE,
                     "tensor index 2 is out of range for 2 entries");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, -1, 0, 1, &t), TSR_ERR_INDEX_OUT_OF_RANGE, "out of range");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, s0, 0, 0, &t), TSR_ERR_INVALID_ARGUMENT,
                     "rows [0, 0) of tensor \"a_scalar\": the tensor is 0-dim, it has no rows");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, -1, 2, &t), TSR_ERR_INVALID_ARGUMENT,
                     "rows [-1, 2) of tensor \"rows\": start and stop must not be negative");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, 0, -2, &t), TSR_ERR_INVALID_ARGUMENT,
                     "rows [0, -2) of tensor \"rows\": start and stop must not be negative");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, 5, 4, &t), TSR_ERR_INVALID_ARGUMENT,
                     "rows [5, 4) of tensor \"rows\": start is after stop");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, 0, SLICE_R + 1, &t), TSR_ERR_INVALID_ARGUMENT,
                     "rows [0, 1501) of tensor \"rows\": stop exceeds the 1500 rows of dim 0");
    TSR_ASSERT_FAILS(tsr_file_get_slice(f, i, SLICE_R + 1, SLICE_R + 2, &t),
                     TSR_ERR_INVALID_ARGUMENT, "stop exceeds the 1500 rows");
    cr_assert_eq(t, SENTINEL);
    tsr_file_release(f);
    unlink(path);
  }
}

/* Tensors saved as views of one storage (a weight and its transpose): a
 * slice of either is rows of the view tsr_file_get gives, in both modes. */
Test(open_file, slice_of_views) {
  const tsr_compression modes[] = {TSR_COMPRESSION_NONE, TSR_COMPRESSION_ZSTD_PLANES};
  for (int m = 0; m < 2; ++m) {
    TMP(path, "slice_views.safetensors");
    tsr_tensor *r = NULL, *w = NULL, *t[2];
    TSR_ASSERT_OK(tsr_arange(0, 12, 1, TSR_FLOAT32, TSR_CPU, &r));
    TSR_ASSERT_OK(tsr_reshape(r, 2, (const int64_t[]){4, 3}, &w));
    t[0] = w;
    TSR_ASSERT_OK(tsr_transpose(w, 0, 1, &t[1]));
    tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
    o.compression = modes[m];
    TSR_ASSERT_OK(tsr_save(path, 2, (const char*[]){"w", "wt"}, t, &o));
    tsr_file* f = NULL;
    TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
    tsr_tensor_release(check_slice(f, "w", 1, 3));
    tsr_tensor* s = check_slice(f, "wt", 1, 3);
    cr_assert_eq(tsr_tensor_sizes(s)[1], 4);
    tsr_tensor_release(s);
    tsr_file_release(f);
    tsr_tensor_release(t[1]);
    tsr_tensor_release(w);
    tsr_tensor_release(r);
    unlink(path);
  }
}
