/* Subgroups (tsr_new_group, tsr_process_group_split), point-to-point
 * (tsr_send, tsr_recv) and the bitwise reductions (BAND, BOR, BXOR) on Gloo
 * over 127.0.0.1. Ranks are forked children (dist_harness.h); every run has
 * a hard deadline; sizes are small. */
#include "dist_harness.h"
#include "helpers.h"

/* A child's check that the last call failed with status and a message
 * containing needle. */
#define DFAILS(call, status, needle)                                                                  \
  do {                                                                                                \
    const tsr_status st_ = (call);                                                                    \
    DCHECK(st_ == (status) && strstr(tsr_last_error_message(), (needle)), "%s: got %s, want %s / %s", \
           #call, tsr_status_name(st_), tsr_status_name(status), (needle));                            \
  } while (0)

static void run_world(int world, dist_body body, double deadline_s) {
  int st[4];
  cr_assert_eq(dist_run_ranks(world, body, NULL, deadline_s, st), 0, "a rank hung");
  for (int r = 0; r < world; ++r) cr_assert(dist_exited_ok(st[r]), "rank %d failed (status %d)", r, st[r]);
}

static tsr_tensor* full_f32(int64_t n, double v) {
  tsr_tensor* t;
  DCHECK_OK(tsr_full(1, &n, v, TSR_FLOAT32, TSR_CPU, &t));
  return t;
}

static double item(const tsr_tensor* t, int64_t i) {
  tsr_tensor *flat, *e, *d;
  DCHECK_OK(tsr_reshape(t, 1, (int64_t[]){-1}, &flat));
  DCHECK_OK(tsr_select(flat, 0, i, &e));
  DCHECK_OK(tsr_to_dtype(e, TSR_FLOAT64, &d));
  double v;
  size_t need;
  DCHECK_OK(tsr_copy_to_buffer(d, &v, sizeof v, &need));
  tsr_tensor_release(flat);
  tsr_tensor_release(e);
  tsr_tensor_release(d);
  return v;
}

/* ---- new_group ----------------------------------------------------------- */

/* World 3, subgroup {2, 0} (given unsorted): rank 1 gets NULL; ranks 0 and 2
 * become 0 and 1. A subgroup collective queued, a parent collective on all
 * three ranks, then the subgroup's waited: neither mixes with the other.
 * Then the subgroup outlives its parent. */
static int new_group_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group *pg, *sub = (tsr_process_group*)SENTINEL, *all;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));

  /* Refusals on this rank alone (nothing communicated, *out untouched). */
  DFAILS(tsr_new_group(pg, 2, (int32_t[]){0, 3}, NULL, &sub), TSR_ERR_INVALID_ARGUMENT,
         "The new group's rank should be within the world_size");
  DFAILS(tsr_new_group(pg, 2, (int32_t[]){2, 2}, NULL, &sub), TSR_ERR_INVALID_ARGUMENT, "rank 2 is given more than once");
  DFAILS(tsr_new_group(pg, 4, (int32_t[]){0, 1, 2, 0}, NULL, &sub), TSR_ERR_INVALID_ARGUMENT,
         "should be less or equal to the world size");
  DFAILS(tsr_new_group(pg, -1, NULL, NULL, &sub), TSR_ERR_INVALID_ARGUMENT, "n must be >= 0");
  DFAILS(tsr_new_group(pg, 2, NULL, NULL, &sub), TSR_ERR_INVALID_ARGUMENT, "ranks is NULL");
  DFAILS(tsr_new_group(pg, 0, NULL, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  DFAILS(tsr_new_group(NULL, 0, NULL, NULL, &sub), TSR_ERR_INVALID_ARGUMENT, "pg is NULL");
  tsr_process_group_options bad = TSR_PROCESS_GROUP_OPTIONS_INIT;
  bad.timeout_ms = -5;
  DFAILS(tsr_new_group(pg, 0, NULL, &bad, &sub), TSR_ERR_INVALID_ARGUMENT, "timeout_ms must be >= 0");
  bad.timeout_ms = 0;
  bad.backend = TSR_DIST_NCCL;
  DFAILS(tsr_new_group(pg, 0, NULL, &bad, &sub), TSR_ERR_UNSUPPORTED, "parent's backend");
  DCHECK(sub == (tsr_process_group*)SENTINEL, "out written on failure");

  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.timeout_ms = 15000;
  DCHECK_OK(tsr_new_group(pg, 2, (int32_t[]){2, 0}, &o, &sub));
  if (rank == 1) {
    DCHECK(sub == NULL, "rank 1 is not a member: NULL");
  } else {
    DCHECK(sub != NULL, "member");
    DCHECK(tsr_process_group_size(sub) == 2, "size");
    DCHECK(tsr_process_group_rank(sub) == rank / 2, "rank %d in the subgroup", tsr_process_group_rank(sub));
    DCHECK(tsr_process_group_global_rank(sub, 1) == 2 && tsr_process_group_global_rank(sub, 0) == 0, "global");
    DCHECK(tsr_process_group_group_rank(sub, 2) == 1 && tsr_process_group_group_rank(sub, 0) == 0, "group rank");
    DFAILS(tsr_process_group_group_rank(sub, 1) == -1 ? TSR_ERR_INVALID_ARGUMENT : TSR_OK, TSR_ERR_INVALID_ARGUMENT,
           "Global rank 1 is not part of group");
    DFAILS(tsr_process_group_global_rank(sub, 2) == -1 ? TSR_ERR_INVALID_ARGUMENT : TSR_OK, TSR_ERR_INVALID_ARGUMENT,
           "Group rank 2 is not part of group");
  }
  DCHECK(tsr_process_group_global_rank(pg, 2) == 2 && tsr_process_group_group_rank(pg, 1) == 1, "identity");

  /* Interleaved: subgroup work queued, parent collective, then the wait. */
  tsr_tensor* s = full_f32(5, rank + 1); /* members: 1 + 3 = 4 */
  tsr_tensor* p = full_f32(5, rank + 1); /* all: 6 */
  tsr_work* w = NULL;
  if (sub) DCHECK_OK(tsr_all_reduce(sub, s, TSR_REDUCE_SUM, &w));
  DCHECK_OK(tsr_all_reduce(pg, p, TSR_REDUCE_SUM, NULL));
  if (sub) {
    DCHECK_OK(tsr_work_wait(w, -1));
    tsr_work_release(w);
    DCHECK(item(s, 4) == 4, "subgroup sum %g", item(s, 4));
  }
  DCHECK(item(p, 0) == 6, "parent sum %g", item(p, 0));

  /* A second group (every rank: ranks NULL) and its own collective. */
  DCHECK_OK(tsr_new_group(pg, 0, NULL, NULL, &all));
  DCHECK(all && tsr_process_group_rank(all) == rank && tsr_process_group_size(all) == 3, "full subgroup");
  DCHECK_OK(tsr_broadcast(all, p, 2, NULL));

  /* The subgroup lives on after its parent is released. */
  tsr_process_group_release(pg);
  if (sub) {
    DCHECK_OK(tsr_all_reduce(sub, s, TSR_REDUCE_MAX, NULL));
    DCHECK(item(s, 0) == 4, "after the parent");
    tsr_process_group_release(sub);
  }
  DCHECK_OK(tsr_barrier(all, NULL));
  tsr_process_group_release(all);
  tsr_tensor_release(s);
  tsr_tensor_release(p);
  return 0;
}

Test(distributed_groups, new_group_world_3) { run_world(3, new_group_body, 60); }

/* ---- split ----------------------------------------------------------------- */

/* World 4: rank 3 passes color -1 (no group); colors 0 = {0, 2} and 1 = {1};
 * key -rank orders rank 2 before rank 0. */
static int split_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group *pg, *g;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int color = rank == 3 ? -1 : rank % 2;
  DCHECK_OK(tsr_process_group_split(pg, color, -rank, NULL, &g));
  if (rank == 3) {
    DCHECK(g == NULL, "color -1: no group");
  } else if (rank == 1) {
    DCHECK(g && tsr_process_group_size(g) == 1 && tsr_process_group_rank(g) == 0, "alone");
    tsr_tensor* t = full_f32(3, 7);
    DCHECK_OK(tsr_all_reduce(g, t, TSR_REDUCE_SUM, NULL));
    DCHECK(item(t, 2) == 7, "world-1 sum");
    tsr_tensor_release(t);
  } else {
    DCHECK(g && tsr_process_group_size(g) == 2, "pair");
    DCHECK(tsr_process_group_rank(g) == (rank == 2 ? 0 : 1), "ordered by key: rank %d", tsr_process_group_rank(g));
    DCHECK(tsr_process_group_global_rank(g, 0) == 2, "global rank of group rank 0");
    tsr_tensor* t = full_f32(3, 10 * rank);
    DCHECK_OK(tsr_broadcast(g, t, 0, NULL)); /* group rank 0 = global rank 2 */
    DCHECK(item(t, 1) == 20, "broadcast from rank 2: %g", item(t, 1));
    tsr_tensor_release(t);
  }
  DCHECK_OK(tsr_barrier(pg, NULL)); /* the parent still works */
  tsr_process_group_release(g);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_groups, split_by_color_and_key) { run_world(4, split_body, 60); }

