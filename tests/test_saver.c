/* Streaming saves (saver.h), progress callbacks and cancelling (io.h's
 * tsr_progress_fn), sharded checkpoints (tsr_save_options.max_shard_size
 * and tsr_load of an index): round trips, every error path (status,
 * message, nothing changed: the previous file byte for byte, no temporary
 * left, out parameters untouched), interop with the independent Python
 * reader. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* ---- helpers ---------------------------------------------------------------- */

/* A fresh directory of this test process; paths inside it. mkdtemp, not
 * the pid: the directories stay behind, and a later run whose pid comes
 * round again found its name taken. */
static char g_dir[512];
static const char* test_dir(void) {
  if (!g_dir[0]) {
    snprintf(g_dir, sizeof g_dir, "%s/saver_XXXXXX", TSR_TEST_TMP_DIR);
    cr_assert_not_null(mkdtemp(g_dir), "mkdtemp %s: %s", g_dir, strerror(errno));
  }
  return g_dir;
}
#define PATH(var, leaf) \
  char var[700];        \
  snprintf(var, sizeof var, "%s/%s", test_dir(), leaf)

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
static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  cr_assert_not_null(f);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

/* Names in the test directory, sorted, joined by ' ' (for "nothing else
 * is there" checks). */
static int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}
static void dir_listing(char* out, size_t cap) {
  DIR* d = opendir(test_dir());
  cr_assert_not_null(d);
  char* names[256];
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL && n < 256)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp_str);
  out[0] = 0;
  for (int i = 0; i < n; ++i) {
    strncat(out, names[i], cap - strlen(out) - 2);
    if (i + 1 < n) strncat(out, " ", cap - strlen(out) - 1);
    free(names[i]);
  }
}
static void assert_dir_is(const char* expected) {
  char got[4096];
  dir_listing(got, sizeof got);
  cr_assert_str_eq(got, expected, "directory holds \"%s\", expected \"%s\"", got, expected);
}

/* C-order bytes of t, malloc'ed. */
static unsigned char* c_bytes(const tsr_tensor* t, size_t* n) {
  size_t need = (size_t)tsr_tensor_nbytes(t);
  unsigned char* p = malloc(need + 1);
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, p, need, NULL));
  *n = need;
  return p;
}
static void assert_same(const tsr_tensor* a, const tsr_tensor* b) {
  cr_assert_eq(tsr_tensor_dtype(a), tsr_tensor_dtype(b));
  tsr_assert_geometry(b, tsr_tensor_ndim(a), tsr_tensor_sizes(a), NULL);
  size_t na, nb;
  unsigned char* pa = c_bytes(a, &na);
  unsigned char* pb = c_bytes(b, &nb);
  cr_assert_eq(na, nb);
  cr_assert(na == 0 || memcmp(pa, pb, na) == 0, "contents differ");
  free(pa);
  free(pb);
}
static tsr_tensor* get(const tsr_tensor_map* m, const char* name) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, name, &t));
  return t;
}

static tsr_tensor* ramp(int64_t n, double start, tsr_dtype dt) {
  tsr_tensor *r = NULL, *c = NULL;
  TSR_ASSERT_OK(tsr_arange(start, start + (double)n, 1, TSR_FLOAT64, TSR_CPU, &r));
  TSR_ASSERT_OK(tsr_to_dtype(r, dt, &c));
  tsr_tensor_release(r);
  return c;
}

/* A set of tensors of several kinds: f32, a transposed bf16 view, a
 * 0-dim f16, an empty i32, a bool, an i64, an offset slice. */
enum { N_SET = 7 };
static const char* kSetNames[N_SET] = {"f32", "bf16.T", "scalar", "empty", "mask", "i64", "slice"};
static void tensor_set(tsr_tensor** ts) {
  ts[0] = ramp(10, -3, TSR_FLOAT32);
  tsr_tensor *m = ramp(12, 1, TSR_BFLOAT16), *m2 = NULL;
  TSR_ASSERT_OK(tsr_reshape(m, 2, (int64_t[]){3, 4}, &m2));
  TSR_ASSERT_OK(tsr_transpose(m2, 0, 1, &ts[1]));
  tsr_tensor_release(m);
  tsr_tensor_release(m2);
  TSR_ASSERT_OK(tsr_full(0, NULL, -1.5, TSR_FLOAT16, TSR_CPU, &ts[2]));
  TSR_ASSERT_OK(tsr_empty(2, (int64_t[]){0, 3}, TSR_INT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &ts[3]));
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){5}, 1, TSR_BOOL, TSR_CPU, &ts[4]));
  ts[5] = ramp(7, -100, TSR_INT64);
  tsr_tensor* big = ramp(20, 0, TSR_FLOAT64);
  TSR_ASSERT_OK(tsr_narrow(big, 0, 5, 9, &ts[6]));
  tsr_tensor_release(big);
}
static void release_set(tsr_tensor** ts) {
  for (int i = 0; i < N_SET; ++i) tsr_tensor_release(ts[i]);
}
static void assert_map_holds_set(const tsr_tensor_map* m, tsr_tensor** ts) {
  cr_assert_eq(tsr_tensor_map_count(m), N_SET);
  for (int i = 0; i < N_SET; ++i) {
    tsr_tensor* t = get(m, kSetNames[i]);
    assert_same(ts[i], t);
    tsr_tensor_release(t);
  }
}

static const tsr_save_options kZstd = {sizeof(tsr_save_options), TSR_COMPRESSION_ZSTD, 1, 0, NULL,
                                       NULL, 0, NULL, NULL, 0};

/* ---- tsr_saver ---------------------------------------------------------------- */

static void saver_roundtrip(const tsr_save_options* opts) {
  PATH(path, "model.safetensors");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, opts, &s));
  for (int i = 0; i < N_SET; ++i) TSR_ASSERT_OK(tsr_saver_add(s, kSetNames[i], ts[i]));
  cr_assert_eq(access(path, F_OK), -1, "the file appears only at commit");
  TSR_ASSERT_OK(tsr_saver_commit(s));
  tsr_saver_release(s);
  assert_dir_is("model.safetensors");
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  assert_map_holds_set(m, ts);
  tsr_tensor_map_release(m);
  /* tsr_open_file reads it too (misaligned tensors are read, not mapped). */
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  for (int i = 0; i < N_SET; ++i) {
    tsr_tensor* t = NULL;
    TSR_ASSERT_OK(tsr_file_get_by_name(f, kSetNames[i], &t));
    assert_same(ts[i], t);
    tsr_tensor_release(t);
  }
  tsr_file_release(f);
  release_set(ts);
}
Test(saver, roundtrip_plain) { saver_roundtrip(NULL); }
Test(saver, roundtrip_zstd) { saver_roundtrip(&kZstd); }

