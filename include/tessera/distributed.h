/**
 * @file tessera/distributed.h
 * @brief Process groups and collectives across processes and machines
 * (torch.distributed of PyTorch 1.13: init_process_group, new_group,
 * all_reduce, broadcast, all_gather_into_tensor, reduce_scatter_tensor,
 * barrier, send, recv).
 *
 * Every process of a job creates one group with the same rendezvous
 * settings; the group then runs collectives over the engine of its
 * backend: Gloo's TCP transport for CPU tensors (the library torch's
 * ProcessGroupGloo uses) and NCCL for CUDA tensors (torch's
 * ProcessGroupNCCL). NCCL lives in the CUDA plugin, which loads
 * libnccl.so.2 at run time ($TSR_NCCL_LIBRARY names another): a machine
 * without CUDA or NCCL runs CPU groups, and a CUDA collective there fails
 * with TSR_ERR_UNSUPPORTED saying what is missing. MPI (TSR_DIST_MPI,
 * torch's ProcessGroupMPI) runs where tessera was built with Open MPI
 * (libtessera_mpi.so, loaded on first use) under mpirun: rank and world
 * size come from MPI and init_method is not used.
 *
 * @code
 *   // every rank, started by tessera-run (or torchrun, mpirun):
 *   tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;  // env://
 *   tsr_process_group* pg;
 *   if (tsr_process_group_init(&o, &pg) != TSR_OK) { ...tsr_last_error_message()... }
 *   tsr_all_reduce(pg, grad, TSR_REDUCE_SUM, NULL);   // returns when done
 *   tsr_work* w;
 *   tsr_all_reduce(pg, other, TSR_REDUCE_AVG, &w);    // runs in the background
 *   ... compute ...
 *   tsr_work_wait(w, -1);
 *   tsr_work_release(w);
 *   tsr_process_group_release(pg);
 * @endcode
 *
 * **Rendezvous.** init_method selects how ranks find each other:
 * - "env://" (or NULL): MASTER_ADDR and MASTER_PORT locate the store that
 *   rank 0 hosts; RANK and WORLD_SIZE (else Open MPI's OMPI_COMM_WORLD_RANK
 *   / OMPI_COMM_WORLD_SIZE, else MPICH's PMI_RANK / PMI_SIZE) give the rank
 *   and size unless the options give them.
 * - "tcp://host:port": the store at host:port, hosted by rank 0; rank and
 *   world_size from the options (else the environment as above).
 * - "file:///path/dir": a store in a directory on a file system all ranks
 *   share. As torch's file://, it must not hold keys of an earlier job:
 *   the last rank to release its group removes them.
 *
 * The store is a key-value store with Gloo's store interface (rank 0's TCP
 * server in torch's TCPStore role, or the directory); Gloo exchanges its
 * connection addresses through it, then every pair of ranks has its own
 * TCP connection. Each rank listens on the address of the interface that
 * routes to MASTER_ADDR (127.0.0.1 when the store is on the loopback),
 * or on GLOO_SOCKET_IFNAME's interface when set.
 *
 * **Collectives** are called by every rank of the group in the same order
 * with matching tensors (torch's rule). Tensors may have any strides (a
 * non-contiguous tensor goes through a contiguous copy) and any dtype but
 * the storage-only ones (uint16/32/64, float8): float16 and bfloat16 are
 * reduced in float32 and rounded once per step of the algorithm, as
 * Gloo's float16. Bool reduces as logical or (SUM, MAX, BOR), and
 * (PRODUCT, MIN, BAND) and xor (BXOR). BAND, BOR and BXOR take the integer
 * dtypes and bool only (a floating dtype is refused as torch refuses it,
 * TSR_ERR_DTYPE_MISMATCH). AVG is SUM then a division by the world size (truncating for
 * integers, as NCCL's ncclAvg); Gloo has no AVG of its own. The result is
 * written into the tensor's memory and its version is bumped.
 *
 * **CUDA tensors (NCCL).** A TSR_DIST_DEFAULT group runs Gloo on CPU
 * tensors and NCCL on CUDA tensors (c10d's "cpu:gloo,cuda:nccl");
 * TSR_DIST_NCCL takes CUDA tensors only. The communicator is made on the
 * first CUDA collective (rank 0's ncclUniqueId goes through the store),
 * on that tensor's device: one CUDA device per rank and group. NCCL's
 * dtypes are uint8, int8, int32, int64, float16, bfloat16, float32,
 * float64 and bool (others: TSR_ERR_UNSUPPORTED); AVG is ncclAvg. Each
 * collective runs on the group's comm stream after the work queued so far
 * on the calling thread's current stream, which then waits for it; the
 * call (or tsr_work_wait()) returns when it has finished on the device.
 * The communicator is non-blocking, and a watchdog thread polls NCCL's
 * asynchronous errors and the timeout: on either it aborts the
 * communicator (ncclCommAbort) and the group fails, naming NCCL's error
 * (e.g. ncclRemoteError) or the timeout.
 *
 * **Asynchronous work.** With a non-NULL work pointer a collective is
 * queued to the group's worker thread and returns at once; the tensors
 * must not be touched until tsr_work_wait() returns. With work == NULL
 * the call returns when the collective is complete. Collectives of one
 * group always run in the order they were issued.
 *
 * **Failures are loud and bounded.** Rendezvous and every collective obey
 * the group's timeout. When a peer dies mid-collective the others fail
 * within seconds (the first rank to see the closed connection closes all
 * of its own, so the failure spreads); when a peer hangs they fail at the
 * timeout. The status is TSR_ERR_DISTRIBUTED and the message names the
 * op, its sequence number, this rank, the world size, the time waited and
 * the ranks that did not report the failure through the store (the dead
 * or hung ones). A failed group refuses every later collective with the
 * first failure's message. On a timeout the group's flight recorder (its
 * last 16 collectives: sequence, op, dtype, sizes, state, duration) is
 * printed to stderr.
 *
 * TSR_DISTRIBUTED_DEBUG=DETAIL (torch's TORCH_DISTRIBUTED_DEBUG; DETAIL is
 * also read from TORCH_DISTRIBUTED_DEBUG) makes the ranks exchange a
 * fingerprint (sequence, op, dtype, sizes, root or reduce op) before each
 * collective; a mismatch fails every rank with both fingerprints.
 *
 * **Subgroups** (tsr_new_group(), tsr_process_group_split()) are groups
 * of their own: their own store prefix, connections and worker thread, so
 * their collectives never mix with the parent's and may run meanwhile.
 *
 * **Point to point** (tsr_send(), tsr_recv()) goes through Gloo's unbound
 * buffers, tagged by the caller's tag; sends and receives are posted in
 * issue order with the collectives and complete on their own.
 *
 * Thread-safety: a group may be used from several threads; its
 * collectives are serialized in call order. Handles are reference counted
 * as the other tessera handles.
 */