/* ---- send / recv ------------------------------------------------------------ */

static const tsr_dtype kAllDtypes[] = {TSR_BOOL,  TSR_UINT8,   TSR_INT8,     TSR_INT16,   TSR_INT32,
                                       TSR_INT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};

/* A [n] tensor of dtype: element i = (i * 3 + seed) % 5 (exact everywhere). */
static tsr_tensor* pattern(tsr_dtype dt, int64_t n, int seed) {
  double* v = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) v[i] = (double)((i * 3 + seed) % 5);
  tsr_tensor *d, *t;
  DCHECK_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &d));
  DCHECK_OK(tsr_to_dtype(d, dt, &t));
  tsr_tensor_release(d);
  free(v);
  return t;
}

static tsr_tensor* zeros_of(tsr_dtype dt, int64_t n) {
  tsr_tensor* t;
  DCHECK_OK(tsr_zeros(1, &n, dt, TSR_CPU, &t));
  return t;
}

/* World 2: the classic exchange (isend then a blocking recv on both ranks),
 * ordered blocking send/recv, tags received out of order, two messages of
 * one tag in order, non-contiguous tensors both ways, an empty tensor,
 * every dtype, irecv's source, and the argument checks. */
static int pair_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int peer = 1 - rank;
  int32_t source = -7;

  /* Refusals: nothing sent, nothing written. */
  tsr_tensor* t = full_f32(4, rank + 1);
  tsr_work* w = (tsr_work*)SENTINEL;
  DFAILS(tsr_send(pg, t, rank, 0, &w), TSR_ERR_INVALID_ARGUMENT, "should not be the same as the rank");
  DFAILS(tsr_send(pg, t, 2, 0, &w), TSR_ERR_INVALID_ARGUMENT, "Invalid destination rank: 2");
  DFAILS(tsr_send(pg, t, -1, 0, &w), TSR_ERR_INVALID_ARGUMENT, "Invalid destination rank: -1");
  DFAILS(tsr_recv(pg, t, 5, 0, &source, &w), TSR_ERR_INVALID_ARGUMENT, "Invalid source rank: 5");
  DFAILS(tsr_recv(pg, t, rank, 0, &source, &w), TSR_ERR_INVALID_ARGUMENT, "should not be the same");
  DFAILS(tsr_send(pg, t, peer, -1, &w), TSR_ERR_INVALID_ARGUMENT, "Tag must be nonnegative");
  DFAILS(tsr_send(pg, NULL, peer, 0, &w), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  DFAILS(tsr_send(NULL, t, peer, 0, &w), TSR_ERR_INVALID_ARGUMENT, "pg is NULL");
  DCHECK(w == (tsr_work*)SENTINEL && source == -7, "outputs written on failure");
  DCHECK(tsr_work_source_rank(NULL) == -1, "NULL work");

  /* The classic exchange: isend to the peer, then recv from it, on both. */
  tsr_tensor* got = full_f32(4, 0);
  DCHECK_OK(tsr_send(pg, t, peer, 0, &w));
  DCHECK_OK(tsr_recv(pg, got, peer, 0, &source, NULL));
  DCHECK_OK(tsr_work_wait(w, -1));
  DCHECK(tsr_work_source_rank(w) == -1, "a send has no source");
  tsr_work_release(w);
  DCHECK(source == peer && item(got, 3) == peer + 1, "exchange: source %d value %g", source, item(got, 3));

  /* Blocking, ordered: rank 0 sends first, rank 1 receives first. */
  if (rank == 0) {
    DCHECK_OK(tsr_send(pg, t, 1, 3, NULL));
    DCHECK_OK(tsr_recv(pg, got, 1, 3, NULL, NULL));
  } else {
    DCHECK_OK(tsr_recv(pg, got, 0, 3, NULL, NULL));
    DCHECK_OK(tsr_send(pg, t, 0, 3, NULL));
  }
  DCHECK(item(got, 0) == peer + 1, "ordered");

  /* Tags: rank 0 sends tag 1 then tag 2; rank 1 receives tag 2 first.
   * Then two messages of tag 9 arrive in the order sent. */
  if (rank == 0) {
    tsr_tensor *a = full_f32(2, 11), *b = full_f32(2, 22), *c = full_f32(2, 33), *d = full_f32(2, 44);
    tsr_work *wa, *wb, *wc, *wd;
    DCHECK_OK(tsr_send(pg, a, 1, 1, &wa));
    DCHECK_OK(tsr_send(pg, b, 1, 2, &wb));
    DCHECK_OK(tsr_send(pg, c, 1, 9, &wc));
    DCHECK_OK(tsr_send(pg, d, 1, 9, &wd));
    tsr_work* ws[4] = {wd, wb, wa, wc}; /* waited in any order */
    for (int i = 0; i < 4; ++i) {
      DCHECK_OK(tsr_work_wait(ws[i], -1));
      DCHECK(tsr_work_is_completed(ws[i]), "completed");
      tsr_work_release(ws[i]);
    }
    tsr_tensor_release(a);
    tsr_tensor_release(b);
    tsr_tensor_release(c);
    tsr_tensor_release(d);
  } else {
    tsr_tensor* r = full_f32(2, 0);
    tsr_work* wr;
    DCHECK_OK(tsr_recv(pg, r, 0, 2, &source, &wr));
    DCHECK(source == -1, "async: source -1 until waited");
    DCHECK_OK(tsr_work_wait(wr, -1));
    DCHECK(tsr_work_source_rank(wr) == 0 && item(r, 1) == 22, "tag 2");
    tsr_work_release(wr);
    DCHECK_OK(tsr_recv(pg, r, 0, 1, NULL, NULL));
    DCHECK(item(r, 0) == 11, "tag 1");
    DCHECK_OK(tsr_recv(pg, r, 0, 9, NULL, NULL));
    DCHECK(item(r, 0) == 33, "tag 9 first");
    DCHECK_OK(tsr_recv(pg, r, 0, 9, NULL, NULL));
    DCHECK(item(r, 0) == 44, "tag 9 second");
    tsr_tensor_release(r);
  }

  /* Non-contiguous both ways: rank 0 sends a transposed [3, 2] (C order of
   * the view), rank 1 receives into column 1 of a [6, 2]. */
  if (rank == 0) {
    tsr_tensor *m = pattern(TSR_FLOAT64, 6, 1), *m23, *mt;
    DCHECK_OK(tsr_reshape(m, 2, (int64_t[]){2, 3}, &m23));
    DCHECK_OK(tsr_transpose(m23, 0, 1, &mt));
    DCHECK_OK(tsr_send(pg, mt, 1, 4, NULL));
    tsr_tensor *flat, *want;
    DCHECK_OK(tsr_contiguous(mt, TSR_CONTIGUOUS_FORMAT, &flat));
    DCHECK_OK(tsr_reshape(flat, 1, (int64_t[]){6}, &want));
    DCHECK_OK(tsr_send(pg, want, 1, 5, NULL)); /* the expected bytes */
    tsr_tensor_release(m);
    tsr_tensor_release(m23);
    tsr_tensor_release(mt);
    tsr_tensor_release(flat);
    tsr_tensor_release(want);
  } else {
    tsr_tensor *base = zeros_of(TSR_FLOAT64, 12), *b62, *col, *want = zeros_of(TSR_FLOAT64, 6);
    DCHECK_OK(tsr_reshape(base, 2, (int64_t[]){6, 2}, &b62));
    DCHECK_OK(tsr_select(b62, 1, 1, &col));
    DCHECK_OK(tsr_recv(pg, col, 0, 4, NULL, NULL));
    DCHECK_OK(tsr_recv(pg, want, 0, 5, NULL, NULL));
    DCHECK(dist_same_bytes(col, want), "strided receive");
    DCHECK(item(b62, 0) == 0 && item(b62, 2) == 0, "column 0 untouched");
    tsr_tensor_release(base);
    tsr_tensor_release(b62);
    tsr_tensor_release(col);
    tsr_tensor_release(want);
  }

  /* Every dtype (7 elements, then empty), rank 0 to rank 1 and back. */
  for (size_t d = 0; d < sizeof kAllDtypes / sizeof *kAllDtypes; ++d) {
    const tsr_dtype dt = kAllDtypes[d];
    for (int64_t n = 7; n >= 0; n -= 7) {
      tsr_tensor *mine = pattern(dt, n, rank), *theirs = pattern(dt, n, peer), *in = zeros_of(dt, n);
      tsr_work* ws;
      DCHECK_OK(tsr_send(pg, mine, peer, 100 + (int)d, &ws));
      DCHECK_OK(tsr_recv(pg, in, peer, 100 + (int)d, &source, NULL));
      DCHECK_OK(tsr_work_wait(ws, -1));
      tsr_work_release(ws);
      DCHECK(source == peer && dist_same_bytes(in, theirs), "dtype %s n %lld", tsr_dtype_name(dt), (long long)n);
      tsr_tensor_release(mine);
      tsr_tensor_release(theirs);
      tsr_tensor_release(in);
    }
  }
  tsr_tensor* u16 = zeros_of(TSR_UINT16, 2);
  DFAILS(tsr_send(pg, u16, peer, 0, NULL), TSR_ERR_UNSUPPORTED, "uint16");
  tsr_tensor_release(u16);

  /* The group's collectives still agree after all of that. */
  DCHECK_OK(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL));
  DCHECK(item(t, 0) == 3, "all_reduce after point-to-point");
  tsr_tensor_release(t);
  tsr_tensor_release(got);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_p2p, exchange_tags_strides_dtypes) { run_world(2, pair_body, 60); }

