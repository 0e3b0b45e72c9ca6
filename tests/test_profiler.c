/* The profiler (profiler.h): a table with torch's columns, the expected op
 * names and counts; a Chrome trace that a real JSON parser (Python's json,
 * /usr/bin/python3) reads back with exactly one event per primitive run;
 * start twice / stop without start; nothing recorded while off; events
 * from two threads; bad export paths leave no file. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static tsr_tensor* filled(int64_t ndim, const int64_t* sizes, double v) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_full(ndim, sizes, v, TSR_FLOAT32, TSR_CPU, &t));
  return t;
}

static void start(bool shapes, bool memory) {
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  o.record_shapes = shapes;
  o.profile_memory = memory;
  TSR_ASSERT_OK(tsr_profiler_start(&o));
}

static tsr_profiler_result* stop(void) {
  tsr_profiler_result* r = NULL;
  TSR_ASSERT_OK(tsr_profiler_stop(&r));
  cr_assert_not_null(r);
  return r;
}

/* 3 mul, 2 add, 1 sum: six primitive runs. */
static void six_ops(void) {
  const int64_t s[] = {2, 3};
  tsr_tensor *a = filled(2, s, 1.0), *b = filled(2, s, 2.0), *m1, *m2, *m3, *a1, *a2, *sm;
  TSR_ASSERT_OK(tsr_mul(a, b, &m1));
  TSR_ASSERT_OK(tsr_mul(m1, b, &m2));
  TSR_ASSERT_OK(tsr_mul(m2, b, &m3));
  TSR_ASSERT_OK(tsr_add(m3, a, &a1));
  TSR_ASSERT_OK(tsr_add(a1, a, &a2));
  TSR_ASSERT_OK(tsr_sum(a2, 0, NULL, false, &sm));
  tsr_tensor* all[] = {a, b, m1, m2, m3, a1, a2, sm};
  for (int i = 0; i < 8; ++i) tsr_tensor_release(all[i]);
}

static char* table(const tsr_profiler_result* r, const char* sort_by, int64_t limit) {
  char* text = NULL;
  TSR_ASSERT_OK(tsr_profiler_table(r, sort_by, limit, &text));
  cr_assert_not_null(text);
  return text;
}

/* The line of the table row named `name` (exactly, right-aligned), copied
 * into line; false if none. */
static bool row_of(const char* text, const char* name, char* line, size_t cap) {
  size_t n = strlen(name);
  for (const char* p = text; *p;) {
    const char* end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    const char* q = p;
    while (q < end && *q == ' ') ++q;
    if ((size_t)(end - q) > n && strncmp(q, name, n) == 0 && q[n] == ' ') {
      size_t len = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
      memcpy(line, p, len);
      line[len] = 0;
      return true;
    }
    p = *end ? end + 1 : end;
  }
  return false;
}

/* The last number of a row without shapes: its # of Calls. */
static long calls_of(const char* line) {
  const char* end = line + strlen(line);
  while (end > line && end[-1] == ' ') --end;
  const char* p = end;
  while (p > line && p[-1] != ' ') --p;
  return strtol(p, NULL, 10);
}