#ifndef TESSERA_DISTRIBUTED_H
#define TESSERA_DISTRIBUTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque process group (torch.distributed.ProcessGroup). */
typedef struct tsr_process_group tsr_process_group;
/** @brief Opaque handle of a collective queued to run in the background (torch's Work). */
typedef struct tsr_work tsr_work;

/** @brief The engine behind a group (torch.distributed.Backend). */
typedef enum tsr_dist_backend {
  TSR_DIST_DEFAULT = 0, /**< Gloo for CPU tensors, NCCL for CUDA tensors, as c10d */
  TSR_DIST_GLOO = 1,    /**< Gloo over TCP */
  TSR_DIST_NCCL = 2,    /**< NCCL, CUDA tensors only (through the CUDA plugin) */
  TSR_DIST_MPI = 3      /**< MPI (under mpirun); TSR_ERR_UNSUPPORTED where libtessera_mpi.so is not built */
} tsr_dist_backend;

/** @brief Reduction of a collective (torch.distributed.ReduceOp). */
typedef enum tsr_reduce_op {
  TSR_REDUCE_SUM = 0,     /**< element-wise sum */
  TSR_REDUCE_AVG = 1,     /**< sum divided by the world size */
  TSR_REDUCE_PRODUCT = 2, /**< element-wise product */
  TSR_REDUCE_MIN = 3,     /**< element-wise minimum */
  TSR_REDUCE_MAX = 4,     /**< element-wise maximum */
  TSR_REDUCE_BAND = 5,    /**< bitwise and; integer and bool dtypes only */
  TSR_REDUCE_BOR = 6,     /**< bitwise or; integer and bool dtypes only */
  TSR_REDUCE_BXOR = 7     /**< bitwise exclusive or; integer and bool dtypes only */
} tsr_reduce_op;

/**
 * @brief Settings of tsr_process_group_init() (the arguments of
 * torch.distributed.init_process_group). Start from
 * TSR_PROCESS_GROUP_OPTIONS_INIT.
 */
typedef struct tsr_process_group_options {
  size_t struct_size;       /**< sizeof(tsr_process_group_options) */
  tsr_dist_backend backend; /**< the engine */
  const char* init_method;  /**< NULL = "env://"; or "tcp://host:port", "file:///dir" */
  int32_t rank;             /**< this process's rank; -1: from the environment */
  int32_t world_size;       /**< number of processes; -1: from the environment */
  int64_t timeout_ms;       /**< rendezvous and each collective; 0: 30 minutes */
} tsr_process_group_options;

/** @brief Defaults of tsr_process_group_options: env://, the default backend, 30 minutes. */
#define TSR_PROCESS_GROUP_OPTIONS_INIT {sizeof(tsr_process_group_options), TSR_DIST_DEFAULT, NULL, -1, -1, 0}

/**
 * @brief torch.distributed.init_process_group(backend, init_method,
 * timeout, world_size, rank): joins the job's rendezvous and connects to
 * every other rank.
 *
 * Blocks until all world_size ranks have joined, or the timeout.
 *
 * SIGPIPE: where its disposition is still the default, this sets it to
 * SIG_IGN (as Python does at start-up and gRPC at its initialisation), so
 * that a write to a dead peer fails a collective with TSR_ERR_DISTRIBUTED
 * instead of killing the process; Gloo's transport writes without
 * MSG_NOSIGNAL. A handler or an ignore the application installed is kept.
 *
 * @param[in]  options the settings (NULL: TSR_PROCESS_GROUP_OPTIONS_INIT)
 * @param[out] out     the new group, released with
 *                     tsr_process_group_release(); unchanged on failure
 * @return TSR_OK;
 *   TSR_ERR_INVALID_ARGUMENT for a NULL out, a bad struct_size, backend or
 *   init_method, a missing or malformed environment variable (named), a
 *   rank outside [0, world_size) or world_size < 1;
 *   TSR_ERR_UNSUPPORTED for TSR_DIST_NCCL where the CUDA plugin, a CUDA
 *   device or NCCL is missing (the message says which), and for MPI where
 *   libtessera_mpi.so was not built or cannot be loaded (the reason is
 *   named; $TSR_MPI_MODULE gives another path);
 *   TSR_ERR_INVALID_ARGUMENT under MPI for a rank or world_size other
 *   than -1 and MPI's;
 *   TSR_ERR_DISTRIBUTED when rank 0 cannot listen on the store's port
 *   (busy), the store cannot be reached within the timeout (the address is
 *   named), or not every rank joined within the timeout (the missing ranks
 *   are named).
 */
TSR_API tsr_status tsr_process_group_init(const tsr_process_group_options* options, tsr_process_group** out);

/**
 * @brief torch.distributed.get_rank(group).
 * @param[in] pg the group
 * @return this process's rank in [0, size); -1 for a NULL pg (recorded as
 *   TSR_ERR_INVALID_ARGUMENT)
 */
TSR_API int32_t tsr_process_group_rank(const tsr_process_group* pg);

/**
 * @brief torch.distributed.get_world_size(group).
 * @param[in] pg the group
 * @return the number of processes; -1 for a NULL pg (recorded as
 *   TSR_ERR_INVALID_ARGUMENT)
 */
TSR_API int32_t tsr_process_group_size(const tsr_process_group* pg);

