/* Sharded checkpoints of a process group (tsr_save_sharded /
 * tsr_load_sharded, distributed.h): saved at world 4, loaded back at world
 * 1-4 and whole by tsr_load; a rank killed mid-save leaves the previous
 * checkpoint as it was; partial checkpoints refused by name; ranks that
 * disagree fail together. Ranks are forked children (dist_harness.h), each
 * run under a hard deadline. Values are small integers, exact in every
 * dtype, so comparisons are bitwise. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "dist_harness.h"
#include "helpers.h"

/* The checkpoint's tensors: dtype and whole sizes. N = sizes[0] covers
 * N % 4 != 0, N < 4 (ranks with 0 rows) and N = 0. */
typedef struct {
  const char* name;
  tsr_dtype dtype;
  int64_t ndim;
  int64_t sizes[3];
} spec;
static const spec kSpecs[] = {
    {"w", TSR_FLOAT32, 2, {10, 3}},        /* rows 3 3 3 1 at world 4 */
    {"bias", TSR_INT64, 1, {7}},           /* 2 2 2 1 */
    {"emb", TSR_BFLOAT16, 3, {3, 2, 2}},   /* 1 1 1 0 */
    {"mask", TSR_BOOL, 2, {5, 1}},         /* 2 2 1 0 */
    {"empty", TSR_FLOAT64, 2, {0, 4}},     /* 0 0 0 0 */
    {"half", TSR_FLOAT16, 2, {9, 5}},      /* 3 3 3 0, saved from a transposed view */
    {"bytes", TSR_UINT8, 1, {13}},         /* 4 4 4 1 */
};
enum { kNumSpecs = sizeof kSpecs / sizeof kSpecs[0] };

/* Rows [begin, end) rank holds of n among world (the documented rule). */
static void rows_of(int64_t n, int rank, int world, int64_t* begin, int64_t* end) {
  const int64_t c = n == 0 ? 0 : (n + world - 1) / world;
  *begin = rank * c < n ? rank * c : n;
  *end = (rank + 1) * c < n ? (rank + 1) * c : n;
}

/* Whole tensor k of checkpoint version v. */
static tsr_tensor* whole(int k, int v) {
  const spec* s = &kSpecs[k];
  int64_t numel = 1;
  for (int64_t d = 0; d < s->ndim; ++d) numel *= s->sizes[d];
  double* x = malloc(sizeof(double) * (size_t)(numel + 1));
  for (int64_t i = 0; i < numel; ++i)
    x[i] = s->dtype == TSR_BOOL ? (double)((i * 3 + k + v) % 2) : (double)((i * 7 + k * 5 + v * 11) % 23) - 5;
  if (s->dtype == TSR_UINT8)
    for (int64_t i = 0; i < numel; ++i) x[i] += 5;
  tsr_tensor *d, *t;
  DCHECK_OK(tsr_from_data(x, (size_t)numel * sizeof(double), s->ndim, s->sizes, TSR_FLOAT64, &d));
  DCHECK_OK(tsr_to_dtype(d, s->dtype, &t));
  tsr_tensor_release(d);
  free(x);
  return t;
}

/* Rank's rows of tensor k (version v) at world; "half" as a transposed
 * (non-contiguous) view of the same values. */
static tsr_tensor* local_rows(int k, int v, int rank, int world) {
  tsr_tensor* w = whole(k, v);
  int64_t b, e;
  rows_of(kSpecs[k].sizes[0], rank, world, &b, &e);
  tsr_tensor* r;
  DCHECK_OK(tsr_narrow(w, 0, b, e - b, &r));
  tsr_tensor_release(w);
  if (strcmp(kSpecs[k].name, "half") == 0) {
    tsr_tensor *c, *t, *tt;
    DCHECK_OK(tsr_transpose(r, 0, 1, &t));
    DCHECK_OK(tsr_contiguous(t, TSR_CONTIGUOUS_FORMAT, &c));
    DCHECK_OK(tsr_transpose(c, 0, 1, &tt));
    tsr_tensor_release(t);
    tsr_tensor_release(c);
    tsr_tensor_release(r);
    r = tt;
  }
  return r;
}