/* World 3: a ring (isend right, blocking recv from the left), then rank 0
 * receives from any source twice, the sources being 1 and 2 in some order,
 * each message carrying its sender's rank; in a subgroup too. */
static int ring_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const int right = (rank + 1) % world, left = (rank + world - 1) % world;
  tsr_tensor *mine = full_f32(3, 100 + rank), *in = full_f32(3, 0);
  tsr_work* w;
  for (int step = 0; step < 3; ++step) { /* several laps, same tag */
    DCHECK_OK(tsr_send(pg, mine, right, 7, &w));
    DCHECK_OK(tsr_recv(pg, in, left, 7, NULL, NULL));
    DCHECK_OK(tsr_work_wait(w, -1));
    tsr_work_release(w);
    DCHECK(item(in, 2) == 100 + left, "ring step %d: %g", step, item(in, 2));
  }
  int32_t source;
  if (rank == 0) {
    int seen = 0;
    for (int i = 0; i < 2; ++i) {
      DCHECK_OK(tsr_recv(pg, in, -1, 5, &source, NULL));
      DCHECK(source == 1 || source == 2, "source %d", source);
      DCHECK(item(in, 0) == 100 + source, "message of rank %d", source);
      seen |= 1 << source;
    }
    DCHECK(seen == 6, "both sources");
    tsr_work* wr;
    DCHECK_OK(tsr_recv(pg, in, -1, 6, NULL, &wr));
    DCHECK_OK(tsr_work_wait(wr, -1));
    DCHECK(tsr_work_source_rank(wr) == 2, "irecv any source: %d", tsr_work_source_rank(wr));
    tsr_work_release(wr);
  } else {
    DCHECK_OK(tsr_send(pg, mine, 0, 5, NULL));
    if (rank == 2) DCHECK_OK(tsr_send(pg, mine, 0, 6, NULL));
  }
  /* In the subgroup {1, 2}: its ranks 0 and 1 exchange, and the source of
   * an any-source receive is a subgroup rank. */
  tsr_process_group* sub;
  DCHECK_OK(tsr_new_group(pg, 2, (int32_t[]){1, 2}, NULL, &sub));
  if (sub) {
    const int r = tsr_process_group_rank(sub);
    if (r == 0) {
      DCHECK_OK(tsr_recv(sub, in, -1, 0, &source, NULL));
      DCHECK(source == 1 && item(in, 0) == 102, "subgroup source %d", source);
    } else {
      DCHECK_OK(tsr_send(sub, mine, 0, 0, NULL));
    }
    tsr_process_group_release(sub);
  }
  DCHECK_OK(tsr_barrier(pg, NULL));
  tsr_tensor_release(mine);
  tsr_tensor_release(in);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_p2p, ring_and_any_source) { run_world(3, ring_body, 60); }

