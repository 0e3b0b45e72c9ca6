/* Save/load (io.h): round trips of every dtype and layout in both modes,
 * byte-exact agreement with the safetensors reference writer, the
 * atomic-replace guarantee, one test per corrupt-file rule, truncation at
 * every byte, and interop with an independent Python reader (and torch). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* ---- helpers ---------------------------------------------------------------- */

/* A path in the test binary directory, unique to this test process
 * (Criterion runs each test in its own process). */
static const char* tmp_path(char* buf, size_t cap, const char* leaf) {
  snprintf(buf, cap, "%s/io_%d_%s", TSR_TEST_TMP_DIR, (int)getpid(), leaf);
  return buf;
}
#define TMP(var, leaf) \
  char var[512];       \
  tmp_path(var, sizeof var, leaf)

static void write_bytes(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
  if (n) cr_assert_eq(fwrite(data, 1, n, f), n);
  cr_assert_eq(fclose(f), 0);
}

/* Whole file, malloc'ed (caller frees); *n its size. */
static unsigned char* read_bytes(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* p = malloc((size_t)len + 1);
  cr_assert_eq(fread(p, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return p;
}

static void assert_file_equals(const char* path, const void* data, size_t n) {
  size_t got;
  unsigned char* p = read_bytes(path, &got);
  cr_assert_eq(got, n, "%s is %zu bytes, expected %zu", path, got, n);
  cr_assert(memcmp(p, data, n) == 0, "%s differs from the expected bytes", path);
  free(p);
}

/* A file: 8-byte little-endian length n, hl header bytes, data bytes. */
static void craft_raw(const char* path, uint64_t n, const char* header, size_t hl,
                      const void* data, size_t ndata) {
  unsigned char* buf = malloc(8 + hl + ndata + 1);
  for (int i = 0; i < 8; ++i) buf[i] = (unsigned char)(n >> (8 * i));
  memcpy(buf + 8, header, hl);
  if (ndata) memcpy(buf + 8 + hl, data, ndata);
  write_bytes(path, buf, 8 + hl + ndata);
  free(buf);
}
static void craft_n(const char* path, uint64_t n, const char* header, const void* data,
                    size_t ndata) {
  craft_raw(path, n, header, strlen(header), data, ndata);
}
static void craft(const char* path, const char* header, const void* data, size_t ndata) {
  craft_n(path, strlen(header), header, data, ndata);
}

/* Loading path fails with status and a message containing needle; the out
 * parameter is untouched. */
static void expect_load_fails(const char* path, tsr_status status, const char* needle) {
  tsr_tensor_map* sentinel = (tsr_tensor_map*)(uintptr_t)0x1234;
  tsr_tensor_map* m = sentinel;
  TSR_ASSERT_FAILS(tsr_load(path, NULL, &m), status, needle);
  cr_assert_eq(m, sentinel, "out parameter written on failure");
}
static void expect_corrupt(const char* path, const char* needle) {
  expect_load_fails(path, TSR_ERR_CORRUPT_FILE, needle);
}

/* C-order bytes of t, malloc'ed. */
static unsigned char* c_bytes(const tsr_tensor* t, size_t* n) {
  size_t need = (size_t)tsr_tensor_nbytes(t);
  unsigned char* p = malloc(need + 1);
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, p, need, NULL));
  *n = need;
  return p;
}

/* a and b have the same dtype, sizes and C-order bytes; b is contiguous. */
static void assert_same(const tsr_tensor* a, const tsr_tensor* b) {
  cr_assert_eq(tsr_tensor_dtype(a), tsr_tensor_dtype(b), "dtype %s vs %s",
               tsr_dtype_name(tsr_tensor_dtype(a)), tsr_dtype_name(tsr_tensor_dtype(b)));
  tsr_assert_geometry(b, tsr_tensor_ndim(a), tsr_tensor_sizes(a), NULL);
  bool contig = false;
  TSR_ASSERT_OK(tsr_is_contiguous(b, TSR_CONTIGUOUS_FORMAT, &contig));
  cr_assert(contig, "loaded tensor is not contiguous");
  size_t na, nb;
  unsigned char* pa = c_bytes(a, &na);
  unsigned char* pb = c_bytes(b, &nb);
  cr_assert_eq(na, nb);
  cr_assert(na == 0 || memcmp(pa, pb, na) == 0, "contents differ");
  /* Loaded data is the tensor's own memory, in C order. */
  cr_assert(nb == 0 || memcmp(tsr_tensor_data_ptr(b), pb, nb) == 0);
  free(pa);
  free(pb);
}

static tsr_tensor* get(const tsr_tensor_map* m, const char* name) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, name, &t));
  return t;
}

/* Saves n tensors with opts, loads them back, checks names and contents. */
static void roundtrip(int n, const char* const* names, tsr_tensor* const* ts,
                      const tsr_save_options* opts) {
  TMP(path, "roundtrip.safetensors");
  TSR_ASSERT_OK(tsr_save(path, n, names, ts, opts));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), n);
  for (int i = 0; i < n; ++i) {
    tsr_tensor* t = get(m, names[i]);
    assert_same(ts[i], t);
    tsr_tensor_release(t);
  }
  tsr_tensor_map_release(m);
  unlink(path);
}

static const tsr_dtype kAllDtypes[] = {TSR_BOOL,    TSR_UINT8,   TSR_INT8,    TSR_INT16,
                                       TSR_INT32,   TSR_INT64,   TSR_FLOAT16, TSR_BFLOAT16,
                                       TSR_FLOAT32, TSR_FLOAT64, TSR_UINT16,  TSR_UINT32,
                                       TSR_UINT64,  TSR_FLOAT8_E4M3FN, TSR_FLOAT8_E5M2};
#define N_DTYPES ((int)(sizeof kAllDtypes / sizeof kAllDtypes[0]))

/* A [3, 4] tensor of dtype with varied values; floats also hold NaN, inf
 * and -0.0. */
static tsr_tensor* sample(tsr_dtype dtype) {
  tsr_tensor *r = NULL, *c = NULL, *t = NULL;
  TSR_ASSERT_OK(tsr_arange(-7.5, 7.5, 1.25, TSR_FLOAT64, TSR_CPU, &r)); /* 12 values */
  TSR_ASSERT_OK(tsr_to_dtype(r, dtype == TSR_BOOL ? TSR_FLOAT32 : dtype, &c));
  int64_t sizes[2] = {3, 4};
  TSR_ASSERT_OK(tsr_reshape(c, 2, sizes, &t));
  tsr_tensor_release(r);
  tsr_tensor_release(c);
  if (dtype == TSR_BOOL) { /* alternate 0/1 */
    tsr_tensor* b = NULL;
    TSR_ASSERT_OK(tsr_zeros(2, sizes, TSR_BOOL, TSR_CPU, &b));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) TSR_ASSERT_OK(tsr_set_int64(b, 2, (int64_t[]){i, j}, (i + j) % 2));
    tsr_tensor_release(t);
    return b;
  }
  if (dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16 || dtype == TSR_FLOAT32 ||
      dtype == TSR_FLOAT64 || dtype == TSR_FLOAT8_E4M3FN || dtype == TSR_FLOAT8_E5M2) {
    TSR_ASSERT_OK(tsr_set_double(t, 2, (int64_t[]){0, 1}, NAN));
    TSR_ASSERT_OK(tsr_set_double(t, 2, (int64_t[]){1, 2}, INFINITY));
    TSR_ASSERT_OK(tsr_set_double(t, 2, (int64_t[]){2, 3}, -0.0));
  }
  return t;
}

static const tsr_save_options kZstd = {sizeof(tsr_save_options), TSR_COMPRESSION_ZSTD, 0, 0,
                                       NULL, NULL};
static const tsr_save_options kPlanes = {sizeof(tsr_save_options), TSR_COMPRESSION_ZSTD_PLANES,
                                         0, 0, NULL, NULL};

/* ---- ABI -------------------------------------------------------------------- */

Test(io, compression_values_are_pinned) {
  cr_assert_eq(TSR_COMPRESSION_NONE, 0);
  cr_assert_eq(TSR_COMPRESSION_ZSTD, 1);
  cr_assert_eq(TSR_COMPRESSION_ZSTD_PLANES, 2);
  tsr_save_options s = TSR_SAVE_OPTIONS_INIT;
  cr_assert_eq(s.struct_size, sizeof(tsr_save_options));
  cr_assert_eq(s.compression, TSR_COMPRESSION_NONE);
  tsr_load_options l = TSR_LOAD_OPTIONS_INIT;
  cr_assert_eq(l.struct_size, sizeof(tsr_load_options));
  cr_assert_eq(l.max_bytes, 0);
}

/* ---- byte-exact agreement with the reference writer ---------------------------- */

/* Expected bytes are from huggingface/safetensors safetensors/src/tensor.rs,
 * tests test_serialization, test_serialization_forced_alignement, test_empty. */
static const unsigned char kRefAttn[] = {
    64,  0,   0,   0,   0,   0,   0,   0,   123, 34,  97,  116, 116, 110, 46,  48,  34,
    58,  123, 34,  100, 116, 121, 112, 101, 34,  58,  34,  70,  51,  50,  34,  44,  34,
    115, 104, 97,  112, 101, 34,  58,  91,  49,  44,  50,  44,  51,  93,  44,  34,  100,
    97,  116, 97,  95,  111, 102, 102, 115, 101, 116, 115, 34,  58,  91,  48,  44,  50,
    52,  93,  125, 125, 0,   0,   0,   0,   0,   0,   128, 63,  0,   0,   0,   64,  0,
    0,   64,  64,  0,   0,   128, 64,  0,   0,   160, 64};
static const unsigned char kRefAligned[] = {
    72,  0,   0,   0,   0,   0,   0,   0,   123, 34,  97,  116, 116, 110, 48,  34,  58,
    123, 34,  100, 116, 121, 112, 101, 34,  58,  34,  70,  51,  50,  34,  44,  34,  115,
    104, 97,  112, 101, 34,  58,  91,  49,  44,  49,  44,  50,  44,  51,  93,  44,  34,
    100, 97,  116, 97,  95,  111, 102, 102, 115, 101, 116, 115, 34,  58,  91,  48,  44,
    50,  52,  93,  125, 125, 32,  32,  32,  32,  32,  32,  32,  0,   0,   0,   0,   0,
    0,   128, 63,  0,   0,   0,   64,  0,   0,   64,  64,  0,   0,   128, 64,  0,   0,
    160, 64};
static const unsigned char kRefEmpty[] = {8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32};
static const unsigned char kRefEmptyMeta[] = {
    40,  0,   0,   0,   0,   0,   0,   0,   123, 34, 95, 95, 109, 101, 116, 97, 100,
    97,  116, 97,  95,  95,  34,  58,  123, 34, 102, 114, 97, 109, 101, 119, 111, 114,
    107, 34,  58,  34,  112, 116, 34,  125, 125, 32, 32, 32, 32, 32};

/* Without its checksum entry (skip_checksums), a plain file is what the
 * reference writer makes of the same tensors and metadata, byte for byte. */
Test(io, plain_file_is_byte_identical_to_reference_writer) {
  TMP(path, "ref.safetensors");
  float v[6] = {0, 1, 2, 3, 4, 5};
  tsr_tensor* t = NULL;
  tsr_save_options unchecked = TSR_SAVE_OPTIONS_INIT;
  unchecked.skip_checksums = 1;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 3, (int64_t[]){1, 2, 3}, TSR_FLOAT32, &t));
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"attn.0"}, &t, &unchecked));
  assert_file_equals(path, kRefAttn, sizeof kRefAttn);
  tsr_tensor_release(t);

  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 4, (int64_t[]){1, 1, 2, 3}, TSR_FLOAT32, &t));
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"attn0"}, &t, &unchecked));
  assert_file_equals(path, kRefAligned, sizeof kRefAligned);
  tsr_tensor_release(t);

  TSR_ASSERT_OK(tsr_save(path, 0, NULL, NULL, &unchecked));
  assert_file_equals(path, kRefEmpty, sizeof kRefEmpty);

  tsr_save_options o = unchecked;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"framework"};
  o.metadata_values = (const char*[]){"pt"};
  TSR_ASSERT_OK(tsr_save(path, 0, NULL, NULL, &o));
  assert_file_equals(path, kRefEmptyMeta, sizeof kRefEmptyMeta);
  unlink(path);
}

