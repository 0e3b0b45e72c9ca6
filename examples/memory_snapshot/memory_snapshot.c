/* examples/memory_snapshot: the caching allocator's history, snapshot and
 * summary through the public C API.
 *
 *   memory_snapshot SNAPSHOT.json
 *
 * Records the allocator's history, runs a small labelled workload (some
 * tensors kept alive, some freed, views, ops), writes the snapshot JSON
 * (tsr_memory_snapshot) to SNAPSHOT.json and prints the summary table
 * (tsr_memory_summary) to stdout. tests/tools/check_snapshot.py checks the
 * file; tessera-memviz turns it into a page. */
#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

#define MIB ((int64_t)1024 * 1024)

#define CHECK(call)                                                          \
  do {                                                                       \
    tsr_status st_ = (call);                                                 \
    if (st_ != TSR_OK) {                                                     \
      fprintf(stderr, "%s failed: %s: %s\n", #call, tsr_status_name(st_),    \
              tsr_last_error_message());                                     \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

static tsr_tensor* floats(int64_t rows, int64_t cols) {
  int64_t sizes[2] = {rows, cols};
  tsr_tensor* t = NULL;
  CHECK(tsr_ones(2, sizes, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &t));
  return t;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SNAPSHOT.json\n", argv[0]);
    return 2;
  }
  CHECK(tsr_memory_record_history(TSR_DEVICE_CPU, 0, true, 10000));

  /* Parameters: kept alive to the end. */
  CHECK(tsr_memory_set_trace_label("parameters"));
  tsr_tensor* w1 = floats(512, 512);  /* 1 MiB: small pool */
  tsr_tensor* w2 = floats(1024, 768); /* 3 MiB: a shared 20 MiB segment */
  tsr_tensor* bias = floats(1, 512);

  /* A "forward" pass: temporaries freed as it goes, one result kept. */
  CHECK(tsr_memory_set_trace_label("forward"));
  tsr_tensor* x = floats(64, 512);
  tsr_tensor* h = NULL;
  CHECK(tsr_matmul(x, w1, &h));
  tsr_tensor* hb = NULL;
  CHECK(tsr_add(h, bias, &hb));
  tsr_tensor_release(h);
  tsr_tensor* act = NULL;
  CHECK(tsr_relu(hb, &act));
  tsr_tensor_release(hb);
  /* Views share their base's storage: no allocation. */
  tsr_tensor* first_rows = NULL;
  CHECK(tsr_narrow(act, 0, 0, 16, &first_rows));
  tsr_tensor* tr = NULL;
  CHECK(tsr_t(act, &tr));
  tsr_tensor_release(x);

  /* Without a label, entries carry the op's name ("mul"). */
  CHECK(tsr_memory_set_trace_label(NULL));
  tsr_tensor* sq = NULL;
  CHECK(tsr_mul(first_rows, first_rows, &sq));

  /* A large buffer freed again: its segment stays cached. (Up to 17 MiB
   * would fit in the rest of w2's 20 MiB segment.) */
  CHECK(tsr_memory_set_trace_label("scratch"));
  tsr_tensor* scratch = floats(6 * 1024, 1024); /* 24 MiB: own segment */
  tsr_tensor_release(scratch);
  tsr_tensor* small = floats(3, 5);
  tsr_tensor_release(small);

  /* A cached segment returned: segment_free entries. */
  tsr_tensor* gone = floats(30 * 256, 1024); /* 30 MiB: no cached block fits */
  tsr_tensor_release(gone);
  CHECK(tsr_empty_cache(TSR_DEVICE_CPU, 0));
  /* And a cached block after that, for an inactive block in the snapshot. */
  tsr_tensor* tmp = floats(256, 256);
  tsr_tensor_release(tmp);
  CHECK(tsr_memory_set_trace_label(NULL));

  char* json = NULL;
  CHECK(tsr_memory_snapshot(TSR_DEVICE_CPU, 0, &json));
  FILE* f = fopen(argv[1], "w");
  if (!f || fputs(json, f) < 0 || fclose(f) != 0) {
    perror(argv[1]);
    return 1;
  }
  tsr_free_string(json);

  char* summary = NULL;
  CHECK(tsr_memory_summary(TSR_DEVICE_CPU, 0, &summary));
  fputs(summary, stdout);
  tsr_free_string(summary);

  tsr_tensor_release(sq);
  tsr_tensor_release(tr);
  tsr_tensor_release(first_rows);
  tsr_tensor_release(act);
  tsr_tensor_release(w1);
  tsr_tensor_release(w2);
  tsr_tensor_release(bias);
  CHECK(tsr_memory_record_history(TSR_DEVICE_CPU, 0, false, 0));
  return 0;
}
