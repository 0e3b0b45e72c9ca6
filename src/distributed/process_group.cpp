#include "distributed/process_group.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/device.h"
#include "core/error.h"
#include "distributed/file_store.h"
#include "distributed/gloo_backend.h"
#include "distributed/mpi_backend.h"
#include "distributed/nccl_backend.h"
#include "distributed/sigpipe.h"

namespace tsr::distributed {
namespace {

using Seconds = std::chrono::duration<double>;

bool debug_detail() {
  for (const char* name : {"TSR_DISTRIBUTED_DEBUG", "TORCH_DISTRIBUTED_DEBUG"}) {
    const char* v = std::getenv(name);
    if (v && std::strcmp(v, "DETAIL") == 0) return true;
  }
  return false;
}

// Tags: collectives use their sequence number, fingerprints the same with
// the top bit set, so no two messages in flight share one.
uint32_t tag_of(uint64_t seq) { return uint32_t(seq & 0x7fffffffu); }
uint32_t fingerprint_tag_of(uint64_t seq) { return tag_of(seq) | 0x80000000u; }

// "all_reduce (sequence 3)"; send and recv have no sequence number.
std::string labelled(const std::string& op, uint64_t seq) {
  return seq ? op + " (sequence " + std::to_string(seq) + ")" : op;
}

std::string rank_key(const char* what, int rank) { return std::string(what) + "/" + std::to_string(rank); }

// How long a failing rank waits for its peers' failure reports: long
// enough for a failure to spread over the closed connections, short
// against the timeout that a hung peer costs anyway.
Millis report_grace(Millis timeout) { return std::clamp(timeout / 10, Millis(250), Millis(2000)); }

}  // namespace

ProcessGroup::ProcessGroup(const GroupOptions& options)
    : timeout_(options.timeout), detail_(debug_detail()), mpi_(options.mpi) {
  // A peer's death must reach us as a failed collective, not as SIGPIPE.
  ignore_sigpipe_unless_handled();
  if (mpi_) {
    // mpirun did the rendezvous: rank and world size are MPI's.
    auto backend = std::make_unique<MpiBackend>(options.rank, options.world_size, timeout_);
    rank_ = backend->rank();
    size_ = backend->size();
    name_ = "default_pg";
    for (int i = 0; i < size_; ++i) global_ranks_.push_back(i);
    cpu_backend_ = std::move(backend);
    worker_ = std::thread([this] { worker_loop(); });
    return;
  }
  // An NCCL-only group on a machine without CUDA devices or NCCL fails
  // here, saying why, not at its first collective.
  if (options.backend == TSR_DIST_NCCL) NcclBackend::check_available();
  Rendezvous r = rendezvous(options.init_method, options.rank, options.world_size, timeout_);
  rank_ = r.rank;
  size_ = r.world_size;
  file_store_ = r.file_store;
  server_ = std::move(r.server);
  base_store_ = r.store;
  open_store_ = r.open_store;
  listen_host_ = r.listen_host;
  name_ = "default_pg";
  for (int i = 0; i < size_; ++i) global_ranks_.push_back(i);
  store_ = std::make_shared<PrefixStore>(name_, r.store);
  join();
  if (options.backend != TSR_DIST_NCCL)
    cpu_backend_ = std::make_unique<GlooBackend>(*store_, rank_, size_, listen_host_, timeout_);
  if (options.backend != TSR_DIST_GLOO) cuda_backend_ = std::make_unique<NcclBackend>(store_, rank_, size_);
  worker_ = std::thread([this] { worker_loop(); });
}

ProcessGroup::ProcessGroup(ProcessGroup& parent, const std::string& name, const std::vector<int>& members,
                           Millis timeout)
    : size_(int(members.size())),
      timeout_(timeout),
      detail_(parent.detail_),
      name_(name),
      is_job_group_(false),
      open_store_(parent.open_store_),
      listen_host_(parent.listen_host_),
      server_(parent.server_),
      file_store_(parent.file_store_) {
  const auto me = std::find(members.begin(), members.end(), parent.rank());
  TSR_CHECK(me != members.end(), TSR_ERR_INTERNAL, "rank ", parent.rank(), " is not a member of subgroup ", name);
  rank_ = int(me - members.begin());
  for (int m : members) global_ranks_.push_back(parent.global_rank(m));
  // A connection of its own: the parent's worker may use the parent's
  // store meanwhile (failure reports).
  base_store_ = open_store_(timeout_);
  store_ = std::make_shared<PrefixStore>(name_, base_store_);
  join();
  // The parent's engines: the subgroup's NCCL communicator is its own
  // (made lazily, its unique id under the subgroup's store prefix).
  if (parent.cpu_backend_)
    cpu_backend_ = std::make_unique<GlooBackend>(*store_, rank_, size_, listen_host_, timeout_);
  if (parent.cuda_backend_) cuda_backend_ = std::make_unique<NcclBackend>(store_, rank_, size_);
  worker_ = std::thread([this] { worker_loop(); });
}

int ProcessGroup::group_rank(int global) const {
  const auto it = std::find(global_ranks_.begin(), global_ranks_.end(), global);
  return it == global_ranks_.end() ? -1 : int(it - global_ranks_.begin());
}

std::string ProcessGroup::next_subgroup_name() {
  std::lock_guard<std::mutex> lock(mutex_);
  return name_ + "/" + std::to_string(subgroups_made_++);
}

void ProcessGroup::run_in_background(std::function<void()> fn) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread t([fn = std::move(fn), done] {
    fn();
    done->store(true);
  });
  std::lock_guard<std::mutex> lock(mutex_);
  // Reap the threads that have ended, so a long run of isend/irecv does
  // not pile them up.
  for (auto it = background_.begin(); it != background_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = background_.erase(it);
    } else {
      ++it;
    }
  }
  background_.push_back(Background{std::move(t), std::move(done)});
}

