#include "distributed/nccl_backend.h"

#include <cstring>

#include "core/device_allocator.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/stream.h"

namespace tsr::distributed {
namespace {

// The CUDA plugin's engine, loaded; TSR_ERR_UNSUPPORTED saying why not
// (no plugin, no device, no NCCL).
DeviceCollectives& nccl() {
  DeviceCollectives& c = device_collectives(TSR_DEVICE_CUDA);
  c.load();
  return c;
}

constexpr const char* kUniqueIdKey = "nccl/unique_id/0";

}  // namespace

// One communicator on one device, its comm stream and the two events that
// order it against the caller's stream.
struct NcclBackend::Comm {
  Device device;
  DeviceBackend* cuda;
  std::unique_ptr<DeviceCommunicator> comm;
  std::unique_ptr<NcclWatchdog> watchdog;
  Stream stream{};
  EventHandle ready = nullptr;  // recorded on the caller's stream, waited for by the comm stream
  EventHandle done = nullptr;   // recorded on the comm stream after the operation

  ~Comm() {
    bool healthy = true;
    try {
      if (watchdog) watchdog->check();
    } catch (const BackendFailure&) {
      healthy = false;
    }
    // A healthy communicator's operations finish before it is destroyed;
    // an aborted one's stream goes on past them.
    try {
      if (healthy && stream.id != 0) cuda->synchronize_stream(stream);
    } catch (const std::exception&) {
    }
    watchdog.reset();
    comm.reset();
    if (ready) cuda->destroy_event(ready);
    if (done) cuda->destroy_event(done);
    if (stream.id != 0) cuda->destroy_stream(stream);
  }
};

NcclBackend::NcclBackend(std::shared_ptr<Store> store, int rank, int size)
    : store_(std::move(store)), rank_(rank), size_(size) {}

NcclBackend::~NcclBackend() = default;

void NcclBackend::check_available() {
  try {
    (void)nccl();
  } catch (const Error& e) {
    fail(TSR_ERR_UNSUPPORTED, "the NCCL backend needs CUDA devices and NCCL: ", e.what());
  }
}

Device NcclBackend::default_device() {
  if (comm_) return comm_->device;
  const int32_t count = backend_for(Device{TSR_DEVICE_CUDA, 0}).device_count();
  return Device{TSR_DEVICE_CUDA, int32_t(rank_ % count)};
}

NcclBackend::Comm& NcclBackend::comm_for(Device d, const CallOptions& o) {
  if (comm_) {
    TSR_CHECK(comm_->device == d, TSR_ERR_UNSUPPORTED, "NCCL backend: this process group's communicator is on ",
              device_name(comm_->device), " but the tensors are on ", device_name(d),
              " (one CUDA device per rank and group)");
    return *comm_;
  }
  DeviceCollectives& engine = nccl();
  // The id through the store: rank 0 makes it, the others wait for it.
  CollectiveId id{};
  if (rank_ == 0) {
    id = engine.unique_id();
    store_->set(kUniqueIdKey, std::vector<char>(id.bytes, id.bytes + kCollectiveIdBytes));
  } else {
    store_->wait({kUniqueIdKey}, o.timeout);
    const std::vector<char> got = store_->get(kUniqueIdKey);
    TSR_CHECK(got.size() == kCollectiveIdBytes, TSR_ERR_DISTRIBUTED, "NCCL backend: the unique id in the store has ",
              got.size(), " bytes, not ", kCollectiveIdBytes);
    std::memcpy(id.bytes, got.data(), kCollectiveIdBytes);
  }
  auto c = std::make_unique<Comm>();
  c->device = d;
  c->cuda = &backend_for(d);
  c->stream = Stream{d, c->cuda->create_stream(d.index)};
  c->ready = c->cuda->create_event(d.index, false);
  c->done = c->cuda->create_event(d.index, false);
  c->comm = engine.create_communicator(id, rank_, size_, d.index);
  c->watchdog = std::make_unique<NcclWatchdog>(*c->comm);
  Comm& made = *c;
  comm_ = std::move(c);
  // Non-blocking init: every rank joins within the timeout, or the
  // watchdog aborts it.
  made.watchdog->wait("ncclCommInitRankConfig", std::chrono::steady_clock::now() + o.timeout, [] { return true; });
  return made;
}

template <typename Enqueue>
void NcclBackend::run(const char* what, Device d, std::initializer_list<const Tensor*> tensors, const CallOptions& o,
                      Enqueue enqueue) {
  // Nothing to move (the same on every rank, sizes match): no NCCL call,
  // not even the communicator.
  bool empty = true;
  for (const Tensor* t : tensors) empty = empty && t->numel() == 0;
  if (empty) return;
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  Comm& c = comm_for(d, o);
  c.watchdog->check();
  const Stream current = current_stream(d);
  c.cuda->record_event(c.ready, current);
  c.cuda->stream_wait_event(c.stream, c.ready);
  try {
    enqueue(*c.comm, c.stream);
  } catch (const Error& e) {
    // A refusal (a dtype NCCL lacks) fails the call; an engine failure the group.
    if (e.status() != TSR_ERR_DISTRIBUTED) throw;
    throw BackendFailure(e.what());
  }
  // Non-blocking: ncclInProgress means the operation is not on the stream
  // yet; the done event is recorded once NCCL has accepted it.
  c.watchdog->wait(what, deadline, [] { return true; });
  c.cuda->record_event(c.done, c.stream);
  c.cuda->stream_wait_event(current, c.done);
  for (const Tensor* t : tensors) {
    const Storage& s = *t->storage();
    if (s.data() && s.from_allocator()) allocator_for(d).record_stream(s.data(), c.stream);
  }
  DeviceBackend* cuda = c.cuda;
  EventHandle done = c.done;
  c.watchdog->wait(what, deadline, [cuda, done] { return cuda->query_event(done); });
}

void NcclBackend::all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) {
  run("ncclAllReduce", buffer.device(), {&buffer}, o, [&](DeviceCommunicator& c, Stream s) {
    c.all_reduce(buffer.data_ptr(), buffer.data_ptr(), size_t(buffer.numel()), buffer.dtype(), op, s);
  });
}

