// Gloo (c10d's ProcessGroupGloo) under a process group: one full mesh of
// TCP connections made through the group's store, and Gloo's algorithms
// with tessera's element-wise reductions (reduce_functions.h). Gloo's own
// exceptions (a closed connection, its timeout) leave as BackendFailure.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gloo/context.h>

#include "distributed/backend.h"
#include "distributed/store.h"

namespace tsr::distributed {

class GlooBackend final : public Backend {
 public:
  // Connects rank to every other rank of size through store, listening on
  // listen_host; returns when every rank is connected. Throws
  // TSR_ERR_DISTRIBUTED naming the rank and the listening address.
  GlooBackend(Store& store, int rank, int size, const std::string& listen_host, Millis timeout);

  const char* name() const override { return "Gloo"; }
  void all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) override;
  void broadcast(const Tensor& buffer, int root, const CallOptions& o) override;
  void all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) override;
  void reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op, const CallOptions& o) override;
  void barrier(const CallOptions& o) override;
  std::unique_ptr<Transfer> send(const Tensor& buffer, int peer, const CallOptions& o) override;
  std::unique_ptr<Transfer> recv(const Tensor& buffer, int peer, const CallOptions& o) override;
  void all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) override;
  void abort() noexcept override;

 private:
  // Runs one Gloo operation on a fresh Options over the context; Gloo's
  // exceptions leave as BackendFailure, and a failed operation's options
  // are kept in failed_operations_ (gloo_backend.cpp says why).
  template <typename Options, typename Run>
  void run(Run&& run);

  // Declared before context_ so that they are destroyed after it.
  std::vector<std::shared_ptr<void>> failed_operations_;
  std::shared_ptr<gloo::Context> context_;
};

}  // namespace tsr::distributed
