// NCCL (c10d's ProcessGroupNCCL) under a process group, for CUDA tensors:
// the CUDA plugin's collectives (core/device_collectives.h), NCCL loaded at
// run time. libtessera.so links no CUDA library; a machine without NCCL
// fails the first CUDA collective with TSR_ERR_UNSUPPORTED saying so.
//
// The communicator is made on the first CUDA collective (lazily, as c10d):
// rank 0 makes the unique id and sets it in the group's store, the others
// get it; it is non-blocking, and an NcclWatchdog polls it, enforces the
// group's timeout and aborts it.
//
// Each operation runs on a comm stream of the tensors' device, after the
// work queued so far on the caller's current stream (an event), and the
// current stream waits for it in turn (another event); the tensors'
// memory is recorded as used on the comm stream (record_stream) so the
// caching allocator does not reuse it early. The call returns when the
// operation has finished (torch's blocking wait: TORCH_NCCL_BLOCKING_WAIT),
// so the group's Work, timeouts and failure reports mean what they mean
// for Gloo.
#pragma once

#include <memory>
#include <string>

#include "core/device.h"
#include "core/device_backend.h"
#include "core/device_collectives.h"
#include "distributed/backend.h"
#include "distributed/nccl_watchdog.h"
#include "distributed/store.h"

namespace tsr::distributed {

class NcclBackend final : public Backend {
 public:
  // Cheap: loads nothing until the first collective. store: the group's.
  NcclBackend(std::shared_ptr<Store> store, int rank, int size);
  ~NcclBackend() override;

  // Loads NCCL through the CUDA plugin now; throws TSR_ERR_UNSUPPORTED
  // saying why it cannot (TSR_DIST_NCCL groups check at init).
  static void check_available();

  const char* name() const override { return "NCCL"; }
  void all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) override;
  void broadcast(const Tensor& buffer, int root, const CallOptions& o) override;
  void all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) override;
  void reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op, const CallOptions& o) override;
  // torch's NCCL barrier: an all_reduce of one element on the device.
  void barrier(const CallOptions& o) override;
  // Not yet (collectives.cpp refuses CUDA tensors first): TSR_ERR_UNSUPPORTED.
  std::unique_ptr<Transfer> send(const Tensor& buffer, int peer, const CallOptions& o) override;
  std::unique_ptr<Transfer> recv(const Tensor& buffer, int peer, const CallOptions& o) override;
  // Through device memory (the DETAIL fingerprints of a TSR_DIST_NCCL group).
  void all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) override;
  void abort() noexcept override;

 private:
  struct Comm;
  // The communicator of device d, made on first use.
  Comm& comm_for(Device d, const CallOptions& o);
  // The device a barrier or byte exchange uses: the communicator's, else
  // cuda:(rank % device count) as torch's barrier guesses.
  Device default_device();
  template <typename Enqueue>
  void run(const char* what, Device d, std::initializer_list<const Tensor*> tensors, const CallOptions& o,
           Enqueue enqueue);

  std::shared_ptr<Store> store_;
  int rank_, size_;
  std::unique_ptr<Comm> comm_;
};

}  // namespace tsr::distributed