Test(saver, metadata_and_no_checksums) {
  PATH(path, "meta.safetensors");
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"format"};
  o.metadata_values = (const char*[]){"pt"};
  o.skip_checksums = 1;
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, &o, &s));
  tsr_tensor* t = ramp(4, 0, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_saver_add(s, "w", t));
  TSR_ASSERT_OK(tsr_saver_commit(s));
  tsr_saver_release(s);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "format"), "pt");
  cr_assert_eq(tsr_tensor_map_metadata_count(m), 1);
  tsr_tensor* back = get(m, "w");
  assert_same(t, back);
  tsr_tensor_release(back);
  tsr_tensor_map_release(m);
  tsr_tensor_release(t);
}

/* More entries than the first 64 KiB reservation holds: the data written
 * so far moves forward (several times), and every tensor survives. */
static void many_tensors(const tsr_save_options* opts) {
  PATH(path, "many.safetensors");
  enum { N = 1500 };
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, opts, &s));
  char name[128];
  for (int i = 0; i < N; ++i) {
    tsr_tensor* t = ramp(1 + i % 37, i, i % 2 ? TSR_FLOAT32 : TSR_INT16);
    snprintf(name, sizeof name, "model.layers.%04d.self_attn.some_rather_long_projection.weight", i);
    TSR_ASSERT_OK(tsr_saver_add(s, name, t));
    tsr_tensor_release(t);
  }
  TSR_ASSERT_OK(tsr_saver_commit(s));
  tsr_saver_release(s);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), N);
  for (int i = 0; i < N; ++i) {
    snprintf(name, sizeof name, "model.layers.%04d.self_attn.some_rather_long_projection.weight", i);
    tsr_tensor* want = ramp(1 + i % 37, i, i % 2 ? TSR_FLOAT32 : TSR_INT16);
    tsr_tensor* got = get(m, name);
    assert_same(want, got);
    tsr_tensor_release(want);
    tsr_tensor_release(got);
  }
  tsr_tensor_map_release(m);
  /* The header is within 8 bytes of ... at most twice what it needs. */
  size_t n;
  unsigned char* p = read_bytes(path, &n);
  uint64_t hlen = 0;
  for (int i = 7; i >= 0; --i) hlen = (hlen << 8) | p[i];
  cr_assert(hlen > (64u << 10), "header %llu bytes", (unsigned long long)hlen);
  free(p);
}
Test(saver, many_tensors_move_the_data_plain) { many_tensors(NULL); }
Test(saver, many_tensors_move_the_data_zstd) { many_tensors(&kZstd); }

Test(saver, release_without_commit_changes_nothing) {
  PATH(path, "keep.safetensors");
  tsr_tensor* old = ramp(3, 7, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"old"}, &old, NULL));
  size_t n0;
  unsigned char* before = read_bytes(path, &n0);
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, NULL, &s));
  tsr_tensor* t = ramp(1000, 0, TSR_FLOAT64);
  TSR_ASSERT_OK(tsr_saver_add(s, "new", t));
  tsr_saver_release(s); /* abandoned */
  tsr_saver_release(NULL);
  size_t n1;
  unsigned char* after = read_bytes(path, &n1);
  cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "the previous file changed");
  assert_dir_is("keep.safetensors");
  free(before);
  free(after);
  tsr_tensor_release(t);
  tsr_tensor_release(old);
}

Test(saver, argument_errors) {
  PATH(path, "args.safetensors");
  tsr_saver* s = (tsr_saver*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_saver_open(NULL, NULL, &s), TSR_ERR_INVALID_ARGUMENT, "path is NULL");
  TSR_ASSERT_FAILS(tsr_saver_open(path, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = (tsr_compression)7;
  TSR_ASSERT_FAILS(tsr_saver_open(path, &o, &s), TSR_ERR_INVALID_ARGUMENT, "unknown compression 7");
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.compression = TSR_COMPRESSION_ZSTD;
  o.level = 99;
  TSR_ASSERT_FAILS(tsr_saver_open(path, &o, &s), TSR_ERR_INVALID_ARGUMENT, "level");
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"tessera.mine"};
  o.metadata_values = (const char*[]){"x"};
  TSR_ASSERT_FAILS(tsr_saver_open(path, &o, &s), TSR_ERR_INVALID_ARGUMENT, "reserved prefix");
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.struct_size = 0;
  TSR_ASSERT_FAILS(tsr_saver_open(path, &o, &s), TSR_ERR_INVALID_ARGUMENT, "struct_size is 0");
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = 1000;
  TSR_ASSERT_FAILS(tsr_saver_open(path, &o, &s), TSR_ERR_UNSUPPORTED, "max_shard_size must be 0");
  o.max_shard_size = -1;
  TSR_ASSERT_FAILS(tsr_saver_open(path, &o, &s), TSR_ERR_INVALID_ARGUMENT, "max_shard_size is -1");
  /* A directory at path, and a missing directory: I/O errors at open. */
  TSR_ASSERT_FAILS(tsr_saver_open(test_dir(), NULL, &s), TSR_ERR_IO, "a directory");
  PATH(missing, "no/such/dir/x.safetensors");
  TSR_ASSERT_FAILS(tsr_saver_open(missing, NULL, &s), TSR_ERR_IO, "no/such/dir");
  cr_assert_eq(s, (tsr_saver*)SENTINEL, "out written on failure");
  assert_dir_is("");

  /* Per-add errors change nothing: the saver goes on. */
  TSR_ASSERT_OK(tsr_saver_open(path, NULL, &s));
  tsr_tensor* t = ramp(4, 0, TSR_FLOAT32);
  TSR_ASSERT_FAILS(tsr_saver_add(NULL, "a", t), TSR_ERR_INVALID_ARGUMENT, "saver is NULL");
  TSR_ASSERT_FAILS(tsr_saver_add(s, NULL, t), TSR_ERR_INVALID_ARGUMENT, "name is NULL");
  TSR_ASSERT_FAILS(tsr_saver_add(s, "a", NULL), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_saver_add(s, "", t), TSR_ERR_INVALID_ARGUMENT, "must not be empty");
  TSR_ASSERT_FAILS(tsr_saver_add(s, "__metadata__", t), TSR_ERR_INVALID_ARGUMENT, "reserved");
  TSR_ASSERT_FAILS(tsr_saver_add(s, "bad\xff", t), TSR_ERR_INVALID_ARGUMENT, "not valid UTF-8");
  TSR_ASSERT_OK(tsr_saver_add(s, "a", t));
  TSR_ASSERT_FAILS(tsr_saver_add(s, "a", t), TSR_ERR_INVALID_ARGUMENT, "duplicate tensor name \"a\"");
  tsr_tensor* b = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){4}, 0, TSR_BOOL, TSR_CPU, &b));
  ((unsigned char*)tsr_tensor_data_ptr(b))[2] = 7;
  TSR_ASSERT_FAILS(tsr_saver_add(s, "b", b), TSR_ERR_INVALID_ARGUMENT, "holds byte 7 at element 2");
  TSR_ASSERT_OK(tsr_saver_add(s, "c", t));
  TSR_ASSERT_FAILS(tsr_saver_commit(NULL), TSR_ERR_INVALID_ARGUMENT, "saver is NULL");
  TSR_ASSERT_OK(tsr_saver_commit(s));
  /* After the commit: every call fails, the file stays. */
  TSR_ASSERT_FAILS(tsr_saver_add(s, "d", t), TSR_ERR_INVALID_ARGUMENT, "already committed");
  TSR_ASSERT_FAILS(tsr_saver_commit(s), TSR_ERR_INVALID_ARGUMENT, "already committed");
  tsr_saver_release(s);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 2);
  cr_assert_str_eq(tsr_tensor_map_name(m, 0), "a");
  cr_assert_str_eq(tsr_tensor_map_name(m, 1), "c");
  tsr_tensor_map_release(m);
  assert_dir_is("args.safetensors");
  tsr_tensor_release(t);
  tsr_tensor_release(b);
}

