// Collectives between processes on device memory, as a device plugin
// provides them (the CUDA plugin: NCCL, loaded at run time). libtessera.so
// never links the engine; the distributed layer (distributed/
// nccl_backend.cpp) drives these objects, adding the store exchange of the
// unique id, the comm stream, events, record_stream and the watchdog.
//
// Like device_backend.h these are C++ objects from the plugin's build
// (device_plugin.h checks the ABI); their methods throw tsr::Error.
// Communicators are non-blocking (NCCL's config.blocking = 0): a call
// returns at once, and poll() tells when it has finished, failed, or is
// still in progress.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <tessera/distributed.h>
#include <tessera/types.h>

#include "core/stream.h"

namespace tsr {

// NCCL_UNIQUE_ID_BYTES: the opaque id every rank of a communicator passes
// to create_communicator; rank 0 makes it, the others receive it.
constexpr size_t kCollectiveIdBytes = 128;
struct CollectiveId {
  char bytes[kCollectiveIdBytes];
};

enum class CommState {
  Ready,       // the last call (and initialization) has been accepted
  InProgress,  // initialization or the enqueueing of a call is not finished
  Failed,      // an asynchronous error; *why names the engine's error
};

// One rank's member of a communicator over `size` processes, bound to one
// device. Every collective is queued on stream s (a stream of that device)
// and reads and writes device memory when s reaches it; pointers are
// device memory (in and out may be equal: in place). count is in elements
// of dtype; a dtype or reduction the engine lacks throws TSR_ERR_UNSUPPORTED
// before anything is queued.
class DeviceCommunicator {
 public:
  virtual ~DeviceCommunicator() = default;  // destroys (or, after abort, frees) it

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int device_index() const = 0;

  virtual void all_reduce(const void* in, void* out, size_t count, tsr_dtype dtype, tsr_reduce_op op,
                          Stream s) = 0;
  virtual void broadcast(const void* in, void* out, size_t count, tsr_dtype dtype, int root, Stream s) = 0;
  // out holds size() * count elements: every rank's in, in rank order.
  virtual void all_gather(const void* in, void* out, size_t count, tsr_dtype dtype, Stream s) = 0;
  // in holds size() * count elements; out gets this rank's count of the reduction.
  virtual void reduce_scatter(const void* in, void* out, size_t count, tsr_dtype dtype, tsr_reduce_op op,
                              Stream s) = 0;

  // ncclCommGetAsyncError: whether initialization and the last call have
  // been accepted, are still in progress, or failed (an error found by the
  // engine at any time, e.g. a peer gone: ncclRemoteError). Never throws.
  virtual CommState poll(std::string* why) noexcept = 0;
  // ncclCommAbort: stops every operation in flight on this communicator
  // (their streams go on past them) and makes peers blocked on it fail.
  // The communicator takes no more calls. Never throws.
  virtual void abort() noexcept = 0;
};

// The engine: makes unique ids and communicators.
class DeviceCollectives {
 public:
  virtual ~DeviceCollectives() = default;
  // Loads the engine on first use; throws TSR_ERR_UNSUPPORTED saying why it
  // cannot ("NCCL not found: libnccl.so.2: cannot open shared object file").
  virtual void load() = 0;
  // "NCCL 2.27.3" once loaded.
  virtual std::string version() = 0;
  virtual CollectiveId unique_id() = 0;
  // Starts joining the communicator `id` as `rank` of `size` on device
  // device_index; poll() says when every rank has joined. Throws
  // tsr::Error for a refusal (bad rank, no such device).
  virtual std::unique_ptr<DeviceCommunicator> create_communicator(const CollectiveId& id, int rank, int size,
                                                                  int device_index) = 0;
};

// The collectives of a device type's plugin (loading the plugin if needed);
// throws TSR_ERR_UNSUPPORTED when the type has none or its plugin cannot
// load. Registered by the plugin loader (plugin/cuda_loader.cpp).
DeviceCollectives& device_collectives(tsr_device_type type);
void register_device_collectives(tsr_device_type type, DeviceCollectives* collectives);

}  // namespace tsr