Test(profiler, table_names_counts_and_columns) {
  start(false, false);
  six_ops();
  tsr_profiler_result* r = stop();
  cr_expect_eq(tsr_profiler_result_num_events(r), 6);
  char* text = table(r, "count", -1);
  char line[512];
  cr_assert(row_of(text, "aten::mul", line, sizeof line), "no aten::mul row in\n%s", text);
  cr_expect_eq(calls_of(line), 3, "%s", line);
  cr_assert(row_of(text, "aten::add", line, sizeof line), "%s", text);
  cr_expect_eq(calls_of(line), 2, "%s", line);
  cr_assert(row_of(text, "aten::sum", line, sizeof line), "%s", text);
  cr_expect_eq(calls_of(line), 1, "%s", line);
  /* torch's header, rules and footer; sorted by count: mul, add, sum */
  const char* cols[] = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"};
  for (int i = 0; i < 7; ++i) cr_expect(strstr(text, cols[i]) != NULL, "no column %s", cols[i]);
  cr_expect(strstr(text, "CPU Mem") == NULL);
  cr_expect(strstr(text, "Input Shapes") == NULL);
  cr_expect(strncmp(text, "-------------", 13) == 0);
  cr_expect(strstr(text, "\nSelf CPU time total: ") != NULL);
  char *pm = strstr(text, "aten::mul"), *pa = strstr(text, "aten::add"), *ps = strstr(text, "aten::sum");
  cr_expect(pm < pa && pa < ps, "rows not sorted by count:\n%s", text);
  /* the name column: longest name + 4 */
  cr_expect(strstr(text, "\n         Name    Self CPU %") != NULL, "%s", text); /* 13 = 9 + 4 */
  tsr_free_string(text);
  /* row_limit */
  text = table(r, "count", 1);
  cr_expect(strstr(text, "aten::mul") && !strstr(text, "aten::add"), "%s", text);
  tsr_free_string(text);
  /* every sort key of the header */
  const char* keys[] = {NULL, "self_cpu_time_total", "cpu_time_total", "cpu_time", "cpu_memory_usage",
                        "self_cpu_memory_usage"};
  for (int i = 0; i < 6; ++i) {
    text = table(r, keys[i], 100);
    cr_expect(strstr(text, "aten::sum") != NULL);
    tsr_free_string(text);
  }
  char* untouched = (char*)0x1;
  TSR_ASSERT_FAILS(tsr_profiler_table(r, "flops", 10, &untouched), TSR_ERR_INVALID_ARGUMENT, "sort_by");
  cr_expect_eq(untouched, (char*)0x1);
  TSR_ASSERT_FAILS(tsr_profiler_table(NULL, NULL, 10, &untouched), TSR_ERR_INVALID_ARGUMENT, "result is NULL");
  TSR_ASSERT_FAILS(tsr_profiler_table(r, NULL, 10, NULL), TSR_ERR_INVALID_ARGUMENT, "text is NULL");
  tsr_profiler_result_release(r);
}

/* Backward nodes appear under torch's grad_fn names, with the ops of their
 * formulas nested (their self time is less than their total). */
Test(profiler, backward_nodes) {
  const int64_t s[] = {4};
  tsr_tensor *x = filled(1, s, 3.0), *y, *l;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  start(false, false);
  TSR_ASSERT_OK(tsr_mul(x, x, &y));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_OK(tsr_backward(l, NULL, false));
  tsr_profiler_result* r = stop();
  char* text = table(r, NULL, -1);
  char line[512];
  const char* names[] = {"aten::mul", "aten::sum", "SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"};
  for (int i = 0; i < 5; ++i) cr_expect(row_of(text, names[i], line, sizeof line), "no %s in\n%s", names[i], text);
  row_of(text, "MulBackward0", line, sizeof line);
  cr_expect_eq(calls_of(line), 1);
  tsr_free_string(text);
  tsr_profiler_result_release(r);
  tsr_tensor* all[] = {x, y, l};
  for (int i = 0; i < 3; ++i) tsr_tensor_release(all[i]);
}

/* record_function: a user range is one event around the ops run inside it,
 * whose self time excludes theirs; ranges nest; an end without a begin, a
 * NULL or empty name are refused; ranges opened while no session runs
 * record nothing but stay balanced. */
Test(profiler, record_function_ranges) {
  TSR_ASSERT_OK(tsr_profiler_record_function_begin("outside")); /* no session yet */
  start(false, false);
  TSR_ASSERT_OK(tsr_profiler_record_function_begin("step"));
  TSR_ASSERT_OK(tsr_profiler_record_function_begin("forward"));
  six_ops();
  TSR_ASSERT_OK(tsr_profiler_record_function_end()); /* forward */
  TSR_ASSERT_OK(tsr_profiler_record_function_end()); /* step */
  TSR_ASSERT_OK(tsr_profiler_record_function_end()); /* outside: balanced, not recorded */
  TSR_ASSERT_FAILS(tsr_profiler_record_function_end(), TSR_ERR_INVALID_ARGUMENT, "no range is open");
  TSR_ASSERT_FAILS(tsr_profiler_record_function_begin(NULL), TSR_ERR_INVALID_ARGUMENT, "name is NULL");
  TSR_ASSERT_FAILS(tsr_profiler_record_function_begin(""), TSR_ERR_INVALID_ARGUMENT, "name is empty");
  tsr_profiler_result* r = stop();
  cr_expect_eq(tsr_profiler_result_num_events(r), 8); /* six ops, two ranges */
  char* text = table(r, "cpu_time_total", -1);
  char line[512];
  cr_assert(row_of(text, "step", line, sizeof line), "no step row in\n%s", text);
  cr_expect_eq(calls_of(line), 1, "%s", line);
  cr_assert(row_of(text, "forward", line, sizeof line), "%s", text);
  cr_expect(strstr(text, "outside") == NULL, "%s", text);
  /* step contains everything: first by total time */
  char* first_row = strstr(text, "\n") + 1;
  first_row = strstr(first_row, "\n") + 1;
  first_row = strstr(first_row, "\n") + 1;
  cr_expect(strncmp(first_row, "step", 4) == 0 || strstr(first_row, "step") == first_row + strspn(first_row, " "),
            "step is not the first row:\n%s", text);
  tsr_free_string(text);
  tsr_profiler_result_release(r);
}