/**
 * @brief Whether this build can run a backend: torch.distributed's
 * is_gloo_available(), is_nccl_available(), is_mpi_available().
 *
 * TSR_DIST_DEFAULT and TSR_DIST_GLOO: true. TSR_DIST_NCCL: whether the CUDA
 * plugin starts (a CUDA device) and NCCL loads.
 * TSR_DIST_MPI: whether the MPI module (libtessera_mpi.so, beside
 * libtessera.so or at $TSR_MPI_MODULE) loads; loading it does not start
 * MPI. Never records an error.
 * @param[in] backend the backend asked about; an unknown value is false
 * @return true when tsr_process_group_init() can use it (under MPI: when
 *   the process is started by mpirun)
 */
TSR_API bool tsr_dist_backend_is_available(tsr_dist_backend backend);

/**
 * @brief Name of the group's backend, as torch.distributed.get_backend():
 * "nccl" for a TSR_DIST_NCCL group, else that of its CPU tensors ("gloo",
 * "mpi").
 * @param[in] pg the group
 * @return a static string; NULL for a NULL pg (recorded as
 *   TSR_ERR_INVALID_ARGUMENT)
 */
TSR_API const char* tsr_process_group_backend(const tsr_process_group* pg);

/**
 * @brief Adds a reference to pg.
 * @param[in] pg the group; NULL is ignored
 */
TSR_API void tsr_process_group_retain(tsr_process_group* pg);

/**
 * @brief Drops a reference (torch.distributed.destroy_process_group when
 * it is the last): waits for queued work, then closes the connections.
 * @param[in] pg the group; NULL is ignored
 */
TSR_API void tsr_process_group_release(tsr_process_group* pg);

/**
 * @brief torch.distributed.new_group(ranks, timeout): a group of some of
 * pg's ranks, with connections, a store prefix and a worker thread of its
 * own, so its collectives never mix with pg's (or another subgroup's) and
 * may run at the same time.
 *
 * Collective over pg: every rank of pg calls it, with the same ranks, and
 * every rank of pg creates its groups in the same order (torch's rule);
 * it returns when every member has connected. In the new group, rank i is
 * the i-th smallest of ranks (torch sorts them), whatever their order in
 * the array. A rank of pg that is not in ranks gets *out = NULL and
 * TSR_OK (torch's GroupMember.NON_GROUP_MEMBER).
 *
 * The new group has pg's backend and, unless options give one, pg's
 * timeout. It lives on its own (pg may be released first) and is released
 * with tsr_process_group_release(); released groups' store keys are not
 * reused, so groups may be created without bound.
 *
 * @param[in]  pg      the parent group (every one of its ranks calls this)
 * @param[in]  n       number of ranks, in [1, size of pg]; 0 with ranks
 *                     NULL: every rank of pg (torch's ranks=None)
 * @param[in]  ranks   n distinct ranks of pg, in any order
 * @param[in]  options NULL: pg's timeout; else only struct_size and
 *                     timeout_ms (0: pg's) are read; backend must be
 *                     TSR_DIST_DEFAULT or pg's
 * @param[out] out     the new group, or NULL on the ranks not in it;
 *                     unchanged on failure
 * @return TSR_OK;
 *   TSR_ERR_INVALID_ARGUMENT (on this rank, nothing communicated) for NULL
 *   pg or out, NULL ranks with n > 0, n < 0 or above pg's size, a rank
 *   outside [0, size of pg) (torch's "The new group's rank should be
 *   within the world_size set by init_process_group"), a rank given twice,
 *   a bad struct_size or a negative timeout_ms;
 *   TSR_ERR_UNSUPPORTED for a backend other than TSR_DIST_DEFAULT or pg's;
 *   TSR_ERR_DISTRIBUTED when a member did not join within the timeout
 *   (named) or could not connect. (The store is rank 0's: rank 0 of the
 *   job must still hold a group, its own or a subgroup, for others to be
 *   made.)
 */
TSR_API tsr_status tsr_new_group(tsr_process_group* pg, int64_t n, const int32_t* ranks,
                                 const tsr_process_group_options* options, tsr_process_group** out);

/**
 * @brief Splits pg by color and key (MPI_Comm_split; torch 2.x's
 * torch.distributed.split_group, which torch 1.13 lacks): every rank of
 * pg calls it, and the ranks that pass the same color form one new group,
 * ordered by key, ties by their rank in pg.
 *
 * Collective over pg, as tsr_new_group(): every rank calls it in the same
 * order. A rank passing a negative color (MPI_UNDEFINED's role) joins no
 * group and gets *out = NULL with TSR_OK.
 *
 * @param[in]  pg      the parent group
 * @param[in]  color   this rank's group; < 0: none
 * @param[in]  key     this rank's place in its group (smaller first; ties
 *                     by the rank in pg)
 * @param[in]  options as tsr_new_group()
 * @param[out] out     the new group, or NULL for a negative color;
 *                     unchanged on failure
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL pg or out, bad
 *   options (as tsr_new_group()); TSR_ERR_UNSUPPORTED as tsr_new_group();
 *   TSR_ERR_DISTRIBUTED when the exchange of colors over pg failed (pg
 *   failed, earlier or now) or as tsr_new_group().
 */
TSR_API tsr_status tsr_process_group_split(tsr_process_group* pg, int32_t color, int32_t key,
                                           const tsr_process_group_options* options, tsr_process_group** out);

/**
 * @brief torch.distributed.get_global_rank(group, group_rank): the rank
 * in the job's group (the one tsr_process_group_init() made) of pg's rank
 * group_rank. Identity for the job's group itself.
 * @param[in] pg         the group
 * @param[in] group_rank a rank of pg, in [0, size)
 * @return the global rank; -1 for a NULL pg or a group_rank outside [0,
 *   size) (recorded as TSR_ERR_INVALID_ARGUMENT, worded as torch's "Group
 *   rank 5 is not part of group")
 */
TSR_API int32_t tsr_process_group_global_rank(const tsr_process_group* pg, int32_t group_rank);