Test(io, reference_files_load) {
  TMP(path, "ref.safetensors");
  write_bytes(path, kRefAttn, sizeof kRefAttn);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 1);
  cr_assert_str_eq(tsr_tensor_map_name(m, 0), "attn.0");
  tsr_tensor* t = get(m, "attn.0");
  tsr_assert_geometry(t, 3, (int64_t[]){1, 2, 3}, (int64_t[]){6, 3, 1});
  cr_assert_eq(tsr_tensor_dtype(t), TSR_FLOAT32);
  for (int i = 0; i < 6; ++i) cr_assert_eq(((float*)tsr_tensor_data_ptr(t))[i], (float)i);
  tsr_tensor_release(t);
  tsr_tensor_map_release(m);

  write_bytes(path, kRefEmptyMeta, sizeof kRefEmptyMeta);
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 0);
  cr_assert_eq(tsr_tensor_map_metadata_count(m), 1);
  cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "framework"), "pt");
  tsr_tensor_map_release(m);
  unlink(path);
}

/* A header without alignment padding (other writers) loads too: the reader
 * requires no alignment, like the reference's. */
Test(io, unpadded_header_loads) {
  TMP(path, "unpadded.safetensors");
  int16_t v[3] = {-1, 2, 300};
  craft(path, "{\"x\":{\"dtype\":\"I16\",\"shape\":[3],\"data_offsets\":[0,6]}}", v, sizeof v);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  tsr_tensor* t = get(m, "x");
  cr_assert_eq(memcmp(tsr_tensor_data_ptr(t), v, sizeof v), 0);
  tsr_tensor_release(t);
  tsr_tensor_map_release(m);
  unlink(path);
}

/* ---- round trips ------------------------------------------------------------- */

static void roundtrip_every_dtype(const tsr_save_options* opts) {
  tsr_tensor* ts[N_DTYPES];
  const char* names[N_DTYPES];
  for (int i = 0; i < N_DTYPES; ++i) {
    ts[i] = sample(kAllDtypes[i]);
    names[i] = tsr_dtype_name(kAllDtypes[i]);
  }
  roundtrip(N_DTYPES, names, ts, opts);
  for (int i = 0; i < N_DTYPES; ++i) tsr_tensor_release(ts[i]);
}
Test(io, every_dtype_roundtrips_plain) { roundtrip_every_dtype(NULL); }
Test(io, every_dtype_roundtrips_zstd) { roundtrip_every_dtype(&kZstd); }
Test(io, every_dtype_roundtrips_zstd_planes) { roundtrip_every_dtype(&kPlanes); }

static void roundtrip_scalars_and_empties(const tsr_save_options* opts) {
  tsr_tensor* ts[5];
  TSR_ASSERT_OK(tsr_full(0, NULL, 3.25, TSR_FLOAT32, TSR_CPU, &ts[0]));
  TSR_ASSERT_OK(tsr_full(0, NULL, 1, TSR_BOOL, TSR_CPU, &ts[1]));
  TSR_ASSERT_OK(tsr_empty(1, (int64_t[]){0}, TSR_BFLOAT16, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &ts[2]));
  TSR_ASSERT_OK(tsr_empty(3, (int64_t[]){2, 0, 3}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &ts[3]));
  TSR_ASSERT_OK(tsr_empty(1, (int64_t[]){0}, TSR_FLOAT16, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &ts[4]));
  const char* names[5] = {"scalar", "flag", "none", "none3d", "also_none"};
  roundtrip(5, names, ts, opts);
  for (int i = 0; i < 5; ++i) tsr_tensor_release(ts[i]);
}
Test(io, scalars_and_empty_tensors_roundtrip_plain) { roundtrip_scalars_and_empties(NULL); }
Test(io, scalars_and_empty_tensors_roundtrip_zstd) { roundtrip_scalars_and_empties(&kZstd); }
Test(io, scalars_and_empty_tensors_roundtrip_zstd_planes) {
  roundtrip_scalars_and_empties(&kPlanes);
}

/* Non-contiguous inputs are saved as their C-order contents. The expected
 * bytes are computed here by hand, independently of tessera's copy kernel,
 * and include signalling-NaN payloads that a value conversion could alter.
 * The views of `base` share its storage, which a save by default keeps
 * (tests/test_saver.c, "views"); flatten_views asks for each tensor's own
 * contents, what this test checks. */
static void roundtrip_strided(const tsr_save_options* given) {
  tsr_save_options flat = given ? *given : (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  flat.flatten_views = 1;
  const tsr_save_options* opts = &flat;
  enum { R = 5, C = 7 };
  uint32_t bits[R * C];
  for (uint32_t i = 0; i < R * C; ++i) bits[i] = 0x3f800000u + i * 0x1234u;
  bits[3] = 0x7f800001u;  /* signalling NaN */
  bits[8] = 0xffc00123u;  /* quiet NaN with payload */
  tsr_tensor *base = NULL, *tr = NULL, *sl = NULL, *nar = NULL, *ex = NULL, *b16 = NULL,
             *b16t = NULL;
  TSR_ASSERT_OK(tsr_from_data(bits, sizeof bits, 2, (int64_t[]){R, C}, TSR_FLOAT32, &base));
  TSR_ASSERT_OK(tsr_transpose(base, 0, 1, &tr));                  /* [C, R], strides (1, C) */
  TSR_ASSERT_OK(tsr_slice(base, 1, 1, INT64_MAX, 3, &sl));         /* [R, 2], cols 1 and 4 */
  TSR_ASSERT_OK(tsr_narrow(base, 0, 2, 2, &nar));                  /* offset 2*C, contiguous */
  tsr_tensor* row = NULL;
  TSR_ASSERT_OK(tsr_slice(base, 0, 1, 2, 1, &row));                /* [1, C]: row 1 */
  TSR_ASSERT_OK(tsr_expand(row, 2, (int64_t[]){3, C}, &ex));       /* stride 0 on dim 0 */
  tsr_tensor_release(row);
  TSR_ASSERT_OK(tsr_to_dtype(base, TSR_BFLOAT16, &b16));
  TSR_ASSERT_OK(tsr_transpose(b16, 0, 1, &b16t));
  cr_assert_gt(tsr_tensor_storage_offset(nar), 0);

  tsr_tensor* ts[5] = {tr, sl, nar, ex, b16t};
  const char* names[5] = {"transposed", "sliced", "narrowed", "expanded", "bf16_transposed"};
  TMP(path, "strided.safetensors");
  TSR_ASSERT_OK(tsr_save(path, 5, names, ts, opts));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));

  tsr_tensor* t = get(m, "transposed");
  tsr_assert_geometry(t, 2, (int64_t[]){C, R}, (int64_t[]){R, 1});
  const uint32_t* got = tsr_tensor_data_ptr(t);
  for (int j = 0; j < C; ++j)
    for (int i = 0; i < R; ++i)
      cr_assert_eq(got[j * R + i], bits[i * C + j], "transposed[%d][%d]: %08x vs %08x", j, i,
                   got[j * R + i], bits[i * C + j]);
  tsr_tensor_release(t);

  t = get(m, "sliced");
  tsr_assert_geometry(t, 2, (int64_t[]){R, 2}, (int64_t[]){2, 1});
  got = tsr_tensor_data_ptr(t);
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < 2; ++k) cr_assert_eq(got[i * 2 + k], bits[i * C + 1 + 3 * k]);
  tsr_tensor_release(t);

  t = get(m, "narrowed");
  cr_assert_eq(memcmp(tsr_tensor_data_ptr(t), bits + 2 * C, 2 * C * 4), 0);
  tsr_tensor_release(t);

  t = get(m, "expanded");
  got = tsr_tensor_data_ptr(t);
  for (int r = 0; r < 3; ++r) cr_assert_eq(memcmp(got + r * C, bits + C, C * 4), 0);
  tsr_tensor_release(t);

  t = get(m, "bf16_transposed");
  assert_same(b16t, t);
  tsr_tensor_release(t);

  tsr_tensor_map_release(m);
  unlink(path);
  for (int i = 0; i < 5; ++i) tsr_tensor_release(ts[i]);
  tsr_tensor_release(base);
  tsr_tensor_release(b16);
}
Test(io, non_contiguous_inputs_roundtrip_plain) { roundtrip_strided(NULL); }
Test(io, non_contiguous_inputs_roundtrip_zstd) { roundtrip_strided(&kZstd); }
Test(io, non_contiguous_inputs_roundtrip_zstd_planes) { roundtrip_strided(&kPlanes); }

/* A larger compressible tensor (several zstd blocks) at a non-default
 * level, with user metadata. */
Test(io, large_tensor_zstd_with_metadata) {
  tsr_tensor *r = NULL, *t = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 300000, 1, TSR_INT32, TSR_CPU, &r));
  int64_t sizes[2] = {600, 500};
  TSR_ASSERT_OK(tsr_reshape(r, 2, sizes, &t));
  tsr_save_options o = kZstd;
  o.level = 9;
  o.n_metadata = 2;
  o.metadata_keys = (const char*[]){"step", "note"};
  o.metadata_values = (const char*[]){"1200", "caf\xc3\xa9 \"quoted\"\n"};
  TMP(path, "big.safetensors");
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"w"}, &t, &o));
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  /* Counting int32s share their high bytes: zstd saves about a third. */
  cr_assert_lt(st.st_size, 1200000 * 3 / 4, "compressed file is %lld bytes", (long long)st.st_size);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  tsr_tensor* w = get(m, "w");
  assert_same(t, w);
  cr_assert_eq(tsr_tensor_map_metadata_count(m), 3);
  /* sorted by key */
  cr_assert_str_eq(tsr_tensor_map_metadata_key(m, 0), "note");
  cr_assert_str_eq(tsr_tensor_map_metadata_value(m, 0), "caf\xc3\xa9 \"quoted\"\n");
  cr_assert_str_eq(tsr_tensor_map_metadata_key(m, 1), "step");
  cr_assert_str_eq(tsr_tensor_map_metadata_key(m, 2), "tessera.compression");
  cr_assert_str_eq(tsr_tensor_map_metadata_value(m, 2), "zstd");
  cr_assert_null(tsr_tensor_map_metadata_get(m, "absent"));
  tsr_tensor_release(w);
  tsr_tensor_map_release(m);
  tsr_tensor_release(t);
  tsr_tensor_release(r);
  unlink(path);
}

/* ---- the tensor map ------------------------------------------------------------ */

Test(io, map_order_lookup_and_references) {
  tsr_tensor *a = NULL, *b = NULL, *c = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){2}, 1, TSR_UINT8, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){2}, 2, TSR_FLOAT64, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){2}, 3, TSR_FLOAT64, TSR_CPU, &c));
  TMP(path, "map.safetensors");
  TSR_ASSERT_OK(tsr_save(path, 3, (const char*[]){"u8", "zeta", "alpha"},
                         (tsr_tensor*[]){a, b, c}, NULL));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  /* File order: F64 before U8 (reference: larger alignment first), then name. */
  cr_assert_eq(tsr_tensor_map_count(m), 3);
  cr_assert_str_eq(tsr_tensor_map_name(m, 0), "alpha");
  cr_assert_str_eq(tsr_tensor_map_name(m, 1), "zeta");
  cr_assert_str_eq(tsr_tensor_map_name(m, 2), "u8");
  cr_assert_eq(tsr_tensor_map_find(m, "zeta"), 1);
  cr_assert_eq(tsr_tensor_map_find(m, "nope"), -1);

  tsr_tensor *t1 = NULL, *t2 = NULL;
  TSR_ASSERT_OK(tsr_tensor_map_get(m, 2, &t1));
  cr_assert_eq(tsr_tensor_dtype(t1), TSR_UINT8);
  /* Handles share the map's tensor, like a state_dict's entries. */
  TSR_ASSERT_OK(tsr_set_int64(t1, 1, (int64_t[]){0}, 9));
  TSR_ASSERT_OK(tsr_tensor_map_get(m, 2, &t2));
  int64_t v = 0;
  TSR_ASSERT_OK(tsr_get_int64(t2, 1, (int64_t[]){0}, &v));
  cr_assert_eq(v, 9);

  /* A retained map outlives one release; tensors outlive the map. */
  tsr_tensor_map_retain(m);
  tsr_tensor_map_release(m);
  cr_assert_eq(tsr_tensor_map_count(m), 3);
  tsr_tensor_map_release(m);
  TSR_ASSERT_OK(tsr_get_int64(t1, 1, (int64_t[]){1}, &v));
  cr_assert_eq(v, 1);
  tsr_tensor_release(t1);
  tsr_tensor_release(t2);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
  unlink(path);
}

