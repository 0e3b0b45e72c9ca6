/* bindings/distributed.i — process groups and collectives (torch.distributed)
 * over include/tessera/distributed.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_OUT).
 *
 * Handle classes: ProcessGroup (tsr_process_group) and Work (tsr_work).
 * Every collective takes async_op: false runs it to completion and returns
 * NULL (None, null); true queues it and returns a Work to wait on. No
 * default arguments: each language's layer supplies torch's (Python:
 * tessera/distributed.py).
 *
 * Blocking calls (the rendezvous, a collective, a wait, the last release,
 * which waits for queued work) run with Python's GIL released, so other
 * Python threads go on meanwhile and a thread of the same program that
 * issues the matching collective of another group cannot deadlock on it
 * (torch's pybind11 bindings release it likewise). Tensors stay referenced
 * by the call's arguments (and, for queued work, by the library itself). */

%{
#include <tessera/distributed.h>

typedef struct tsr_process_group TsrProcessGroup;
typedef struct tsr_work TsrWork;

/* TSR_BLOCKING(statement): runs a call that may wait on other processes
 * without holding the GIL (Python); as is elsewhere. */
#ifdef SWIGPYTHON
#define TSR_BLOCKING(statement) \
  do {                          \
    Py_BEGIN_ALLOW_THREADS      \
    statement;                  \
    Py_END_ALLOW_THREADS        \
  } while (0)
#else
#define TSR_BLOCKING(statement) \
  do {                          \
    statement;                  \
  } while (0)
#endif

/* Runs a collective: with async_op the new Work, else NULL once complete. */
#define TSR_COLLECTIVE(call_with_work)           \
  do {                                           \
    tsr_work* work = NULL;                       \
    tsr_work** wp = async_op ? &work : NULL;     \
    (void)wp;                                    \
    TSR_BLOCKING(call_with_work);                \
    return work;                                 \
  } while (0)
%}

/* Each language's part: Python's interruptible wait; the handle treatment
 * of the others (as java_optim.i / csharp.i / go_optim.i do for the other
 * handles): AutoCloseable, IDisposable, uintptr handles released once. */
#if defined(SWIGPYTHON)
%include "python/python_distributed.i"
#elif defined(SWIGJAVA)
%noexception TsrProcessGroup::~TsrProcessGroup;
%noexception TsrWork::~TsrWork;
TSR_JAVA_HANDLE(TsrProcessGroup)
TSR_JAVA_HANDLE(TsrWork)
%rename(init) TsrProcessGroup::create;
/* java.lang.Object.wait(long) is final. */
%rename(waitFor) TsrWork::wait;
%typemap(javacode) TsrProcessGroup %{
  /** init_process_group("gloo", initMethod, world_size=worldSize, rank=rank) with torch's 30 minutes. */
  public static ProcessGroup init(String initMethod, int rank, int worldSize) {
    return init(DistBackend.DIST_GLOO, initMethod, rank, worldSize, 0);
  }

  /** all_reduce(tensor) with ReduceOp.SUM, returning when complete. */
  public void allReduce(Tensor tensor) {
    allReduce(tensor, ReduceOp.REDUCE_SUM, false);
  }
%}
%typemap(javacode) TsrWork %{
  /** wait() with the group's timeout. */
  public void waitFor() {
    waitFor(-1);
  }
%}
#elif defined(SWIGCSHARP)
TSR_CS_HANDLE(TsrProcessGroup, ProcessGroup, , )
TSR_CS_HANDLE(TsrWork, Work, , )
%rename(Default) TSR_DIST_DEFAULT;
%rename(Gloo) TSR_DIST_GLOO;
%rename(Nccl) TSR_DIST_NCCL;
%rename(Mpi) TSR_DIST_MPI;
%rename(Sum) TSR_REDUCE_SUM;
%rename(Avg) TSR_REDUCE_AVG;
%rename(Product) TSR_REDUCE_PRODUCT;
%rename(Min) TSR_REDUCE_MIN;
%rename(Max) TSR_REDUCE_MAX;
%rename(Band) TSR_REDUCE_BAND;
%rename(Bor) TSR_REDUCE_BOR;
%rename(Bxor) TSR_REDUCE_BXOR;
#elif defined(SWIGGO)
/* Handles are uintptrs (go.i), wrapped by distributed.go in structs with a
 * finalizer and Close. */