/**
 * @brief torch.distributed.get_group_rank(group, global_rank): pg's rank
 * of the process whose rank in the job's group is global_rank.
 * @param[in] pg          the group
 * @param[in] global_rank a rank of the job's group
 * @return the rank in pg; -1 for a NULL pg or a process not in pg
 *   (recorded as TSR_ERR_INVALID_ARGUMENT, torch's "Global rank 1 is not
 *   part of group")
 */
TSR_API int32_t tsr_process_group_group_rank(const tsr_process_group* pg, int32_t global_rank);

/**
 * @brief torch.distributed.send(tensor, dst, group, tag), or isend() with
 * work: sends tensor to rank dst of pg, whose matching tsr_recv() (same
 * tag, a tensor of as many bytes) receives it.
 *
 * As c10d's Gloo send, a send completes when dst has posted the matching
 * receive: with work == NULL the call returns then (so two ranks that both
 * send to each other first, blocking, wait for each other until the
 * timeout, as in torch); with work the send is posted in issue order and
 * the call returns at once, so the exchange "isend to the peer, recv from
 * it" works on both ranks. Point-to-point operations of a group are
 * posted in issue order with its collectives, but complete on their own:
 * a send or receive still waiting for its peer does not hold up the
 * group's later operations. Messages of one (source, tag) pair arrive in
 * the order they were sent.
 *
 * @param[in]  pg     the group
 * @param[in]  tensor any sizes, strides (a non-contiguous tensor goes
 *                    through a contiguous copy) and dtype but the
 *                    storage-only ones; CPU; not to be written until the
 *                    send completes
 * @param[in]  dst    a rank of pg other than this one
 * @param[in]  tag    >= 0, matched with the receiver's
 * @param[out] work   NULL: returns when complete; else a handle for
 *                    tsr_work_wait() (unchanged on failure)
 * @return TSR_OK;
 *   TSR_ERR_INVALID_ARGUMENT for NULL arguments, dst outside [0, size)
 *   (torch's "Invalid destination rank"), dst equal to this rank, or a
 *   negative tag;
 *   TSR_ERR_UNSUPPORTED for a storage-only dtype or a non-CPU tensor;
 *   TSR_ERR_DISTRIBUTED when the send failed (the peer died, or did not
 *   receive within the group's timeout: the group fails, as a collective
 *   that fails) or the group failed earlier.
 */
TSR_API tsr_status tsr_send(tsr_process_group* pg, const tsr_tensor* tensor, int32_t dst, int32_t tag,
                            tsr_work** work);

/**
 * @brief torch.distributed.recv(tensor, src, group, tag), or irecv() with
 * work: receives into tensor what rank src of pg sends with the same tag.
 *
 * src == -1 receives from any other rank (torch's src=None,
 * recv_anysource): the sender is written to *source (blocking) or told by
 * tsr_work_source_rank() (with work). The sender's tensor must have as
 * many bytes as this one (the dtype and sizes are not sent; torch's rule).
 *
 * @param[in]     pg     the group
 * @param[in,out] tensor written with the message; any sizes and strides
 *                       (a non-contiguous tensor receives through a
 *                       contiguous buffer); its version is bumped
 * @param[in]     src    a rank of pg other than this one, or -1: any
 * @param[in]     tag    >= 0, matched with the sender's
 * @param[out]    source may be NULL; with work == NULL, the sender's rank
 *                       (src, or the one that matched for -1); with
 *                       work, -1 (use tsr_work_source_rank() once the work
 *                       completed); unchanged on failure
 * @param[out]    work   as tsr_send()
 * @return as tsr_send(), with "source" for "destination"; a message of
 *   another size fails the group with TSR_ERR_DISTRIBUTED, as torch's
 *   Gloo.
 */
TSR_API tsr_status tsr_recv(tsr_process_group* pg, tsr_tensor* tensor, int32_t src, int32_t tag, int32_t* source,
                            tsr_work** work);

/**
 * @brief torch's Work._source_rank() of a completed receive: the rank of
 * pg that sent the message.
 * @param[in] work from tsr_recv(), completed successfully (tsr_work_wait()
 *                 returned TSR_OK)
 * @return the sender's rank in the group; -1 for a NULL work, work that is
 *   not a receive, not complete or failed (recorded as
 *   TSR_ERR_INVALID_ARGUMENT)
 */
TSR_API int32_t tsr_work_source_rank(const tsr_work* work);

/**
 * @brief torch.distributed.all_reduce(tensor, op, group, async_op): every
 * rank's tensor becomes the reduction of all ranks' tensors.
 *
 * @param[in]     pg     the group
 * @param[in,out] tensor any sizes and strides, the same sizes and dtype on
 *                       every rank; CPU (Gloo) or CUDA (NCCL)
 * @param[in]     op     the reduction
 * @param[out]    work   NULL: returns when complete; else a handle for
 *                       tsr_work_wait() (unchanged on failure)
 * @return TSR_OK;
 *   TSR_ERR_INVALID_ARGUMENT for NULL arguments, a bad op, or a tensor
 *   that overlaps itself (expanded);
 *   TSR_ERR_UNSUPPORTED for a storage-only dtype, a dtype NCCL lacks on a
 *   CUDA tensor, a device the group has no backend for (a CPU tensor in a
 *   TSR_DIST_NCCL group), or a CUDA tensor where NCCL cannot be loaded
 *   (the group stays usable);
 *   TSR_ERR_DISTRIBUTED when the collective failed (a peer died, hung past
 *   the timeout, or called a different collective under DETAIL), or the
 *   group failed earlier. With work, errors of the collective itself come
 *   from tsr_work_wait().
 */
TSR_API tsr_status tsr_all_reduce(tsr_process_group* pg, tsr_tensor* tensor, tsr_reduce_op op, tsr_work** work);

/**
 * @brief torch.distributed.broadcast(tensor, src, group, async_op): every
 * rank's tensor becomes root's.
 *
 * @param[in]     pg     the group
 * @param[in,out] tensor the same sizes and dtype on every rank
 * @param[in]     root   the rank whose tensor is sent, in [0, size)
 * @param[out]    work   as tsr_all_reduce()
 * @return as tsr_all_reduce(); TSR_ERR_INVALID_ARGUMENT also for a root
 *   outside [0, size)
 */
