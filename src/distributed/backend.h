// The engine under a process group (c10d's Backend): Gloo for CPU tensors,
// NCCL for CUDA tensors (through the CUDA plugin), MPI when built. The
// group (process_group.h) owns the rendezvous, the issue order, the worker
// thread, fingerprints, the flight recorder and failure reports; a backend
// only moves bytes.
//
// Every method runs one operation to completion on the group's worker (or
// the caller's) thread, one at a time per group. Buffers are C-contiguous
// tensors on the backend's device, already checked (dtype, sizes, root)
// and staged by collectives.cpp; results are written in place.
//
// Errors: a communication failure (a peer gone, a timeout, an engine
// error) throws BackendFailure, and the group fails for good (it calls
// abort() and names the missing ranks). A request the engine cannot serve
// (a dtype or reduction it lacks) throws tsr::Error, which fails only that
// call and leaves the group healthy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <tessera/distributed.h>

#include "core/tensor.h"
#include "distributed/store.h"

namespace tsr::distributed {

// A failed communication; what() is the engine's cause ("Connection
// closed by peer [127.0.0.1]:4242", "Timed out", "ncclRemoteError").
class BackendFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CallOptions {
  uint32_t tag = 0;  // unique among the group's operations in flight
  Millis timeout{0};
  // The device index of the collective's tensors, for what runs without
  // them on a device engine (the DETAIL fingerprints before it); -1: none.
  int32_t device_index = -1;
};

// A posted send or receive (c10d's SendWork / RecvWork).
class Transfer {
 public:
  virtual ~Transfer() = default;
  // Blocks until the operation completed and returns the peer's rank (for a
  // receive from any source, the sender's). Throws BackendFailure when it
  // failed or did not complete within the timeout; at most one call.
  virtual int wait() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The engine's name as failure messages show it: "Gloo", "NCCL", "MPI".
  virtual const char* name() const = 0;

  // In place; AVG divides after SUM where the engine has no average.
  virtual void all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) = 0;
  // In place on every rank: the root's buffer is the input.
  virtual void broadcast(const Tensor& buffer, int root, const CallOptions& o) = 0;
  // output holds size() copies of input's elements, in rank order.
  virtual void all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) = 0;
  // output = this rank's chunk (output.numel() elements) of the reduction
  // of every rank's input.
  virtual void reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op,
                              const CallOptions& o) = 0;
  virtual void barrier(const CallOptions& o) = 0;
  // Point to point (c10d's send / recv / recv_anysource): posts the
  // operation and returns at once; it completes on its own once the peer
  // posts the matching one, and Transfer::wait() blocks until then. Posting
  // without waiting is what lets the group's worker post "send to the
  // peer, then receive from it" on both ranks without a deadlock. peer is
  // a rank of this backend's group (recv: -1 = any other rank); o.tag is
  // the user's tag, matched with the peer's (messages of one peer and tag
  // arrive in the order they were sent); o.timeout bounds wait(). buffer
  // must stay alive until wait() returned (or threw).
  virtual std::unique_ptr<Transfer> send(const Tensor& buffer, int peer, const CallOptions& o) = 0;
  virtual std::unique_ptr<Transfer> recv(const Tensor& buffer, int peer, const CallOptions& o) = 0;
  // bytes_per_rank bytes from every rank into out (size() * bytes_per_rank
  // bytes of host memory), rank order: the DETAIL fingerprints.
  virtual void all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) = 0;

  // After a failure: make peers blocked on this rank fail now rather than
  // at their timeout (Gloo closes its connections, NCCL aborts the
  // communicator). Never throws.
  virtual void abort() noexcept = 0;
};

}  // namespace tsr::distributed