void ProcessGroup::fail_transfer(const Collective& c, const std::string& cause, double seconds) {
  const bool timed_out = cause.find("Timed out") != std::string::npos || seconds >= 0.95 * Seconds(timeout_).count();
  fail_group(0, c, cause, seconds, timed_out);
}

void ProcessGroup::join() {
  store_->set(rank_key("joined", rank_), {});
  std::vector<std::string> keys;
  for (int i = 0; i < size_; ++i) keys.push_back(rank_key("joined", i));
  const auto start = Clock::now();
  try {
    store_->wait(keys, timeout_);
  } catch (const Error& e) {
    std::vector<int> missing;
    try {
      for (int i = 0; i < size_; ++i)
        if (!store_->check({rank_key("joined", i)})) missing.push_back(i);
    } catch (const Error&) {
      // Rank 0 gave up first (its own timeout) and took the store with it.
      fail(TSR_ERR_DISTRIBUTED, "rendezvous failed on rank ", rank_, " of world size ", size_, ": ", e.what(),
           (rank_ == 0 ? "" : " (rank 0 hosts the store: it failed, or gave up waiting for the other ranks)"));
    }
    if (missing.empty()) throw;
    char waited[32];
    std::snprintf(waited, sizeof waited, "%.2f s", Seconds(Clock::now() - start).count());
    fail(TSR_ERR_DISTRIBUTED, "rendezvous at the store ", store_->describe(), " timed out after ", waited,
         " on rank ", rank_, ": ranks ", missing, " of world size ", size_, " did not join");
  }
}

void ProcessGroup::check_device(tsr_device_type device, const char* op) const {
  if (device == TSR_DEVICE_CPU)
    TSR_CHECK(cpu_backend_, TSR_ERR_UNSUPPORTED, op, ": a CPU tensor in a TSR_DIST_NCCL process group, which ",
              "takes CUDA tensors only (NCCL); use TSR_DIST_DEFAULT for Gloo on CPU tensors and NCCL on CUDA tensors");
  else if (device == TSR_DEVICE_CUDA)
    TSR_CHECK(cuda_backend_, TSR_ERR_UNSUPPORTED, op, ": a CUDA tensor in a ", mpi_ ? "TSR_DIST_MPI" : "TSR_DIST_GLOO",
              " process group, which takes CPU tensors only; use TSR_DIST_DEFAULT or TSR_DIST_NCCL for CUDA tensors");
  else
    fail(TSR_ERR_UNSUPPORTED, op, ": process groups take CPU tensors (Gloo, MPI) and CUDA tensors (NCCL), not ",
         device_type_name(device), " tensors");
}

Backend& ProcessGroup::backend_for(tsr_device_type device) {
  check_device(device, "process group");
  return device == TSR_DEVICE_CPU ? *cpu_backend_ : *cuda_backend_;
}

ProcessGroup::~ProcessGroup() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  // Sends and receives still waiting for their peers: each ends at the
  // latest at the group's timeout.
  std::vector<Background> background;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    background.swap(background_);
  }
  for (Background& b : background) b.thread.join();
  cuda_backend_.reset();
  cpu_backend_.reset();
  linger_for_failure_reports();
  cleanup_store();
}