/* ---- bitwise reductions ------------------------------------------------------ */

static int64_t bits_of(int rank, int64_t i) { return (int64_t)((i * 37 + rank * 11 + 5) % 128); }

static int bitwise_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  const tsr_dtype dts[] = {TSR_UINT8, TSR_INT8, TSR_INT16, TSR_INT32, TSR_INT64};
  const tsr_reduce_op ops[] = {TSR_REDUCE_BAND, TSR_REDUCE_BOR, TSR_REDUCE_BXOR};
  const int64_t n = 9;
  for (size_t d = 0; d < 5; ++d)
    for (size_t o = 0; o < 3; ++o) {
      double in[9], want[9];
      for (int64_t i = 0; i < n; ++i) {
        int64_t acc = bits_of(0, i);
        for (int r = 1; r < world; ++r) {
          const int64_t v = bits_of(r, i);
          acc = ops[o] == TSR_REDUCE_BAND ? (acc & v) : ops[o] == TSR_REDUCE_BOR ? (acc | v) : (acc ^ v);
        }
        in[i] = (double)bits_of(rank, i);
        want[i] = (double)acc;
      }
      /* negative values too for the signed types: -1 is all ones */
      if (dts[d] != TSR_UINT8) in[8] = rank == 0 ? -1 : (double)bits_of(rank, 8);
      if (dts[d] != TSR_UINT8 && ops[o] == TSR_REDUCE_BAND) {
        int64_t acc = -1;
        for (int r = 1; r < world; ++r) acc &= bits_of(r, 8);
        want[8] = (double)acc;
      } else if (dts[d] != TSR_UINT8) {
        int64_t acc = -1;
        for (int r = 1; r < world; ++r) acc = ops[o] == TSR_REDUCE_BOR ? (acc | bits_of(r, 8)) : (acc ^ bits_of(r, 8));
        want[8] = (double)acc;
      }
      tsr_tensor *x, *t, *e, *ex;
      DCHECK_OK(tsr_from_data(in, sizeof in, 1, &n, TSR_FLOAT64, &x));
      DCHECK_OK(tsr_to_dtype(x, dts[d], &t));
      DCHECK_OK(tsr_from_data(want, sizeof want, 1, &n, TSR_FLOAT64, &e));
      DCHECK_OK(tsr_to_dtype(e, dts[d], &ex));
      DCHECK_OK(tsr_all_reduce(pg, t, ops[o], NULL));
      DCHECK(dist_same_bytes(t, ex), "%s op %d", tsr_dtype_name(dts[d]), (int)ops[o]);
      tsr_tensor_release(x);
      tsr_tensor_release(t);
      tsr_tensor_release(e);
      tsr_tensor_release(ex);
    }
  /* bool: rank r sets elements r and 3; BAND, BOR, BXOR as logic. */
  const int64_t four = 4;
  bool bits[4] = {0};
  bits[rank] = bits[3] = 1;
  for (size_t o = 0; o < 3; ++o) {
    tsr_tensor* b;
    DCHECK_OK(tsr_from_data(bits, sizeof bits, 1, &four, TSR_BOOL, &b));
    DCHECK_OK(tsr_all_reduce(pg, b, ops[o], NULL));
    bool got[4];
    size_t need;
    tsr_copy_to_buffer(b, got, sizeof got, &need);
    for (int i = 0; i < 3; ++i) {
      const bool want = ops[o] == TSR_REDUCE_BAND ? false : true; /* one rank sets element i (world 3) */
      DCHECK(got[i] == want, "bool op %d element %d", (int)ops[o], i);
    }
    const bool want3 = ops[o] == TSR_REDUCE_BXOR ? (world % 2 == 1) : true;
    DCHECK(got[3] == want3, "bool op %d element 3", (int)ops[o]);
    tsr_tensor_release(b);
  }
  /* reduce_scatter with BXOR: chunk r of the xor. */
  {
    tsr_tensor *in = pattern(TSR_INT32, 3 * world, rank), *out = zeros_of(TSR_INT32, 3);
    DCHECK_OK(tsr_reduce_scatter_tensor(pg, out, in, TSR_REDUCE_BXOR, NULL));
    for (int64_t i = 0; i < 3; ++i) {
      int64_t acc = 0;
      for (int r = 0; r < world; ++r) acc ^= ((rank * 3 + i) * 3 + r) % 5;
      DCHECK(item(out, i) == (double)acc, "reduce_scatter BXOR %lld", (long long)i);
    }
    tsr_tensor_release(in);
    tsr_tensor_release(out);
  }
  /* Floating dtypes are refused (torch's message), the tensor untouched. */
  const tsr_dtype floats[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16};
  for (size_t f = 0; f < 4; ++f) {
    tsr_tensor *t = pattern(floats[f], 4, 1), *keep = pattern(floats[f], 4, 1);
    tsr_work* w = (tsr_work*)SENTINEL;
    DFAILS(tsr_all_reduce(pg, t, TSR_REDUCE_BAND, &w), TSR_ERR_DTYPE_MISMATCH,
           "Cannot use ReduceOp.BAND with non-integral dtype");
    DFAILS(tsr_all_reduce(pg, t, TSR_REDUCE_BXOR, NULL), TSR_ERR_DTYPE_MISMATCH, "ReduceOp.BXOR");
    DCHECK(w == (tsr_work*)SENTINEL && dist_same_bytes(t, keep), "nothing written");
    tsr_tensor_release(t);
    tsr_tensor_release(keep);
  }
  DCHECK_OK(tsr_barrier(pg, NULL)); /* the refusals left the group healthy */
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_reductions, bitwise_world_3) { run_world(3, bitwise_body, 60); }

