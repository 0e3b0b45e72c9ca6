// The contract between libtessera.so and the MPI module (libtessera_mpi.so,
// built from mpi/ when Open MPI is found). libtessera.so never links MPI: a
// group that asks for TSR_DIST_MPI dlopens the module (mpi_loader.cpp, the
// CUDA plugin's pattern: core/device_plugin.h), which initialises MPI at
// MPI_THREAD_SERIALIZED and hands back communicators over plain buffers.
// mpi_backend.cpp wraps one in a Backend.
//
// The module is built from the same tree by the same compiler, so the
// objects below are C++ objects whose methods may throw MpiFailure or
// tsr::Error (both header-only; libstdc++ matches exception types across
// shared objects by name). The version check makes that safe: a module
// from another build is refused before any of its objects is used. The
// module may use only header-only parts of tessera (libtessera.so exports
// nothing but the tsr_ C functions).
//
// Threads: MPI_THREAD_SERIALIZED lets any thread call MPI, one at a time.
// The module holds one process-wide mutex around every MPI call, so groups
// running on different worker threads (or a caller's thread) never call MPI
// at once, and releases it between the polls of a wait, so two groups'
// operations in flight both progress.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <tessera/distributed.h>
#include <tessera/types.h>

namespace tsr::distributed {

// Bumped whenever this file changes the objects' layout or meaning.
constexpr uint32_t kMpiModuleAbi = 1;

// A failed communication (an MPI error, or the timeout passed while a peer
// had not joined): the group fails for good. Refusals (a count past MPI's
// int, MPI failed earlier) throw tsr::Error instead.
class MpiFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// c = a op b over n elements (distributed/reduce_functions.h's ReduceFn):
// the module's user-defined MPI ops (float16, bfloat16, the floating MIN and
// MAX, which propagate NaN as torch's) call libtessera's own kernels.
using MpiReduceFn = void (*)(void* c, const void* a, const void* b, size_t n);

// One communicator (a duplicate of MPI_COMM_WORLD) for one process group.
// Every operation starts a non-blocking MPI call and tests it until it
// completes or `timeout` passes; then it throws MpiFailure naming the MPI
// call, and MPI is not called again in this process (the operation cannot
// be cancelled and still owns its buffers). Counts are elements of `dtype`
// or bytes, as named; buffers are host memory, contiguous.
class MpiComm {
 public:
  using Millis = std::chrono::milliseconds;
  virtual ~MpiComm() = default;  // frees the communicator (not after a failure)
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // In place. op is SUM, PRODUCT, MIN or MAX (AVG is the caller's SUM and
  // division); fn computes it for the user-defined MPI ops.
  virtual void all_reduce(void* data, size_t count, tsr_dtype dtype, tsr_reduce_op op, MpiReduceFn fn,
                          Millis timeout) = 0;
  virtual void broadcast(void* data, size_t bytes, int root, Millis timeout) = 0;
  // out: size() * bytes_per_rank bytes, rank order.
  virtual void all_gather(void* out, const void* in, size_t bytes_per_rank, Millis timeout) = 0;
  // out (count_per_rank elements) = this rank's chunk of the reduction of
  // every rank's in (size() * count_per_rank elements).
  virtual void reduce_scatter(void* out, const void* in, size_t count_per_rank, tsr_dtype dtype,
                              tsr_reduce_op op, MpiReduceFn fn, Millis timeout) = 0;
  virtual void barrier(Millis timeout) = 0;
  virtual void send(const void* data, size_t bytes, int peer, uint32_t tag, Millis timeout) = 0;
  virtual void recv(void* data, size_t bytes, int peer, uint32_t tag, Millis timeout) = 0;
  // After a failure: no MPI call is made again in this process and
  // MPI_Finalize is skipped at exit, so this process's exit makes mpirun
  // end the job (MPI 4.1 cannot interrupt peers blocked on this rank short
  // of MPI_Abort, which would end this process too). Never throws.
  virtual void abort() noexcept = 0;
};

// The module's one object: initialises MPI once (MPI_Init_thread at
// MPI_THREAD_SERIALIZED unless the program did; finalizes at exit when it
// initialised it) and makes communicators.
class MpiModule {
 public:
  virtual ~MpiModule() = default;
  // "Open MPI v4.1.4, ..." (MPI_Get_library_version's first line).
  virtual const char* library_version() const = 0;
  // A new communicator over every process of the job (MPI_Comm_idup of
  // MPI_COMM_WORLD, waited on up to timeout); throws MpiFailure or
  // tsr::Error (MPI could not start, or runs below MPI_THREAD_SERIALIZED).
  // Caller owns the result.
  virtual MpiComm* world(MpiComm::Millis timeout) = 0;
};

}  // namespace tsr::distributed

// The module's entry point (the only symbol it exports): checks host_abi and
// host_version_number against its own build. Returns 0 and sets *out (which
// lives until exit), or returns -1 and writes a NUL-terminated message of at
// most why_capacity bytes into why.
extern "C" typedef int (*tsr_mpi_module_init_fn)(uint32_t host_abi, uint32_t host_version_number,
                                                 tsr::distributed::MpiModule** out, char* why,
                                                 size_t why_capacity);
#define TSR_MPI_MODULE_INIT_SYMBOL "tsr_mpi_module_init"