void ProcessGroup::linger_for_failure_reports() {
  // Rank 0 hosts the TCP store. After a failure the other ranks poll it
  // for each other's reports (missing_ranks_report), each for up to the
  // grace from the moment it failed, which may come after rank 0's own
  // report: closing the store under them made them name rank 0 as the
  // missing one. So rank 0 waits, at most one more grace, for every rank
  // to finish its report; a dead rank costs the whole grace.
  if (rank_ != 0 || file_store_ || !server_ || !is_job_group_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.empty()) return;
  }
  const Millis grace = report_grace(timeout_);
  const auto deadline = Clock::now() + grace;
  try {
    base_store_->set_timeout(grace);
    for (int r = 1; r < size_; ++r)
      while (!store_->check({rank_key("reported", r)}) && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } catch (const Error&) {
  }
}

void ProcessGroup::cleanup_store() {
  // Only the job's group clears the directory (a subgroup's keys go with it).
  if (!file_store_ || !is_job_group_) return;
  // torch's FileStore: the last rank out removes the keys, so the
  // directory can hold the next job's.
  try {
    base_store_->set_timeout(report_grace(timeout_));
    if (store_->add("released", 1) == size_) static_cast<FileStore&>(*base_store_).clear();
  } catch (const Error&) {
  }
}

std::shared_ptr<Work> ProcessGroup::submit(Collective c, bool async) {
  auto work = std::make_shared<Work>();
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t seq = c.point_to_point ? 0 : next_seq_++;
  if (seq) recorder_.queued(seq, c.op + "(" + c.signature + ")");
  if (!async && queue_.empty() && !busy_) {
    // Nothing ahead of it: run here, sparing the hand-off to the worker.
    busy_ = true;
    lock.unlock();
    struct Idle {
      ProcessGroup* pg;
      // Only the worker waits on cv_, and only for queued work: waking it
      // after every synchronous collective cost each rank two context
      // switches per call (+20-30 us per 4-byte all_reduce on 2 cores).
      ~Idle() {
        bool queued;
        {
          std::lock_guard<std::mutex> l(pg->mutex_);
          pg->busy_ = false;
          queued = !pg->queue_.empty();
        }
        if (queued) pg->cv_.notify_all();
      }
    } idle{this};
    execute(Item{seq, std::move(c), work});
    work->complete(TSR_OK, "");
    return work;
  }
  queue_.push_back(Item{seq, std::move(c), work});
  lock.unlock();
  cv_.notify_all();
  if (async) return work;
  work->wait_for(Millis(-1));
  if (work->status() != TSR_OK) throw Error(work->status(), work->message());
  return work;
}

void ProcessGroup::worker_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return (!queue_.empty() && !busy_) || (stopping_ && queue_.empty()); });
    if (queue_.empty()) return;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    RankOutcome outcome = outcome_of([&] { execute(item); });
    // Drop the collective's tensors before waking the waiter: once a wait
    // returns, the group holds no reference to them.
    std::shared_ptr<Work> work = std::move(item.work);
    item = Item{};
    work->complete(outcome.status, std::move(outcome.message));
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

void ProcessGroup::execute(const Item& item) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    TSR_CHECK(failure_.empty(), TSR_ERR_DISTRIBUTED, labelled(item.collective.op, item.seq),
              " refused: the process group failed earlier and takes no more work. The first failure: ", failure_);
  }
  const bool recorded = item.seq != 0;  // send and recv have no sequence number
  if (recorded) recorder_.started(item.seq);
  const auto start = Clock::now();
  try {
    if (detail_ && size_ > 1 && !item.collective.point_to_point) check_fingerprints(item.seq, item.collective);
    const Collective& c = item.collective;
    c.run(backend_for(c.device), CallOptions{tag_of(item.seq), timeout_, c.device_index});
  } catch (const Error&) {
    if (recorded) recorder_.finished(item.seq, false);
    throw;
  } catch (const std::exception& e) {
    if (recorded) recorder_.finished(item.seq, false);
    const double seconds = Seconds(Clock::now() - start).count();
    const bool timed_out = std::strstr(e.what(), "Timed out") || seconds >= 0.95 * Seconds(timeout_).count();
    fail_group(item.seq, item.collective, e.what(), seconds, timed_out);
  }
  if (recorded) recorder_.finished(item.seq, true);
}