/* A write that fails (RLIMIT_FSIZE) abandons the save: the previous file
 * stays byte for byte, the temporary is gone, later calls say why. */
Test(saver, write_failure_abandons_the_save) {
  PATH(path, "full.safetensors");
  tsr_tensor* old = ramp(3, 7, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"old"}, &old, NULL));
  size_t n0;
  unsigned char* before = read_bytes(path, &n0);
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {1 << 20, RLIM_INFINITY};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, NULL, &s));
  tsr_tensor* t = ramp(1 << 18, 0, TSR_FLOAT64); /* 2 MiB */
  TSR_ASSERT_FAILS(tsr_saver_add(s, "big", t), TSR_ERR_IO, "cannot write");
  TSR_ASSERT_FAILS(tsr_saver_add(s, "old", old), TSR_ERR_INVALID_ARGUMENT, "abandoned after an earlier failure");
  TSR_ASSERT_FAILS(tsr_saver_commit(s), TSR_ERR_INVALID_ARGUMENT, "abandoned");
  tsr_saver_release(s);
  size_t n1;
  unsigned char* after = read_bytes(path, &n1);
  cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "the previous file changed");
  assert_dir_is("full.safetensors");
  free(before);
  free(after);
  tsr_tensor_release(t);
  tsr_tensor_release(old);
}

/* ---- progress and cancelling ------------------------------------------------------ */

typedef struct {
  int calls;
  int cancel_at; /* call number that returns cancel_with; -1 never */
  tsr_status cancel_with;
  uint64_t last_done, last_total;
  int monotonic;
} progress_log;

static tsr_status on_progress(uint64_t done, uint64_t total, void* ctx) {
  progress_log* p = ctx;
  if (p->calls == 0 && done != 0) p->monotonic = 0;
  if (p->calls > 0 && done < p->last_done) p->monotonic = 0;
  if (done > total) p->monotonic = 0;
  p->last_done = done;
  p->last_total = total;
  return p->calls++ == p->cancel_at ? p->cancel_with : TSR_OK;
}

static int64_t set_bytes(tsr_tensor** ts) {
  int64_t n = 0;
  for (int i = 0; i < N_SET; ++i) n += tsr_tensor_nbytes(ts[i]);
  return n;
}

/* Save with progress: calls from 0 to the total; then cancelling at each
 * call in turn leaves the previous file and nothing else. */
static void save_progress(tsr_compression c, int64_t max_shard) {
  PATH(path, "p.safetensors");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  tsr_tensor* old = ramp(3, 7, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"old"}, &old, NULL));
  size_t n0;
  unsigned char* before = read_bytes(path, &n0);
  progress_log log = {0, -1, TSR_OK, 0, 0, 1};
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = c;
  o.progress = on_progress;
  o.progress_user_data = &log;
  o.max_shard_size = max_shard;
  PATH(other, "other.safetensors");
  TSR_ASSERT_OK(tsr_save(other, N_SET, kSetNames, ts, &o));
  cr_assert(log.monotonic);
  cr_assert_eq(log.last_done, (uint64_t)set_bytes(ts));
  cr_assert_eq(log.last_total, (uint64_t)set_bytes(ts));
  const int calls = log.calls;
  cr_assert_geq(calls, 2);
  char listing[4096];
  dir_listing(listing, sizeof listing);
  for (int k = 0; k < calls; ++k) {
    progress_log cancel = {0, k, k % 2 ? TSR_ERR_CANCELLED : (tsr_status)1000, 0, 0, 1};
    o.progress_user_data = &cancel;
    TSR_ASSERT_FAILS(tsr_save(path, N_SET, kSetNames, ts, &o), TSR_ERR_CANCELLED,
                     "cancelled by the progress callback");
    size_t n1;
    unsigned char* after = read_bytes(path, &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "cancel at call %d changed the file", k);
    free(after);
    assert_dir_is(listing);
  }
  /* Another status from the callback is the call's status. */
  progress_log oom = {0, 1, TSR_ERR_OUT_OF_MEMORY, 0, 0, 1};
  o.progress_user_data = &oom;
  TSR_ASSERT_FAILS(tsr_save(path, N_SET, kSetNames, ts, &o), TSR_ERR_OUT_OF_MEMORY,
                   "TSR_ERR_OUT_OF_MEMORY");
  assert_dir_is(listing);
  free(before);
  release_set(ts);
  tsr_tensor_release(old);
}
Test(progress, save_plain) { save_progress(TSR_COMPRESSION_NONE, 0); }
Test(progress, save_zstd) { save_progress(TSR_COMPRESSION_ZSTD, 0); }
Test(progress, save_sharded) { save_progress(TSR_COMPRESSION_NONE, 64); }

/* Plain tensors over 16 MiB report within the tensor too. */
Test(progress, large_plain_tensor_reports_in_chunks) {
  PATH(path, "large.safetensors");
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){(int64_t)5 << 20}, TSR_FLOAT64, TSR_CPU, &t)); /* 40 MiB */
  progress_log log = {0, -1, TSR_OK, 0, 0, 1};
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.progress = on_progress;
  o.progress_user_data = &log;
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"z"}, &t, &o));
  cr_assert_eq(log.calls, 4, "%d calls", log.calls); /* 0, 16, 32, 40 MiB */
  log = (progress_log){0, -1, TSR_OK, 0, 0, 1};
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, &o, &s));
  TSR_ASSERT_OK(tsr_saver_add(s, "z", t));
  TSR_ASSERT_OK(tsr_saver_commit(s));
  tsr_saver_release(s);
  cr_assert_eq(log.calls, 5, "%d calls", log.calls); /* open, 16, 32, 40 MiB, commit */
  cr_assert(log.monotonic);
  tsr_tensor_release(t);
}

