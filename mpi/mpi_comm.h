// MpiComm over one duplicate of MPI_COMM_WORLD: non-blocking MPI calls
// (MPI_Iallreduce, ...) tested against the group's timeout.
#pragma once

#include <mpi.h>

#include "distributed/mpi_module.h"

namespace tsr::distributed::mpi {

class Comm final : public MpiComm {
 public:
  // Takes ownership of comm (a duplicate, errors returned as codes).
  explicit Comm(MPI_Comm comm);
  ~Comm() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void all_reduce(void* data, size_t count, tsr_dtype dtype, tsr_reduce_op op, MpiReduceFn fn,
                  Millis timeout) override;
  void broadcast(void* data, size_t bytes, int root, Millis timeout) override;
  void all_gather(void* out, const void* in, size_t bytes_per_rank, Millis timeout) override;
  void reduce_scatter(void* out, const void* in, size_t count_per_rank, tsr_dtype dtype, tsr_reduce_op op,
                      MpiReduceFn fn, Millis timeout) override;
  void barrier(Millis timeout) override;
  void send(const void* data, size_t bytes, int peer, uint32_t tag, Millis timeout) override;
  void recv(void* data, size_t bytes, int peer, uint32_t tag, Millis timeout) override;
  void abort() noexcept override;

 private:
  int mpi_tag(uint32_t tag) const { return int(tag % (uint32_t(tag_upper_bound_) + 1u)); }
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  int tag_upper_bound_ = 32767;  // MPI_TAG_UB; the standard's least
};

}  // namespace tsr::distributed::mpi
