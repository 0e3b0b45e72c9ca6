#include "cpu/kernels/parallel_for.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/kernels/threads.h"

namespace tsr::kernels::detail {

namespace {

// True on a thread that is running a chunk: nested parallel_for calls run
// inline rather than wait for a pool that is busy with their parent.
thread_local bool in_parallel_region = false;

// A pool of workers that all take part in every job: each wakes for a new
// generation, takes chunks from a shared counter until none are left, and
// reports back. The caller waits for every worker's report before the job
// (which lives on its stack) goes away, so a worker that wakes late can never
// see a later job's counter with an earlier job's function.
class Pool {
 public:
  // Runs fn over `chunks` equal parts of [0, n) with at least `threads`
  // threads available (the caller counts as one).
  void run(int64_t n, int64_t chunks, int threads, RangeFn fn, void* ctx) {
    std::unique_lock<std::mutex> lk(m_);
    while (int(workers_.size()) < threads - 1)
      workers_.emplace_back([this, id = workers_.size()] { loop(id); });
    job_ = Job{n, chunks, fn, ctx};
    next_ = 0;
    pending_ = int(workers_.size());
    error_ = nullptr;
    ++generation_;
    lk.unlock();
    wake_.notify_all();
    work();
    lk.lock();
    done_.wait(lk, [this] { return pending_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

  // At most one job at a time; a second caller runs its range inline.
  std::mutex busy;

 private:
  struct Job {
    int64_t n = 0, chunks = 0;
    RangeFn fn = nullptr;
    void* ctx = nullptr;
  };

  void loop(size_t) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lk(m_);
    while (true) {
      wake_.wait(lk, [&] { return generation_ != seen; });
      seen = generation_;
      lk.unlock();
      work();
      lk.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  // Takes chunks until none are left. The counter is read under the lock
  // (cheap next to a chunk of >= grain elements).
  void work() {
    in_parallel_region = true;
    while (true) {
      int64_t c;
      Job j;
      {
        std::lock_guard<std::mutex> g(m_);
        if (next_ >= job_.chunks) break;
        c = next_++;
        j = job_;
      }
      const int64_t b = j.n * c / j.chunks, e = j.n * (c + 1) / j.chunks;
      try {
        j.fn(j.ctx, b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(m_);
        if (!error_) error_ = std::current_exception();
      }
    }
    in_parallel_region = false;
  }

  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Job job_;
  int64_t next_ = 0;
  int pending_ = 0;
  uint64_t generation_ = 0;
  std::exception_ptr error_;
};

// Never destroyed: workers block in the pool's condition variable until the
// process exits, and a static destructor would race with them. A forked
// child has none of the parent's workers (and maybe a lock held by one), so
// it starts a fresh pool, as ATen's does; the old one is left unused.
std::atomic<Pool*> the_pool{nullptr};

Pool& pool() {
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { the_pool.store(nullptr); });
    return true;
  }();
  (void)registered;
  Pool* p = the_pool.load(std::memory_order_acquire);
  if (!p) {
    Pool* fresh = new Pool;
    if (the_pool.compare_exchange_strong(p, fresh)) p = fresh;
    else delete fresh;  // another thread's pool won
  }
  return *p;
}

}  // namespace

void parallel_run(int64_t n, int64_t grain, RangeFn fn, void* ctx) {
  const int64_t threads = num_threads();
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / std::max<int64_t>(grain, 1));
  if (n <= grain || chunks <= 1 || in_parallel_region) return fn(ctx, 0, n);
  Pool& p = pool();
  std::unique_lock<std::mutex> busy(p.busy, std::try_to_lock);
  if (!busy.owns_lock()) return fn(ctx, 0, n);
  p.run(n, chunks, int(chunks), fn, ctx);
}

}  // namespace tsr::kernels::detail
