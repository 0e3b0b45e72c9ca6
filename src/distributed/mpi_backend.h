// MPI (torch's ProcessGroupMPI) under a process group: a communicator of
// the MPI module (mpi_module.h; libtessera_mpi.so, dlopened on first use)
// over every process mpirun started. Rank and world size come from MPI
// (the init method is not used, as torch's MPI backend ignores it). The
// module's failures (an MPI error, the timeout) leave as BackendFailure;
// the buffers of a failed operation are kept alive until exit, since MPI
// cannot cancel it.
#pragma once

#include <memory>

#include "distributed/backend.h"
#include "distributed/mpi_module.h"

namespace tsr::distributed {

class MpiBackend final : public Backend {
 public:
  // Loads the module, starts MPI (first use) and duplicates MPI_COMM_WORLD
  // within timeout. rank and world_size (-1: any) must be MPI's. Throws
  // tsr::Error: TSR_ERR_UNSUPPORTED (no module), TSR_ERR_INVALID_ARGUMENT
  // (a rank or world size that is not MPI's), TSR_ERR_DISTRIBUTED.
  MpiBackend(int rank, int world_size, Millis timeout);

  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }

  const char* name() const override { return "MPI"; }
  void all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) override;
  void broadcast(const Tensor& buffer, int root, const CallOptions& o) override;
  void all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) override;
  void reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op, const CallOptions& o) override;
  void barrier(const CallOptions& o) override;
  // Point to point is refused (TSR_ERR_UNSUPPORTED): the module's send
  // and recv block until done, and a posted (non-blocking) pair is what
  // the group's "isend, then recv" order needs (backend.h).
  std::unique_ptr<Transfer> send(const Tensor& buffer, int peer, const CallOptions& o) override;
  std::unique_ptr<Transfer> recv(const Tensor& buffer, int peer, const CallOptions& o) override;
  void all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) override;
  void abort() noexcept override;

 private:
  std::unique_ptr<MpiComm> comm_;
};

}  // namespace tsr::distributed