static int64_t size_of(const tsr_tensor* t, int64_t d) {
  int64_t s = -1;
  tsr_tensor_size(t, d, &s);
  return s;
}

static int same_tensor(const tsr_tensor* a, const tsr_tensor* b) {
  if (tsr_tensor_dtype(a) != tsr_tensor_dtype(b) || tsr_tensor_ndim(a) != tsr_tensor_ndim(b)) return 0;
  for (int64_t d = 0; d < tsr_tensor_ndim(a); ++d)
    if (size_of(a, d) != size_of(b, d)) return 0;
  return dist_same_bytes(a, b);
}

typedef struct {
  char dir[512];
  char stem[600];
  int version;   /* the values saved */
  int kill_rank; /* -1: none; else this rank SIGKILLs itself mid-write */
} job;

static void make_dir(job* j, const char* tag) {
  snprintf(j->dir, sizeof j->dir, "%s/sharded_%s_%d", TSR_TEST_TMP_DIR, tag, (int)getpid());
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", j->dir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(mkdir(j->dir, 0777), 0);
  snprintf(j->stem, sizeof j->stem, "%s/model", j->dir);
  j->kill_rank = -1;
}

static void remove_dir(const job* j) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", j->dir);
  cr_assert_eq(system(cmd), 0);
}

static void index_path(const job* j, char* out, size_t n) { snprintf(out, n, "%s.safetensors.index.json", j->stem); }

/* Kills this process once it has written its first tensor. */
static tsr_status kill_midway(uint64_t done, uint64_t total, void* user) {
  (void)total;
  (void)user;
  if (done > 0) raise(SIGKILL);
  return TSR_OK;
}

static int save_body(int port, int rank, int world, void* arg) {
  job* j = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  tsr_tensor* chunks[kNumSpecs];
  const char* names[kNumSpecs];
  for (int k = 0; k < kNumSpecs; ++k) {
    chunks[k] = local_rows(k, j->version, rank, world);
    names[k] = kSpecs[k].name;
  }
  const char* keys[] = {"epoch"};
  char epoch[16];
  snprintf(epoch, sizeof epoch, "%d", j->version);
  const char* values[] = {epoch};
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.n_metadata = 1;
  o.metadata_keys = keys;
  o.metadata_values = values;
  if (j->kill_rank == rank) o.progress = kill_midway;
  const tsr_status st = tsr_save_sharded(pg, j->stem, kNumSpecs, names, chunks, &o);
  if (j->kill_rank >= 0) {
    /* The survivors fail as the dead rank's connections close. */
    DCHECK(st == TSR_ERR_DISTRIBUTED, "a save with rank %d killed gave %s", j->kill_rank, tsr_status_name(st));
  } else {
    DCHECK(st == TSR_OK, "save failed: %s", tsr_status_name(st));
  }
  for (int k = 0; k < kNumSpecs; ++k) tsr_tensor_release(chunks[k]);
  tsr_process_group_release(pg);
  return 0;
}

