// Measuring helpers shared by the benchmarks: a clock, interleaved rounds,
// robust statistics, a dead-code-elimination guard and table printing.
//
// Benchmarks measure; they never pass or fail. A failing library call is a
// bug in the benchmark or the library, so it aborts with the message.
#pragma once

#include <tessera/tessera.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// The CPU's model name from /proc/cpuinfo ("unknown" where it has none),
// for the header every benchmark prints.
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      const size_t start = colon == std::string::npos ? 0 : line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? std::string() : line.substr(start);
    }
  return "unknown";
}

// Aborts on a failing tessera call, printing its status and message.
#define BENCH_TSR(call)                                                            \
  do {                                                                             \
    tsr_status bench_st_ = (call);                                                 \
    if (bench_st_ != TSR_OK) {                                                     \
      std::fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call, \
                   tsr_status_name(bench_st_), tsr_last_error_message());          \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

// Tells the compiler the pointed-to memory is read and p escapes, so a result
// that is otherwise unused (a memcpy destination, a view handle) cannot be
// optimised away. Same trick as benchmark::DoNotOptimize.
inline void keep(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time of the calling thread (user + system, so page faults count). On a
// loaded machine it leaves out the time the thread waited for a core, which
// wall time includes; it also leaves out work done on other threads, so it
// is only meaningful for single-threaded contenders.
inline double thread_cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// One thing to time. `once` is one sample: a whole copy, or a batch of calls.
// multi_threaded: it may use other threads, so its CPU time is not shown.
struct Contender {
  std::string name;
  std::function<void()> once;
  bool multi_threaded = false;
};

// Seconds per round for each contender, by wall clock and by this thread's
// CPU time: samples.wall[contender][round].
struct Samples {
  std::vector<std::vector<double>> wall, cpu;
};

// Runs every contender `warmup` times, then `rounds` rounds of one sample
// each. Round r starts at contender r % n and goes round, so a slow spell of
// the (shared, 2-core) machine hits every contender alike and no contender
// always runs right after the same neighbour.
inline Samples measure_interleaved(const std::vector<Contender>& cs, int warmup, int rounds) {
  for (int w = 0; w < warmup; ++w)
    for (const auto& c : cs) c.once();
  const size_t n = cs.size();
  Samples s{std::vector<std::vector<double>>(n, std::vector<double>(size_t(rounds))),
            std::vector<std::vector<double>>(n, std::vector<double>(size_t(rounds)))};
  for (int r = 0; r < rounds; ++r)
    for (size_t k = 0; k < n; ++k) {
      size_t i = (size_t(r) + k) % n;
      double c0 = thread_cpu_s(), t0 = now_s();
      cs[i].once();
      double t1 = now_s(), c1 = thread_cpu_s();
      s.wall[i][size_t(r)] = t1 - t0;
      s.cpu[i][size_t(r)] = c1 - c0;
    }
  return s;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Median over rounds of a[r] / b[r]: a ratio of two contenders measured in
// the same round, which cancels most of the machine's slow drift.
inline double paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> q(a.size());
  for (size_t r = 0; r < a.size(); ++r) q[r] = a[r] / b[r];
  return median(q);
}

// TSR_BENCH_ONLY=text: run only the cases whose name contains text (for
// trying one kernel change without the whole table).
inline bool wanted(const std::string& case_name) {
  const char* only = std::getenv("TSR_BENCH_ONLY");
  return only == nullptr || case_name.find(only) != std::string::npos;
}

inline void rule() { std::printf("  %s\n", std::string(118, '-').c_str()); }

}  // namespace bench
