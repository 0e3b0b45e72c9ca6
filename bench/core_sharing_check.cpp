// tsr_core_sharing_check: do CPUs 0 and 1 share one core's caches (two
// hyperthreads of one physical core, as a VM's vCPUs may be although lscpu
// inside it says one thread per core)? Each of two threads, pinned to CPU 0
// and CPU 1, reads its own buffer over and over (one load per 64-byte
// line); the time per line is printed for one thread alone and for both at
// once. Buffers that fit a private L2 (512 KiB of a 1 MiB L2) but slow down
// by about 2x when both threads run mean the two CPUs share the core's L2
// and load ports: two threads then give cache-blocked kernels (transposes)
// little or nothing. A measurement, not a test: it prints and exits 0.
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

volatile long sink;  // keeps the sums, so the reads are not optimised away

// ns per 64-byte line of repeated reads of `bytes` bytes, on CPU `cpu`.
double ns_per_line(size_t bytes, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  std::vector<long> v(bytes / sizeof(long), 1);
  long acc = 0;
  const long rounds = (4000L << 20) / long(bytes);
  auto pass = [&] {
    for (size_t i = 0; i < v.size(); i += 64 / sizeof(long)) acc += v[i];
    asm volatile("" : "+r"(acc));
  };
  for (int w = 0; w < 20; ++w) pass();
  const auto t0 = std::chrono::steady_clock::now();
  for (long r = 0; r < rounds; ++r) pass();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sink = acc;
  return s / (double(rounds) * double(bytes) / 64) * 1e9;
}

}  // namespace

int main() {
  if (std::thread::hardware_concurrency() < 2) {
    std::printf("one CPU: nothing to compare\n");
    return 0;
  }
  std::printf("Reads of a private buffer per thread, ns per 64-byte line (CPU 0 alone; CPUs 0 and 1 "
              "at once)\n");
  for (size_t kib : {256, 512, 768, 2048}) {
    const double alone = ns_per_line(kib << 10, 0);
    double a = 0, b = 0;
    std::thread t0([&] { a = ns_per_line(kib << 10, 0); });
    std::thread t1([&] { b = ns_per_line(kib << 10, 1); });
    t0.join();
    t1.join();
    std::printf("  %4zu KiB per thread: alone %.2f, together %.2f / %.2f (%.2fx)\n", kib, alone, a, b,
                (a + b) / 2 / alone);
  }
  return 0;
}
