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

// A pool of workers that take part in jobs: each wakes for a new
// generation and takes chunks from a shared counter until none are left.
// The caller takes chunks too, and waits only for the chunks that workers
// took to finish (the job lives on its stack): a worker that wakes after
// the caller has taken every chunk finds none left and touches nothing.
// Waiting for every worker to wake instead cost a whole wake-up per job
// (tens of microseconds under a hypervisor) even when the caller had done
// all the work.
class Pool {
 public:
  // Runs fn over [0, n) in guided chunks of at least `grain` items on
  // `threads` threads (the caller counts as one).
  void run(int64_t n, int64_t grain, int threads, RangeFn fn, void* ctx) {
    std::unique_lock<std::mutex> lk(m_);
    while (int(workers_.size()) < threads - 1)
      workers_.emplace_back([this, id = workers_.size()] { loop(id); });
    job_ = Job{n, grain, threads, fn, ctx};
    next_ = 0;
    error_ = nullptr;
    ++generation_;
    lk.unlock();
    wake_.notify_all();
    work();
    lk.lock();
    done_.wait(lk, [this] { return running_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

  // At most one job at a time; a second caller runs its range inline.
  std::mutex busy;

 private:
  struct Job {
    int64_t n = 0, grain = 1, threads = 1;
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
    }
  }

  // Takes chunks until none are left, guided: each takes a 2 * threads-th
  // of what is left (at least grain items), so a thread that starts late
  // finds the range shared out by those already running, and the last
  // chunks, small, end the threads close together. The counter is read
  // under the lock (cheap next to a chunk of >= grain items); running_
  // counts the chunks taken and not finished.
  void work() {
    in_parallel_region = true;
    while (true) {
      int64_t b, e;
      Job j;
      {
        std::lock_guard<std::mutex> g(m_);
        if (next_ >= job_.n) break;
        const int64_t left = job_.n - next_;
        const int64_t size = std::max(job_.grain, (left + 2 * job_.threads - 1) / (2 * job_.threads));
        b = next_;
        e = next_ = b + std::min(size, left);
        j = job_;
        ++running_;
      }
      std::exception_ptr failed;
      try {
        j.fn(j.ctx, b, e);
      } catch (...) {
        failed = std::current_exception();
      }
      std::lock_guard<std::mutex> g(m_);
      if (failed && !error_) error_ = failed;
      if (--running_ == 0) done_.notify_all();
    }
    in_parallel_region = false;
  }

  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Job job_;
  int64_t next_ = 0;
  int64_t running_ = 0;
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
  grain = std::max<int64_t>(grain, 1);
  const int64_t workers = std::min(num_threads(), (n + grain - 1) / grain);
  if (n <= grain || workers <= 1 || in_parallel_region) return fn(ctx, 0, n);
  Pool& p = pool();
  std::unique_lock<std::mutex> busy(p.busy, std::try_to_lock);
  if (!busy.owns_lock()) return fn(ctx, 0, n);
  p.run(n, grain, int(workers), fn, ctx);
}

}  // namespace tsr::kernels::detail