TSR_API tsr_status tsr_broadcast(tsr_process_group* pg, tsr_tensor* tensor, int32_t root, tsr_work** work);

/**
 * @brief torch.distributed.all_gather_into_tensor(output, input, group,
 * async_op): output holds every rank's input, rank r's at elements
 * [r·n, (r+1)·n) of output in C order, n = input's numel.
 *
 * @param[in]     pg     the group
 * @param[in,out] output world_size · n elements of input's dtype, any
 *                       sizes (torch's [world·d0, ...] or [world, d0, ...])
 * @param[in]     input  n elements, the same n on every rank
 * @param[out]    work   as tsr_all_reduce()
 * @return as tsr_all_reduce(); TSR_ERR_SHAPE_MISMATCH when output does not
 *   have world_size · n elements; TSR_ERR_DTYPE_MISMATCH for different
 *   dtypes; TSR_ERR_DEVICE_MISMATCH when output and input are on
 *   different devices
 */
TSR_API tsr_status tsr_all_gather_into_tensor(tsr_process_group* pg, tsr_tensor* output, const tsr_tensor* input,
                                              tsr_work** work);

/**
 * @brief torch.distributed.reduce_scatter_tensor(output, input, op, group,
 * async_op): output is chunk r of the reduction of every rank's input,
 * elements [r·n, (r+1)·n) in C order, n = output's numel.
 *
 * @param[in]     pg     the group
 * @param[in,out] output n elements
 * @param[in]     input  world_size · n elements of output's dtype
 * @param[in]     op     the reduction
 * @param[out]    work   as tsr_all_reduce()
 * @return as tsr_all_gather_into_tensor()
 */
TSR_API tsr_status tsr_reduce_scatter_tensor(tsr_process_group* pg, tsr_tensor* output, const tsr_tensor* input,
                                             tsr_reduce_op op, tsr_work** work);

/**
 * @brief torch.distributed.barrier(group, async_op): returns when every
 * rank has entered it. Gloo's barrier, or in a TSR_DIST_NCCL group an
 * all-reduce of one element on the group's CUDA device (torch's).
 * @param[in]  pg   the group
 * @param[out] work as tsr_all_reduce()
 * @return as tsr_all_reduce()
 */
TSR_API tsr_status tsr_barrier(tsr_process_group* pg, tsr_work** work);

/**
 * @brief torch.distributed.monitored_barrier(group, timeout,
 * wait_all_ranks) (Gloo's debugging barrier): like tsr_barrier(), but rank
 * 0 names the ranks that did not enter it within timeout_ms.
 *
 * Runs through the group's store, not its engine, and on the calling
 * thread (as torch's, it does not wait for queued collectives): every
 * other rank records its arrival and waits, up to the group's timeout, for
 * rank 0's verdict; rank 0 waits up to timeout_ms for every arrival, then
 * releases them with the verdict. A failure does not fail the group (a
 * rank that arrives late gets rank 0's verdict), so collectives may follow
 * once the ranks are in step again.
 *
 * @param[in] pg             the group
 * @param[in] timeout_ms     how long rank 0 waits for the others; <= 0:
 *                           the group's timeout
 * @param[in] wait_all_ranks false: rank 0's error names the lowest missing
 *                           rank (torch fails on the first); true: every
 *                           missing rank
 * @return TSR_OK when every rank entered it in time;
 *   TSR_ERR_INVALID_ARGUMENT for a NULL pg;
 *   TSR_ERR_DISTRIBUTED: on rank 0 torch's "[Rank 0]: Rank 1 failed to pass
 *   monitoredBarrier in 1000 ms" ("Ranks 1, 2 failed ..." with
 *   wait_all_ranks); on the others "Rank r successfully reached
 *   monitoredBarrier, but rank 0 reported: ..." with rank 0's message, or
 *   that rank 0 gave no verdict within the group's timeout; a store that
 *   cannot be reached (named); or the group failed earlier (its message)
 */
TSR_API tsr_status tsr_monitored_barrier(tsr_process_group* pg, int64_t timeout_ms, bool wait_all_ranks);

/**
 * @brief torch's Work.wait(timeout): waits for a queued collective.
 *
 * If the timeout passes first the call fails and prints the group's flight
 * recorder, but the collective goes on (Gloo cannot cancel an operation in
 * flight, and torch's wait(timeout) does not either): wait again, or it
 * fails at the group's timeout if a peer never joins it.
 *
 * @param[in] work       from a collective; may be waited on again
 * @param[in] timeout_ms < 0: the group's timeout; else milliseconds
 * @return TSR_OK when the collective succeeded; TSR_ERR_INVALID_ARGUMENT
 *   for a NULL work; TSR_ERR_DISTRIBUTED when it failed (its message) or
 *   was not complete within timeout_ms
 */
TSR_API tsr_status tsr_work_wait(tsr_work* work, int64_t timeout_ms);

/**
 * @brief torch's Work.is_completed(): whether the collective has finished
 * (successfully or not). Never blocks.
 * @param[in] work the handle; NULL gives false
 * @return true when finished
 */
TSR_API bool tsr_work_is_completed(const tsr_work* work);

/**
 * @brief Drops the handle. The collective itself still runs to its end
 * (its tensors are kept alive until then).
 * @param[in] work the handle; NULL is ignored
 */
TSR_API void tsr_work_release(tsr_work* work);

/* ---- Sharded checkpoints (torch.distributed.checkpoint) ------------------ */

