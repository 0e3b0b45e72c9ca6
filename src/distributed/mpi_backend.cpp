#include "distributed/mpi_backend.h"

#include <mutex>
#include <vector>

#include "core/error.h"
#include "distributed/mpi_loader.h"
#include "distributed/reduce_functions.h"

namespace tsr::distributed {
namespace {

// A timed-out MPI operation cannot be cancelled and still owns its
// buffers. The module makes no MPI call after a failure, so nothing
// progresses it; the tensors are kept anyway (never freed: the process is
// expected to exit, and mpirun then ends the job), in case an MPI built
// with a progress thread writes into them later.
void keep_alive(std::initializer_list<Tensor> buffers) {
  static std::mutex mutex;
  static auto* kept = new std::vector<Tensor>();  // never destroyed, on purpose
  std::lock_guard<std::mutex> lock(mutex);
  for (const Tensor& t : buffers) kept->push_back(t);
}

// Runs a module call; MpiFailure becomes BackendFailure (the group fails),
// tessera's own errors (refusals) pass through.
template <typename Fn>
void mpi_call(std::initializer_list<Tensor> buffers, Fn&& fn) {
  try {
    fn();
  } catch (const MpiFailure& e) {
    keep_alive(buffers);
    throw BackendFailure(e.what());
  }
}

// The reduction MPI runs: AVG is SUM, then divide_in_place.
tsr_reduce_op engine_op(tsr_reduce_op op) { return op == TSR_REDUCE_AVG ? TSR_REDUCE_SUM : op; }

}  // namespace

MpiBackend::MpiBackend(int rank, int world_size, Millis timeout) {
  MpiModule& module = mpi_module();
  try {
    comm_.reset(module.world(timeout));
  } catch (const MpiFailure& e) {
    fail(TSR_ERR_DISTRIBUTED, "the MPI backend could not create its communicator: ", e.what());
  }
  // Under MPI the launcher decides: torch's ProcessGroupMPI takes rank and
  // world size from MPI_COMM_WORLD.
  TSR_CHECK(rank < 0 || rank == comm_->rank(), TSR_ERR_INVALID_ARGUMENT, "options.rank is ", rank,
            " but MPI gives this process rank ", comm_->rank(), " of ", comm_->size(),
            " (under TSR_DIST_MPI rank and world size come from mpirun: pass -1)");
  TSR_CHECK(world_size < 0 || world_size == comm_->size(), TSR_ERR_INVALID_ARGUMENT, "options.world_size is ",
            world_size, " but MPI_COMM_WORLD has ", comm_->size(),
            " processes (under TSR_DIST_MPI rank and world size come from mpirun: pass -1)");
}

void MpiBackend::all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) {
  if (buffer.numel() == 0) return;
  const tsr_reduce_op engine = engine_op(op);
  mpi_call({buffer}, [&] {
    comm_->all_reduce(buffer.data_ptr(), size_t(buffer.numel()), buffer.dtype(), engine,
                      reduce_function(buffer.dtype(), engine), o.timeout);
  });
  if (op == TSR_REDUCE_AVG && size() > 1) divide_in_place(buffer, size());
}

void MpiBackend::broadcast(const Tensor& buffer, int root, const CallOptions& o) {
  if (buffer.numel() == 0) return;
  mpi_call({buffer}, [&] { comm_->broadcast(buffer.data_ptr(), size_t(buffer.nbytes()), root, o.timeout); });
}

void MpiBackend::all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) {
  if (input.numel() == 0) return;
  mpi_call({output, input}, [&] {
    comm_->all_gather(output.data_ptr(), input.data_ptr(), size_t(input.nbytes()), o.timeout);
  });
}

void MpiBackend::reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op, const CallOptions& o) {
  if (output.numel() == 0) return;
  const tsr_reduce_op engine = engine_op(op);
  mpi_call({output, input}, [&] {
    comm_->reduce_scatter(output.data_ptr(), input.data_ptr(), size_t(output.numel()), output.dtype(), engine,
                          reduce_function(output.dtype(), engine), o.timeout);
  });
  if (op == TSR_REDUCE_AVG && size() > 1) divide_in_place(output, size());
}

void MpiBackend::barrier(const CallOptions& o) {
  mpi_call({}, [&] { comm_->barrier(o.timeout); });
}

std::unique_ptr<Transfer> MpiBackend::send(const Tensor&, int, const CallOptions&) {
  fail(TSR_ERR_UNSUPPORTED, "send is not available on MPI process groups yet (use a Gloo group)");
}

std::unique_ptr<Transfer> MpiBackend::recv(const Tensor&, int, const CallOptions&) {
  fail(TSR_ERR_UNSUPPORTED, "recv is not available on MPI process groups yet (use a Gloo group)");
}

void MpiBackend::all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) {
  // The caller's buffers are plain memory (the DETAIL fingerprints) that
  // cannot be kept alive from here; after a failure the module makes no
  // MPI call again, and MPI writes only inside its calls (no progress
  // thread), so an abandoned gather never writes into them.
  mpi_call({}, [&] { comm_->all_gather(out, in, bytes_per_rank, o.timeout); });
}

void MpiBackend::abort() noexcept { comm_->abort(); }

}  // namespace tsr::distributed