Test(io, map_errors) {
  tsr_tensor* a = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_INT8, TSR_CPU, &a));
  TMP(path, "maperr.safetensors");
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"a"}, &a, NULL));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  tsr_tensor* sentinel = (tsr_tensor*)(uintptr_t)0x99;
  tsr_tensor* out = sentinel;
  TSR_ASSERT_FAILS(tsr_tensor_map_get(m, 1, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "tensor index 1 is out of range for 1 entries");
  TSR_ASSERT_FAILS(tsr_tensor_map_get(m, -1, &out), TSR_ERR_INDEX_OUT_OF_RANGE, "index -1");
  TSR_ASSERT_FAILS(tsr_tensor_map_get_by_name(m, "b", &out), TSR_ERR_INVALID_ARGUMENT,
                   "no tensor named \"b\" in the map (1 tensors)");
  TSR_ASSERT_FAILS(tsr_tensor_map_get_by_name(m, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "name is NULL");
  TSR_ASSERT_FAILS(tsr_tensor_map_get(NULL, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "tensor map is NULL");
  cr_assert_eq(out, sentinel);
  TSR_ASSERT_FAILS(tsr_tensor_map_get(m, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");

  tsr_clear_last_error();
  cr_assert_null(tsr_tensor_map_name(m, 5));
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INDEX_OUT_OF_RANGE);
  cr_assert_eq(tsr_tensor_map_count(NULL), -1);
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(tsr_tensor_map_metadata_count(NULL), -1);
  cr_assert_null(tsr_tensor_map_metadata_key(m, 0));
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INDEX_OUT_OF_RANGE);
  cr_assert_null(tsr_tensor_map_metadata_value(m, -1));
  tsr_clear_last_error();
  cr_assert_eq(tsr_tensor_map_find(m, "zz"), -1);
  cr_assert_eq(tsr_last_error_code(), TSR_OK, "a miss is not an error");
  cr_assert_null(tsr_tensor_map_metadata_get(m, "zz"));
  cr_assert_eq(tsr_last_error_code(), TSR_OK);
  cr_assert_eq(tsr_tensor_map_find(m, NULL), -1);
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT);
  cr_assert_null(tsr_tensor_map_metadata_get(NULL, "k"));
  tsr_tensor_map_release(NULL);
  tsr_tensor_map_retain(NULL);
  tsr_tensor_map_release(m);
  tsr_tensor_release(a);
  unlink(path);
}

/* ---- save argument errors: status, message, nothing written ------------------- */

/* Saving fails with status/needle and leaves the existing file unchanged. */
static void expect_save_fails(int64_t n, const char* const* names, tsr_tensor* const* ts,
                              const tsr_save_options* opts, tsr_status status,
                              const char* needle) {
  TMP(path, "keep.safetensors");
  static const char kOld[] = "previous contents";
  write_bytes(path, kOld, sizeof kOld);
  TSR_ASSERT_FAILS(tsr_save(path, n, names, ts, opts), status, needle);
  assert_file_equals(path, kOld, sizeof kOld);
  unlink(path);
}

/* No file named like our temporaries is left in dir. */
static void assert_no_temporaries(const char* dir) {
  DIR* d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent* e;
  while ((e = readdir(d)) != NULL)
    cr_assert_null(strstr(e->d_name, ".tmp."), "temporary file %s left in %s", e->d_name, dir);
  closedir(d);
}

Test(io, save_rejects_bad_arguments) {
  tsr_tensor *a = NULL, *b = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_ones(1, (int64_t[]){3}, TSR_FLOAT32, TSR_CPU, &b));
  tsr_tensor* ab[2] = {a, b};
  TSR_ASSERT_FAILS(tsr_save(NULL, 1, (const char*[]){"a"}, ab, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "path is NULL");
  expect_save_fails(-1, NULL, NULL, NULL, TSR_ERR_INVALID_ARGUMENT, "number of tensors is -1");
  expect_save_fails(1, NULL, ab, NULL, TSR_ERR_INVALID_ARGUMENT, "names is NULL");
  expect_save_fails(1, (const char*[]){"a"}, NULL, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "tensors is NULL");
  expect_save_fails(2, (const char*[]){"a", NULL}, ab, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "names[1] is NULL");
  expect_save_fails(2, (const char*[]){"a", "b"}, (tsr_tensor*[]){a, NULL}, NULL,
                    TSR_ERR_INVALID_ARGUMENT, "tensors[1] is NULL");
  expect_save_fails(2, (const char*[]){"w", "w"}, ab, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "duplicate tensor name \"w\"");
  expect_save_fails(2, (const char*[]){"a", ""}, ab, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "tensor names must not be empty");
  expect_save_fails(1, (const char*[]){"__metadata__"}, ab, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "\"__metadata__\" is reserved");
  expect_save_fails(1, (const char*[]){"bad\xff"}, ab, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "tensor name is not valid UTF-8 (byte 3)");
  expect_save_fails(1, (const char*[]){"\xed\xa0\x80"}, ab, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "not valid UTF-8 (byte 0)"); /* a UTF-16 surrogate */

  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.struct_size = sizeof(size_t);
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "save options->struct_size is 8, expected at least");
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.compression = (tsr_compression)7;
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "unknown compression 7");
  o = kZstd;
  o.level = 23;
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "zstd level 23 outside [");
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.n_metadata = 2;
  o.metadata_keys = (const char*[]){"k", "k"};
  o.metadata_values = (const char*[]){"1", "2"};
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "duplicate metadata key \"k\"");
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"tessera.compression"};
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "reserved prefix \"tessera.\"");
  o.metadata_keys = (const char*[]){""};
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "metadata keys must not be empty");
  o.metadata_keys = (const char*[]){"k"};
  o.metadata_values = (const char*[]){NULL};
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "metadata entry 0 has a NULL value");
  o.metadata_values = (const char*[]){"\xc3"};
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "metadata value is not valid UTF-8");
  o.metadata_keys = NULL;
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "metadata_keys is NULL");
  o.n_metadata = -2;
  expect_save_fails(1, (const char*[]){"a"}, ab, &o, TSR_ERR_INVALID_ARGUMENT,
                    "n_metadata is -2");
  assert_no_temporaries(TSR_TEST_TMP_DIR);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* A bool tensor whose bytes are not 0/1 (possible via from_data) fails in
 * both modes, after the temporary was started: it must vanish. */
Test(io, save_rejects_bool_bytes_other_than_0_1) {
  unsigned char bytes[4] = {0, 1, 2, 1};
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_from_data(bytes, 4, 1, (int64_t[]){4}, TSR_BOOL, &t));
  expect_save_fails(1, (const char*[]){"m"}, &t, NULL, TSR_ERR_INVALID_ARGUMENT,
                    "bool tensor \"m\" holds byte 2 at element 2");
  expect_save_fails(1, (const char*[]){"m"}, &t, &kZstd, TSR_ERR_INVALID_ARGUMENT,
                    "bool tensor \"m\" holds byte 2 at element 2");
  assert_no_temporaries(TSR_TEST_TMP_DIR);
  tsr_tensor_release(t);
}

/* ---- atomic replacement ----------------------------------------------------------- */

Test(io, failed_save_to_missing_directory_is_io_error) {
  tsr_tensor* a = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &a));
  TMP(path, "no_such_dir/x.safetensors");
  TSR_ASSERT_FAILS(tsr_save(path, 1, (const char*[]){"a"}, &a, NULL), TSR_ERR_IO,
                   "No such file or directory");
  TSR_ASSERT_FAILS(tsr_save(path, 1, (const char*[]){"a"}, &a, NULL), TSR_ERR_IO,
                   "cannot create temporary file");
  tsr_tensor_release(a);
}

Test(io, save_onto_a_directory_fails_and_cleans_up) {
  tsr_tensor* a = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &a));
  TMP(dir, "dir_target");
  cr_assert_eq(mkdir(dir, 0755), 0);
  TSR_ASSERT_FAILS(tsr_save(dir, 1, (const char*[]){"a"}, &a, NULL), TSR_ERR_IO,
                   "it is a directory, not a regular file");
  struct stat st;
  cr_assert_eq(stat(dir, &st), 0);
  cr_assert(S_ISDIR(st.st_mode));
  assert_no_temporaries(TSR_TEST_TMP_DIR);
  rmdir(dir);
  tsr_tensor_release(a);
}

/* A save replaces its target by renaming a new regular file over it, which
 * would turn a FIFO or a device node (as root, /dev/null) into a file:
 * anything but a regular file (or a link to one) is refused, untouched. */
Test(io, save_refuses_fifos_and_device_nodes) {
  tsr_tensor* a = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &a));
  TMP(fifo, "save_fifo");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  TSR_ASSERT_FAILS(tsr_save(fifo, 1, (const char*[]){"a"}, &a, NULL), TSR_ERR_IO,
                   "it is a FIFO, not a regular file");
  struct stat st;
  cr_assert_eq(lstat(fifo, &st), 0);
  cr_assert(S_ISFIFO(st.st_mode));
  /* Through a symbolic link too. */
  TMP(link, "save_fifo_link");
  cr_assert_eq(symlink(fifo, link), 0);
  TSR_ASSERT_FAILS(tsr_save(link, 1, (const char*[]){"a"}, &a, NULL), TSR_ERR_IO, "it is a FIFO");
  unlink(link);
  unlink(fifo);
  /* A character device of our own (/dev/null's numbers), where we may make
   * one (root): never the real /dev/null, which a regression would replace. */
  TMP(dev, "save_null_device");
  if (mknod(dev, S_IFCHR | 0600, makedev(1, 3)) == 0) {
    TSR_ASSERT_FAILS(tsr_save(dev, 1, (const char*[]){"a"}, &a, NULL), TSR_ERR_IO,
                     "it is a character device, not a regular file");
    cr_assert_eq(lstat(dev, &st), 0);
    cr_assert(S_ISCHR(st.st_mode));
    unlink(dev);
  }
  assert_no_temporaries(TSR_TEST_TMP_DIR);
  tsr_tensor_release(a);
}

/* The name a killed save's temporary has: ".<name>.tmp.<host>.<pid>.<n>",
 * the host as gethostname gives it with '.' and '/' replaced by '_'. */
static void temporary_name(char* buf, size_t cap, const char* dir, const char* name, long pid) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0 || !host[0]) strcpy(host, "host");
  for (char* c = host; *c; ++c)
    if (*c == '.' || *c == '/') *c = '_';
  snprintf(buf, cap, "%s/.%s.tmp.%s.%ld.0", dir, name, host, pid);
}

/* A save removes the temporaries that killed saves to the same path left
 * (this host, a process that no longer exists), and nothing else. */
