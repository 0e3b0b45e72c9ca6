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
#include <vector>

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
  // TSR_DIST_MPI: the engine is MPI (mpi_backend.h) over the processes
  // mpirun started; there is no rendezvous and no store. Else Gloo.
  bool mpi = false;
  // Else DEFAULT: Gloo for CPU tensors, NCCL for CUDA tensors (c10d's
  // "cpu:gloo,cuda:nccl"); GLOO: CPU only; NCCL: CUDA only.
  tsr_dist_backend backend = TSR_DIST_DEFAULT;
};

// What a collective does, given the backend of its tensors' device, a tag
// no other operation of the group uses at the same time, and the timeout.
struct Collective {
  std::string op;         // torch's name: "all_reduce"
  std::string signature;  // "dtype=float32, sizes=[4], op=SUM": fingerprints, the recorder
  tsr_device_type device = TSR_DEVICE_CPU;  // picks the backend
  std::function<void(Backend&, const CallOptions&)> run;
  // send / recv: run() only posts (completion is the caller's), takes no
  // sequence number (tags of collectives must agree across ranks, and only
  // the two peers take part) and has no fingerprint.
  bool point_to_point = false;
  int32_t device_index = -1;  // the tensors' device index (-1: none, a barrier)
};

class ProcessGroup {
 public:
  // Rendezvous and connect; throws tsr::Error.
  explicit ProcessGroup(const GroupOptions& options);
  // A subgroup (new_group, split) of parent's ranks `members` (in the new
  // ranks' order), this process among them: its own store prefix
  // `name` (unique in the job), store connection, engine connections and
  // worker. Returns when every member has connected; throws tsr::Error.
  ProcessGroup(ProcessGroup& parent, const std::string& name, const std::vector<int>& members, Millis timeout);
  // Waits for queued work, stops the worker, closes the connections.
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  Millis timeout() const { return timeout_; }
  // "gloo", "mpi" or "nccl" (a TSR_DIST_NCCL group), as torch's
  // get_backend() prints it.
  const char* backend_name() const { return mpi_ ? "mpi" : cpu_backend_ ? "gloo" : "nccl"; }
  // Throws TSR_ERR_UNSUPPORTED when the group has no backend for tensors
  // on device (a CPU tensor in a TSR_DIST_NCCL group): checked when a
  // collective is issued.
  void check_device(tsr_device_type device, const char* op) const;
  // Where a barrier runs: CPU (Gloo, MPI) unless the group is NCCL only.
  tsr_device_type barrier_device() const { return cpu_backend_ ? TSR_DEVICE_CPU : TSR_DEVICE_CUDA; }
  // Rank in the job's group (tsr_process_group_init's) of this group's
  // rank r, and the inverse (-1 when that process is not in this group).
  int global_rank(int r) const { return global_ranks_.at(size_t(r)); }
  int group_rank(int global) const;
  // The store prefix of this group's next subgroup: the same on every rank
  // of the group, as every rank creates subgroups in the same order.
  std::string next_subgroup_name();

  // A send or receive failed after it was posted: fails the group as a
  // failing collective does; throws tsr::Error (TSR_ERR_DISTRIBUTED).
  [[noreturn]] void fail_transfer(const Collective& c, const std::string& cause, double seconds);
  // Runs fn on a thread of its own (an asynchronous send or receive
  // waiting for its peer); the group's destructor waits for it.
  void run_in_background(std::function<void()> fn);

  // Runs c now (async == false: returns when done, throws its failure) or
  // queues it (returns its Work; failures go there).
  std::shared_ptr<Work> submit(Collective c, bool async);
  // A Work waited on past the caller's timeout: prints the flight recorder
  // and returns the message. The collective cannot be cancelled (Gloo has
  // no abort for an operation in flight), so it goes on.
  std::string wait_timed_out(Millis waited);
  // torch's monitored_barrier through the store (monitored_barrier.cpp);
  // throws tsr::Error (TSR_ERR_DISTRIBUTED) naming the missing ranks.
  void monitored_barrier(Millis timeout, bool wait_all_ranks);

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
  // On rank 0 of a failed job group: keeps the TCP store up until the other
  // ranks have finished their failure reports, at most one report grace.
  void linger_for_failure_reports();

  int rank_ = 0;
  int size_ = 1;
  Millis timeout_;
  bool detail_ = false;
  bool mpi_ = false;  // no store: failure reports cannot name missing ranks
  std::string name_;               // the store prefix
  std::vector<int> global_ranks_;  // global_ranks_[r]: rank r's in the job's group
  bool is_job_group_ = true;       // made by the rendezvous, not a subgroup
  std::function<std::shared_ptr<Store>(Millis)> open_store_;  // another connection to the store
  std::string listen_host_;
  // rank 0 of the job: shared with its subgroups, which need the store
  std::shared_ptr<TcpStoreServer> server_;
  std::shared_ptr<Store> base_store_;  // the store itself
  std::shared_ptr<Store> store_;       // this group's keys in it
  bool file_store_ = false;
  std::unique_ptr<Backend> cpu_backend_;   // Gloo, or MPI; none in a TSR_DIST_NCCL group
  std::unique_ptr<Backend> cuda_backend_;  // NCCL (communicator made lazily); none for GLOO and MPI
  FlightRecorder recorder_;

  std::mutex mutex_;  // guards what follows
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool busy_ = false;  // a collective is running (worker or caller)
  bool stopping_ = false;
  uint64_t next_seq_ = 1;
  uint64_t subgroups_made_ = 0;
  struct Background {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Background> background_;
  std::string failure_;  // the first failure's message; empty while healthy
  std::thread worker_;
  std::atomic<uint64_t> monitored_barriers_{0};  // numbers their store keys
};

}  // namespace tsr::distributed