Test(progress, saver_cancel_at_each_call) {
  PATH(path, "s.safetensors");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  tsr_tensor* old = ramp(3, 7, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"old"}, &old, NULL));
  size_t n0;
  unsigned char* before = read_bytes(path, &n0);
  for (int k = 0;; ++k) {
    progress_log log = {0, k, TSR_ERR_CANCELLED, 0, 0, 1};
    tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
    o.progress = on_progress;
    o.progress_user_data = &log;
    tsr_saver* s = NULL;
    tsr_status st = tsr_saver_open(path, &o, &s);
    int i = 0;
    for (; st == TSR_OK && i < N_SET; ++i) st = tsr_saver_add(s, kSetNames[i], ts[i]);
    if (st == TSR_OK) st = tsr_saver_commit(s);
    if (st == TSR_OK) { /* k is past the last call: the save went through */
      cr_assert_eq(log.calls, k, "the commit made %d calls", log.calls);
      cr_assert_eq(log.last_total, (uint64_t)set_bytes(ts));
      tsr_saver_release(s);
      break;
    }
    cr_assert_eq(st, TSR_ERR_CANCELLED, "call %d: %s", k, tsr_last_error_message());
    cr_assert(strstr(tsr_last_error_message(), "cancelled by the progress callback"));
    if (s) { /* abandoned: later calls fail */
      TSR_ASSERT_FAILS(tsr_saver_commit(s), TSR_ERR_INVALID_ARGUMENT, "abandoned");
      tsr_saver_release(s);
    }
    size_t n1;
    unsigned char* after = read_bytes(path, &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "cancel at call %d changed the file", k);
    free(after);
    assert_dir_is("s.safetensors");
  }
  free(before);
  release_set(ts);
  tsr_tensor_release(old);
}

Test(progress, load_reports_and_cancels) {
  PATH(path, "l.safetensors");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  TSR_ASSERT_OK(tsr_save(path, N_SET, kSetNames, ts, &kZstd));
  progress_log log = {0, -1, TSR_OK, 0, 0, 1};
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.progress = on_progress;
  lo.progress_user_data = &log;
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, &lo, &m));
  tsr_tensor_map_release(m);
  cr_assert(log.monotonic);
  cr_assert_eq(log.calls, N_SET + 1);
  cr_assert_eq(log.last_done, (uint64_t)set_bytes(ts));
  for (int k = 0; k <= N_SET; ++k) {
    progress_log cancel = {0, k, TSR_ERR_CANCELLED, 0, 0, 1};
    lo.progress_user_data = &cancel;
    m = (tsr_tensor_map*)SENTINEL;
    TSR_ASSERT_FAILS(tsr_load(path, &lo, &m), TSR_ERR_CANCELLED, "load of");
    cr_assert_eq(m, (tsr_tensor_map*)SENTINEL);
  }
  /* tsr_open_file ignores the callback. */
  progress_log never = {0, 0, TSR_ERR_CANCELLED, 0, 0, 1};
  lo.progress_user_data = &never;
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, &lo, &f));
  tsr_file_release(f);
  cr_assert_eq(never.calls, 0);
  release_set(ts);
}

/* An options struct from before 0.2 (no progress, no max_shard_size)
 * still works: the fields it lacks take their defaults. */
Test(progress, options_of_an_older_caller) {
  PATH(path, "old.safetensors");
  tsr_tensor* t = ramp(4, 0, TSR_FLOAT32);
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.progress = on_progress; /* garbage to an old library: must not be read */
  o.progress_user_data = NULL;
  o.max_shard_size = -5;
  o.struct_size = offsetof(tsr_save_options, skip_checksums) + sizeof(int32_t);
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"w"}, &t, &o));
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.progress = on_progress;
  lo.struct_size = offsetof(tsr_load_options, skip_checksums) + sizeof(int32_t);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, &lo, &m));
  tsr_tensor_map_release(m);
  tsr_tensor_release(t);
}

/* ---- sharded checkpoints ----------------------------------------------------------- */

static void save_sharded(const char* path, tsr_tensor** ts, int64_t max_shard) {
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = max_shard;
  o.n_metadata = 1;
  o.metadata_keys = (const char*[]){"format"};
  o.metadata_values = (const char*[]){"pt"};
  TSR_ASSERT_OK(tsr_save(path, N_SET, kSetNames, ts, &o));
}

Test(shards, roundtrip_through_the_index) {
  PATH(path, "model.safetensors");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  /* bytes: f32 40, bf16 24, scalar 2, empty 0, mask 5, i64 56, slice 72:
   * greedy shards of at most 64 bytes: [f32 bf16.T] [scalar empty mask
   * i64] [slice]. */
  save_sharded(path, ts, 64);
  assert_dir_is("model-00001-of-00003.safetensors model-00002-of-00003.safetensors "
                "model-00003-of-00003.safetensors model.safetensors.index.json");
  PATH(index, "model.safetensors.index.json");
  size_t n;
  char* text = (char*)read_bytes(index, &n);
  text[n] = 0;
  cr_assert(strstr(text, "\"total_size\": 199") != NULL, "%s", text);
  cr_assert(strstr(text, "\"f32\": \"model-00001-of-00003.safetensors\"") != NULL, "%s", text);
  cr_assert(strstr(text, "\"slice\": \"model-00003-of-00003.safetensors\"") != NULL, "%s", text);
  free(text);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(index, NULL, &m));
  assert_map_holds_set(m, ts);
  cr_assert_str_eq(tsr_tensor_map_metadata_get(m, "format"), "pt");
  tsr_tensor_map_release(m);
  /* Each shard is a complete file of its own. */
  PATH(shard2, "model-00002-of-00003.safetensors");
  TSR_ASSERT_OK(tsr_load(shard2, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 4, "scalar empty mask i64");
  tsr_tensor_map_release(m);
  /* Saving again with fewer shards removes the shards the index no longer
   * names; a save that fits one file writes just that file. */
  save_sharded(path, ts, 150);
  assert_dir_is("model-00001-of-00002.safetensors model-00002-of-00002.safetensors "
                "model.safetensors.index.json");
  TSR_ASSERT_OK(tsr_load(index, NULL, &m));
  assert_map_holds_set(m, ts);
  tsr_tensor_map_release(m);
  save_sharded(path, ts, 1000);
  assert_dir_is("model-00001-of-00002.safetensors model-00002-of-00002.safetensors "
                "model.safetensors model.safetensors.index.json");
  release_set(ts);
}

Test(shards, progress_over_all_shards_on_load) {
  PATH(path, "model.safetensors");
  PATH(index, "model.safetensors.index.json");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  save_sharded(path, ts, 64);
  progress_log log = {0, -1, TSR_OK, 0, 0, 1};
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.progress = on_progress;
  lo.progress_user_data = &log;
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(index, &lo, &m));
  tsr_tensor_map_release(m);
  cr_assert(log.monotonic);
  cr_assert_eq(log.last_done, 199);
  cr_assert_eq(log.last_total, 199);
  progress_log cancel = {0, 5, TSR_ERR_CANCELLED, 0, 0, 1};
  lo.progress_user_data = &cancel;
  m = (tsr_tensor_map*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_load(index, &lo, &m), TSR_ERR_CANCELLED, "cancelled");
  cr_assert_eq(m, (tsr_tensor_map*)SENTINEL);
  release_set(ts);
}