Test(io, save_removes_temporaries_of_killed_saves) {
  TMP(dir, "stale_dir");
  cr_assert_eq(mkdir(dir, 0755), 0);
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  cr_assert_eq(waitpid(gone, NULL, 0), gone);
  char stale[700], live[700], other_host[700], other_file[700], path[600];
  temporary_name(stale, sizeof stale, dir, "m.safetensors", (long)gone);
  temporary_name(live, sizeof live, dir, "m.safetensors", (long)getppid());
  temporary_name(other_file, sizeof other_file, dir, "n.safetensors", (long)gone);
  snprintf(other_host, sizeof other_host, "%s/.m.safetensors.tmp.elsewhere.%ld.0", dir, (long)gone);
  const char* all[] = {stale, live, other_host, other_file};
  for (size_t i = 0; i < 4; ++i) write_bytes(all[i], "x", 1);
  snprintf(path, sizeof path, "%s/m.safetensors", dir);
  tsr_tensor* a = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"a"}, &a, NULL));
  struct stat st;
  cr_expect_neq(stat(stale, &st), 0, "the dead process's temporary is still there");
  cr_expect_eq(stat(live, &st), 0, "a live process's temporary was removed");
  cr_expect_eq(stat(other_host, &st), 0, "another host's temporary was removed");
  cr_expect_eq(stat(other_file, &st), 0, "another file's temporary was removed");
  for (size_t i = 1; i < 4; ++i) unlink(all[i]);
  unlink(path);
  rmdir(dir);
  tsr_tensor_release(a);
}

/* A write that fails midway (the file size limit, EFBIG) leaves the old
 * file byte-identical and no temporary behind. */
Test(io, write_failure_midway_keeps_old_file) {
  TMP(dir, "fsize_dir");
  cr_assert_eq(mkdir(dir, 0755), 0);
  char path[600];
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  static const char kOld[] = "the good old file";
  write_bytes(path, kOld, sizeof kOld);

  tsr_tensor* big = NULL;
  TSR_ASSERT_OK(tsr_ones(1, (int64_t[]){100000}, TSR_FLOAT32, TSR_CPU, &big));
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  TSR_ASSERT_FAILS(tsr_save(path, 1, (const char*[]){"w"}, &big, NULL), TSR_ERR_IO,
                   "File too large");
  assert_file_equals(path, kOld, sizeof kOld);
  assert_no_temporaries(dir);
  /* Compressed data that does not fit fails the same way. */
  tsr_tensor* r = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 100000, 1, TSR_FLOAT64, TSR_CPU, &r));
  TSR_ASSERT_FAILS(tsr_save(path, 1, (const char*[]){"w"}, &r, &kZstd), TSR_ERR_IO,
                   "File too large");
  assert_file_equals(path, kOld, sizeof kOld);
  assert_no_temporaries(dir);
  unlink(path);
  rmdir(dir);
  tsr_tensor_release(big);
  tsr_tensor_release(r);
}

Test(io, replace_keeps_permissions_and_symlinks) {
  tsr_tensor* a = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){4}, 7, TSR_INT32, TSR_CPU, &a));
  TMP(target, "target.safetensors");
  TMP(link, "link.safetensors");
  write_bytes(target, "old", 3);
  cr_assert_eq(chmod(target, 0640), 0);
  cr_assert_eq(symlink(target, link), 0);
  TSR_ASSERT_OK(tsr_save(link, 1, (const char*[]){"a"}, &a, NULL));
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the symbolic link was replaced");
  cr_assert_eq(stat(target, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(target, NULL, &m));
  tsr_tensor* t = get(m, "a");
  assert_same(a, t);
  tsr_tensor_release(t);
  tsr_tensor_map_release(m);
  unlink(link);
  unlink(target);
  tsr_tensor_release(a);
}

/* ---- load: I/O errors ------------------------------------------------------------ */

Test(io, load_io_errors) {
  TMP(missing, "missing.safetensors");
  expect_load_fails(missing, TSR_ERR_IO, "No such file or directory");
  expect_load_fails(TSR_TEST_TMP_DIR, TSR_ERR_IO, "not a regular file");
  TMP(fifo, "fifo");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  expect_load_fails(fifo, TSR_ERR_IO, "not a regular file"); /* and does not block */
  unlink(fifo);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(NULL, NULL, &m), TSR_ERR_INVALID_ARGUMENT, "path is NULL");
  TSR_ASSERT_FAILS(tsr_load(missing, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  tsr_load_options lo = {4, 0};
  TSR_ASSERT_FAILS(tsr_load(missing, &lo, &m), TSR_ERR_INVALID_ARGUMENT,
                   "load options->struct_size is 4");
  lo = (tsr_load_options)TSR_LOAD_OPTIONS_INIT;
  lo.max_bytes = -1;
  TSR_ASSERT_FAILS(tsr_load(missing, &lo, &m), TSR_ERR_INVALID_ARGUMENT, "max_bytes is -1");
  cr_assert_null(m);
}

/* ---- load: one test per corruption rule -------------------------------------------- */

#define T1(dtype, shape, b, e) \
  "{\"t\":{\"dtype\":\"" dtype "\",\"shape\":" shape ",\"data_offsets\":[" #b "," #e "]}}"

Test(io, corrupt_file_shorter_than_length_prefix) {
  TMP(p, "c.safetensors");
  write_bytes(p, "\x08\0\0\0\0", 5);
  expect_corrupt(p, "file is 5 bytes, shorter than the 8-byte header length");
  write_bytes(p, "", 0);
  expect_corrupt(p, "file is 0 bytes");
  unlink(p);
}

Test(io, corrupt_header_length_over_cap) {
  TMP(p, "c.safetensors");
  craft_n(p, 100000001, "{}", NULL, 0);
  expect_corrupt(p, "header length 100000001 exceeds the limit of 100000000 bytes");
  craft_n(p, UINT64_MAX, "{}", NULL, 0);
  expect_corrupt(p, "header length 18446744073709551615 exceeds");
  unlink(p);
}

Test(io, corrupt_header_length_past_end_of_file) {
  TMP(p, "c.safetensors");
  craft_n(p, 64, "{}", NULL, 0);
  expect_corrupt(p, "header length 64 runs past the end of the 10-byte file");
  unlink(p);
}

Test(io, corrupt_header_json_syntax) {
  TMP(p, "c.safetensors");
  craft(p, "{\"t\":{\"dtype\":\"F32\",", NULL, 0);
  expect_corrupt(p, "header is not valid JSON");
  craft(p, "{} x", NULL, 0); /* trailing garbage */
  expect_corrupt(p, "header is not valid JSON");
  craft_raw(p, 4, "{}\0\0", 4, NULL, 0); /* NUL padding is not JSON whitespace */
  expect_corrupt(p, "header is not valid JSON: NUL byte at offset 2");
  craft(p, "{\"\xff\":{}}", NULL, 0); /* not UTF-8 */
  expect_corrupt(p, "header is not valid JSON");
  unlink(p);
}

Test(io, corrupt_header_wrong_json_shape) {
  TMP(p, "c.safetensors");
  craft(p, "[]", NULL, 0);
  expect_corrupt(p, "unexpected an array in the header root");
  craft(p, "{\"t\":[]}", NULL, 0);
  expect_corrupt(p, "unexpected an array in tensor \"t\" (must be an object)");
  craft(p, "{\"t\":{\"dtype\":7}}", NULL, 0);
  expect_corrupt(p, "unexpected a number in tensor \"t\" dtype");
  craft(p, "{\"__metadata__\":{\"k\":1}}", NULL, 0);
  expect_corrupt(p, "__metadata__[\"k\"] (must be a string)");
  craft(p, "{\"__metadata__\":[]}", NULL, 0);
  expect_corrupt(p, "unexpected an array in __metadata__");
  /* Deep nesting stops at the first bracket, without recursion. */
  size_t depth = 200000;
  char* deep = malloc(depth + 16);
  strcpy(deep, "{\"t\":");
  memset(deep + 5, '[', depth);
  deep[5 + depth] = 0;
  craft(p, deep, NULL, 0);
  free(deep);
  expect_corrupt(p, "unexpected an array in tensor \"t\"");
  unlink(p);
}

Test(io, corrupt_missing_unknown_and_duplicate_fields) {
  TMP(p, "c.safetensors");
  craft(p, "{\"t\":{\"dtype\":\"F32\",\"shape\":[]}}", NULL, 0);
  expect_corrupt(p, "tensor \"t\" has no \"data_offsets\" field");
  craft(p, "{\"t\":{\"dtype\":\"F32\",\"dtype\":\"F32\"}}", NULL, 0);
  expect_corrupt(p, "tensor \"t\" has duplicate field \"dtype\"");
  craft(p, "{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4,8]}}", NULL, 0);
  expect_corrupt(p, "data_offsets must hold exactly 2 numbers, got more");
  craft(p, "{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0]}}", NULL, 0);
  expect_corrupt(p, "data_offsets must hold exactly 2 numbers, got 1");
  unlink(p);
}

/* Fields a tensor entry may carry beyond dtype, shape and data_offsets are
 * ignored, whatever their value, as the reference reader (serde) does. */
Test(io, unknown_tensor_fields_are_ignored) {
  TMP(p, "u.safetensors");
  const char* headers[] = {
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4],\"extra\":1}}",
      "{\"t\":{\"note\":\"x\",\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}",
      "{\"t\":{\"dtype\":\"F32\",\"q\":{\"a\":[1,[2,{\"b\":null}]],\"c\":true},\"shape\":[],"
      "\"data_offsets\":[0,4],\"z\":[-1.5,\"s\"]}}",
      "{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"e\":[],\"f\":{},\"data_offsets\":[0,4]}}",
  };
  const float want = 2.5f;
  for (size_t i = 0; i < sizeof headers / sizeof headers[0]; ++i) {
    craft(p, headers[i], &want, 4);
    tsr_tensor_map* m = NULL;
    TSR_ASSERT_OK(tsr_load(p, NULL, &m));
    cr_assert_eq(tsr_tensor_map_count(m), 1, "header %zu", i);
    tsr_tensor* t = NULL;
    TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, "t", &t));
    double v = 0;
    TSR_ASSERT_OK(tsr_item_double(t, &v));
    cr_expect_eq(v, 2.5, "header %zu", i);
    tsr_tensor_release(t);
    tsr_tensor_map_release(m);
  }
  /* An ignored value must still be valid JSON. */
  craft(p, "{\"t\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4],\"x\":[1,}}", &want, 4);
  expect_corrupt(p, "header is not valid JSON");
  unlink(p);
}

/* JSON's \u0000 escape puts a NUL inside a name or value: two different
 * names would read the same from C ("a\u0000x" is "a"), and the rest of a
 * value would be hidden. Refused wherever it appears. */
Test(io, nul_escapes_in_names_and_metadata_are_corrupt) {
  TMP(p, "n.safetensors");
  const float v = 1.0f;
  craft(p, "{\"a\\u0000x\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}", &v, 4);
  expect_corrupt(p, "tensor name \"a");
  expect_corrupt(p, "contains a NUL character (\\u0000) at byte 1");
  craft(p, "{\"__metadata__\":{\"k\\u0000\":\"v\"},\"t\":{\"dtype\":\"F32\",\"shape\":[],"
        "\"data_offsets\":[0,4]}}", &v, 4);
  expect_corrupt(p, "__metadata__ key \"k");
  craft(p, "{\"__metadata__\":{\"k\":\"w\\u0000hidden\"},\"t\":{\"dtype\":\"F32\",\"shape\":[],"
        "\"data_offsets\":[0,4]}}", &v, 4);
  expect_corrupt(p, "__metadata__ value of key \"k\" contains a NUL character (\\u0000) at byte 1");
  unlink(p);
}

Test(io, corrupt_duplicate_keys) {
  TMP(p, "c.safetensors");
  craft(p,
        "{\"t\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
        "\"t\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
        "ab", 2);
  expect_corrupt(p, "duplicate key \"t\" in the header");
  craft(p, "{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}}", NULL, 0);
  expect_corrupt(p, "duplicate key \"a\" in __metadata__");
  craft(p, "{\"__metadata__\":{},\"__metadata__\":{}}", NULL, 0);
  expect_corrupt(p, "duplicate key \"__metadata__\"");
  unlink(p);
}

