// The CUDA plugin's collectives between processes (core/
// device_collectives.h) over NCCL, loaded at run time (nccl_library.h).
// Communicators are non-blocking (config.blocking = 0): init and every call
// return at once and ncclCommGetAsyncError (poll) reports progress and
// errors, so the caller's watchdog can time them out and ncclCommAbort them.
#pragma once

#include "core/device_collectives.h"

namespace tsr::cuda {

class NcclCollectives final : public DeviceCollectives {
 public:
  void load() override;
  std::string version() override;
  CollectiveId unique_id() override;
  std::unique_ptr<DeviceCommunicator> create_communicator(const CollectiveId& id, int rank, int size,
                                                          int device_index) override;
};

}  // namespace tsr::cuda