/* key_averages(group_by_input_shape): without grouping no Input Shapes
 * column even when shapes were recorded (torch's default); grouped, one. */
Test(profiler, key_averages_table_grouping) {
  start(true, false);
  six_ops();
  tsr_profiler_result* r = stop();
  char* text = NULL;
  TSR_ASSERT_OK(tsr_profiler_key_averages_table(r, false, "count", -1, &text));
  cr_expect(strstr(text, "Input Shapes") == NULL, "%s", text);
  cr_expect(strstr(text, "aten::mul") != NULL);
  tsr_free_string(text);
  TSR_ASSERT_OK(tsr_profiler_key_averages_table(r, true, "count", -1, &text));
  cr_expect(strstr(text, "Input Shapes") != NULL, "%s", text);
  tsr_free_string(text);
  char* untouched = (char*)0x1;
  TSR_ASSERT_FAILS(tsr_profiler_key_averages_table(r, true, "flops", 5, &untouched), TSR_ERR_INVALID_ARGUMENT,
                   "sort_by");
  cr_expect_eq(untouched, (char*)0x1);
  TSR_ASSERT_FAILS(tsr_profiler_key_averages_table(NULL, false, NULL, 5, &untouched), TSR_ERR_INVALID_ARGUMENT,
                   "result is NULL");
  tsr_profiler_result_release(r);
}