Test(io, corrupt_unknown_dtype_and_unsupported_dtype) {
  TMP(p, "c.safetensors");
  craft(p, T1("F128", "[1]", 0, 16), "0123456789abcdef", 16);
  expect_corrupt(p, "tensor \"t\" has unknown dtype \"F128\"");
  craft(p, T1("C64", "[1]", 0, 8), "abcdefgh", 8);
  expect_load_fails(p, TSR_ERR_UNSUPPORTED, "tensor \"t\" has dtype \"C64\", which tessera");
  /* Names from the file are quoted and escaped in messages. */
  craft(p, "{\"a\\nb\\u0001\":{\"dtype\":\"\\t\"}}", NULL, 0);
  expect_corrupt(p, "tensor \"a\\nb\\u0001\" has unknown dtype \"\\t\"");
  /* Every safetensors dtype tessera lacks: TSR_ERR_UNSUPPORTED naming the
   * tensor and the dtype, through tsr_load and tsr_open_file alike. */
  const char* lacking[] = {"F8_E8M0", "F6_E2M3", "F6_E3M2", "F4", "C64"};
  for (size_t i = 0; i < sizeof lacking / sizeof lacking[0]; ++i) {
    char hdr[200], want[120];
    snprintf(hdr, sizeof hdr, "{\"w%zu\":{\"dtype\":\"%s\",\"shape\":[1],\"data_offsets\":[0,1]}}",
             i, lacking[i]);
    craft(p, hdr, "a", 1);
    snprintf(want, sizeof want, "tensor \"w%zu\" has dtype \"%s\", which tessera does not support",
             i, lacking[i]);
    expect_load_fails(p, TSR_ERR_UNSUPPORTED, want);
    tsr_file* f = (tsr_file*)0x1;
    cr_assert_eq(tsr_open_file(p, NULL, &f), TSR_ERR_UNSUPPORTED, "%s", lacking[i]);
    cr_assert(strstr(tsr_last_error_message(), want) != NULL, "%s", tsr_last_error_message());
    cr_assert_eq(f, (tsr_file*)0x1, "out untouched on failure");
  }
  /* Not a safetensors dtype at all: a corrupt file. */
  craft(p, T1("U128", "[1]", 0, 16), "0123456789abcdef", 16);
  expect_corrupt(p, "tensor \"t\" has unknown dtype \"U128\"");
  unlink(p);
}

Test(io, corrupt_bad_shape_numbers) {
  TMP(p, "c.safetensors");
  craft(p, T1("F32", "[-1]", 0, 0), NULL, 0);
  expect_corrupt(p, "negative number -1 in tensor \"t\" shape");
  craft(p, T1("F32", "[1.5]", 0, 0), NULL, 0);
  expect_corrupt(p, "non-integer number 1.5 in tensor \"t\" shape");
  craft(p, T1("F32", "[9223372036854775808]", 0, 0), NULL, 0);
  expect_corrupt(p, "number 9223372036854775808 above 2^63-1 in tensor \"t\" shape");
  craft(p, T1("F32", "[18446744073709551616]", 0, 0), NULL, 0); /* > 2^64: a float to JSON */
  expect_corrupt(p, "non-integer number 18446744073709551616");
  craft(p, T1("F32", "[1]", -1, 4), NULL, 0);
  expect_corrupt(p, "negative number -1 in tensor \"t\" data_offsets");
  char many[400] = "{\"t\":{\"dtype\":\"U8\",\"shape\":[1";
  for (int i = 0; i < 64; ++i) strcat(many, ",1");
  strcat(many, "],\"data_offsets\":[0,1]}}");
  craft(p, many, "a", 1);
  expect_load_fails(p, TSR_ERR_UNSUPPORTED, "more than 64 dims");
  unlink(p);
}

Test(io, corrupt_shape_overflow) {
  TMP(p, "c.safetensors");
  craft(p, T1("U8", "[4294967296,4294967296]", 0, 0), NULL, 0);
  expect_corrupt(p, "tensor \"t\" shape [4294967296, 4294967296] has more than 2^63-1 elements");
  craft(p, T1("F64", "[2305843009213693952]", 0, 0), NULL, 0); /* 2^61 * 8 bytes */
  expect_corrupt(p, "tensor \"t\" shape [2305843009213693952] of float64 needs more than 2^63-1 bytes");
  /* tessera's sizes must have a representable product of their non-zero
   * entries (its strides are built from it), so a zero does not excuse the
   * rest; zero with sizes that fit loads. */
  craft(p, T1("F64", "[0,9223372036854775807,9223372036854775807]", 0, 0), NULL, 0);
  expect_corrupt(p, "has more than 2^63-1 elements");
  craft(p, T1("F64", "[0,4611686018427387904]", 0, 0), NULL, 0);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(p, NULL, &m));
  tsr_tensor* t = get(m, "t");
  tsr_assert_geometry(t, 2, (int64_t[]){0, 4611686018427387904}, (int64_t[]){4611686018427387904, 1});
  tsr_tensor_release(t);
  tsr_tensor_map_release(m);
  unlink(p);
}

Test(io, corrupt_size_mismatch) {
  TMP(p, "c.safetensors");
  craft(p, T1("F32", "[2]", 0, 4), "abcd", 4);
  expect_corrupt(p, "tensor \"t\": F32 shape [2] needs 8 bytes but data_offsets [0, 4] hold 4");
  unlink(p);
}

Test(io, corrupt_offsets_out_of_buffer) {
  TMP(p, "c.safetensors");
  craft(p, T1("F32", "[2]", 0, 8), "abcd", 4);
  expect_corrupt(p, "tensor \"t\" data_offsets [0, 8] run past the end of the 4-byte data buffer");
  craft(p, T1("U8", "[9223372036854775807]", 0, 9223372036854775807), "abcd", 4);
  expect_corrupt(p, "run past the end of the 4-byte data buffer");
  unlink(p);
}

Test(io, corrupt_end_before_begin) {
  TMP(p, "c.safetensors");
  craft(p, T1("U8", "[0]", 4, 0), "abcd", 4);
  expect_corrupt(p, "tensor \"t\" has data_offsets [4, 0]: end before begin");
  unlink(p);
}

Test(io, corrupt_gap_between_tensors) {
  TMP(p, "c.safetensors");
  craft(p,
        "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
        "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[8,12]}}",
        "0123456789ab", 12);
  expect_corrupt(p, "gap of 4 bytes before tensor \"b\" (data_offsets [8, 12]; previous tensor "
                    "\"a\" ends at 4)");
  craft(p, T1("U8", "[4]", 2, 6), "012345", 6);
  expect_corrupt(p, "gap of 2 bytes before tensor \"t\" (data_offsets [2, 6]; buffer starts at 0)");
  unlink(p);
}

Test(io, corrupt_overlapping_tensors) {
  TMP(p, "c.safetensors");
  craft(p,
        "{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
        "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]}}",
        "0123456789ab", 12);
  expect_corrupt(p, "tensor \"b\" (data_offsets [4, 12]) overlaps tensor \"a\", which ends at 8");
  /* The same range twice. */
  craft(p,
        "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
        "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}",
        "0123", 4);
  expect_corrupt(p, "tensor \"b\" (data_offsets [0, 4]) overlaps tensor \"a\"");
  unlink(p);
}

Test(io, corrupt_trailing_bytes) {
  TMP(p, "c.safetensors");
  craft(p, T1("U8", "[4]", 0, 4), "0123xyz", 7);
  expect_corrupt(p, "the data buffer is 7 bytes but the tensors end at 4 (3 trailing bytes)");
  craft(p, "{}", "x", 1);
  expect_corrupt(p, "the data buffer is 1 bytes but the tensors end at 0");
  unlink(p);
}

Test(io, corrupt_bool_bytes) {
  TMP(p, "c.safetensors");
  craft(p, T1("BOOL", "[3]", 0, 3), "\x01\x00\x02", 3);
  expect_corrupt(p, "tensor \"t\": bool element 2 is byte 2, not 0 or 1");
  unlink(p);
}

Test(io, max_bytes_caps_allocation) {
  TMP(p, "c.safetensors");
  craft(p, T1("U8", "[16]", 0, 16), "0123456789abcdef", 16);
  tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
  o.max_bytes = 8;
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(p, &o, &m), TSR_ERR_CORRUPT_FILE,
                   "tensors need 16 bytes, above the limit max_bytes = 8");
  cr_assert_null(m);
  o.max_bytes = 16;
  TSR_ASSERT_OK(tsr_load(p, &o, &m));
  tsr_tensor_map_release(m);
  unlink(p);
}

/* With no max_bytes, a compressed file may not claim more than 64 times
 * its size plus 64 MiB: 96 MiB of zeros compress to a few KiB, so loading
 * them needs an explicit cap or TSR_LOAD_MAX_BYTES_UNLIMITED. */
Test(io, default_cap_refuses_files_that_expand_too_much) {
  TMP(p, "zeros.safetensors");
  const int64_t n = (int64_t)96 << 20;
  tsr_tensor* z = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_UINT8, TSR_CPU, &z));
  TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"z"}, &z, &kZstd));
  tsr_tensor_release(z);
  struct stat st;
  cr_assert_eq(stat(p, &st), 0);
  cr_assert_lt(st.st_size, 64 << 10, "96 MiB of zeros took %lld bytes", (long long)st.st_size);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(p, NULL, &m), TSR_ERR_CORRUPT_FILE, "above the default limit of");
  cr_assert_null(m);
  tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
  TSR_ASSERT_FAILS(tsr_load(p, &o, &m), TSR_ERR_CORRUPT_FILE, "TSR_LOAD_MAX_BYTES_UNLIMITED");
  o.max_bytes = TSR_LOAD_MAX_BYTES_UNLIMITED;
  TSR_ASSERT_OK(tsr_load(p, &o, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 1);
  tsr_tensor_map_release(m);
  o.max_bytes = n;
  TSR_ASSERT_OK(tsr_load(p, &o, &m));
  tsr_tensor_map_release(m);
  unlink(p);
}

/* A compressed zstd block needs its literals and sequences section headers
 * (2 bytes at least); an empty one is refused before anything is
 * allocated for the tensor it claims. */
Test(io, empty_compressed_zstd_block_is_corrupt) {
  TMP(p, "emptyblock.safetensors");
  /* magic, single-segment frame with a 1-byte content size (4), then one
   * last compressed block of 0 bytes. */
  static const unsigned char frame[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x04, 0x05, 0x00, 0x00};
  craft(p,
        "{\"__metadata__\":{\"tessera.compression\":\"zstd\"},"
        "\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,9]}}",
        frame, sizeof frame);
  expect_corrupt(p, "compressed zstd block of 0 bytes at byte 9 (at least 2 needed)");
  unlink(p);
}

Test(io, metadata_null_is_accepted) {
  TMP(p, "c.safetensors");
  craft(p, "{\"__metadata__\":null}", NULL, 0);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(p, NULL, &m));
  cr_assert_eq(tsr_tensor_map_metadata_count(m), 0);
  tsr_tensor_map_release(m);
  unlink(p);
}

/* ---- options from an older header (struct_size smaller than ours) ------------------ */

/* A caller compiled when tsr_save_options ended before `level` or before
 * n_metadata passes that smaller struct_size: the fields past it are not
 * read (here they hold values that would be refused) and take their
 * TSR_SAVE_OPTIONS_INIT defaults. */
Test(io, save_options_from_an_older_header_default_the_missing_fields) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &t));
  TMP(path, "older.safetensors");
  const size_t cuts[] = {offsetof(tsr_save_options, level),
                         offsetof(tsr_save_options, n_metadata),
                         offsetof(tsr_save_options, metadata_values)};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; ++i) {
    /* Past struct_size, values that would be refused if read. */
    tsr_save_options o;
    memset(&o, 0xff, sizeof o); /* bad pointers */
    o.level = 999;
    o.n_metadata = -1;
    o.struct_size = cuts[i];
    o.compression = TSR_COMPRESSION_ZSTD;
    if (cuts[i] > offsetof(tsr_save_options, level)) o.level = 5;
    if (cuts[i] > offsetof(tsr_save_options, n_metadata)) o.n_metadata = 0;
    TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"t"}, &t, &o));
    cr_assert_eq(o.struct_size, cuts[i], "the caller's struct was written");
    tsr_tensor_map* m = NULL;
    TSR_ASSERT_OK(tsr_load(path, NULL, &m));
    /* compression was read; no metadata came from the missing fields */
    cr_assert_eq(tsr_tensor_map_metadata_count(m), 1, "struct_size %zu", cuts[i]);
    cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "tessera.compression"), "zstd");
    tsr_tensor* back = get(m, "t");
    assert_same(t, back);
    tsr_tensor_release(back);
    tsr_tensor_map_release(m);
  }
  unlink(path);
  tsr_tensor_release(t);
}