/* Loads at this world and checks this rank's rows of version j->version. */
static int load_body(int port, int rank, int world, void* arg) {
  job* j = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  tsr_tensor_map* m;
  DCHECK_OK(tsr_load_sharded(pg, j->stem, NULL, &m));
  DCHECK(tsr_tensor_map_count(m) == kNumSpecs, "%lld tensors", (long long)tsr_tensor_map_count(m));
  /* by name */
  DCHECK(strcmp(tsr_tensor_map_name(m, 0), "bias") == 0, "first is %s", tsr_tensor_map_name(m, 0));
  for (int k = 0; k < kNumSpecs; ++k) {
    tsr_tensor *got, *want = local_rows(k, j->version, rank, world);
    DCHECK_OK(tsr_tensor_map_get_by_name(m, kSpecs[k].name, &got));
    bool contiguous = false;
    DCHECK_OK(tsr_is_contiguous(got, TSR_CONTIGUOUS_FORMAT, &contiguous));
    DCHECK(contiguous, "%s not contiguous", kSpecs[k].name);
    DCHECK(same_tensor(got, want), "rank %d of %d: rows of %s differ", rank, world, kSpecs[k].name);
    tsr_tensor_release(got);
    tsr_tensor_release(want);
  }
  char epoch[16];
  snprintf(epoch, sizeof epoch, "%d", j->version);
  DCHECK(tsr_tensor_map_metadata_get(m, "epoch") && strcmp(tsr_tensor_map_metadata_get(m, "epoch"), epoch) == 0,
         "metadata");
  tsr_tensor_map_release(m);
  /* The index path itself works too; without checksums only the rows'
   * byte ranges are read (read_tensor_range's other path). */
  char ip[700];
  index_path(j, ip, sizeof ip);
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.skip_checksums = 1;
  DCHECK_OK(tsr_load_sharded(pg, ip, &lo, &m));
  for (int k = 0; k < kNumSpecs; ++k) {
    tsr_tensor *got, *want = local_rows(k, j->version, rank, world);
    DCHECK_OK(tsr_tensor_map_get_by_name(m, kSpecs[k].name, &got));
    DCHECK(same_tensor(got, want), "rank %d of %d, no checksums: rows of %s differ", rank, world, kSpecs[k].name);
    tsr_tensor_release(got);
    tsr_tensor_release(want);
  }
  tsr_tensor_map_release(m);
  tsr_process_group_release(pg);
  return 0;
}

static void run_ok(int world, dist_body body, void* j) {
  int st[8];
  cr_assert_eq(dist_run_ranks(world, body, j, 60, st), 0, "a rank hung");
  for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d of %d failed (status %d)", r, world, st[r]);
}

/* tsr_load of the index in this process: whole tensors of version v. */
static void check_whole(const job* j, int v) {
  char ip[700];
  index_path(j, ip, sizeof ip);
  tsr_tensor_map* m;
  TSR_ASSERT_OK(tsr_load(ip, NULL, &m));
  cr_assert_eq(tsr_tensor_map_count(m), kNumSpecs);
  for (int k = 0; k < kNumSpecs; ++k) {
    tsr_tensor *got, *want = whole(k, v);
    TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, kSpecs[k].name, &got));
    cr_assert(same_tensor(got, want), "whole %s differs (version %d)", kSpecs[k].name, v);
    tsr_tensor_release(got);
    tsr_tensor_release(want);
  }
  tsr_tensor_map_release(m);
}

/* Names in j->dir, sorted, joined by ' '. */
static void list_dir(const job* j, char* out, size_t n) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | tr '\\n' ' '", j->dir);
  FILE* p = popen(cmd, "r");
  size_t got = fread(out, 1, n - 1, p);
  out[got] = '\0';
  pclose(p);
}

Test(sharded_checkpoint, save_at_4_load_at_1_2_3_4_and_whole) {
  job j;
  make_dir(&j, "roundtrip");
  j.version = 1;
  run_ok(4, save_body, &j);
  char files[2048];
  list_dir(&j, files, sizeof files);
  cr_assert_str_eq(files,
                   "model-g1-00000-of-00004.safetensors model-g1-00001-of-00004.safetensors "
                   "model-g1-00002-of-00004.safetensors model-g1-00003-of-00004.safetensors "
                   "model.safetensors.index.json ");
  check_whole(&j, 1);
  for (int world = 1; world <= 4; ++world) run_ok(world, load_body, &j);
  /* A shard is a plain safetensors file with the rank's rows. */
  char shard[700];
  snprintf(shard, sizeof shard, "%s/model-g1-00003-of-00004.safetensors", j.dir);
  tsr_tensor_map* m;
  TSR_ASSERT_OK(tsr_load(shard, NULL, &m));
  tsr_tensor* w;
  TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, "w", &w));
  cr_assert_eq(size_of(w, 0), 1);
  tsr_tensor_release(w);
  tsr_tensor_map_release(m);

  /* A second save: generation 2 replaces generation 1, whose files go. */
  j.version = 2;
  run_ok(4, save_body, &j);
  list_dir(&j, files, sizeof files);
  cr_assert_str_eq(files,
                   "model-g2-00000-of-00004.safetensors model-g2-00001-of-00004.safetensors "
                   "model-g2-00002-of-00004.safetensors model-g2-00003-of-00004.safetensors "
                   "model.safetensors.index.json ");
  check_whole(&j, 2);
  run_ok(3, load_body, &j);
  remove_dir(&j);
}