/**
 * @brief torch.distributed.checkpoint.save_state_dict for tensors sharded
 * by rows (DTensor's Shard(0)): every rank of the group writes its rows of
 * each tensor to a file of its own; rank 0 then writes the index that
 * makes them one checkpoint.
 *
 * Called by every rank of pg with the same path, names (same order),
 * dtypes, sizes but dim 0 and metadata. Rank r of a world of W passes rows
 * [min(N, r·c), min(N, (r+1)·c)) of each tensor along dim 0, c = ceil(N /
 * W) (torch.chunk's split: the last ranks may pass fewer rows, or 0),
 * where N, the tensor's whole size along dim 0, is the sum of the rows the
 * ranks pass. Chunks may have any strides, dtypes (as tsr_save) and
 * devices (copied to the host as written).
 *
 * Files, with stem = path less a trailing ".safetensors":
 * - "<stem>-g<G>-<RRRRR>-of-<WWWWW>.safetensors": rank R's rows (R from 0,
 *   5 digits; W the world size), a complete safetensors file written as
 *   tsr_save writes one (options->compression, checksums and metadata
 *   apply), each tensor under its own name with sizes [its rows, ...];
 * - "<stem>.safetensors.index.json": JSON naming generation G, each file
 *   with its size, and each tensor's dtype, whole shape and chunks (file,
 *   rows, byte offsets in the file): docs/DISTRIBUTED.md gives the layout.
 *
 * G is new for every save (above the previous index's and any left-over
 * file's), so the previous checkpoint at path stays complete and loadable
 * until the new index is renamed over it: the ranks write their files
 * (each to a temporary, fsync'ed and renamed), agree that all succeeded,
 * then rank 0 writes the index (temporary, fsync, rename, directory
 * fsync), and only once it is in place removes the files of other
 * generations and those the previous index named. A failure or a killed
 * rank before that leaves the previous checkpoint as it was; the surviving
 * ranks remove the files they wrote.
 *
 * Every failure is collective: a rank's bad arguments, a disagreement
 * between ranks, or a failed write is exchanged before anything further is
 * written, and every rank returns the same status (the rank where it
 * happened with its own message, the others with "tsr_save_sharded failed
 * on rank r of W: <message>"); a rank that dies fails the others'
 * collectives (TSR_ERR_DISTRIBUTED) within seconds, never a hang.
 * options->progress counts this rank's bytes.
 *
 * @param[in] pg           the group (the ranks must share path's file system)
 * @param[in] path         the stem; a trailing ".safetensors" is dropped
 * @param[in] n            number of tensors (>= 0), the same on every rank
 * @param[in] names        n distinct non-empty UTF-8 names (not "__metadata__")
 * @param[in] local_chunks n tensors of at least one dim: this rank's rows
 * @param[in] options      NULL: TSR_SAVE_OPTIONS_INIT; max_shard_size must be 0
 * @return TSR_OK on every rank, or on every rank:
 * - TSR_ERR_INVALID_ARGUMENT: NULL pg (this rank only: it cannot reach the
 *   others), path, names or local_chunks (n > 0) or entries, n < 0, bad
 *   options (as tsr_save), a 0-dim tensor, a path with no file name, ranks
 *   passing different paths, counts, names or metadata.
 * - TSR_ERR_DTYPE_MISMATCH: a tensor of different dtypes on two ranks.
 * - TSR_ERR_SHAPE_MISMATCH: different sizes beyond dim 0, or a rank
 *   passing another number of rows than the rule above gives it.
 * - TSR_ERR_IO: a file could not be written or renamed (named).
 * - TSR_ERR_DISTRIBUTED: the group failed (a rank died or hung).
 * - TSR_ERR_CANCELLED (a progress callback): as tsr_save.
 */
TSR_API tsr_status tsr_save_sharded(tsr_process_group* pg, const char* path, int64_t n, const char* const* names,
                                    tsr_tensor* const* local_chunks, const tsr_save_options* options);

/**
 * @brief torch.distributed.checkpoint.load_state_dict for tensors sharded
 * by rows: this rank's rows of every tensor of a checkpoint written by
 * tsr_save_sharded, at any world size.
 *
 * Rank r of pg's W ranks gets rows [min(N, r·c), min(N, (r+1)·c)) of each
 * tensor, c = ceil(N / W) (the rows tsr_save_sharded takes from it at this
 * world size), as a new contiguous CPU tensor of sizes [rows, ...]; the
 * map lists the tensors by name, with the caller's metadata of the save.
 * Only the files holding those rows are read, and of each only the header
 * and the byte ranges of the rows (a plain file's tensor is read whole
 * when its checksum is verified; options->skip_checksums reads the rows
 * alone; a zstd-planes file's chunks that hold the rows). tsr_load() of
 * the index reads whole tensors in one process.
 *
 * A partial checkpoint is refused by every rank whatever rows it wants:
 * every file the index names must exist with the size the index records.
 *
 * @param[in]  pg      the group
 * @param[in]  path    the stem given to tsr_save_sharded (a trailing
 *                     ".safetensors" dropped), or the index
 *                     "<stem>.safetensors.index.json" itself
 * @param[in]  options NULL: TSR_LOAD_OPTIONS_INIT (progress counts this
 *                     rank's bytes; max_bytes caps them)
 * @param[out] out     the new map, one reference; unchanged on failure
 * @return TSR_OK on every rank, or on every rank (the failing rank with
 *   its own message, the others "tsr_load_sharded failed on rank r of W:
 *   ..."):
 * - TSR_ERR_INVALID_ARGUMENT: NULL pg (this rank only), path or out; bad
 *   options (as tsr_load).
 * - TSR_ERR_IO: the index or a file it names is missing or unreadable
 *   (named).
 * - TSR_ERR_CORRUPT_FILE: an index that is not valid (named), a file of
 *   another size than the index records (truncated), a file whose header,
 *   entries or checksums do not match (named, as tsr_load names them).
 * - TSR_ERR_UNSUPPORTED: an index of another format version, or a Hugging
 *   Face index (tsr_save's max_shard_size: tsr_load reads it).
 * - TSR_ERR_DISTRIBUTED: the group failed.
 */
TSR_API tsr_status tsr_load_sharded(tsr_process_group* pg, const char* path, const tsr_load_options* options,
                                    tsr_tensor_map** out);

/* ---- DistributedDataParallel ------------------------------------------- */