/* The smallest struct_size is the end of the first field (compression for
 * save, max_bytes for load); below it: refused, nothing written or read. */
Test(io, options_struct_size_below_the_first_field_is_refused) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &t));
  const size_t min_save = offsetof(tsr_save_options, compression) + sizeof(tsr_compression);
  const size_t bad[] = {0, sizeof(size_t), min_save - 1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
    o.struct_size = bad[i];
    char needle[96];
    snprintf(needle, sizeof needle, "save options->struct_size is %zu, expected at least %zu",
             bad[i], min_save);
    expect_save_fails(1, (const char*[]){"a"}, &t, &o, TSR_ERR_INVALID_ARGUMENT, needle);
    expect_save_fails(1, (const char*[]){"a"}, &t, &o, TSR_ERR_INVALID_ARGUMENT,
                      "set it to sizeof(tsr_save_options)");
  }
  /* At the minimum: accepted, everything else defaulted (uncompressed). */
  tsr_save_options o;
  memset(&o, 0xff, sizeof o);
  o.level = 999;
  o.n_metadata = -1;
  o.struct_size = min_save;
  o.compression = TSR_COMPRESSION_NONE;
  TMP(path, "min.safetensors");
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"a"}, &t, &o));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_metadata_count(m), 0);
  tsr_tensor_map_release(m);

  /* load: its only field is max_bytes, so a struct cut before it is refused */
  const size_t min_load = offsetof(tsr_load_options, max_bytes) + sizeof(int64_t);
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.struct_size = offsetof(tsr_load_options, max_bytes);
  tsr_tensor_map* sentinel = (tsr_tensor_map*)(uintptr_t)0x1234;
  m = sentinel;
  char needle[96];
  snprintf(needle, sizeof needle, "load options->struct_size is %zu, expected at least %zu",
           lo.struct_size, min_load);
  TSR_ASSERT_FAILS(tsr_load(path, &lo, &m), TSR_ERR_INVALID_ARGUMENT, needle);
  cr_assert_eq(m, sentinel, "out written on failure");
  lo.struct_size = min_load - 1;
  TSR_ASSERT_FAILS(tsr_load(path, &lo, &m), TSR_ERR_INVALID_ARGUMENT,
                   "set it to sizeof(tsr_load_options)");
  cr_assert_eq(m, sentinel, "out written on failure");
  unlink(path);
  tsr_tensor_release(t);
}

/* A caller compiled against a newer header passes a larger struct: the
 * fields this library knows are read, the rest ignored. */
Test(io, options_from_a_newer_header_are_read_up_to_our_fields) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){4}, TSR_UINT8, TSR_CPU, &t));
  TMP(path, "newer.safetensors");
  struct {
    tsr_save_options v1;
    int64_t newer_field;
  } so;
  memset(&so, 0xff, sizeof so);
  so.v1 = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  so.v1.struct_size = sizeof so;
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"t"}, &t, &so.v1));
  struct {
    tsr_load_options v1;
    int64_t newer_field;
  } lo;
  memset(&lo, 0xff, sizeof lo);
  /* Our fields hold their defaults (0.2 appended the progress callback,
   * which must not be garbage); the newer field stays 0xff bytes. */
  lo.v1 = (tsr_load_options)TSR_LOAD_OPTIONS_INIT;
  lo.v1.skip_checksums = -1;
  lo.v1.struct_size = sizeof lo;
  lo.v1.max_bytes = 3; /* read: the 4-byte tensor is over the cap */
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(path, &lo.v1, &m), TSR_ERR_CORRUPT_FILE, "max_bytes = 3");
  cr_assert_null(m);
  lo.v1.max_bytes = 4;
  TSR_ASSERT_OK(tsr_load(path, &lo.v1, &m));
  tsr_tensor_map_release(m);
  unlink(path);
  tsr_tensor_release(t);
}

/* ---- load: compressed files ------------------------------------------------------- */

/* Reads a saved file, replaces the first occurrence of `from` in it by `to`
 * (same length) and writes it back. */
static void patch_file(const char* path, const char* from, const char* to) {
  size_t n;
  unsigned char* buf = read_bytes(path, &n);
  size_t fl = strlen(from);
  cr_assert_eq(fl, strlen(to));
  unsigned char* hit = memmem(buf, n, from, fl);
  cr_assert_not_null(hit, "\"%s\" not in %s", from, path);
  memcpy(hit, to, fl);
  write_bytes(path, buf, n);
  free(buf);
}

Test(io, corrupt_zstd_content_size_mismatch) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){4}, 2, TSR_FLOAT32, TSR_CPU, &t));
  TMP(p, "z.safetensors");
  /* The header's checksum would catch the patch first; without it, the
   * frame's recorded size does. */
  tsr_save_options unchecked = kZstd;
  unchecked.skip_checksums = 1;
  TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"w"}, &t, &unchecked));
  patch_file(p, "\"shape\":[4]", "\"shape\":[3]");
  expect_corrupt(p, "tensor \"w\": zstd frame decompresses to 16 bytes but dtype and shape need 12");
  TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"w"}, &t, &kZstd));
  patch_file(p, "\"shape\":[4]", "\"shape\":[3]");
  expect_corrupt(p, "header checksum mismatch: the header (file bytes 8 to ");
  tsr_tensor_release(t);
  unlink(p);
}

Test(io, corrupt_zstd_checksum) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 1000, 1, TSR_INT64, TSR_CPU, &t));
  TMP(p, "z.safetensors");
  TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"w"}, &t, &kZstd));
  size_t n;
  unsigned char* buf = read_bytes(p, &n);
  buf[n - 1] ^= 0x5a; /* last byte: the frame's XXH64 checksum */
  write_bytes(p, buf, n);
  free(buf);
  expect_corrupt(p, "tensor \"w\": zstd data is corrupt");
  tsr_tensor_release(t);
  unlink(p);
}

#define ZHDR(shape, b, e)                                                                  \
  "{\"__metadata__\":{\"tessera.compression\":\"zstd\"},\"w\":{\"dtype\":\"F32\",\"shape\":" shape \
  ",\"data_offsets\":[" #b "," #e "]}}"

/* Frames built by hand (RFC 8878): magic 28 b5 2f fd, frame header
 * descriptor, optional window descriptor / content size, blocks. */
Test(io, corrupt_zstd_frame_claims_more_than_its_blocks_hold) {
  /* Single-segment frame, 8-byte content size 2^40, one empty raw block:
   * the header is consistent with shape [2^38] but the body cannot produce
   * it, so nothing is allocated. */
  static const unsigned char frame[16] = {0x28, 0xb5, 0x2f, 0xfd, /* magic */
                                          0xe0,                   /* 8-byte size, 1 segment */
                                          0,    0,    0,    0,    0, 0x01, 0, 0, /* 2^40 */
                                          0x01, 0,    0};         /* last raw block, 0 bytes */
  TMP(p, "z.safetensors");
  craft(p, ZHDR("[274877906944]", 0, 16), frame, sizeof frame);
  /* The default cap refuses the claim at once; with no cap, the frame's
   * blocks do. */
  expect_corrupt(p, "tensors need 1099511627776 bytes, above the default limit");
  tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
  o.max_bytes = TSR_LOAD_MAX_BYTES_UNLIMITED;
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(p, &o, &m), TSR_ERR_CORRUPT_FILE,
                   "tensor \"w\": zstd frame claims 1099511627776 bytes but its blocks can "
                   "hold at most 0");
  cr_assert_null(m);
  unlink(p);
}

Test(io, corrupt_zstd_frame_without_content_size) {
  /* FHD 0 (no content size, window descriptor follows), window byte, one
   * empty last raw block. */
  static const unsigned char frame[9] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x01, 0, 0};
  TMP(p, "z.safetensors");
  craft(p, ZHDR("[0]", 0, 9), frame, sizeof frame);
  expect_corrupt(p, "zstd frame does not record its content size");
  unlink(p);
}

Test(io, corrupt_zstd_not_a_frame) {
  TMP(p, "z.safetensors");
  craft(p, ZHDR("[2]", 0, 8), "notzstd!", 8);
  expect_corrupt(p, "tensor \"w\": not a zstd frame");
  static const unsigned char skippable[8] = {0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0};
  craft(p, ZHDR("[0]", 0, 8), skippable, 8);
  expect_corrupt(p, "skippable zstd frame");
  /* A valid empty frame followed by extra bytes inside the same range. */
  static const unsigned char frame_plus[20] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0,
                                               0,    'x',  'x',  'x',  'x',  'x',  'x',  'x',
                                               'x',  'x',  'x',  'x'};
  craft(p, ZHDR("[0]", 0, 20), frame_plus, 20);
  expect_corrupt(p, "zstd frame is 9 bytes but data_offsets span 20");
  unlink(p);
}

/* A valid frame of 20000 empty blocks: the header walk reads through a
 * buffer, not once per block, and accepts it. */
Test(io, zstd_frame_of_many_empty_blocks_loads) {
  enum { BLOCKS = 20000 };
  size_t n = 6 + 3 * (size_t)BLOCKS;
  unsigned char* frame = calloc(n, 1);
  memcpy(frame, "\x28\xb5\x2f\xfd\x20\x00", 6); /* single segment, content size 0 */
  frame[n - 3] = 0x01;                            /* the last block */
  char hdr[256];
  snprintf(hdr, sizeof hdr,
           "{\"__metadata__\":{\"tessera.compression\":\"zstd\"},"
           "\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,%zu]}}", n);
  TMP(p, "z.safetensors");
  craft(p, hdr, frame, n);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(p, NULL, &m));
  tsr_tensor* t = get(m, "w");
  cr_assert_eq(tsr_tensor_numel(t), 0);
  tsr_tensor_release(t);
  tsr_tensor_map_release(m);
  free(frame);
  unlink(p);
}

Test(io, unknown_codec_is_unsupported) {
  TMP(p, "z.safetensors");
  craft(p, "{\"__metadata__\":{\"tessera.compression\":\"lz4\"}}", NULL, 0);
  expect_load_fails(p, TSR_ERR_UNSUPPORTED, "unknown compression \"lz4\"");
  unlink(p);
}

/* The writer never lets a frame's length equal the raw length (a plain
 * reader's size check must reject it). Inputs of one incompressible 128 KiB
 * block (raw block, +3 bytes) and a 1000-byte block starting with k zeros
 * (compressed once that pays, one byte shorter per extra zero) give frame
 * lengths that step through the raw length as k grows; the frame that
 * would match it is compressed again at another level, and every frame
 * keeps its checksum (one without would let bit flips load silently). */
Test(io, zstd_frame_never_matches_raw_length) {
  enum { B = 131072, N = B + 1000 };
  static unsigned char data[N];
  TMP(p, "collide.safetensors");
  bool above = false, below = false;
  for (int k = 0; k < 60; ++k) {
    uint32_t x = 12345;
    for (int i = 0; i < N; ++i) { /* LCG bytes, k zeros at B */
      x = x * 1103515245u + 12345u;
      data[i] = (i >= B && i < B + k) ? 0 : (unsigned char)(x >> 24);
    }
    tsr_tensor* t = NULL;
    TSR_ASSERT_OK(tsr_from_data(data, N, 1, (int64_t[]){N}, TSR_UINT8, &t));
    TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"w"}, &t, &kZstd));
    size_t n;
    unsigned char* buf = read_bytes(p, &n);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; --i) hl = hl << 8 | buf[i];
    size_t frame_len = n - 8 - (size_t)hl;
    cr_assert_neq(frame_len, (size_t)N, "k = %d: frame as long as the raw data", k);
    bool has_checksum = (buf[8 + hl + 4] & 0x04) != 0; /* frame header descriptor bit 2 */
    cr_assert(has_checksum, "k = %d: frame without checksum", k);
    /* The lengths step down one byte per zero, so a scan that crosses N
     * met the input whose frame would have been exactly N bytes. */
    if (frame_len > N) above = true;
    if (frame_len < N) below = true;
    tsr_tensor_map* m = NULL;
    TSR_ASSERT_OK(tsr_load(p, NULL, &m));
    tsr_tensor* back = get(m, "w");
    assert_same(t, back);
    tsr_tensor_release(back);
    tsr_tensor_map_release(m);
    free(buf);
    tsr_tensor_release(t);
  }
  cr_assert(above && below, "the scan's frame lengths did not cross the raw length");
  unlink(p);
}