/* Compressed shards (zstd-planes) read the same rows; a save at world 3
 * over a Hugging Face checkpoint at the same stem removes its shards. */
static int save_planes_body(int port, int rank, int world, void* arg) {
  job* j = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  tsr_tensor* chunks[kNumSpecs];
  const char* names[kNumSpecs];
  for (int k = 0; k < kNumSpecs; ++k) {
    chunks[k] = local_rows(k, j->version, rank, world);
    names[k] = kSpecs[k].name;
  }
  const char* keys[] = {"epoch"};
  char epoch[16];
  snprintf(epoch, sizeof epoch, "%d", j->version);
  const char* values[] = {epoch};
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = TSR_COMPRESSION_ZSTD_PLANES;
  o.n_metadata = 1;
  o.metadata_keys = keys;
  o.metadata_values = values;
  DCHECK_OK(tsr_save_sharded(pg, j->stem, kNumSpecs, names, chunks, &o));
  for (int k = 0; k < kNumSpecs; ++k) tsr_tensor_release(chunks[k]);
  tsr_process_group_release(pg);
  return 0;
}

Test(sharded_checkpoint, compressed_over_a_hugging_face_checkpoint) {
  job j;
  make_dir(&j, "planes");
  /* tsr_save's Hugging Face layout at the same stem first. */
  tsr_tensor* t[kNumSpecs];
  const char* names[kNumSpecs];
  for (int k = 0; k < kNumSpecs; ++k) {
    t[k] = whole(k, 0);
    names[k] = kSpecs[k].name;
  }
  char path[700];
  snprintf(path, sizeof path, "%s.safetensors", j.stem);
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = 64;
  TSR_ASSERT_OK(tsr_save(path, kNumSpecs, names, t, &o));
  for (int k = 0; k < kNumSpecs; ++k) tsr_tensor_release(t[k]);
  /* tsr_load_sharded refuses that kind of index. */
  j.version = 0;
  char files[2048];
  list_dir(&j, files, sizeof files);
  cr_assert(strstr(files, "model-00001-of-0000"), "%s", files);

  j.version = 3;
  run_ok(3, save_planes_body, &j);
  list_dir(&j, files, sizeof files);
  cr_assert_str_eq(files,
                   "model-g1-00000-of-00003.safetensors model-g1-00001-of-00003.safetensors "
                   "model-g1-00002-of-00003.safetensors model.safetensors.index.json ");
  check_whole(&j, 3);
  run_ok(2, load_body, &j);
  run_ok(4, load_body, &j);
  remove_dir(&j);
}

