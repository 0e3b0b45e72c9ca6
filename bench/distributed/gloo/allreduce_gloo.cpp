// bench/distributed: the raw Gloo contender. One rank of the all_reduce
// benchmark calling gloo::allreduce directly on a float32 buffer, in place,
// with gloo::sum<float>, a fresh tag per collective and a timeout, over a
// gloo::rendezvous::Context connected (full mesh, TCP on 127.0.0.1) through
// a FileStore in STORE_DIR, a directory fresh for this job; timed as
// allreduce_cases.h describes. RANK and WORLD_SIZE come from tessera-run.
// It links Gloo only: this is what tessera's tsr_all_reduce costs without
// tessera.
// Usage: allreduce_gloo STORE_DIR WARMUP BYTES:ITERS [BYTES:ITERS ...]
#include <cstdlib>
#include <cstring>
#include <memory>

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include "allreduce_cases.h"

namespace {

using Context = std::shared_ptr<gloo::Context>;
using ReduceFn = void (*)(void*, const void*, const void*, size_t);
const std::chrono::milliseconds kTimeout = std::chrono::minutes(5);  // as the other contenders
uint32_t next_tag = 1;

// As torch's ProcessGroupGloo (and tessera) call it: in place, one output.
template <typename T>
void allreduce(const Context& ctx, T* p, size_t n, ReduceFn fn) {
  gloo::AllreduceOptions o(ctx);
  o.setOutput(p, n);
  o.setReduceFunction(fn);
  o.setTag(next_tag++);
  o.setTimeout(kTimeout);
  gloo::allreduce(o);
}

void barrier(const Context& ctx) {
  gloo::BarrierOptions o(ctx);
  o.setTag(next_tag++);
  o.setTimeout(kTimeout);
  gloo::barrier(o);
}

void run_case(const Context& ctx, int warmup, const ar_case& c) {
  const size_t n = c.bytes / 4;
  const auto sum = static_cast<ReduceFn>(&gloo::sum<float>);
  // 64-byte aligned, as tessera's and torch's CPU allocators give.
  std::unique_ptr<float, decltype(&std::free)> buf(
      static_cast<float*>(std::aligned_alloc(64, (c.bytes + 63) / 64 * 64)), &std::free);
  float* p = buf.get();
  for (size_t i = 0; i < n; ++i) p[i] = 1.0f;
  allreduce(ctx, p, n, sum);
  ar_check_sum("gloo", p, n, ctx->size);
  std::memset(p, 0, c.bytes);
  for (int i = 0; i < warmup; ++i) allreduce(ctx, p, n, sum);
  barrier(ctx);

  std::vector<double> us(size_t(c.iters), 0.0);
  for (int i = 0; i < c.iters; ++i) {
    const double start = ar_now_us();
    allreduce(ctx, p, n, sum);
    us[size_t(i)] = ar_now_us() - start;
  }
  allreduce(ctx, us.data(), us.size(), static_cast<ReduceFn>(&gloo::max<double>));
  if (ctx->rank == 0) ar_report("gloo", ctx->size, &c, ar_median(us.data(), c.iters));
}

}  // namespace

int main(int argc, char** argv) {
  int warmup = 0;
  ar_case cases[AR_MAX_CASES];
  const int ncases = ar_parse(argc, argv, 2, &warmup, cases);
  const int rank = ar_env_int("RANK"), world = ar_env_int("WORLD_SIZE");
  try {
    gloo::rendezvous::FileStore store(argv[1]);
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, world);
    ctx->setTimeout(kTimeout);
    ctx->connectFullMesh(store, device);
    for (int i = 0; i < ncases; ++i) run_case(ctx, warmup, cases[i]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce_gloo rank %d: %s\n", rank, e.what());
    return 1;
  }
  return 0;
}
