// See convert_bench.h. Every contender works on the same memory: tessera's
// handles wrap torch's buffers (tsr_from_blob), so page state, alignment and
// cache state are the same and only the copy differs. Destinations are
// preallocated and already faulted in, so the figures are the kernels alone.
#include "convert_bench.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "bench_util.h"

namespace bench {

namespace {

void leave_to_torch(void*, void*) {}

tsr_dtype tsr_dtype_of(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kHalf: return TSR_FLOAT16;
    case at::kBFloat16: return TSR_BFLOAT16;
    case at::kDouble: return TSR_FLOAT64;
    default: return TSR_FLOAT32;
  }
}

// A tessera handle over a torch tensor's memory, same sizes and strides.
tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  // from_blob takes the address of element [0...]; the storage offset is
  // already in data_ptr().
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(),
                          tsr_dtype_of(t), TSR_DEVICE_CPU, leave_to_torch, nullptr, &out));
  return out;
}

struct Row {
  std::string name;
  double tsr_ms, torch_ms, memcpy_ms, vs_memcpy, vs_torch;
};

// One case: dst.copy_(src) by tessera and torch, and memcpy of `floor_bytes`
// (the case's larger tensor) between two preallocated buffers.
Row run_case(const std::string& name, const at::Tensor& dst, const at::Tensor& src,
             size_t floor_bytes, bool multi, int warmup, int rounds) {
  tsr_tensor* d = wrap(dst);
  tsr_tensor* s = wrap(src);
  // The measured copy must give torch's bytes; checked once, untimed.
  at::Tensor expected = at::empty_like(dst);
  expected.copy_(src);
  BENCH_TSR(tsr_copy_(d, s));
  if (std::memcmp(dst.data_ptr(), expected.data_ptr(), dst.nbytes()) != 0) {
    std::fprintf(stderr, "%s: tessera's result differs from torch's\n", name.c_str());
    std::abort();
  }
  at::Tensor from = at::empty({int64_t(floor_bytes)}, at::kByte).fill_(1);
  at::Tensor to = at::empty({int64_t(floor_bytes)}, at::kByte).fill_(2);
  std::vector<Contender> cs = {
      {"tessera", [&] { BENCH_TSR(tsr_copy_(d, s)); keep(dst.data_ptr()); }, multi},
      {"torch", [&] { dst.copy_(src); keep(dst.data_ptr()); }, multi},
      {"memcpy", [&] {
         std::memcpy(to.data_ptr(), from.data_ptr(), floor_bytes);
         keep(to.data_ptr());
       }},
  };
  Samples sm = measure_interleaved(cs, warmup, rounds);
  tsr_tensor_release(d);
  tsr_tensor_release(s);
  // Multi-threaded contenders: wall time (CPU time misses the workers).
  const auto& t = multi ? sm.wall : sm.cpu;
  return {name,
          median(t[0]) * 1e3,
          median(t[1]) * 1e3,
          median(t[2]) * 1e3,
          multi ? paired_ratio(sm.wall[0], sm.wall[2]) : paired_ratio(sm.cpu[0], sm.cpu[2]),
          multi ? paired_ratio(sm.wall[0], sm.wall[1]) : paired_ratio(sm.cpu[0], sm.cpu[1])};
}