Test(shards, save_errors_change_nothing) {
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = 64;
  PATH(bad, "model.bin");
  TSR_ASSERT_FAILS(tsr_save(bad, N_SET, kSetNames, ts, &o), TSR_ERR_INVALID_ARGUMENT,
                   "ending in \".safetensors\"");
  PATH(path, "model.safetensors");
  o.max_shard_size = -1;
  TSR_ASSERT_FAILS(tsr_save(path, N_SET, kSetNames, ts, &o), TSR_ERR_INVALID_ARGUMENT,
                   "max_shard_size is -1");
  o.max_shard_size = 64;
  const char* dup[N_SET] = {"a", "b", "c", "d", "e", "f", "a"};
  TSR_ASSERT_FAILS(tsr_save(path, N_SET, dup, ts, &o), TSR_ERR_INVALID_ARGUMENT,
                   "duplicate tensor name \"a\"");
  /* A bad bool in the last shard: no shard is renamed into place. */
  tsr_tensor* b = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){4}, 0, TSR_BOOL, TSR_CPU, &b));
  ((unsigned char*)tsr_tensor_data_ptr(b))[1] = 9;
  tsr_tensor* mixed[N_SET];
  for (int i = 0; i < N_SET; ++i) mixed[i] = ts[i];
  mixed[N_SET - 1] = b;
  TSR_ASSERT_FAILS(tsr_save(path, N_SET, kSetNames, mixed, &o), TSR_ERR_INVALID_ARGUMENT,
                   "holds byte 9");
  assert_dir_is("");
  tsr_tensor_release(b);
  release_set(ts);
}

/* An index with something wrong: the message says what, no map. */
static void expect_index_fails(const char* text, tsr_status st, const char* needle) {
  PATH(index, "bad.safetensors.index.json");
  write_text(index, text);
  tsr_tensor_map* m = (tsr_tensor_map*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_load(index, NULL, &m), st, needle);
  cr_assert_eq(m, (tsr_tensor_map*)SENTINEL);
}

Test(shards, malformed_indexes) {
  expect_index_fails("{\"weight_map\": {", TSR_ERR_CORRUPT_FILE, "not valid JSON");
  expect_index_fails("[1, 2]", TSR_ERR_CORRUPT_FILE, "not a JSON object");
  expect_index_fails("{\"metadata\": {}}", TSR_ERR_CORRUPT_FILE, "no \"weight_map\" object");
  expect_index_fails("{\"weight_map\": []}", TSR_ERR_CORRUPT_FILE, "no \"weight_map\" object");
  expect_index_fails("{\"weight_map\": {\"a\": 3}}", TSR_ERR_CORRUPT_FILE,
                     "entry of \"a\" is not a string");
  expect_index_fails("{\"weight_map\": {\"a\": \"../etc/passwd\"}}", TSR_ERR_CORRUPT_FILE,
                     "not a file name in the index's directory");
  expect_index_fails("{\"weight_map\": {\"a\": \"\"}}", TSR_ERR_CORRUPT_FILE,
                     "not a file name");
  expect_index_fails("{\"weight_map\": {\"a\": \"missing.safetensors\"}}", TSR_ERR_IO,
                     "shard '");
  PATH(missing_index, "none.safetensors.index.json");
  tsr_tensor_map* m = (tsr_tensor_map*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_load(missing_index, NULL, &m), TSR_ERR_IO, "none.safetensors.index.json");
  /* Shards that disagree with the index. */
  PATH(shard, "s1.safetensors");
  tsr_tensor* t = ramp(3, 0, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_save(shard, 2, (const char*[]){"a", "b"}, (tsr_tensor*[]){t, t}, NULL));
  expect_index_fails("{\"weight_map\": {\"a\": \"s1.safetensors\"}}", TSR_ERR_CORRUPT_FILE,
                     "holds tensor \"b\" which the weight_map does not put there");
  expect_index_fails(
      "{\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\", \"c\": "
      "\"s1.safetensors\"}}",
      TSR_ERR_CORRUPT_FILE,
      "puts tensor \"c\" in shard 's1.safetensors', which has no such tensor (it holds 2)");
  /* A corrupt shard is named. */
  write_text(shard, "garbage that is no safetensors file");
  expect_index_fails("{\"weight_map\": {\"a\": \"s1.safetensors\"}}", TSR_ERR_CORRUPT_FILE,
                     "s1.safetensors' of index");
  tsr_tensor_release(t);
}

/* An index as Hugging Face writes it (extra metadata, names sorted,
 * shards of the reference writer without tessera's checksum). */
Test(shards, reads_a_hugging_face_index) {
  tsr_tensor* a = ramp(6, 1, TSR_FLOAT32);
  tsr_tensor* b = ramp(4, -2, TSR_BFLOAT16);
  tsr_save_options ref = TSR_SAVE_OPTIONS_INIT;
  ref.skip_checksums = 1;
  PATH(s1, "pytorch_model-00001-of-00002.safetensors");
  PATH(s2, "pytorch_model-00002-of-00002.safetensors");
  TSR_ASSERT_OK(tsr_save(s1, 1, (const char*[]){"lm_head.weight"}, &a, &ref));
  TSR_ASSERT_OK(tsr_save(s2, 1, (const char*[]){"model.embed.weight"}, &b, &ref));
  PATH(index, "pytorch_model.safetensors.index.json");
  write_text(index,
             "{\n  \"metadata\": {\n    \"total_size\": 32\n  },\n  \"weight_map\": {\n"
             "    \"lm_head.weight\": \"pytorch_model-00001-of-00002.safetensors\",\n"
             "    \"model.embed.weight\": \"pytorch_model-00002-of-00002.safetensors\"\n  }\n}\n");
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(index, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), 2);
  tsr_tensor* x = get(m, "lm_head.weight");
  assert_same(a, x);
  tsr_tensor_release(x);
  x = get(m, "model.embed.weight");
  assert_same(b, x);
  tsr_tensor_release(x);
  tsr_tensor_map_release(m);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* ---- interop ---------------------------------------------------------------------- */

#define CHECKER TSR_TEST_TOOLS_DIR "/check_safetensors.py"