%noexception TsrProcessGroup::~TsrProcessGroup;
%noexception TsrWork::~TsrWork;
%typemap(gotype) TsrProcessGroup*, TsrWork* "uintptr"
#endif

%rename(ProcessGroup) TsrProcessGroup;
%rename(Work) TsrWork;
%nodefaultctor TsrProcessGroup;
%nodefaultctor TsrWork;
typedef struct {} TsrProcessGroup;
typedef struct {} TsrWork;

/* The enums from the header (its functions are wrapped by hand below;
 * tessera.i ignores every tsr_ function and strips TSR_ from enum items):
 * DIST_GLOO, REDUCE_SUM, ... */
%ignore tsr_process_group_options;
/* DistributedDataParallel's declarations: ddp.i wraps them. The hook enum
 * is DdpCommHook (Java DDP_ALLREDUCE, ...; C# AllReduce, ...); Go's ddp.go
 * has its own constants; Python keeps the plain DDP_ALLREDUCE, .... */
%ignore tsr_ddp_options;
#if defined(SWIGJAVA) || defined(SWIGCSHARP)
%rename(DdpCommHook) tsr_ddp_comm_hook;
#endif
#if defined(SWIGCSHARP)
%rename(AllReduce) TSR_DDP_ALLREDUCE;
%rename(Fp16Compress) TSR_DDP_FP16_COMPRESS;
%rename(Bf16Compress) TSR_DDP_BF16_COMPRESS;
#endif
%rename(DistBackend) tsr_dist_backend;
%rename(ReduceOp) tsr_reduce_op;
%include "tessera/distributed.h"

%newobject TsrProcessGroup::create;
%newobject TsrProcessGroup::all_reduce;
%newobject TsrProcessGroup::broadcast;
%newobject TsrProcessGroup::all_gather_into_tensor;
%newobject TsrProcessGroup::reduce_scatter_tensor;
%newobject TsrProcessGroup::barrier;
%newobject TsrProcessGroup::new_group;
%newobject TsrProcessGroup::split;
%newobject TsrProcessGroup::send;
%newobject TsrProcessGroup::irecv;