void table(int threads, int warmup, int rounds) {
  BENCH_TSR(tsr_set_num_threads(threads));
  at::set_num_threads(threads);
  const bool multi = threads > 1;
  std::vector<Row> rows;
  const int64_t n = 16 << 20;  // 16 Mi elements: 64 MiB of float32
  {
    at::Tensor f32 = at::rand({n}), f16 = f32.to(at::kHalf), bf16 = f32.to(at::kBFloat16);
    at::Tensor f32_out = at::empty_like(f32).zero_(), h_out = at::empty_like(f16).zero_(),
               b_out = at::empty_like(bf16).zero_();
    const size_t big = f32.nbytes();
    rows.push_back(run_case("f16 -> f32, 16 Mi elements (32 -> 64 MiB)", f32_out, f16, big, multi, warmup, rounds));
    rows.push_back(run_case("f32 -> f16 (64 -> 32 MiB)", h_out, f32, big, multi, warmup, rounds));
    rows.push_back(run_case("f32 -> bf16 (64 -> 32 MiB)", b_out, f32, big, multi, warmup, rounds));
    rows.push_back(run_case("bf16 -> f32 (32 -> 64 MiB)", f32_out, bf16, big, multi, warmup, rounds));
  }
  {
    at::Tensor out = at::empty({4096, 4096}).zero_();
    at::Tensor col = at::rand({4096, 1}), row = at::rand({1, 4096});
    rows.push_back(run_case("expand [4096,1] -> [4096,4096] f32", out, col.expand({4096, 4096}),
                            out.nbytes(), multi, warmup, rounds));
    rows.push_back(run_case("expand [1,4096] -> [4096,4096] f32", out, row.expand({4096, 4096}),
                            out.nbytes(), multi, warmup, rounds));
    at::Tensor sq = at::rand({4096, 4096});
    rows.push_back(run_case("transpose 4096^2 f32 -> contiguous", out, sq.t(), out.nbytes(), multi,
                            warmup, rounds));
  }
  {
    at::Tensor x = at::rand({32, 64, 56, 56});
    at::Tensor cl = x.contiguous(at::MemoryFormat::ChannelsLast);
    at::Tensor to_cl = at::empty_like(cl).zero_(), to_c = at::empty_like(x).zero_();
    rows.push_back(run_case("[32,64,56,56] f32 contiguous -> channels_last", to_cl, x, x.nbytes(),
                            multi, warmup, rounds));
    rows.push_back(run_case("[32,64,56,56] f32 channels_last -> contiguous", to_c, cl, x.nbytes(),
                            multi, warmup, rounds));
  }
  {
    at::Tensor x = at::rand({16, 32, 32, 32, 32});
    at::Tensor p = x.permute({0, 2, 4, 1, 3});
    at::Tensor out = at::empty(p.sizes()).zero_();
    rows.push_back(run_case("permute(0,2,4,1,3) of [16,32,32,32,32] f32", out, p, x.nbytes(), multi,
                            warmup, rounds));
  }
  {
    at::Tensor x = at::rand({4096, 8192});
    at::Tensor s = x.slice(1, 0, 8192, 2);
    at::Tensor out = at::empty(s.sizes()).zero_();
    rows.push_back(run_case("x[:, ::2] of [4096,8192] f32 -> contiguous", out, s, out.nbytes(),
                            multi, warmup, rounds));
  }
  std::printf("\nCopies into preallocated destinations, tessera and torch on %d thread(s); %s\n",
              threads, multi ? "wall-clock medians" : "CPU-time medians (this thread)");
  std::printf("  %-48s %9s %9s %9s %11s %11s\n", "case", "tessera", "torch", "memcpy",
              "tsr/memcpy", "tsr/torch");
  std::printf("  %-48s %9s %9s %9s %11s %11s\n", "", "ms", "ms", "ms", "", "");
  rule();
  for (const Row& r : rows)
    std::printf("  %-48s %9.2f %9.2f %9.2f %11.2f %11.2f\n", r.name.c_str(), r.tsr_ms, r.torch_ms,
                r.memcpy_ms, r.vs_memcpy, r.vs_torch);
}

}  // namespace

void bench_conversions(int warmup, int rounds) {
  const int cores = int(std::thread::hardware_concurrency());
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf(
      "\nConversions and layout copies (issue 12): CPU %s, %d hardware threads.\n"
      "OPENBLAS_CORETYPE=%s (left as the machine set it; no case here calls BLAS).\n"
      "memcpy copies the case's larger tensor (64 MiB, or 24.5 MiB for channels_last)\n"
      "between two preallocated buffers on one thread. Ratios: median over rounds of\n"
      "tessera's time / the other's in the same round (> 1: tessera slower).\n",
      cpu_model().c_str(), cores, coretype ? coretype : "(unset)");
  const int64_t before = tsr_get_num_threads();
  const int torch_before = at::get_num_threads();
  table(1, warmup, rounds);
  if (cores > 1) table(cores, warmup, rounds);
  BENCH_TSR(tsr_set_num_threads(before));
  at::set_num_threads(torch_before);
}

}  // namespace bench