void NcclBackend::broadcast(const Tensor& buffer, int root, const CallOptions& o) {
  run("ncclBroadcast", buffer.device(), {&buffer}, o, [&](DeviceCommunicator& c, Stream s) {
    c.broadcast(buffer.data_ptr(), buffer.data_ptr(), size_t(buffer.numel()), buffer.dtype(), root, s);
  });
}

void NcclBackend::all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) {
  run("ncclAllGather", input.device(), {&output, &input}, o, [&](DeviceCommunicator& c, Stream s) {
    c.all_gather(input.data_ptr(), output.data_ptr(), size_t(input.numel()), input.dtype(), s);
  });
}

void NcclBackend::reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op, const CallOptions& o) {
  run("ncclReduceScatter", input.device(), {&output, &input}, o, [&](DeviceCommunicator& c, Stream s) {
    c.reduce_scatter(input.data_ptr(), output.data_ptr(), size_t(output.numel()), input.dtype(), op, s);
  });
}

void NcclBackend::barrier(const CallOptions& o) {
  // Its value does not matter: only that every rank reaches it.
  const Tensor one = empty({1}, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, default_device());
  all_reduce(one, TSR_REDUCE_MAX, o);
}

std::unique_ptr<Transfer> NcclBackend::send(const Tensor&, int, const CallOptions&) {
  fail(TSR_ERR_UNSUPPORTED, "send: point to point on CUDA tensors (NCCL) is not supported yet");
}

std::unique_ptr<Transfer> NcclBackend::recv(const Tensor&, int, const CallOptions&) {
  fail(TSR_ERR_UNSUPPORTED, "recv: point to point on CUDA tensors (NCCL) is not supported yet");
}

void NcclBackend::all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) {
  // On the collective's device (the fingerprints come before it).
  const Device d = o.device_index >= 0 ? Device{TSR_DEVICE_CUDA, o.device_index} : default_device();
  DeviceBackend& cuda = backend_for(d);
  const Tensor mine = empty({int64_t(bytes_per_rank)}, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, d);
  const Tensor all = empty({int64_t(bytes_per_rank) * size_}, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, d);
  const Stream current = current_stream(d);
  cuda.copy_bytes(mine.data_ptr(), in, bytes_per_rank, CopyKind::HostToDevice, current);
  all_gather(all, mine, o);
  cuda.copy_bytes(out, all.data_ptr(), bytes_per_rank * size_t(size_), CopyKind::DeviceToHost, current);
  cuda.synchronize_stream(current);
}

void NcclBackend::abort() noexcept {
  if (comm_) comm_->watchdog->abort("the process group failed and aborted NCCL");
}

}  // namespace tsr::distributed