Test(sharded_checkpoint, killed_rank_leaves_the_previous_checkpoint) {
  job j;
  make_dir(&j, "kill");
  j.version = 1;
  run_ok(3, save_body, &j);
  char before[2048], after[2048];
  list_dir(&j, before, sizeof before);
  char ip[700];
  index_path(&j, ip, sizeof ip);
  struct stat st0;
  cr_assert_eq(stat(ip, &st0), 0);

  /* Rank 1 dies after writing part of its file; ranks 0 and 2 fail
   * (checked in save_body) within the deadline, not at the 20 s timeout. */
  j.version = 2;
  j.kill_rank = 1;
  int st[3];
  const double t0 = dist_now();
  cr_assert_eq(dist_run_ranks(3, save_body, &j, 60, st), 0, "a rank hung");
  cr_assert(dist_now() - t0 < 15, "the survivors took %.1f s", dist_now() - t0);
  cr_assert(WIFSIGNALED(st[1]) && WTERMSIG(st[1]) == SIGKILL, "rank 1 status %d", st[1]);
  cr_assert(dist_exited_ok(st[0]) && dist_exited_ok(st[2]), "survivors: %d %d", st[0], st[2]);
  /* Nothing of the failed save is left: the same files, the same index. */
  list_dir(&j, after, sizeof after);
  cr_assert_str_eq(after, before);
  struct stat st1;
  cr_assert_eq(stat(ip, &st1), 0);
  cr_assert_eq(st0.st_ino, st1.st_ino);
  j.version = 1;
  j.kill_rank = -1;
  check_whole(&j, 1);
  run_ok(2, load_body, &j);

  /* Rank 0 killed the same way. */
  j.version = 2;
  j.kill_rank = 0;
  cr_assert_eq(dist_run_ranks(3, save_body, &j, 60, st), 0, "a rank hung");
  cr_assert(WIFSIGNALED(st[0]), "rank 0 status %d", st[0]);
  list_dir(&j, after, sizeof after);
  cr_assert_str_eq(after, before);
  check_whole(&j, 1);

  /* The next save succeeds and replaces it. */
  j.version = 2;
  j.kill_rank = -1;
  run_ok(3, save_body, &j);
  check_whole(&j, 2);
  remove_dir(&j);
}

/* A rank's shard of the checkpoint in j->dir was damaged: every rank's
 * load fails with the file's name. */
typedef struct {
  job* j;
  tsr_status status;
  const char* needle;
} broken;

static int load_broken_body(int port, int rank, int world, void* arg) {
  broken* b = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  tsr_tensor_map* m = (tsr_tensor_map*)0x1;
  const tsr_status st = tsr_load_sharded(pg, b->j->stem, NULL, &m);
  DCHECK(st == b->status, "rank %d: %s, expected %s", rank, tsr_status_name(st), tsr_status_name(b->status));
  DCHECK(strstr(tsr_last_error_message(), b->needle), "rank %d: message lacks '%s'", rank, b->needle);
  DCHECK(m == (tsr_tensor_map*)0x1, "out written on failure");
  /* The group is still usable: the failure was agreed, not a broken link. */
  DCHECK_OK(tsr_barrier(pg, NULL));
  tsr_process_group_release(pg);
  return 0;
}

static void expect_load_fails(job* j, tsr_status status, const char* needle) {
  char ip[700];
  index_path(j, ip, sizeof ip);
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_FAILS(tsr_load(ip, NULL, &m), status, needle);
  cr_assert_null(m);
  broken b = {j, status, needle};
  run_ok(2, load_broken_body, &b);
}

static void copy_file(const char* from, const char* to) {
  char cmd[1600];
  snprintf(cmd, sizeof cmd, "cp -p '%s' '%s'", from, to);
  cr_assert_eq(system(cmd), 0);
}