Test(saver, python_reader_validates_a_saver_file) {
  if (access("/usr/bin/python3", X_OK) != 0 ||
      system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    cr_skip_test("/usr/bin/python3 with numpy is not available");
  PATH(path, "py.safetensors");
  tsr_tensor* ts[N_SET];
  tensor_set(ts);
  tsr_saver* s = NULL;
  TSR_ASSERT_OK(tsr_saver_open(path, NULL, &s));
  for (int i = 0; i < N_SET; ++i) TSR_ASSERT_OK(tsr_saver_add(s, kSetNames[i], ts[i]));
  TSR_ASSERT_OK(tsr_saver_commit(s));
  tsr_saver_release(s);
  /* Round trip through the independent writer: values identical. */
  PATH(back, "py_back.safetensors");
  char cmd[2048], out[8192];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s roundtrip %s %s 2>&1", CHECKER, path, back);
  FILE* f = popen(cmd, "r");
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = 0;
  int st = pclose(f);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checker: %s", out);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(back, NULL, &m));
  for (int i = 0; i < N_SET; ++i) {
    tsr_tensor* t = get(m, kSetNames[i]);
    assert_same(ts[i], t);
    tsr_tensor_release(t);
  }
  tsr_tensor_map_release(m);
  release_set(ts);
}

/* ---- views saved as views ---------------------------------------------------------- */

/* w (3x4) and its transpose; an embedding saved twice (tied); two row
 * slices of a 5x4 buffer that is not saved itself. */
enum { N_VIEWS = 6 };
static const char* kViewNames[N_VIEWS] = {"w", "w.T", "embed", "lm_head", "rows01", "rows34"};
static void view_set(tsr_tensor** ts) {
  tsr_tensor* r = ramp(12, 0, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_reshape(r, 2, (int64_t[]){3, 4}, &ts[0]));
  TSR_ASSERT_OK(tsr_transpose(ts[0], 0, 1, &ts[1]));
  tsr_tensor_release(r);
  ts[2] = ramp(6, 100, TSR_FLOAT32);
  ts[3] = ts[2];
  tsr_tensor_retain(ts[3]);
  tsr_tensor *b = ramp(20, -10, TSR_FLOAT32), *buf = NULL;
  TSR_ASSERT_OK(tsr_reshape(b, 2, (int64_t[]){5, 4}, &buf));
  TSR_ASSERT_OK(tsr_narrow(buf, 0, 0, 2, &ts[4]));
  TSR_ASSERT_OK(tsr_narrow(buf, 0, 3, 2, &ts[5]));
  tsr_tensor_release(b);
  tsr_tensor_release(buf);
}

static char* ptr(const tsr_tensor* t) { return (char*)tsr_tensor_data_ptr(t); }

/* The loaded tensors are views of one storage per group, as saved. */
static void assert_views_restored(const tsr_tensor_map* m, tsr_tensor** ts) {
  cr_assert_eq(tsr_tensor_map_count(m), N_VIEWS);
  cr_assert_eq(tsr_tensor_map_find(m, "tessera.storage.0"), -1, "the storage entry is listed");
  for (int64_t i = 0; i < tsr_tensor_map_metadata_count(m); ++i)
    cr_assert(strncmp(tsr_tensor_map_metadata_key(m, i), "tessera.view.", 13) != 0,
              "view entry %s is listed as metadata", tsr_tensor_map_metadata_key(m, i));
  tsr_tensor* got[N_VIEWS];
  for (int i = 0; i < N_VIEWS; ++i) {
    got[i] = get(m, kViewNames[i]);
    assert_same(ts[i], got[i]);
    tsr_assert_geometry(got[i], tsr_tensor_ndim(ts[i]), tsr_tensor_sizes(ts[i]),
                        tsr_tensor_strides(ts[i]));
  }
  cr_assert_eq(ptr(got[1]), ptr(got[0]), "w.T is not a view of w");
  cr_assert_eq(ptr(got[3]), ptr(got[2]), "the tied tensors do not share memory");
  cr_assert_eq(ptr(got[5]) - ptr(got[4]), 3 * 4 * 4, "the slices are not views of one storage");
  cr_assert_eq(tsr_tensor_storage_offset(got[4]), 0);
  cr_assert_eq(tsr_tensor_storage_offset(got[5]), 12);
  /* A write through one is seen through the other, as in the saved model. */
  TSR_ASSERT_OK(tsr_set_double(got[0], 2, (int64_t[]){1, 2}, 42.0));
  double v = 0;
  TSR_ASSERT_OK(tsr_get_double(got[1], 2, (int64_t[]){2, 1}, &v));
  cr_assert_eq(v, 42.0);
  tsr_storage *s0 = NULL, *s1 = NULL;
  TSR_ASSERT_OK(tsr_tensor_storage(got[2], &s0));
  TSR_ASSERT_OK(tsr_tensor_storage(got[3], &s1));
  cr_assert_eq(tsr_storage_data_ptr(s0), tsr_storage_data_ptr(s1));
  tsr_storage_release(s0);
  tsr_storage_release(s1);
  for (int i = 0; i < N_VIEWS; ++i) tsr_tensor_release(got[i]);
}

static void views_roundtrip(const tsr_save_options* base) {
  PATH(path, "views.safetensors");
  tsr_tensor* ts[N_VIEWS];
  view_set(ts);
  tsr_save_options o = base ? *base : (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  TSR_ASSERT_OK(tsr_save(path, N_VIEWS, kViewNames, ts, &o));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  assert_views_restored(m, ts);
  tsr_tensor_map_release(m);
  /* tsr_open_file lists the same names and gives views of one storage
   * (of the mapping, for a plain file). */
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
  cr_assert_eq(tsr_file_count(f), N_VIEWS);
  cr_assert_eq(tsr_file_find(f, "tessera.storage.0"), -1);
  for (int64_t i = 0; i < tsr_file_metadata_count(f); ++i)
    cr_assert(strncmp(tsr_file_metadata_key(f, i), "tessera.view.", 13) != 0);
  tsr_tensor* got[N_VIEWS];
  for (int i = 0; i < N_VIEWS; ++i) {
    TSR_ASSERT_OK(tsr_file_get_by_name(f, kViewNames[i], &got[i]));
    assert_same(ts[i], got[i]);
    tsr_assert_geometry(got[i], tsr_tensor_ndim(ts[i]), tsr_tensor_sizes(ts[i]),
                        tsr_tensor_strides(ts[i]));
    tsr_dtype dt;
    int64_t nd = 0;
    const int64_t* sizes = NULL;
    TSR_ASSERT_OK(tsr_file_tensor_info(f, tsr_file_find(f, kViewNames[i]), &dt, &nd, &sizes));
    cr_assert_eq(nd, tsr_tensor_ndim(ts[i]));
    cr_assert_eq(dt, TSR_FLOAT32);
    for (int64_t d = 0; d < nd; ++d) cr_assert_eq(sizes[d], tsr_tensor_sizes(ts[i])[d]);
  }
  tsr_file_release(f); /* the tensors keep what they need */
  cr_assert_eq(ptr(got[1]), ptr(got[0]));
  cr_assert_eq(ptr(got[3]), ptr(got[2]));
  cr_assert_eq(ptr(got[5]) - ptr(got[4]), 3 * 4 * 4);
  for (int i = 0; i < N_VIEWS; ++i) tsr_tensor_release(got[i]);
  for (int i = 0; i < N_VIEWS; ++i) tsr_tensor_release(ts[i]);
}
Test(views, roundtrip_plain) { views_roundtrip(NULL); }
Test(views, roundtrip_zstd) { views_roundtrip(&kZstd); }

Test(views, roundtrip_through_shards) {
  PATH(path, "model.safetensors");
  PATH(index, "model.safetensors.index.json");
  tsr_tensor* ts[N_VIEWS];
  view_set(ts);
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = 50; /* w 48 | embed 24 | storage 80 */
  TSR_ASSERT_OK(tsr_save(path, N_VIEWS, kViewNames, ts, &o));
  assert_dir_is("model-00001-of-00003.safetensors model-00002-of-00003.safetensors "
                "model-00003-of-00003.safetensors model.safetensors.index.json");
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(index, NULL, &m));
  assert_views_restored(m, ts);
  tsr_tensor_map_release(m);
  for (int i = 0; i < N_VIEWS; ++i) tsr_tensor_release(ts[i]);
}

/* What other readers see: the storages, as ordinary tensors ("w",
 * "embed" under its first name, and "tessera.storage.0" for the slices). */
Test(views, other_readers_read_the_storages) {
  if (access("/usr/bin/python3", X_OK) != 0 ||
      system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    cr_skip_test("/usr/bin/python3 with numpy is not available");
  PATH(path, "views.safetensors");
  tsr_tensor* ts[N_VIEWS];
  view_set(ts);
  TSR_ASSERT_OK(tsr_save(path, N_VIEWS, kViewNames, ts, NULL));
  char cmd[2048], out[8192];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s validate %s 2>&1", CHECKER, path);
  FILE* f = popen(cmd, "r");
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = 0;
  int st = pclose(f);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checker: %s", out);
  cr_assert(strstr(out, "\"name\": \"w\", \"dtype\": \"F32\", \"shape\": [3, 4]"), "%s", out);
  cr_assert(strstr(out, "\"name\": \"embed\", \"dtype\": \"F32\", \"shape\": [6]"), "%s", out);
  cr_assert(strstr(out, "\"name\": \"tessera.storage.0\", \"dtype\": \"F32\", \"shape\": [20]"),
            "%s", out);
  cr_assert(!strstr(out, "\"name\": \"w.T\"") && !strstr(out, "\"name\": \"lm_head\""), "%s",
            out);
  for (int i = 0; i < N_VIEWS; ++i) tsr_tensor_release(ts[i]);
}

Test(views, flatten_views_saves_each_tensor) {
  PATH(path, "flat.safetensors");
  tsr_tensor* ts[N_VIEWS];
  view_set(ts);
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.flatten_views = 1;
  TSR_ASSERT_OK(tsr_save(path, N_VIEWS, kViewNames, ts, &o));
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), N_VIEWS);
  tsr_tensor *w = get(m, "w"), *wt = get(m, "w.T");
  assert_same(ts[1], wt);
  tsr_assert_geometry(wt, 2, (int64_t[]){4, 3}, (int64_t[]){3, 1});
  cr_assert_neq(ptr(w), ptr(wt));
  tsr_tensor_release(w);
  tsr_tensor_release(wt);
  tsr_tensor_map_release(m);
  for (int i = 0; i < N_VIEWS; ++i) tsr_tensor_release(ts[i]);
}