%extend TsrProcessGroup {
  ~TsrProcessGroup() { TSR_BLOCKING(tsr_process_group_release($self)); }

  /* init_process_group(backend, init_method, timeout, world_size, rank):
   * init_method NULL is "env://"; rank and world_size -1 come from the
   * environment; timeout_ms 0 is 30 minutes. Blocks until every rank joined. */
  static TsrProcessGroup* create(tsr_dist_backend backend, const char* init_method, int32_t rank,
                                 int32_t world_size, int64_t timeout_ms) {
    tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
    o.backend = backend;
    o.init_method = init_method;
    o.rank = rank;
    o.world_size = world_size;
    o.timeout_ms = timeout_ms;
    tsr_process_group* out = NULL;
    TSR_BLOCKING(tsr_process_group_init(&o, &out));
    return out;
  }
  /* is_gloo_available() / is_nccl_available() / is_mpi_available(). */
  static bool available(tsr_dist_backend backend) { return tsr_dist_backend_is_available(backend); }
  int32_t rank() { return tsr_process_group_rank($self); }
  int32_t size() { return tsr_process_group_size($self); }
  const char* backend() { return tsr_process_group_backend($self); }

  TsrWork* all_reduce(TsrTensor* tensor, tsr_reduce_op op, bool async_op) {
    TSR_COLLECTIVE(tsr_all_reduce($self, tensor, op, wp));
  }
  TsrWork* broadcast(TsrTensor* tensor, int32_t src, bool async_op) {
    TSR_COLLECTIVE(tsr_broadcast($self, tensor, src, wp));
  }
  TsrWork* all_gather_into_tensor(TsrTensor* output, TsrTensor* input, bool async_op) {
    TSR_COLLECTIVE(tsr_all_gather_into_tensor($self, output, input, wp));
  }
  TsrWork* reduce_scatter_tensor(TsrTensor* output, TsrTensor* input, tsr_reduce_op op, bool async_op) {
    TSR_COLLECTIVE(tsr_reduce_scatter_tensor($self, output, input, op, wp));
  }
  TsrWork* barrier(bool async_op) { TSR_COLLECTIVE(tsr_barrier($self, wp)); }
  /* monitored_barrier(timeout, wait_all_ranks): timeout_ms <= 0 is the
   * group's timeout; rank 0's error names the ranks that did not come. */
  void monitored_barrier(int64_t timeout_ms, bool wait_all_ranks) {
    TSR_BLOCKING(tsr_monitored_barrier($self, timeout_ms, wait_all_ranks));
  }

  /* new_group(ranks, timeout): every rank of this group calls it, in the
   * same order; NULL (None, null, 0) on the ranks not in ranks. all_ranks:
   * torch's ranks=None (array ignored). timeout_ms 0: this group's. */
  TsrProcessGroup* new_group(const tsr_i64* array, int64_t length, bool all_ranks, int64_t timeout_ms) {
    tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
    o.timeout_ms = timeout_ms;
    int32_t* ranks = NULL;
    if (!all_ranks && length > 0) {
      ranks = (int32_t*)malloc(sizeof(int32_t) * (size_t)length);
      if (!ranks) {
        tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory in new_group");
        return NULL;
      }
      for (int64_t i = 0; i < length; ++i)
        ranks[i] = array[i] < INT32_MIN ? INT32_MIN : array[i] > INT32_MAX ? INT32_MAX : (int32_t)array[i];
    }
    tsr_process_group* out = NULL;
    TSR_BLOCKING(tsr_new_group($self, all_ranks ? 0 : length, ranks, &o, &out));
    free(ranks);
    return out;
  }
  /* split_group by color and key (torch 2.x, MPI_Comm_split); NULL for a
   * negative color. */
  TsrProcessGroup* split(int32_t color, int32_t key, int64_t timeout_ms) {
    tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
    o.timeout_ms = timeout_ms;
    tsr_process_group* out = NULL;
    TSR_BLOCKING(tsr_process_group_split($self, color, key, &o, &out));
    return out;
  }
  /* get_global_rank / get_group_rank (-1 with an error when not a member). */
  int32_t global_rank(int32_t group_rank) { return tsr_process_group_global_rank($self, group_rank); }
  int32_t group_rank(int32_t global_rank) { return tsr_process_group_group_rank($self, global_rank); }

  /* send (async_op false) / isend (true) to rank dst of this group. */
  TsrWork* send(TsrTensor* tensor, int32_t dst, int32_t tag, bool async_op) {
    TSR_COLLECTIVE(tsr_send($self, tensor, dst, tag, wp));
  }
  /* recv: blocks and returns the sender's rank (src -1: any source). */
  int32_t recv(TsrTensor* tensor, int32_t src, int32_t tag) {
    int32_t source = -1;
    TSR_BLOCKING(tsr_recv($self, tensor, src, tag, &source, NULL));
    return source;
  }
  /* irecv: the Work; its source_rank() once waited. */
  TsrWork* irecv(TsrTensor* tensor, int32_t src, int32_t tag) {
    tsr_work* work = NULL;
    TSR_BLOCKING(tsr_recv($self, tensor, src, tag, NULL, &work));
    return work;
  }
}

%extend TsrWork {
  ~TsrWork() { tsr_work_release($self); }

  /* Work.wait(timeout): timeout_ms < 0 is the group's timeout. A wait that
   * times out aborts the group (the collective cannot be cancelled). */
  void wait(int64_t timeout_ms) { TSR_BLOCKING(tsr_work_wait($self, timeout_ms)); }
  bool is_completed() { return tsr_work_is_completed($self); }
  /* Work._source_rank(): the sender of a completed receive. */
  int32_t source_rank() { return tsr_work_source_rank($self); }
}