Test(profiler, shapes_and_memory_columns) {
  const int64_t s[] = {2, 3}, big[] = {256, 256};
  tsr_tensor *a = filled(2, s, 1.0), *b = filled(2, big, 1.0), *o1, *o2, *o3;
  start(true, true);
  TSR_ASSERT_OK(tsr_mul(a, a, &o1));
  TSR_ASSERT_OK(tsr_mul(a, a, &o2));
  TSR_ASSERT_OK(tsr_mul(b, b, &o3)); /* 256 KiB output */
  tsr_profiler_result* r = stop();
  char* text = table(r, "cpu_memory_usage", -1);
  cr_expect(strstr(text, "Input Shapes") && strstr(text, "CPU Mem") && strstr(text, "Self CPU Mem"), "%s", text);
  /* grouped by input shape: two rows for aten::mul */
  const char* first = strstr(text, "aten::mul");
  cr_assert_not_null(first);
  cr_expect(strstr(first + 1, "aten::mul") != NULL, "%s", text);
  cr_expect(strstr(text, "[[256, 256], [256, 256]]") != NULL, "%s", text);
  cr_expect(strstr(text, "[[2, 3], [2, 3]]") != NULL, "%s", text);
  /* the big row first (sorted by memory), with its 256 KiB */
  const char* big_row = strstr(text, "aten::mul");
  const char* nl = strchr(big_row, '\n');
  cr_expect(strstr(big_row, "256.00 Kb") != NULL && strstr(big_row, "256.00 Kb") < nl, "%s", text);
  cr_expect(strstr(big_row, "[[256, 256]") < nl, "%s", text);
  tsr_free_string(text);
  tsr_profiler_result_release(r);
  tsr_tensor* all[] = {a, b, o1, o2, o3};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

Test(profiler, start_twice_stop_without_start) {
  tsr_profiler_result* r = (tsr_profiler_result*)0x1;
  TSR_ASSERT_FAILS(tsr_profiler_stop(&r), TSR_ERR_INVALID_ARGUMENT, "not running");
  cr_expect_eq(r, (tsr_profiler_result*)0x1);
  start(false, false);
  TSR_ASSERT_FAILS(tsr_profiler_start(NULL), TSR_ERR_INVALID_ARGUMENT, "already running");
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  TSR_ASSERT_FAILS(tsr_profiler_start(&o), TSR_ERR_INVALID_ARGUMENT, "already running");
  /* NULL out: the session goes on */
  TSR_ASSERT_FAILS(tsr_profiler_stop(NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  six_ops();
  r = stop();
  cr_expect_eq(tsr_profiler_result_num_events(r), 6); /* the first session, untouched by the failed start */
  tsr_profiler_result_release(r);
  TSR_ASSERT_FAILS(tsr_profiler_stop(&r), TSR_ERR_INVALID_ARGUMENT, "not running");
  /* a bad struct_size starts nothing */
  o.struct_size = 0;
  TSR_ASSERT_FAILS(tsr_profiler_start(&o), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  TSR_ASSERT_FAILS(tsr_profiler_stop(&r), TSR_ERR_INVALID_ARGUMENT, "not running");
  /* start again after a stop */
  TSR_ASSERT_OK(tsr_profiler_start(NULL));
  r = stop();
  tsr_profiler_result_release(r);
  cr_expect_eq(tsr_profiler_result_num_events(NULL), -1);
  tsr_profiler_result_release(NULL);
}

Test(profiler, nothing_recorded_when_off) {
  six_ops(); /* before */
  start(true, true);
  tsr_profiler_result* r = stop();
  six_ops(); /* after */
  cr_expect_eq(tsr_profiler_result_num_events(r), 0);
  char* text = table(r, NULL, -1);
  cr_expect_str_eq(text, "");
  tsr_free_string(text);
  tsr_profiler_result_release(r);
}

/* ---- the Chrome trace, read back by Python's json ------------------------- */

static bool have_python(void) { return access("/usr/bin/python3", X_OK) == 0; }

/* Runs a Python summary of the trace at path into out: "n=<events>" then
 * "<name> <count>" lines (sorted), "tids=<distinct tids>", and "ok" when
 * every event is a complete event with numeric ts/dur >= 0, int pid/tid and
 * an args object. */
static void summarize(const char* path, char* out, size_t cap) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c '"
           "import json,sys,collections\n"
           "d=json.load(open(sys.argv[1]))\n"
           "ev=d[\"traceEvents\"]\n"
           "print(\"n=%%d\" %% len(ev))\n"
           "c=collections.Counter(e[\"name\"] for e in ev)\n"
           "[print(k, v) for k, v in sorted(c.items())]\n"
           "print(\"tids=%%d\" %% len(set(e[\"tid\"] for e in ev)))\n"
           "print(\"tidcounts=\" + \",\".join(str(v) for v in sorted(collections.Counter(e[\"tid\"] for e in ev).values())))\n"
           "ok=all(e[\"ph\"]==\"X\" and isinstance(e[\"ts\"],(int,float)) and e[\"dur\"]>=0 and isinstance(e[\"pid\"],int)"
           " and isinstance(e[\"tid\"],int) and isinstance(e[\"args\"],dict) for e in ev)\n"
           "print(\"ok\" if ok else \"bad\")\n"
           "' %s",
           path);
  FILE* p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  cr_assert_eq(pclose(p), 0, "python failed on %s: %s", path, out);
}

Test(profiler, chrome_trace_one_event_per_primitive_run) {
  if (!have_python()) cr_skip_test("no /usr/bin/python3 to parse the trace");
  start(true, true);
  six_ops();
  tsr_profiler_result* r = stop();
  char path[512];
  snprintf(path, sizeof path, "%s/profiler_trace_%d.json", TSR_TEST_TMP_DIR, (int)getpid());
  TSR_ASSERT_OK(tsr_profiler_export_chrome_trace(r, path));
  char out[4096];
  summarize(path, out, sizeof out);
  cr_expect(strstr(out, "n=6\n") != NULL, "%s", out);
  cr_expect(strstr(out, "aten::mul 3\n") && strstr(out, "aten::add 2\n") && strstr(out, "aten::sum 1\n"), "%s", out);
  cr_expect(strstr(out, "tids=1\n") && strstr(out, "\nok\n"), "%s", out);
  /* args carry sizes, strides, memory format, device */
  FILE* f = fopen(path, "r");
  char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  cr_expect(strstr(buf, "\"Input Dims\":[[2,3],[2,3]]") != NULL, "%s", buf);
  cr_expect(strstr(buf, "\"Input Strides\":[[3,1],[3,1]]") != NULL, "%s", buf);
  cr_expect(strstr(buf, "\"Memory Formats\":[\"contiguous_format\",\"contiguous_format\"]") != NULL, "%s", buf);
  cr_expect(strstr(buf, "\"Device\":\"cpu\"") != NULL, "%s", buf);
  cr_expect(strstr(buf, "\"traceEvents\":[") != NULL);
  /* exporting again replaces the file */
  TSR_ASSERT_OK(tsr_profiler_export_chrome_trace(r, path));
  unlink(path);
  tsr_profiler_result_release(r);
}

Test(profiler, chrome_trace_bad_paths_leave_no_file) {
  start(false, false);
  six_ops();
  tsr_profiler_result* r = stop();
  TSR_ASSERT_FAILS(tsr_profiler_export_chrome_trace(r, "/nonexistent-dir-tessera/trace.json"), TSR_ERR_IO,
                   "/nonexistent-dir-tessera");
  struct stat st;
  cr_expect(stat("/nonexistent-dir-tessera/trace.json", &st) != 0);
  /* a directory at the path */
  TSR_ASSERT_FAILS(tsr_profiler_export_chrome_trace(r, TSR_TEST_TMP_DIR), TSR_ERR_IO, TSR_TEST_TMP_DIR);
  TSR_ASSERT_FAILS(tsr_profiler_export_chrome_trace(r, NULL), TSR_ERR_INVALID_ARGUMENT, "path is NULL");
  TSR_ASSERT_FAILS(tsr_profiler_export_chrome_trace(NULL, "x.json"), TSR_ERR_INVALID_ARGUMENT, "result is NULL");
  tsr_profiler_result_release(r);
}

/* ---- two threads ----------------------------------------------------------- */

#define PER_THREAD 50

static void* worker(void* arg) {
  (void)arg;
  const int64_t s[] = {8};
  tsr_tensor* a;
  if (tsr_full(1, s, 1.0, TSR_FLOAT32, TSR_CPU, &a) != TSR_OK) return (void*)1;
  for (int i = 0; i < PER_THREAD; ++i) {
    tsr_tensor* m;
    if (tsr_mul(a, a, &m) != TSR_OK) return (void*)1;
    tsr_tensor_release(m);
  }
  tsr_tensor_release(a);
  return NULL;
}

Test(profiler, events_from_two_threads) {
  start(true, true);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, NULL);
  pthread_create(&t2, NULL, worker, NULL);
  void *r1, *r2;
  pthread_join(t1, &r1);
  pthread_join(t2, &r2);
  cr_assert(r1 == NULL && r2 == NULL);
  tsr_profiler_result* r = stop();
  /* tsr_full is a factory, not a primitive: only the muls */
  cr_expect_eq(tsr_profiler_result_num_events(r), 2 * PER_THREAD);
  char* text = table(r, "count", -1);
  char line[512];
  cr_assert(row_of(text, "aten::mul", line, sizeof line), "%s", text);
  tsr_free_string(text);
  if (have_python()) {
    char path[512];
    snprintf(path, sizeof path, "%s/profiler_threads_%d.json", TSR_TEST_TMP_DIR, (int)getpid());
    TSR_ASSERT_OK(tsr_profiler_export_chrome_trace(r, path));
    char out[4096];
    summarize(path, out, sizeof out);
    cr_expect(strstr(out, "n=100\n") && strstr(out, "aten::mul 100\n"), "%s", out);
    cr_expect(strstr(out, "tids=2\n") && strstr(out, "tidcounts=50,50\n"), "%s", out);
    unlink(path);
  }
  tsr_profiler_result_release(r);
}

/* Ops on a CUDA device (a real GPU, or the emulated one of tests/cuda_double
 * through $TSR_CUDA_PLUGIN: ctest test_profiler_cuda_emulated) are events
 * of that device. Skipped where no CUDA device can be had. */
Test(profiler_device, cuda_events) {
  const int64_t s[] = {64};
  tsr_tensor *a, *m;
  if (tsr_ones(1, s, TSR_FLOAT32, TSR_DEVICE_CUDA, 0, &a) != TSR_OK)
    cr_skip_test("no CUDA device: %s", tsr_last_error_message());
  start(true, true);
  TSR_ASSERT_OK(tsr_mul(a, a, &m));
  tsr_profiler_result* r = stop();
  cr_expect_eq(tsr_profiler_result_num_events(r), 1);
  char path[512];
  snprintf(path, sizeof path, "%s/profiler_cuda_%d.json", TSR_TEST_TMP_DIR, (int)getpid());
  TSR_ASSERT_OK(tsr_profiler_export_chrome_trace(r, path));
  FILE* f = fopen(path, "r");
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  unlink(path);
  cr_expect(strstr(buf, "\"Device\":\"cuda:0\"") != NULL, "%s", buf);
  cr_expect(strstr(buf, "\"name\":\"aten::mul\"") != NULL, "%s", buf);
  char* text = table(r, "count", -1);
  cr_expect(strstr(text, "aten::mul") != NULL, "%s", text);
  tsr_free_string(text);
  tsr_profiler_result_release(r);
  tsr_tensor_release(a);
  tsr_tensor_release(m);
}