Test(sharded_checkpoint, partial_checkpoints_are_refused_by_name) {
  job j;
  make_dir(&j, "partial");
  j.version = 1;
  run_ok(4, save_body, &j);
  char shard[700], keep[800];
  snprintf(shard, sizeof shard, "%s/model-g1-00002-of-00004.safetensors", j.dir);
  snprintf(keep, sizeof keep, "%s.keep", shard);
  copy_file(shard, keep);

  /* Missing. */
  cr_assert_eq(unlink(shard), 0);
  expect_load_fails(&j, TSR_ERR_IO, "model-g1-00002-of-00004.safetensors");
  /* Truncated. */
  copy_file(keep, shard);
  struct stat s;
  cr_assert_eq(stat(shard, &s), 0);
  cr_assert_eq(truncate(shard, s.st_size - 3), 0);
  expect_load_fails(&j, TSR_ERR_CORRUPT_FILE, "model-g1-00002-of-00004.safetensors' of index");
  /* One data byte flipped (the last byte: tensor data): its checksum. */
  copy_file(keep, shard);
  int fd = open(shard, O_RDWR);
  unsigned char c;
  cr_assert_eq(pread(fd, &c, 1, s.st_size - 1), 1);
  c ^= 0x10;
  cr_assert_eq(pwrite(fd, &c, 1, s.st_size - 1), 1);
  close(fd);
  {
    char ip[700];
    index_path(&j, ip, sizeof ip);
    tsr_tensor_map* m = NULL;
    TSR_ASSERT_FAILS(tsr_load(ip, NULL, &m), TSR_ERR_CORRUPT_FILE, "checksum mismatch");
    cr_assert(strstr(tsr_last_error_message(), "model-g1-00002-of-00004.safetensors"), "%s",
              tsr_last_error_message());
  }
  /* Index missing: the checkpoint is not there. */
  copy_file(keep, shard);
  char ip[700], ikeep[800];
  index_path(&j, ip, sizeof ip);
  snprintf(ikeep, sizeof ikeep, "%s.keep", ip);
  cr_assert_eq(rename(ip, ikeep), 0);
  expect_load_fails(&j, TSR_ERR_IO, "model.safetensors.index.json");
  /* An index that is not one. */
  FILE* f = fopen(ip, "w");
  fputs("{\"format\": \"tessera-sharded-1\", \"generation\": 1}", f);
  fclose(f);
  expect_load_fails(&j, TSR_ERR_CORRUPT_FILE, "has no \"world_size\"");
  f = fopen(ip, "w");
  fputs("{\"format\": \"tessera-sharded-9\"}", f);
  fclose(f);
  expect_load_fails(&j, TSR_ERR_UNSUPPORTED, "tessera-sharded-9");
  /* Restored: loads again. */
  cr_assert_eq(rename(ikeep, ip), 0);
  check_whole(&j, 1);
  remove_dir(&j);
}

/* Ranks that disagree: every rank fails with the same status, nothing is
 * written, and the group stays usable. arg selects the disagreement. */
typedef struct {
  job* j;
  int kase;
} mismatch;