/* ---- failures ------------------------------------------------------------------ */

/* A receive whose sender dies fails within seconds (not at the 20 s
 * timeout), naming recv, and the group then refuses work; the same for an
 * irecv's wait. */
static int peer_dies_body(int port, int rank, int world, void* arg) {
  (void)arg;
  tsr_process_group* pg;
  DCHECK_OK(dist_init(port, rank, world, 20000, &pg));
  DCHECK_OK(tsr_barrier(pg, NULL));
  if (rank == 1) _exit(0); /* dies without sending */
  tsr_tensor* t = full_f32(4, 1);
  tsr_work* w;
  DCHECK_OK(tsr_recv(pg, t, 1, 0, NULL, &w));
  const double start = dist_now();
  DFAILS(tsr_work_wait(w, -1), TSR_ERR_DISTRIBUTED, "recv failed on rank 0 of world size 2");
  DCHECK(dist_now() - start < 5, "failed after %.1f s", dist_now() - start);
  tsr_work_release(w);
  DFAILS(tsr_send(pg, t, 1, 0, NULL), TSR_ERR_DISTRIBUTED, "refused: the process group failed earlier");
  DFAILS(tsr_all_reduce(pg, t, TSR_REDUCE_SUM, NULL), TSR_ERR_DISTRIBUTED, "refused");
  DCHECK(item(t, 0) == 1, "nothing written");
  tsr_tensor_release(t);
  tsr_process_group_release(pg);
  return 0;
}

Test(distributed_p2p, peer_death_fails_the_receive) { run_world(2, peer_dies_body, 30); }