void ProcessGroup::check_fingerprints(uint64_t seq, const Collective& c) {
  constexpr size_t kLength = 256;
  std::vector<char> mine(kLength, 0), all(kLength * size_t(size_), 0);
  std::snprintf(mine.data(), kLength, "sequence %llu: %s(%s)", (unsigned long long)seq, c.op.c_str(),
                c.signature.c_str());
  // Through the CPU engine where the group has one: host memory, no
  // device staging.
  (cpu_backend_ ? *cpu_backend_ : backend_for(c.device))
      .all_gather_bytes(mine.data(), all.data(), kLength, CallOptions{fingerprint_tag_of(seq), timeout_, c.device_index});
  for (int r = 0; r < size_; ++r) {
    const char* theirs = all.data() + size_t(r) * kLength;
    if (std::memcmp(theirs, mine.data(), kLength) == 0) continue;
    const std::string message =
        str("collective mismatch (TSR_DISTRIBUTED_DEBUG=DETAIL) in a group of world size ", size_, ": rank ", rank_,
            " called ", mine.data(), " but rank ", r, " called ", std::string(theirs, strnlen(theirs, kLength)));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure_.empty()) failure_ = message;
    }
    throw Error(TSR_ERR_DISTRIBUTED, message);
  }
}

void ProcessGroup::fail_group(uint64_t seq, const Collective& c, const std::string& cause, double seconds,
                              bool timed_out) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.empty()) failure_ = c.op + " failed";
  }
  // Peers blocked on this rank fail now instead of at their timeout; the
  // group's other engine goes too, as c10d aborts every backend.
  Backend& backend = backend_for(c.device);
  backend.abort();
  for (Backend* other : {cpu_backend_.get(), cuda_backend_.get()})
    if (other && other != &backend) other->abort();
  const std::string missing = missing_ranks_report(seq);
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.2f s", seconds);
  std::string message =
      str(labelled(c.op, seq), " failed on rank ", rank_, " of world size ", size_, " after ", waited);
  if (timed_out) message += str(" (the group's timeout is ", timeout_.count(), " ms)");
  message += str(": ", missing, ". ", backend.name(), ": ", cause);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    failure_ = message;
  }
  if (timed_out)
    std::fprintf(stderr, "tessera.distributed: rank %d: %s\nthe last collectives of rank %d (flight recorder):\n%s",
                 rank_, message.c_str(), rank_, recorder_.dump().c_str());
  throw Error(TSR_ERR_DISTRIBUTED, message);
}

std::string ProcessGroup::missing_ranks_report(uint64_t seq) {
  if (size_ == 1) return "no peer is involved";
  if (mpi_)
    return "the missing ranks are unknown under MPI (an MPI group has no store to report failures through; "
           "mpirun ends the job when this process exits)";
  const Millis grace = report_grace(timeout_);
  std::vector<int> pending;
  bool polled = false;
  try {
    base_store_->set_timeout(grace);
    store_->set(rank_key("failed", rank_), std::vector<char>(1, '1'));
    const auto deadline = Clock::now() + grace;
    for (;;) {
      std::vector<int> still;
      for (int r = 0; r < size_; ++r)
        if (r != rank_ && !store_->check({rank_key("failed", r)})) still.push_back(r);
      pending.swap(still);
      polled = true;
      if (pending.empty() || Clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Rank 0 keeps the store up until this is set (linger_for_failure_reports).
    store_->set(rank_key("reported", rank_), std::vector<char>(1, '1'));
    if (pending.empty()) return "every other rank failed too (no rank is missing)";
    return str("missing ranks ", pending, " (they did not report this failure within ", grace.count(),
               " ms: dead, hung, or not at this collective)");
  } catch (const Error& e) {
    // The store went away while we waited: the ranks that had reported by
    // then are not missing, whoever hosted the store.
    if (polled)
      return str("missing ranks ", pending, " (they had not reported this failure when the store at ",
                 store_->describe(), " went away: ", e.what(), ")");
    if (file_store_ || rank_ == 0)
      return str("the missing ranks are unknown (the store at ", store_->describe(), " failed: ", e.what(), ")");
    return str("missing ranks [0] (rank 0 hosts the store at ", store_->describe(), ", which is unreachable: ",
               e.what(), ")");
  }
}

std::string ProcessGroup::wait_timed_out(Millis waited) {
  const std::string message =
      str("the collective was not complete after waiting ", waited.count(), " ms on rank ", rank_, " of world size ",
          size_, "; it goes on, and fails at the group's timeout (", timeout_.count(),
          " ms) if a peer never joins it");
  std::fprintf(stderr, "tessera.distributed: rank %d: %s\nthe last collectives of rank %d (flight recorder):\n%s",
               rank_, message.c_str(), rank_, recorder_.dump().c_str());
  return message;
}

}  // namespace tsr::distributed