static int mismatch_body(int port, int rank, int world, void* arg) {
  mismatch* mm = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int64_t n = 12;
  int64_t b, e;
  rows_of(n, rank, world, &b, &e);
  int64_t rows = e - b, cols = 4;
  tsr_dtype dt = TSR_FLOAT32;
  const char* name = "w";
  tsr_status want = TSR_ERR_SHAPE_MISMATCH;
  const char* needle = "";
  int64_t count = 1;
  switch (mm->kase) {
    case 0: /* rank 1 passes a row too many (and rank 2 one too few) */
      if (rank == 1) rows += 1;
      if (rank == 2) rows -= 1;
      needle = "rank 1 passes 5 rows of tensor \"w\"; of its 12 rows in all, rank 1 of 3 holds rows [4, 8), 4 rows";
      break;
    case 1:
      if (rank == 2) dt = TSR_FLOAT64;
      want = TSR_ERR_DTYPE_MISMATCH;
      needle = "tensor \"w\" is float64 on rank 2, float32 on rank 0";
      break;
    case 2:
      if (rank == 1) cols = 5;
      needle = "has sizes [4, 5] on rank 1, [4, 4] on rank 0";
      break;
    case 3:
      if (rank == 2) name = "v";
      want = TSR_ERR_INVALID_ARGUMENT;
      needle = "tensor 0 is \"v\" on rank 2, \"w\" on rank 0";
      break;
    case 4: /* rank 1's own bad argument reaches every rank */
      if (rank == 1) count = -1;
      want = TSR_ERR_INVALID_ARGUMENT;
      needle = "number of tensors is -1";
      break;
    case 5: /* a 0-dim tensor */
      if (rank == 0) rows = -1;
      want = TSR_ERR_INVALID_ARGUMENT;
      needle = "is 0-dim";
      break;
  }
  tsr_tensor* t;
  const int64_t sizes[2] = {rows, cols};
  if (rows < 0) DCHECK_OK(tsr_zeros(0, sizes, dt, TSR_CPU, &t));
  else DCHECK_OK(tsr_zeros(2, sizes, dt, TSR_CPU, &t));
  const char* names[] = {name};
  const tsr_status st = tsr_save_sharded(pg, mm->j->stem, count, names, &t, NULL);
  DCHECK(st == want, "case %d rank %d: %s, expected %s", mm->kase, rank, tsr_status_name(st), tsr_status_name(want));
  DCHECK(strstr(tsr_last_error_message(), needle), "case %d rank %d: message lacks '%s'", mm->kase, rank, needle);
  if (mm->kase == 4 && rank != 1)
    DCHECK(strstr(tsr_last_error_message(), "tsr_save_sharded failed on rank 1 of 3"), "case 4 rank %d", rank);
  DCHECK_OK(tsr_barrier(pg, NULL));
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(sharded_checkpoint, ranks_that_disagree_all_fail) {
  job j;
  make_dir(&j, "mismatch");
  for (int k = 0; k <= 5; ++k) {
    mismatch mm = {&j, k};
    run_ok(3, mismatch_body, &mm);
    char files[256];
    list_dir(&j, files, sizeof files);
    cr_assert_str_eq(files, "", "case %d left: %s", k, files);
  }
  remove_dir(&j);
}

static int bad_args_body(int port, int rank, int world, void* arg) {
  job* j = arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int64_t sizes[1] = {2};
  tsr_tensor* t;
  DCHECK_OK(tsr_zeros(1, sizes, TSR_FLOAT32, TSR_CPU, &t));
  const char* names[] = {"w"};
  tsr_tensor* none[] = {NULL};
  const char* no_name[] = {NULL};
#define EXPECT(call, status, needle)                                                                   \
  do {                                                                                                 \
    const tsr_status s_ = (call);                                                                      \
    DCHECK(s_ == (status), "%s: %s", #call, tsr_status_name(s_));                                      \
    DCHECK(strstr(tsr_last_error_message(), needle), "%s: message lacks '%s'", #call, needle);         \
  } while (0)
  EXPECT(tsr_save_sharded(NULL, j->stem, 1, names, &t, NULL), TSR_ERR_INVALID_ARGUMENT, "pg");
  EXPECT(tsr_save_sharded(pg, NULL, 1, names, &t, NULL), TSR_ERR_INVALID_ARGUMENT, "path");
  EXPECT(tsr_save_sharded(pg, j->stem, -2, names, &t, NULL), TSR_ERR_INVALID_ARGUMENT, "number of tensors is -2");
  EXPECT(tsr_save_sharded(pg, j->stem, 1, NULL, &t, NULL), TSR_ERR_INVALID_ARGUMENT, "names");
  EXPECT(tsr_save_sharded(pg, j->stem, 1, names, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "local_chunks");
  EXPECT(tsr_save_sharded(pg, j->stem, 1, names, none, NULL), TSR_ERR_INVALID_ARGUMENT, "local_chunks[0] is NULL");
  EXPECT(tsr_save_sharded(pg, j->stem, 1, no_name, &t, NULL), TSR_ERR_INVALID_ARGUMENT, "names[0] is NULL");
  char dir_only[600];
  snprintf(dir_only, sizeof dir_only, "%s/", j->dir);
  EXPECT(tsr_save_sharded(pg, dir_only, 1, names, &t, NULL), TSR_ERR_INVALID_ARGUMENT, "names no checkpoint");
  const char* dup[] = {"w", "w"};
  tsr_tensor* two[] = {t, t};
  EXPECT(tsr_save_sharded(pg, j->stem, 2, dup, two, NULL), TSR_ERR_INVALID_ARGUMENT, "duplicate tensor name \"w\"");
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = 100;
  EXPECT(tsr_save_sharded(pg, j->stem, 1, names, &t, &o), TSR_ERR_INVALID_ARGUMENT, "max_shard_size must be 0");
  o.max_shard_size = 0;
  o.compression = (tsr_compression)77;
  EXPECT(tsr_save_sharded(pg, j->stem, 1, names, &t, &o), TSR_ERR_INVALID_ARGUMENT, "unknown compression 77");
  char missing_dir[700];
  snprintf(missing_dir, sizeof missing_dir, "%s/no/such/model", j->dir);
  EXPECT(tsr_save_sharded(pg, missing_dir, 1, names, &t, NULL), TSR_ERR_IO, "no/such");

  tsr_tensor_map* m = (tsr_tensor_map*)0x1;
  EXPECT(tsr_load_sharded(NULL, j->stem, NULL, &m), TSR_ERR_INVALID_ARGUMENT, "pg");
  EXPECT(tsr_load_sharded(pg, NULL, NULL, &m), TSR_ERR_INVALID_ARGUMENT, "path");
  EXPECT(tsr_load_sharded(pg, j->stem, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  tsr_load_options lo = TSR_LOAD_OPTIONS_INIT;
  lo.max_bytes = -1;
  EXPECT(tsr_load_sharded(pg, j->stem, &lo, &m), TSR_ERR_INVALID_ARGUMENT, "max_bytes is -1");
  EXPECT(tsr_load_sharded(pg, j->stem, NULL, &m), TSR_ERR_IO, "model.safetensors.index.json");
  DCHECK(m == (tsr_tensor_map*)0x1, "out written on failure");
  /* A Hugging Face index is tsr_load's. */
  char hf[700];
  snprintf(hf, sizeof hf, "%s.safetensors", j->stem);
  o = (tsr_save_options)TSR_SAVE_OPTIONS_INIT;
  o.max_shard_size = 4;
  tsr_tensor* two_t[] = {t, t};
  const char* ab[] = {"a", "b"};
  if (rank == 0) DCHECK_OK(tsr_save(hf, 2, ab, two_t, &o));
  DCHECK_OK(tsr_barrier(pg, NULL));
  EXPECT(tsr_load_sharded(pg, j->stem, NULL, &m), TSR_ERR_UNSUPPORTED, "Hugging Face index");
  /* Still a working group, and a good save after all that. */
  DCHECK_OK(tsr_save_sharded(pg, j->stem, 1, names, &t, NULL));
#undef EXPECT
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(sharded_checkpoint, bad_arguments) {
  job j;
  make_dir(&j, "args");
  run_ok(1, bad_args_body, &j);
  /* The save at world 1 wrote one shard (2 rows) and the index, and
   * removed tsr_save's Hugging Face shards the index had named. */
  char files[2048];
  list_dir(&j, files, sizeof files);
  cr_assert_str_eq(files, "model-g1-00000-of-00001.safetensors model.safetensors.index.json ");
  remove_dir(&j);
}

static void touch(const job* j, const char* name, const char* text) {
  char p[900];
  snprintf(p, sizeof p, "%s/%s", j->dir, name);
  FILE* f = fopen(p, "w");
  cr_assert_not_null(f, "%s", p);
  fputs(text, f);
  fclose(f);
}

/* What crashed saves leave (files of a generation no index names, a named
 * temporary of a dead process) goes at the next successful save, which
 * takes a generation above them; of a previous Hugging Face index only
 * files of its shard pattern are removed, never other names it lists. */
Test(sharded_checkpoint, leftovers_of_crashed_saves_are_removed) {
  job j;
  make_dir(&j, "leftovers");
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  for (char* c = host; *c; ++c)
    if (*c == '.' || *c == '/') *c = '_';
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, NULL, 0);
  char tmp[512];
  snprintf(tmp, sizeof tmp, ".model-g5-00001-of-00002.safetensors.tmp.%s.%d.0", host, (int)dead);
  touch(&j, tmp, "partial");
  touch(&j, "model-g5-00000-of-00002.safetensors", "partial");
  touch(&j, "model-00001-of-00002.safetensors", "old shard");
  touch(&j, "notes.txt", "keep me");
  touch(&j, "model.safetensors.index.json",
        "{\"metadata\": {}, \"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\", \"b\": \"notes.txt\"}}");
  j.version = 4;
  run_ok(2, save_body, &j);
  char files[2048];
  list_dir(&j, files, sizeof files);
  cr_assert_str_eq(files,
                   "model-g6-00000-of-00002.safetensors model-g6-00001-of-00002.safetensors "
                   "model.safetensors.index.json notes.txt ");
  check_whole(&j, 4);
  remove_dir(&j);
}