/* A hand-made plain file: tensor "s" (F32, 4 elements) and one view entry
 * (no checksum), to check what the loader accepts. */
static void write_view_file(const char* path, const char* view_name, const char* view_json) {
  char header[1024], quoted[600];
  size_t q = 0;
  for (const char* p = view_json; *p && q < sizeof quoted - 2; ++p) {
    if (*p == '"' || *p == '\\') quoted[q++] = '\\';
    quoted[q++] = *p;
  }
  quoted[q] = 0;
  int n = snprintf(header, sizeof header,
                   "{\"__metadata__\":{\"tessera.view.%s\":\"%s\"},"
                   "\"s\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
                   view_name, quoted);
  while (n % 8) header[n++] = ' ';
  FILE* f = fopen(path, "wb");
  uint64_t len = (uint64_t)n;
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = (unsigned char)(len >> (8 * i));
  fwrite(le, 1, 8, f);
  fwrite(header, 1, (size_t)n, f);
  float data[4] = {1, 2, 3, 4};
  fwrite(data, 1, sizeof data, f);
  fclose(f);
}

static void expect_view_fails(const char* view_json, const char* needle) {
  PATH(path, "crafted.safetensors");
  write_view_file(path, "v", view_json);
  tsr_tensor_map* m = (tsr_tensor_map*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_load(path, NULL, &m), TSR_ERR_CORRUPT_FILE, needle);
  cr_assert_eq(m, (tsr_tensor_map*)SENTINEL);
}

Test(views, crafted_view_entries) {
  PATH(path, "crafted.safetensors");
  write_view_file(path, "v", "{\"storage\":\"s\",\"sizes\":[2],\"strides\":[2],\"storage_offset\":1}");
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  tsr_tensor* v = get(m, "v");
  float got[2];
  TSR_ASSERT_OK(tsr_copy_to_buffer(v, got, sizeof got, NULL));
  cr_assert(got[0] == 2 && got[1] == 4);
  tsr_tensor_release(v);
  tsr_tensor_map_release(m);
  expect_view_fails("[1]", "not a JSON object");
  expect_view_fails("{\"storage\":\"s\"}", "expected {\"storage\"");
  expect_view_fails("{\"storage\":\"x\",\"sizes\":[1],\"strides\":[1],\"storage_offset\":0}",
                    "its storage \"x\" is not in the file");
  expect_view_fails("{\"storage\":\"s\",\"sizes\":[1,1],\"strides\":[1],\"storage_offset\":0}",
                    "2 sizes and 1 strides");
  expect_view_fails("{\"storage\":\"s\",\"sizes\":[-1],\"strides\":[1],\"storage_offset\":0}",
                    "integers in [0, 2^63)");
  expect_view_fails("{\"storage\":\"s\",\"sizes\":[3],\"strides\":[2],\"storage_offset\":0}",
                    "reaches element 4 of its storage \"s\", which has 4");
  expect_view_fails("{\"storage\":\"s\",\"sizes\":[4],\"strides\":[1],\"storage_offset\":1}",
                    "reaches element 4");
  expect_view_fails("{\"storage\":\"s\",\"sizes\":[3037000500,3037000500],\"strides\":"
                    "[3037000500,1],\"storage_offset\":0}",
                    "overflow");
  expect_view_fails("{\"storage\":\"s\",\"sizes\":[0],\"strides\":[1],\"storage_offset\":9}",
                    "past the end of its storage");
  /* A view named like a tensor of the file. */
  write_view_file(path, "s", "{\"storage\":\"s\",\"sizes\":[1],\"strides\":[1],\"storage_offset\":0}");
  m = (tsr_tensor_map*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_load(path, NULL, &m), TSR_ERR_CORRUPT_FILE,
                   "a tensor of that name is in the file too");
  cr_assert_eq(m, (tsr_tensor_map*)SENTINEL);
}