/**
 * @brief Opaque gradient reducer of a set of parameters
 * (torch.nn.parallel.DistributedDataParallel's Reducer).
 *
 * Every rank creates one over its replica of the model's parameters. From
 * then on each tsr_backward() reaching them averages their gradients over
 * the group: when it returns, every parameter's .grad holds the mean of the
 * ranks' gradients (with a loss that is the mean over each rank's local
 * batch, the gradient of the mean loss over the global batch).
 *
 * @code
 *   tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
 *   tsr_ddp* ddp;
 *   tsr_ddp_create(pg, n, params, &o, &ddp);    // rank 0's values everywhere
 *   for (...) {
 *     ...forward on this rank's part of the batch, loss = mean...
 *     tsr_backward(loss, NULL, false);          // .grad averaged over ranks
 *     tsr_optimizer_step(opt);
 *     tsr_optimizer_zero_grad(opt, true);
 *   }
 *   tsr_ddp_release(ddp);
 * @endcode
 *
 * **How.** Each parameter gets a post-accumulate-grad hook
 * (tsr_register_post_accumulate_grad_hook()). Gradients are grouped in
 * buckets of one dtype, in reverse parameter order. When the last gradient
 * of a bucket has been accumulated, the bucket (the gradients copied into
 * one flat tensor, divided by the world size) starts its all-reduce in the
 * background, so communication overlaps the rest of the backward pass;
 * buckets start in order (bucket i after buckets 0..i-1, on every rank).
 * A callback queued at the first hook (tsr_queue_backward_callback())
 * waits for every bucket at the end of the pass and copies the averages
 * into each .grad (or, with gradient_as_bucket_view, the .grad tensors are
 * views into the buckets and nothing is copied).
 *
 * **Buckets** (torch 1.13's assignment): without find_unused_parameters the
 * first backward uses one bucket per dtype; after it, the buckets are
 * rebuilt once in the order the gradients arrived on rank 0 (broadcast, so
 * every rank agrees): the first bucket holds up to 1 MiB
 * (torch's _DEFAULT_FIRST_BUCKET_BYTES), the others up to bucket_cap_bytes
 * (a bucket closes at the parameter that reaches the cap). With
 * find_unused_parameters the buckets are assigned once, over the parameters
 * in order (first 1 MiB, then the cap), and reduced in reverse.
 * tsr_ddp_bucket_indices() tells the assignment.
 *
 * **Iterations.** Each tsr_backward() whose pass accumulates a gradient
 * into at least one of the parameters is one iteration (torch ties an
 * iteration to a forward of the DDP module; here there is no forward to
 * hook). tsr_autograd_grad() accumulates nothing and does not reduce. A
 * backward that reaches none of the parameters on one rank while it does
 * on others leaves the others waiting for their group's timeout.
 *
 * **Unused parameters.** Without find_unused_parameters every parameter
 * must get a gradient in every iteration. When one does not, the backward
 * fails at its end (torch fails at the next forward) on every rank,
 * TSR_ERR_AUTOGRAD with torch's explanation, the indices (and names, see
 * tsr_ddp_set_param_names()) of this rank's parameters that got no
 * gradient, or the ranks that had such parameters. Nothing is written
 * back (.grad keeps this rank's gradients, or with gradient_as_bucket_view,
 * being views into the buckets, the averages), and the ranks stay in step:
 * the next iteration may run. With
 * find_unused_parameters a parameter without a gradient counts as zero: its
 * .grad becomes the average including the zeros of the ranks that did not
 * use it, and a parameter no rank used keeps its .grad as it was (None
 * stays None), as torch. Unlike torch, which finds unused parameters by
 * walking the graph from the forward's outputs, they are found at the end
 * of the backward, so their buckets are sent last.
 *
 * **no_sync.** After tsr_ddp_set_require_sync(ddp, false) backward passes
 * accumulate into .grad locally without communication; the first backward
 * after tsr_ddp_set_require_sync(ddp, true) averages the accumulated
 * gradients (torch's no_sync() context).
 *
 * **Failures.** A collective failing (a peer died) fails the backward with
 * TSR_ERR_DISTRIBUTED. A backward that fails for another reason after
 * buckets were sent leaves the ranks' collectives out of step: later
 * backward passes through this reducer fail with TSR_ERR_DISTRIBUTED
 * saying so (recreate the group and the reducer). After a failed backward
 * the .grad values are unspecified.
 *
 * Thread-safety: the hooks run on the thread calling backward; one backward
 * at a time may run through the parameters (another thread's backward
 * through them meanwhile fails with TSR_ERR_AUTOGRAD). The setters may be
 * called from any thread between backward passes.
 */
typedef struct tsr_ddp tsr_ddp;

/** @brief How a bucket is reduced (torch's DDP communication hooks). */
typedef enum tsr_ddp_comm_hook {
  /** all-reduce (sum) of the gradients divided by the world size: no hook */
  TSR_DDP_ALLREDUCE = 0,
  /** torch's fp16_compress_hook: the bucket cast to float16, divided by the
   * world size, all-reduced, and cast back */
  TSR_DDP_FP16_COMPRESS = 1,
  /** torch's bf16_compress_hook: the same through bfloat16 */
  TSR_DDP_BF16_COMPRESS = 2
} tsr_ddp_comm_hook;

/**
 * @brief Settings of tsr_ddp_create() (the arguments of
 * torch.nn.parallel.DistributedDataParallel). Start from
 * TSR_DDP_OPTIONS_INIT.
 */
typedef struct tsr_ddp_options {
  size_t struct_size;          /**< sizeof(tsr_ddp_options) */
  int64_t bucket_cap_bytes;    /**< bytes per bucket (torch's bucket_cap_mb · 2^20); 0 = 25 MiB */
  bool find_unused_parameters; /**< parameters may get no gradient in an iteration */
  bool gradient_as_bucket_view; /**< each .grad becomes a view into its bucket (no copies) */
  tsr_ddp_comm_hook comm_hook; /**< how buckets are reduced */
} tsr_ddp_options;

/** @brief Defaults of tsr_ddp_options: 25 MiB buckets, no unused parameters, copies, plain all-reduce. */
#define TSR_DDP_OPTIONS_INIT {sizeof(tsr_ddp_options), 0, false, false, TSR_DDP_ALLREDUCE}