/* ---- truncation at every byte --------------------------------------------------------- */

static void truncations_fail_cleanly(const tsr_save_options* opts) {
  tsr_tensor *a = NULL, *b = NULL, *c = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 12, 1, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_full(2, (int64_t[]){2, 3}, 1, TSR_BOOL, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_full(0, NULL, -2, TSR_BFLOAT16, TSR_CPU, &c));
  TMP(full, "full.safetensors");
  TMP(cut, "cut.safetensors");
  TSR_ASSERT_OK(tsr_save(full, 3, (const char*[]){"a", "b", "c"}, (tsr_tensor*[]){a, b, c}, opts));
  size_t n;
  unsigned char* buf = read_bytes(full, &n);
  for (size_t len = 0; len < n; ++len) {
    write_bytes(cut, buf, len);
    tsr_tensor_map* m = NULL;
    tsr_status st = tsr_load(cut, NULL, &m);
    cr_assert_eq(st, TSR_ERR_CORRUPT_FILE, "truncated at %zu of %zu: %s (%s)", len, n,
                 tsr_status_name(st), tsr_last_error_message());
    cr_assert_null(m);
  }
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(full, NULL, &m));
  tsr_tensor_map_release(m);
  free(buf);
  unlink(full);
  unlink(cut);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
}
Test(io, truncation_at_every_byte_plain) { truncations_fail_cleanly(NULL); }
Test(io, truncation_at_every_byte_zstd) { truncations_fail_cleanly(&kZstd); }
Test(io, truncation_at_every_byte_zstd_planes) { truncations_fail_cleanly(&kPlanes); }

/* ---- interop with an independent reader ------------------------------------------------ */

#define CHECKER TSR_TEST_TOOLS_DIR "/check_safetensors.py"

/* Runs the checker; returns its exit status, output in out (cap bytes). */
static int run_checker(const char* args, char* out, size_t cap) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s 2>&1", CHECKER, args);
  FILE* f = popen(cmd, "r");
  cr_assert_not_null(f);
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = 0;
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void skip_without(const char* module) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import %s' >/dev/null 2>&1", module);
  if (access("/usr/bin/python3", X_OK) != 0 || system(cmd) != 0)
    cr_skip_test("/usr/bin/python3 with %s is not available", module);
}

/* Saves every dtype (plus a scalar, an empty and a transposed tensor) as a
 * plain file; returns the tensors and names through the arrays. */
enum { N_INTEROP = N_DTYPES + 3 };
static void interop_tensors(tsr_tensor** ts, const char** names) {
  for (int i = 0; i < N_DTYPES; ++i) {
    ts[i] = sample(kAllDtypes[i]);
    names[i] = tsr_dtype_name(kAllDtypes[i]);
  }
  TSR_ASSERT_OK(tsr_full(0, NULL, -1.5, TSR_FLOAT16, TSR_CPU, &ts[N_DTYPES]));
  names[N_DTYPES] = "scalar";
  TSR_ASSERT_OK(tsr_empty(2, (int64_t[]){0, 3}, TSR_INT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU,
                          &ts[N_DTYPES + 1]));
  names[N_DTYPES + 1] = "empty";
  tsr_tensor* s = sample(TSR_BFLOAT16);
  TSR_ASSERT_OK(tsr_transpose(s, 0, 1, &ts[N_DTYPES + 2]));
  tsr_tensor_release(s);
  names[N_DTYPES + 2] = "bf16.T";
}

Test(io, python_reader_validates_plain_and_rejects_compressed) {
  skip_without("numpy");
  tsr_tensor* ts[N_INTEROP];
  const char* names[N_INTEROP];
  interop_tensors(ts, names);
  TMP(plain, "interop_plain.safetensors");
  TMP(zst, "interop_zstd.safetensors");
  TSR_ASSERT_OK(tsr_save(plain, N_INTEROP, names, ts, NULL));
  TSR_ASSERT_OK(tsr_save(zst, N_INTEROP, names, ts, &kZstd));
  char out[16384], args[1200];
  snprintf(args, sizeof args, "validate %s", plain);
  int st = run_checker(args, out, sizeof out);
  cr_assert_eq(st, 0, "checker rejected the plain file: %s", out);
  cr_assert(strstr(out, "\"name\": \"bfloat16\", \"dtype\": \"BF16\", \"shape\": [3, 4]") != NULL,
            "%s", out);
  /* A plain reader must refuse the compressed file, not read garbage. */
  snprintf(args, sizeof args, "validate %s", zst);
  st = run_checker(args, out, sizeof out);
  cr_assert_eq(st, 1, "checker accepted the compressed file: %s", out);
  cr_assert(strstr(out, "INVALID: TensorInvalidInfo") != NULL, "%s", out);
  for (int i = 0; i < N_INTEROP; ++i) tsr_tensor_release(ts[i]);
  unlink(plain);
  unlink(zst);
}

/* The Python side decodes our file (through torch when asked), writes it
 * back with its own writer together with float64 copies of the values;
 * tessera must read back identical bytes and the same numbers. */
static void python_roundtrip(const char* flag) {
  tsr_tensor* ts[N_INTEROP];
  const char* names[N_INTEROP];
  interop_tensors(ts, names);
  TMP(in, "interop_in.safetensors");
  TMP(out_path, "interop_out.safetensors");
  TSR_ASSERT_OK(tsr_save(in, N_INTEROP, names, ts, NULL));
  char out[4096], args[1200];
  snprintf(args, sizeof args, "roundtrip %s %s %s", in, out_path, flag);
  int st = run_checker(args, out, sizeof out);
  cr_assert_eq(st, 0, "checker failed: %s", out);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(out_path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 2 * N_INTEROP);
  for (int i = 0; i < N_INTEROP; ++i) {
    tsr_tensor* back = get(m, names[i]);
    assert_same(ts[i], back);
    char f64name[64];
    snprintf(f64name, sizeof f64name, "%s.f64", names[i]);
    tsr_tensor* vals = get(m, f64name);
    cr_assert_eq(tsr_tensor_dtype(vals), TSR_FLOAT64);
    tsr_assert_geometry(vals, tsr_tensor_ndim(ts[i]), tsr_tensor_sizes(ts[i]), NULL);
    /* Element k in C order: unravel k over the sizes. */
    int64_t nd = tsr_tensor_ndim(ts[i]), numel = tsr_tensor_numel(ts[i]);
    const double* pv = tsr_tensor_data_ptr(vals);
    for (int64_t k = 0; k < numel; ++k) {
      int64_t idx[8], rem = k;
      for (int64_t d = nd - 1; d >= 0; --d) {
        idx[d] = rem % tsr_tensor_sizes(ts[i])[d];
        rem /= tsr_tensor_sizes(ts[i])[d];
      }
      double mine = 0;
      TSR_ASSERT_OK(tsr_get_double(ts[i], nd, idx, &mine));
      cr_assert((isnan(mine) && isnan(pv[k])) ||
                    (mine == pv[k] && signbit(mine) == signbit(pv[k])),
                "%s element %lld: tessera %.17g, python %.17g", names[i], (long long)k, mine,
                pv[k]);
    }
    tsr_tensor_release(back);
    tsr_tensor_release(vals);
  }
  tsr_tensor_map_release(m);
  for (int i = 0; i < N_INTEROP; ++i) tsr_tensor_release(ts[i]);
  unlink(in);
  unlink(out_path);
}

Test(io, python_numpy_reads_values_and_writes_back) {
  skip_without("numpy");
  python_roundtrip("");
}

Test(io, torch_reads_values_and_writes_back) {
  skip_without("numpy, torch");
  python_roundtrip("--torch");
}

/* ---- checksums --------------------------------------------------------------------- */

/* A small file of three tensors (float32, int64, bool) and a metadata pair. */
static void save_small(const char* path, const tsr_save_options* base) {
  tsr_tensor *a = NULL, *b = NULL, *c = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_arange(-3, 2, 1, TSR_INT64, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){3}, 1, TSR_BOOL, TSR_CPU, &c));
  tsr_save_options o = *base;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"framework"};
  o.metadata_values = (const char*[]){"tessera"};
  tsr_tensor* ts[3] = {a, b, c};
  TSR_ASSERT_OK(tsr_save(path, 3, (const char*[]){"a", "b", "c"}, ts, &o));
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
}

/* Every single-bit flip of a saved file, in each mode, fails the load. */
static void every_bit_flip_is_detected(const tsr_save_options* mode, const char* label) {
  TMP(p, "flip.safetensors");
  save_small(p, mode);
  size_t n;
  unsigned char* good = read_bytes(p, &n);
  size_t detected = 0;
  for (size_t byte = 0; byte < n; ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      good[byte] ^= (unsigned char)(1u << bit);
      write_bytes(p, good, n);
      good[byte] ^= (unsigned char)(1u << bit);
      tsr_tensor_map* m = NULL;
      const tsr_status st = tsr_load(p, NULL, &m);
      if (st != TSR_OK) {
        ++detected;
        cr_assert_null(m);
      }
      cr_assert_neq(st, TSR_OK, "%s: flipping bit %d of byte %zu of %zu loads", label, bit, byte, n);
      tsr_tensor_map_release(m);
    }
  cr_log_info("%s file of %zu bytes: %zu of %zu single-bit flips detected", label, n, detected, 8 * n);
  free(good);
  unlink(p);
}

Test(io, every_bit_flip_of_a_plain_file_is_detected) {
  const tsr_save_options plain = TSR_SAVE_OPTIONS_INIT;
  every_bit_flip_is_detected(&plain, "plain");
}
Test(io, every_bit_flip_of_a_zstd_file_is_detected) { every_bit_flip_is_detected(&kZstd, "zstd"); }
Test(io, every_bit_flip_of_a_zstd_planes_file_is_detected) {
  every_bit_flip_is_detected(&kPlanes, "zstd-planes");
}

Test(io, checksum_mismatches_name_the_tensor_and_bytes_and_can_be_skipped) {
  TMP(p, "sum.safetensors");
  const tsr_save_options plain = TSR_SAVE_OPTIONS_INIT;
  save_small(p, &plain);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(p, NULL, &m));
  /* The entry is the file's, not the writer's metadata. */
  cr_assert_eq(tsr_tensor_map_metadata_count(m), 1);
  cr_assert_null(tsr_tensor_map_metadata_get(m, "tessera.checksum"));
  tsr_tensor_map_release(m);
  /* The last byte is the bool tensor "c"'s (1 -> 0: still a valid bool). */
  size_t n;
  unsigned char* buf = read_bytes(p, &n);
  buf[n - 1] = 0;
  write_bytes(p, buf, n);
  char needle[160];
  snprintf(needle, sizeof needle, "tensor \"c\": checksum mismatch, its data (file bytes %zu to %zu)",
           n - 3, n);
  expect_corrupt(p, needle);
  /* Trusted: skipped, the changed data loads as it is. */
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.skip_checksums = 1;
  TSR_ASSERT_OK(tsr_load(p, &lo, &m));
  tsr_tensor* c = get(m, "c");
  int64_t v = 1;
  TSR_ASSERT_OK(tsr_get_int64(c, 1, (int64_t[]){2}, &v));
  cr_assert_eq(v, 0);
  tsr_tensor_release(c);
  tsr_tensor_map_release(m);
  free(buf);
  unlink(p);
}