/* Views of a tensor of a mapped file (tsr_open_file) are saved as views too,
 * and tensors alone in their storage, even strided, as their contents. */
Test(views, views_of_a_mapped_tensor) {
  PATH(src, "src.safetensors");
  PATH(dst, "dst.safetensors");
  tsr_tensor* w0 = ramp(12, 0, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_save(src, 1, (const char*[]){"w"}, &w0, NULL));
  tsr_file* f = NULL;
  TSR_ASSERT_OK(tsr_open_file(src, NULL, &f));
  tsr_tensor *w = NULL, *m = NULL, *mt = NULL, *alone = NULL, *alone_t = NULL;
  TSR_ASSERT_OK(tsr_file_get_by_name(f, "w", &w));
  TSR_ASSERT_OK(tsr_reshape(w, 2, (int64_t[]){3, 4}, &m));
  TSR_ASSERT_OK(tsr_transpose(m, 0, 1, &mt));
  alone = ramp(6, 5, TSR_FLOAT32);
  tsr_tensor* alone2 = NULL;
  TSR_ASSERT_OK(tsr_reshape(alone, 2, (int64_t[]){2, 3}, &alone2));
  TSR_ASSERT_OK(tsr_transpose(alone2, 0, 1, &alone_t));
  tsr_tensor* ts[3] = {m, mt, alone_t};
  TSR_ASSERT_OK(tsr_save(dst, 3, (const char*[]){"m", "m.T", "alone.T"}, ts, NULL));
  tsr_tensor_map* map = NULL;
  TSR_ASSERT_OK(tsr_load(dst, NULL, &map));
  tsr_tensor *gm = get(map, "m"), *gmt = get(map, "m.T"), *ga = get(map, "alone.T");
  assert_same(m, gm);
  assert_same(mt, gmt);
  assert_same(alone_t, ga);
  cr_assert_eq(ptr(gmt), ptr(gm));
  tsr_assert_geometry(gmt, 2, (int64_t[]){4, 3}, (int64_t[]){1, 4});
  tsr_assert_geometry(ga, 2, (int64_t[]){3, 2}, (int64_t[]){2, 1}); /* its contents */
  tsr_tensor* rel[] = {gm, gmt, ga, w, m, mt, alone, alone2, alone_t, w0};
  for (size_t i = 0; i < sizeof rel / sizeof rel[0]; ++i) tsr_tensor_release(rel[i]);
  tsr_tensor_map_release(map);
  tsr_file_release(f);
}

/* Many tensors of mixed sizes (most under one chunk, some over; one
 * transposed, one empty) in the zstd-planes mode: tsr_save and the saver
 * encode several tensors' chunks at once, and their files are the same
 * bytes with 1 and 2 threads and load back to the tensors. */
enum { N_MIXED = 200 };
static void mixed_set(tsr_tensor** ts, char names[][16]) {
  const tsr_dtype kinds[] = {TSR_FLOAT32, TSR_BFLOAT16, TSR_FLOAT16, TSR_INT64};
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(11, &g));
  for (int i = 0; i < N_MIXED; ++i) {
    snprintf(names[i], 16, "t%03d", i);
    const int64_t n = i % 23 == 0 ? 300000 + i : i == 5 ? 0 : (int64_t)(i * 997 % 6000) + 1;
    tsr_tensor* r = NULL;
    TSR_ASSERT_OK(tsr_randn(1, &n, TSR_FLOAT32, g, &r));
    TSR_ASSERT_OK(tsr_to_dtype(r, kinds[i % 4], &ts[i]));
    tsr_tensor_release(r);
  }
  tsr_generator_release(g);
  tsr_tensor *m = ramp(4000, 0, TSR_FLOAT32), *m2 = NULL;
  TSR_ASSERT_OK(tsr_reshape(m, 2, (int64_t[]){40, 100}, &m2));
  tsr_tensor_release(ts[7]);
  TSR_ASSERT_OK(tsr_transpose(m2, 0, 1, &ts[7]));
  tsr_tensor_release(m2);
  tsr_tensor_release(m);
}

static void save_mixed(const char* path, int threads, bool streaming, tsr_tensor** ts,
                       char names[][16]) {
  TSR_ASSERT_OK(tsr_set_num_threads(threads));
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = TSR_COMPRESSION_ZSTD_PLANES;
  if (streaming) {
    tsr_saver* s = NULL;
    TSR_ASSERT_OK(tsr_saver_open(path, &o, &s));
    for (int i = 0; i < N_MIXED; ++i) TSR_ASSERT_OK(tsr_saver_add(s, names[i], ts[i]));
    TSR_ASSERT_OK(tsr_saver_commit(s));
    tsr_saver_release(s);
  } else {
    const char* ns[N_MIXED];
    for (int i = 0; i < N_MIXED; ++i) ns[i] = names[i];
    TSR_ASSERT_OK(tsr_save(path, N_MIXED, ns, ts, &o));
  }
}

Test(saver, zstd_planes_files_are_the_same_on_any_thread_count) {
  tsr_tensor* ts[N_MIXED];
  char names[N_MIXED][16];
  mixed_set(ts, names);
  for (int streaming = 0; streaming < 2; ++streaming) {
    PATH(p1, "mixed1.safetensors");
    PATH(p2, "mixed2.safetensors");
    save_mixed(p1, 1, streaming, ts, names);
    save_mixed(p2, 2, streaming, ts, names);
    size_t n1, n2;
    unsigned char* a = read_bytes(p1, &n1);
    unsigned char* b = read_bytes(p2, &n2);
    cr_assert(n1 == n2 && memcmp(a, b, n1) == 0, "files differ between 1 and 2 threads (%s)",
              streaming ? "tsr_saver" : "tsr_save");
    free(a);
    free(b);
    for (int threads = 1; threads <= 2; ++threads) {
      TSR_ASSERT_OK(tsr_set_num_threads(threads));
      tsr_tensor_map* m = NULL;
      TSR_ASSERT_OK(tsr_load(p2, NULL, &m));
      cr_assert_eq(tsr_tensor_map_count(m), N_MIXED);
      for (int i = 0; i < N_MIXED; ++i) {
        tsr_tensor* t = get(m, names[i]);
        assert_same(ts[i], t);
        tsr_tensor_release(t);
      }
      tsr_tensor_map_release(m);
    }
    unlink(p1);
    unlink(p2);
  }
  for (int i = 0; i < N_MIXED; ++i) tsr_tensor_release(ts[i]);
}