/**
 * @brief torch.nn.parallel.DistributedDataParallel(module, process_group,
 * bucket_cap_mb, find_unused_parameters, gradient_as_bucket_view) with
 * register_comm_hook for the built-in hooks: makes every later backward
 * average the gradients of params over pg.
 *
 * Collective: every rank of pg calls it with its replica of the same
 * parameters (the same count, and for each the same sizes, strides and
 * dtype, as torch's _verify_param_shape_across_processes); then every
 * rank's parameters are overwritten with rank 0's values (torch's
 * _sync_module_states).
 *
 * @param[in]  pg       the group; kept alive by the reducer
 * @param[in]  n_params number of parameters (>= 1)
 * @param[in]  params   n_params distinct leaves that require grad, of a
 *                      floating dtype, all on one device: CPU (reduced
 *                      by Gloo or MPI) or CUDA (reduced by NCCL, the
 *                      group's backend for CUDA tensors); kept alive by
 *                      the reducer; their values are written (rank 0's)
 * @param[in]  options  the settings (NULL: TSR_DDP_OPTIONS_INIT)
 * @param[out] out      the reducer, released with tsr_ddp_release();
 *                      unchanged on failure
 * @return TSR_OK;
 *   TSR_ERR_INVALID_ARGUMENT (on this rank alone, nothing communicated) for
 *   NULL pg, params, an entry or out, n_params < 1, a bad struct_size, a
 *   negative bucket_cap_bytes, an unknown comm_hook, a parameter that is
 *   not a leaf requiring grad or appears twice;
 *   TSR_ERR_INVALID_ARGUMENT on every rank when the ranks' parameters
 *   differ (torch's "DDP expects same model across all ranks, but Rank r
 *   has n params, while rank i has inconsistent m params.", or
 *   "[r]: params[p] in this process with sizes [..] appears not to match
 *   sizes of the same param in process 0." on the ranks that differ from
 *   rank 0 and a message naming those ranks on the others);
 *   TSR_ERR_INVALID_ARGUMENT for parameters on different devices;
 *   TSR_ERR_UNSUPPORTED for parameters on a device the group has no
 *   backend for (CUDA in a TSR_DIST_GLOO or TSR_DIST_MPI group, CPU in a
 *   TSR_DIST_NCCL group);
 *   TSR_ERR_DISTRIBUTED when a collective failed (a rank missing or dead).
 */
TSR_API tsr_status tsr_ddp_create(tsr_process_group* pg, int64_t n_params, tsr_tensor* const* params,
                                  const tsr_ddp_options* options, tsr_ddp** out);

/**
 * @brief torch's DistributedDataParallel.no_sync() (require_sync false on
 * entering the context, true on leaving it): whether backward passes
 * average the gradients. While false, gradients accumulate in .grad on
 * each rank without communication; the next backward with true averages
 * what was accumulated.
 * @param[in,out] ddp          the reducer
 * @param[in]     require_sync true (the default) to reduce
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL ddp
 */
TSR_API tsr_status tsr_ddp_set_require_sync(tsr_ddp* ddp, bool require_sync);

/**
 * @brief torch's DistributedDataParallel.register_comm_hook(state, hook)
 * for the built-in hooks (default_hooks.allreduce_hook,
 * fp16_compress_hook, bf16_compress_hook; torch's
 * _register_builtin_comm_hook): how the following backward passes reduce
 * their buckets. Once per reducer, counting options.comm_hook other than
 * TSR_DDP_ALLREDUCE, as torch allows one hook.
 * @param[in,out] ddp  the reducer
 * @param[in]     hook the hook (TSR_DDP_ALLREDUCE: torch's allreduce_hook,
 *                     which reduces as no hook does)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL ddp, an unknown
 *   hook, or a second registration (torch's "register_comm_hook or
 *   register_builtin_comm_hook can only be called once."); TSR_ERR_AUTOGRAD
 *   while a backward pass is reducing through ddp
 */
TSR_API tsr_status tsr_ddp_register_comm_hook(tsr_ddp* ddp, tsr_ddp_comm_hook hook);

/**
 * @brief Names of the parameters, for messages (torch's DDP takes them
 * from the module's named_parameters()): the unused-parameter error lists
 * them.
 * @param[in,out] ddp   the reducer
 * @param[in]     n     the reducer's number of parameters
 * @param[in]     names n strings (copied), names[i] naming params[i]
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL ddp, names or entry,
 *   or n differing from the number of parameters
 */
TSR_API tsr_status tsr_ddp_set_param_names(tsr_ddp* ddp, int64_t n, const char* const* names);

/**
 * @brief The number of parameters ddp reduces (n_params of
 * tsr_ddp_create()).
 * @param[in] ddp the reducer
 * @return the count; -1 for a NULL ddp (recorded as
 *   TSR_ERR_INVALID_ARGUMENT)
 */
TSR_API int64_t tsr_ddp_num_params(const tsr_ddp* ddp);

/**
 * @brief The current bucket assignment, in reduction order (what torch's
 * DDP logging data reports as rebuilt_per_bucket_param_indices and the
 * bucket sizes).
 * @param[in]  ddp           the reducer
 * @param[in]  capacity      entries of bucket_sizes
 * @param[out] bucket_sizes  capacity entries, may be NULL when capacity is
 *                           0: the number of parameters of each bucket
 * @param[out] param_indices tsr_ddp_num_params() entries, may be NULL
 *                           when capacity is 0: the parameter
 *                           indices of bucket 0, then bucket 1, ...
 * @param[out] n_buckets     the number of buckets (always written on
 *                           success); nothing else is written when it
 *                           exceeds capacity
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL ddp or n_buckets, a
 *   negative capacity, or NULL arrays with capacity > 0
 */
TSR_API tsr_status tsr_ddp_bucket_indices(const tsr_ddp* ddp, int64_t capacity, int64_t* bucket_sizes,
                                          int64_t* param_indices, int64_t* n_buckets);

/**
 * @brief Adds a reference to ddp.
 * @param[in] ddp the reducer; NULL is ignored
 */
TSR_API void tsr_ddp_retain(tsr_ddp* ddp);

/**
 * @brief Drops a reference. The last one removes the hooks from the
 * parameters (a backward pass already running keeps the reducer until its
 * end).
 * @param[in] ddp the reducer; NULL is ignored
 */
TSR_API void tsr_ddp_release(tsr_ddp* ddp);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_DISTRIBUTED_H */