Test(io, damaged_checksum_entries_are_corrupt) {
  TMP(p, "entry.safetensors");
  const tsr_save_options plain = TSR_SAVE_OPTIONS_INIT;
  /* The key damaged: the value is still found by its marker. */
  save_small(p, &plain);
  patch_file(p, "\"tessera.checksum\"", "\"tessera.checksuM\"");
  expect_corrupt(p, "is not under the key \"tessera.checksum\"");
  /* The marker damaged: the key still names a checksum. */
  save_small(p, &plain);
  patch_file(p, "tessera-xxh3-64:", "tessera-xxh3-65:");
  expect_corrupt(p, "the value of \"tessera.checksum\" is malformed");
  /* A digit that is no hex digit. */
  save_small(p, &plain);
  patch_file(p, "tessera-xxh3-64:", "tessera-xxh3-64:");
  size_t n;
  unsigned char* buf = read_bytes(p, &n);
  unsigned char* at = memmem(buf, n, "tessera-xxh3-64:", 16);
  cr_assert_not_null(at);
  at[16 + 3] = 'G';
  write_bytes(p, buf, n);
  expect_corrupt(p, "is malformed at header byte");
  free(buf);
  unlink(p);
}

/* ---- zstd-planes (format 0.2) --------------------------------------------------------- */

/* Several 1 MiB chunks of float32 and bfloat16 weights-like values, at
 * levels 1 and 9, with metadata: round trip, the format keys, and a file
 * smaller than its raw bytes whose tensor ranges never have the raw length. */
Test(io, zstd_planes_multi_chunk_roundtrip_and_metadata) {
  tsr_tensor *f32 = NULL, *b16 = NULL, *i64 = NULL;
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  TSR_ASSERT_OK(tsr_randn(2, (int64_t[]){700, 500}, TSR_FLOAT32, g, &f32));
  tsr_generator_release(g);
  TSR_ASSERT_OK(tsr_to_dtype(f32, TSR_BFLOAT16, &b16));
  TSR_ASSERT_OK(tsr_arange(0, 200000, 1, TSR_INT64, TSR_CPU, &i64));
  for (int level = 1; level <= 9; level += 8) {
    tsr_save_options o = kPlanes;
    o.level = level;
    o.n_metadata = 1;
    o.metadata_keys = (const char*[]){"step"};
    o.metadata_values = (const char*[]){"3"};
    TMP(path, "planes.safetensors");
    TSR_ASSERT_OK(tsr_save(path, 3, (const char*[]){"w", "h", "i"}, (tsr_tensor*[]){f32, b16, i64}, &o));
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    const long long raw = 350000LL * 4 + 350000LL * 2 + 200000LL * 8;
    cr_assert_lt(st.st_size, raw * 9 / 10, "level %d: %lld bytes for %lld raw", level,
                 (long long)st.st_size, raw);
    tsr_tensor_map* m = NULL;
    TSR_ASSERT_OK(tsr_load(path, NULL, &m));
    tsr_tensor* w = get(m, "w");
    tsr_tensor* h = get(m, "h");
    tsr_tensor* i = get(m, "i");
    assert_same(f32, w);
    assert_same(b16, h);
    assert_same(i64, i);
    cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "tessera.compression"), "zstd-planes");
    cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "tessera.format"), "0.2");
    cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "step"), "3");
    tsr_tensor_release(w);
    tsr_tensor_release(h);
    tsr_tensor_release(i);
    tsr_tensor_map_release(m);
    unlink(path);
  }
  tsr_tensor_release(f32);
  tsr_tensor_release(b16);
  tsr_tensor_release(i64);
}

/* The file does not depend on the thread count. */
Test(io, zstd_planes_file_is_the_same_on_any_thread_count) {
  tsr_tensor* t = NULL;
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(3, &g));
  TSR_ASSERT_OK(tsr_randn(1, (int64_t[]){1000000}, TSR_FLOAT32, g, &t));
  tsr_generator_release(g);
  TMP(p1, "t1.safetensors");
  TMP(p2, "t2.safetensors");
  TSR_ASSERT_OK(tsr_set_num_threads(1));
  TSR_ASSERT_OK(tsr_save(p1, 1, (const char*[]){"w"}, &t, &kPlanes));
  TSR_ASSERT_OK(tsr_set_num_threads(2));
  TSR_ASSERT_OK(tsr_save(p2, 1, (const char*[]){"w"}, &t, &kPlanes));
  size_t n1, n2;
  unsigned char* a = read_bytes(p1, &n1);
  unsigned char* b = read_bytes(p2, &n2);
  cr_assert_eq(n1, n2);
  cr_assert(memcmp(a, b, n1) == 0, "files differ between 1 and 2 threads");
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(p1, NULL, &m));
  tsr_tensor* w = get(m, "w");
  assert_same(t, w);
  tsr_tensor_release(w);
  tsr_tensor_map_release(m);
  free(a);
  free(b);
  unlink(p1);
  unlink(p2);
  tsr_tensor_release(t);
}

/* A flipped byte inside a chunk: the load names the tensor, the chunk and
 * its byte ranges; with checksums skipped it is not silently accepted as
 * long as zstd notices, and the header's checksum entry is not involved. */
Test(io, zstd_planes_corrupt_chunk_names_tensor_and_range) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 300000, 1, TSR_FLOAT32, TSR_CPU, &t));
  TMP(p, "cc.safetensors");
  TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"w"}, &t, &kPlanes));
  size_t n;
  unsigned char* buf = read_bytes(p, &n);
  uint64_t hl = 0;
  for (int i = 7; i >= 0; --i) hl = hl << 8 | buf[i];
  buf[8 + hl + 100] ^= 0x10; /* inside chunk 0 */
  write_bytes(p, buf, n);
  char needle[256];
  snprintf(needle, sizeof needle,
           "tensor \"w\": chunk 0 (tensor bytes 0 to 1048576, file bytes %llu to ",
           (unsigned long long)(8 + hl));
  expect_corrupt(p, needle);
  expect_corrupt(p, "checksum mismatch, its data was changed since it was written");
  free(buf);
  tsr_tensor_release(t);
  unlink(p);
}

/* Footer and index rules, on files crafted from a valid one. */
Test(io, zstd_planes_corrupt_footer_and_index) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 1000, 1, TSR_INT32, TSR_CPU, &t));
  TMP(p, "ft.safetensors");
  tsr_save_options o = kPlanes;
  o.skip_checksums = 1; /* reach the codec's own checks */
  TSR_ASSERT_OK(tsr_save(p, 1, (const char*[]){"w"}, &t, &o));
  size_t n;
  unsigned char* good = read_bytes(p, &n);
  unsigned char* buf = malloc(n);
  struct {
    size_t from_end; /* byte n - from_end */
    unsigned char xor_with;
    const char* needle;
  } cases[] = {
      {24, 'T' ^ 'X', "does not start with \"TZP2\""},
      {20, 7, "unknown zstd-planes transform 7"},
      {19, 4 ^ 2, "zstd-planes footer says 2-byte elements, the dtype has 4"},
      {18, 3, "zstd-planes padding of 3 bytes (0 or 8 expected)"},
      {16, 3, "zstd-planes chunk size 1048579"},
      {12, 1 ^ 2, "zstd-planes index lists 2 chunks, 4000 bytes in chunks of 1048576 need 1"},
      {8, 0xff, "zstd-planes index checksum mismatch"},
      {40, 1, "zstd-planes index checksum mismatch"}, /* the chunk's entry */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    memcpy(buf, good, n);
    buf[n - cases[k].from_end] ^= cases[k].xor_with;
    write_bytes(p, buf, n);
    expect_corrupt(p, cases[k].needle);
  }
  /* A chunk's stored bytes changed with the checksums skipped: zstd or the
   * plane lengths notice. */
  memcpy(buf, good, n);
  uint64_t hl = 0;
  for (int i = 7; i >= 0; --i) hl = hl << 8 | buf[i];
  buf[8 + hl] ^= 0xff; /* plane length */
  write_bytes(p, buf, n);
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.skip_checksums = 1;
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(p, &lo, &m), TSR_ERR_CORRUPT_FILE, "tensor \"w\": chunk 0 (tensor bytes 0 to 4000");
  cr_assert_null(m);
  free(buf);
  free(good);
  tsr_tensor_release(t);
  unlink(p);
}

Test(io, unknown_format_version_is_unsupported) {
  TMP(p, "v.safetensors");
  craft(p, "{\"__metadata__\":{\"tessera.format\":\"0.3\"}}", NULL, 0);
  expect_load_fails(p, TSR_ERR_UNSUPPORTED, "file format \"0.3\" (tessera.format); this build reads 0.1 and 0.2");
  unlink(p);
}

/* A format 0.1 compressed file kept in tests/data/io (made by the 0.1
 * writer, tests/data/io/make_v0_1_zstd.c): it loads, with its checksums
 * verified, and a changed byte in a frame still fails. */
Test(io, format_0_1_zstd_fixture_loads) {
  const char* fixture = TSR_TEST_DATA_DIR "/io/v0_1_zstd.safetensors";
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(fixture, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 4);
  cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "tessera.compression"), "zstd");
  cr_assert_null(tsr_tensor_map_metadata_get(m, "tessera.format"));
  cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "model"), "v0.1");
  tsr_tensor* w = get(m, "weight");
  double v = 0;
  TSR_ASSERT_OK(tsr_get_double(w, 2, (int64_t[]){1, 2}, &v));
  cr_assert_eq(v, 1.25);
  tsr_tensor* s = get(m, "steps");
  TSR_ASSERT_OK(tsr_get_double(s, 1, (int64_t[]){3}, &v));
  cr_assert_eq(v, 1099511627776.0);
  tsr_tensor* h = get(m, "half");
  cr_assert_eq(tsr_tensor_dtype(h), TSR_BFLOAT16);
  TSR_ASSERT_OK(tsr_get_double(h, 1, (int64_t[]){4}, &v));
  cr_assert_eq(v, 1.5);
  tsr_tensor* c = get(m, "counts");
  cr_assert_eq(tsr_tensor_numel(c), 300);
  TSR_ASSERT_OK(tsr_get_double(c, 1, (int64_t[]){299}, &v));
  cr_assert_eq(v, 299);
  tsr_tensor_release(w);
  tsr_tensor_release(s);
  tsr_tensor_release(h);
  tsr_tensor_release(c);
  tsr_tensor_map_release(m);
  size_t n;
  unsigned char* buf = read_bytes(fixture, &n);
  buf[n - 5] ^= 0x01; /* inside the last frame (of "half", the last in file order) */
  TMP(p, "v01.safetensors");
  write_bytes(p, buf, n);
  expect_corrupt(p, "tensor \"half\": zstd data is corrupt");
  free(buf);
  unlink(p);
}

/* Small zstd-planes tensors decode in parallel with each other; with two
 * damaged, the load names the first in file order on any thread count. */
Test(io, zstd_planes_first_damaged_tensor_is_named_on_any_thread_count) {
  tsr_tensor* ts[4];
  for (int i = 0; i < 4; ++i) TSR_ASSERT_OK(tsr_arange(0, 1000 + i, 1, TSR_FLOAT32, TSR_CPU, &ts[i]));
  TMP(p, "two.safetensors");
  TSR_ASSERT_OK(tsr_save(p, 4, (const char*[]){"a", "b", "c", "d"}, ts, &kPlanes));
  size_t n;
  unsigned char* buf = read_bytes(p, &n);
  uint64_t hl = 0;
  for (int i = 7; i >= 0; --i) hl = hl << 8 | buf[i];
  /* File order is a, b, c, d (same dtype, by name); damage the first stored
   * byte of b and of d, found through their data_offsets. */
  char* hdr = strndup((const char*)buf + 8, (size_t)hl);
  const char* names[2] = {"\"b\":", "\"d\":"};
  for (int k = 0; k < 2; ++k) {
    const char* e = strstr(hdr, names[k]);
    cr_assert_not_null(e);
    const char* o = strstr(e, "\"data_offsets\":[");
    long begin = strtol(o + strlen("\"data_offsets\":["), NULL, 10);
    buf[8 + hl + (size_t)begin] ^= 0x20;
  }
  free(hdr);
  write_bytes(p, buf, n);
  for (int threads = 1; threads <= 2; ++threads) {
    TSR_ASSERT_OK(tsr_set_num_threads(threads));
    expect_corrupt(p, "tensor \"b\": chunk 0 (tensor bytes 0 to 4004, file bytes ");
  }
  free(buf);
  for (int i = 0; i < 4; ++i) tsr_tensor_release(ts[i]);
  unlink(p);
}
