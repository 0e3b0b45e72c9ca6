/* A process killed at a random moment while it saves (tsr_save, or a
 * streaming tsr_saver, below) leaves the previous
 * file or the new one, complete, and no temporary file that a later save
 * does not remove. A child saves in a loop, alternating two models (and
 * plain and zstd files); the parent kills it with SIGKILL after a random
 * delay, then loads the file and checks it is entirely one model or the
 * other. A temporary can exist only if the kill fell between naming the
 * finished file and renaming it over the target (microseconds); the next
 * save removes such a leftover. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

enum { kTrials = 120, kElements = 1 << 20 }; /* 4 MiB of float32 per model */

static const tsr_save_options kPlain = TSR_SAVE_OPTIONS_INIT;
static const tsr_save_options kZstd = {sizeof(tsr_save_options), TSR_COMPRESSION_ZSTD, 1, 0, NULL, NULL};

static tsr_tensor* model(double value) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){kElements}, value, TSR_FLOAT32, TSR_CPU, &t));
  return t;
}

/* The value every element of the file's "w" holds; fails unless all agree. */
static double whole_model_value(const char* path) {
  tsr_tensor_map* m = NULL;
  TSR_ASSERT_OK(tsr_load(path, NULL, &m));
  tsr_tensor* w = NULL;
  TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, "w", &w));
  cr_assert_eq(tsr_tensor_numel(w), kElements);
  float* v = malloc(sizeof(float) * kElements);
  TSR_ASSERT_OK(tsr_copy_to_buffer(w, v, sizeof(float) * kElements, NULL));
  for (int i = 1; i < kElements; ++i)
    cr_assert_eq(v[i], v[0], "element %d is %g, element 0 is %g: a mixed file", i, v[i], v[0]);
  double first = v[0];
  free(v);
  tsr_tensor_release(w);
  tsr_tensor_map_release(m);
  return first;
}

/* Entries of dir other than ".", ".." and keep; each must be a temporary
 * of keep (one a killed save left). Returns their number. */
static int leftovers(const char* dir, const char* keep) {
  char prefix[256];
  snprintf(prefix, sizeof prefix, ".%s.tmp.", keep);
  DIR* d = opendir(dir);
  cr_assert_not_null(d);
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, keep)) continue;
    cr_assert(strncmp(e->d_name, prefix, strlen(prefix)) == 0, "stray file %s", e->d_name);
    ++n;
  }
  closedir(d);
  return n;
}

Test(save_kill, killed_saves_leave_a_complete_file_and_no_temporary) {
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/save_kill_XXXXXX", TSR_TEST_TMP_DIR);
  cr_assert_not_null(mkdtemp(dir), "%s", strerror(errno)); /* not the pid: those directories stay */
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  tsr_tensor* a = model(1.0);
  tsr_tensor* b = model(2.0);
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"w"}, &a, &kPlain));

  srand((unsigned)time(NULL));
  int seen_a = 0, seen_b = 0, stray = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    pid_t child = fork();
    cr_assert_neq(child, -1);
    if (child == 0) {
      for (unsigned k = 0;; ++k) {
        tsr_tensor* t = k % 2 ? a : b;
        tsr_save(path, 1, (const char*[]){"w"}, &t, (k / 2) % 2 ? &kZstd : &kPlain);
      }
    }
    usleep((useconds_t)(rand() % 40000));
    cr_assert_eq(kill(child, SIGKILL), 0);
    cr_assert_eq(waitpid(child, NULL, 0), child);
    const double v = whole_model_value(path);
    cr_assert(v == 1.0 || v == 2.0, "trial %d: the file holds %g", trial, v);
    if (v == 1.0) ++seen_a;
    else ++seen_b;
    stray += leftovers(dir, "model.safetensors");
  }
  /* The next save removes whatever a kill left. */
  TSR_ASSERT_OK(tsr_save(path, 1, (const char*[]){"w"}, &a, &kPlain));
  cr_assert_eq(leftovers(dir, "model.safetensors"), 0);
  cr_log_info("%d kills: file was the first model %d times, the second %d times; "
              "temporaries left by a kill (removed by the next save): %d",
              kTrials, seen_a, seen_b, stray);
  unlink(path);
  rmdir(dir);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* The same for streaming saves (tsr_saver): the child opens a saver, adds
 * the model in pieces "w" (the whole tensor) and 1500 small tensors, so
 * that the header outgrows its first reservation and the data is moved
 * while it may be killed, and commits. The file is always one complete
 * model, and nothing but the model file remains once a save has run. */
static void saver_save(const char* path, tsr_tensor* w, const tsr_save_options* o) {
  tsr_saver* s = NULL;
  if (tsr_saver_open(path, o, &s) != TSR_OK) return;
  tsr_saver_add(s, "w", w);
  char name[96];
  tsr_tensor* small = NULL;
  tsr_full(1, (int64_t[]){4}, 0, TSR_FLOAT32, TSR_CPU, &small);
  for (int i = 0; i < 1500; ++i) {
    snprintf(name, sizeof name, "small.tensor.with.a.long.name.number.%04d", i);
    tsr_saver_add(s, name, small);
  }
  tsr_tensor_release(small);
  tsr_saver_commit(s);
  tsr_saver_release(s);
}

Test(save_kill, killed_streaming_saves_leave_a_complete_file_and_no_temporary) {
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/saver_kill_XXXXXX", TSR_TEST_TMP_DIR);
  cr_assert_not_null(mkdtemp(dir), "%s", strerror(errno)); /* not the pid: those directories stay */
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  tsr_tensor* a = model(1.0);
  tsr_tensor* b = model(2.0);
  saver_save(path, a, &kPlain);
  cr_assert_eq(whole_model_value(path), 1.0);

  srand((unsigned)time(NULL) ^ 0x5a5a);
  int seen_a = 0, seen_b = 0, stray = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    pid_t child = fork();
    cr_assert_neq(child, -1);
    if (child == 0) {
      for (unsigned k = 0;; ++k) saver_save(path, k % 2 ? a : b, (k / 2) % 2 ? &kZstd : &kPlain);
    }
    usleep((useconds_t)(rand() % 60000));
    cr_assert_eq(kill(child, SIGKILL), 0);
    cr_assert_eq(waitpid(child, NULL, 0), child);
    const double v = whole_model_value(path);
    cr_assert(v == 1.0 || v == 2.0, "trial %d: the file holds %g", trial, v);
    if (v == 1.0) ++seen_a;
    else ++seen_b;
    stray += leftovers(dir, "model.safetensors");
  }
  saver_save(path, a, &kPlain);
  cr_assert_eq(leftovers(dir, "model.safetensors"), 0);
  cr_log_info("%d kills of streaming saves: first model %d times, second %d times; "
              "temporaries left by a kill (removed by the next save): %d",
              kTrials, seen_a, seen_b, stray);
  unlink(path);
  rmdir(dir);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}
