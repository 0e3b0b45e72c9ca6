// A process group (c10d's ProcessGroup): the rendezvous, the engine that
// moves the bytes (backend.h: Gloo for CPU tensors), and a worker thread
// that runs the group's collectives one at a time in the order they were
// issued. A synchronous call with nothing queued runs on the caller's
// thread.
//
// Failure: a collective whose backend throws BackendFailure (a peer's
// connection closed, the engine's timeout) fails the group for good. The
// backend is aborted at once, so peers blocked on this rank fail too
// instead of waiting for their timeout; every failing rank reports through
// the store, and the ranks that never report are named as missing (dead
// or hung).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <tessera/distributed.h>

#include "distributed/backend.h"
#include "distributed/flight_recorder.h"
#include "distributed/rendezvous.h"
#include "distributed/work.h"

namespace tsr::distributed {

struct GroupOptions {
  std::string init_method;  // empty: env://
  int rank = -1;
  int world_size = -1;
  Millis timeout{std::chrono::minutes(30)};
  // DEFAULT: Gloo for CPU tensors, NCCL for CUDA tensors (c10d's
  // "cpu:gloo,cuda:nccl"); GLOO: CPU only; NCCL: CUDA only.
  tsr_dist_backend backend = TSR_DIST_DEFAULT;
};

// What a collective does, given the backend of its tensors' device, a tag
// no other operation of the group uses at the same time, and the timeout.
struct Collective {
  std::string op;         // torch's name: "all_reduce"
  std::string signature;  // "dtype=float32, sizes=[4], op=SUM": fingerprints, the recorder
  tsr_device_type device = TSR_DEVICE_CPU;  // picks the backend
  int32_t device_index = -1;                // the tensors' device index (-1: none, a barrier)
  std::function<void(Backend&, const CallOptions&)> run;
};

class ProcessGroup {
 public:
  // Rendezvous and connect; throws tsr::Error.
  explicit ProcessGroup(const GroupOptions& options);
  // Waits for queued work, stops the worker, closes the connections.
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  Millis timeout() const { return timeout_; }
  // Throws TSR_ERR_UNSUPPORTED when the group has no backend for tensors
  // on device (a CPU tensor in a TSR_DIST_NCCL group): checked when a
  // collective is issued.
  void check_device(tsr_device_type device, const char* op) const;
  // Where a barrier runs: CPU (Gloo) unless the group is NCCL only.
  tsr_device_type barrier_device() const { return cpu_backend_ ? TSR_DEVICE_CPU : TSR_DEVICE_CUDA; }
  // torch.distributed.get_backend: "nccl" for an NCCL-only group, else "gloo".
  const char* backend_name() const { return cpu_backend_ ? "gloo" : "nccl"; }

  // Runs c now (async == false: returns when done, throws its failure) or
  // queues it (returns its Work; failures go there).
  std::shared_ptr<Work> submit(Collective c, bool async);
  // A Work waited on past the caller's timeout: prints the flight recorder
  // and returns the message. The collective cannot be cancelled (Gloo has
  // no abort for an operation in flight), so it goes on.
  std::string wait_timed_out(Millis waited);

 private:
  struct Item {
    uint64_t seq;
    Collective collective;
    std::shared_ptr<Work> work;
  };
  void worker_loop();
  // Runs one collective; throws tsr::Error (TSR_ERR_DISTRIBUTED) on failure.
  void execute(const Item& item);
  void check_fingerprints(uint64_t seq, const Collective& c);
  [[noreturn]] void fail_group(uint64_t seq, const Collective& c, const std::string& cause, double seconds,
                               bool timed_out);
  std::string missing_ranks_report(uint64_t seq);
  // Every rank announces itself in the store and waits for the others,
  // so a rank that never comes is named.
  void join();
  // The engine for tensors on device; throws TSR_ERR_UNSUPPORTED when the
  // group has none.
  Backend& backend_for(tsr_device_type device);
  void cleanup_store();

  int rank_ = 0;
  int size_ = 1;
  Millis timeout_;
  bool detail_ = false;
  std::unique_ptr<TcpStoreServer> server_;
  std::shared_ptr<Store> base_store_;  // the store itself
  std::shared_ptr<Store> store_;       // this group's keys in it
  bool file_store_ = false;
  std::unique_ptr<Backend> cpu_backend_;   // Gloo; none in a TSR_DIST_NCCL group
  std::unique_ptr<Backend> cuda_backend_;  // NCCL (communicator made lazily); none in a TSR_DIST_GLOO group
  FlightRecorder recorder_;

  std::mutex mutex_;  // guards what follows
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool busy_ = false;  // a collective is running (worker or caller)
  bool stopping_ = false;
  uint64_t next_seq_ = 1;
  std::string failure_;  // the first failure's message; empty while healthy
  std::thread worker_;
};

}  // namespace tsr::distributed
