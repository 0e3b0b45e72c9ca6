// Copy benchmarks: each contender reads the same source memory (tessera
// wraps torch's buffer with tsr_from_blob), so page state, cache state and
// alignment are identical and only the copy differs.
#include "copy_bench.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstring>

#include "bench_util.h"

namespace bench {

namespace {

// Memory a copy moves: every byte is read once and written once.
double moved_bytes(const at::Tensor& t) { return 2.0 * double(t.nbytes()); }

// torch owns the memory tessera wraps; nothing to free when tessera lets go.
// An explicit no-op rather than NULL: in this version a NULL deleter makes
// tessera free() the caller's memory (src/core/storage.cpp, ~Storage).
void leave_to_torch(void*, void*) {}

// A tessera handle over a torch tensor's memory (no copy; the torch tensor
// outlives the handle).
tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(),
                          TSR_FLOAT32, TSR_DEVICE_CPU, leave_to_torch, nullptr, &out));
  return out;
}

// The measured copy must produce torch's bytes; otherwise we would be timing
// the wrong thing. Checked once, outside the timed region.
void check_same_bytes(tsr_tensor* t, const at::Tensor& expected, const char* what) {
  if (std::memcmp(tsr_tensor_data_ptr(t), expected.data_ptr(), expected.nbytes()) != 0) {
    std::fprintf(stderr, "%s: tessera's result differs from torch's\n", what);
    std::abort();
  }
}

// GB/s is given from the median CPU time (what the copy costs when it has a
// core to itself, the useful figure on a loaded machine) and from the best
// wall time; the median wall time is what a caller waited.
void print_table(const char* title, const std::vector<Contender>& cs, const Samples& s,
                 double bytes) {
  std::printf("\n%s\n", title);
  std::printf("  %-44s %9s %9s %9s %9s %9s %10s %10s\n", "contender", "wall med", "wall min",
              "cpu med", "GB/s", "GB/s", "ratio", "ratio");
  std::printf("  %-44s %9s %9s %9s %9s %9s %10s %10s\n", "", "ms", "ms", "ms", "cpu med",
              "wall min", "wall", "cpu");
  rule();
  for (size_t i = 0; i < cs.size(); ++i) {
    double med = median(s.wall[i]), mn = minimum(s.wall[i]), cpu = median(s.cpu[i]);
    std::printf("  %-44s %9.2f %9.2f", cs[i].name.c_str(), med * 1e3, mn * 1e3);
    if (cs[i].multi_threaded)
      std::printf(" %9s %9s %9.2f %10.2f %10s\n", "-", "-", bytes / mn / 1e9,
                  paired_ratio(s.wall[0], s.wall[i]), "-");
    else
      std::printf(" %9.2f %9.2f %9.2f %10.2f %10.2f\n", cpu * 1e3, bytes / cpu / 1e9,
                  bytes / mn / 1e9, paired_ratio(s.wall[0], s.wall[i]),
                  paired_ratio(s.cpu[0], s.cpu[i]));
  }
}

// Times one layout change. src_torch/src_tsr are the same strided source;
// fmt/tfmt the target format; contiguous() allocates its result, the
// "into preallocated" table reuses one destination for every contender.
void run_case(const char* title, const at::Tensor& base, const at::Tensor& src_torch,
              tsr_tensor* src_tsr, tsr_memory_format fmt, at::MemoryFormat tfmt, int warmup,
              int rounds, const char* label) {
  const bool torch_mt = at::get_num_threads() > 1;
  const size_t n = base.nbytes();
  const double bytes = moved_bytes(base);

  at::Tensor expected = src_torch.contiguous(tfmt);
  {
    tsr_tensor* out = nullptr;
    BENCH_TSR(tsr_contiguous(src_tsr, fmt, &out));
    check_same_bytes(out, expected, title);
    tsr_tensor_release(out);
  }

  // A destination whose pages are already faulted in, shared by the
  // preallocated contenders; tessera sees it through a second handle.
  at::Tensor dst = at::zeros_like(expected);
  tsr_tensor* dst_tsr = wrap(dst);

  std::vector<Contender> alloc = {
      {"tessera tsr_contiguous", [&] {
         tsr_tensor* out = nullptr;
         BENCH_TSR(tsr_contiguous(src_tsr, fmt, &out));
         keep(tsr_tensor_data_ptr(out));
         tsr_tensor_release(out);
       }},
      // tessera's caching allocator hands the previous call's block back, so
      // the row above pays no page faults after warm-up; torch's CPU
      // allocator returns large blocks to the OS and pays them every call.
      // This row first empties tessera's cache (unmapping the block the row
      // above left there), so its own result lands on fresh pages, as
      // torch's does; the block it frees stays cached for the row above.
      {"tessera tsr_empty_cache + tsr_contiguous", [&] {
         BENCH_TSR(tsr_empty_cache(TSR_DEVICE_CPU, 0));
         tsr_tensor* out = nullptr;
         BENCH_TSR(tsr_contiguous(src_tsr, fmt, &out));
         keep(tsr_tensor_data_ptr(out));
         tsr_tensor_release(out);
       }},
      {"memcpy, preallocated dst (bandwidth bound)", [&] {
         std::memcpy(dst.data_ptr(), base.data_ptr(), n);
         keep(dst.data_ptr());
       }},
      {"aligned_alloc + memcpy + free (fresh dst)", [&] {
         void* p = std::aligned_alloc(64, n);
         std::memcpy(p, base.data_ptr(), n);
         keep(p);
         std::free(p);
       }},
      {"torch .contiguous()", [&] {
         at::Tensor out = src_torch.contiguous(tfmt);
         keep(out.data_ptr());
       },
       torch_mt},
  };
  auto s = measure_interleaved(alloc, warmup, rounds);
  std::string t1 = std::string(title) + " - allocating [" + label + "]";
  print_table(t1.c_str(), alloc, s, bytes);

  std::vector<Contender> pre = {
      {"tessera tsr_copy_(dst, src)", [&] {
         BENCH_TSR(tsr_copy_(dst_tsr, src_tsr));
         keep(dst.data_ptr());
       }},
      {"memcpy, preallocated dst", [&] {
         std::memcpy(dst.data_ptr(), base.data_ptr(), n);
         keep(dst.data_ptr());
       }},
      {"torch dst.copy_(src)", [&] {
         dst.copy_(src_torch);
         keep(dst.data_ptr());
       },
       torch_mt},
  };
  s = measure_interleaved(pre, warmup, rounds);
  std::string t2 = std::string(title) + " - into a preallocated dst [" + label + "]";
  print_table(t2.c_str(), pre, s, bytes);
  tsr_tensor_release(dst_tsr);
}

}  // namespace

void bench_transpose_copy(int warmup, int rounds, const char* label) {
  at::Tensor base = at::rand({4096, 4096}, at::kFloat);
  at::Tensor src = base.t();
  tsr_tensor* b = wrap(base);
  tsr_tensor* src_tsr = nullptr;
  BENCH_TSR(tsr_transpose(b, 0, 1, &src_tsr));
  run_case("1. contiguous() of transposed 4096x4096 float32 (64 MiB, 128 MiB moved)", base,
           src, src_tsr, TSR_CONTIGUOUS_FORMAT, at::MemoryFormat::Contiguous, warmup, rounds,
           label);
  tsr_tensor_release(src_tsr);
  tsr_tensor_release(b);
}

void bench_channels_last_copy(int warmup, int rounds, const char* label) {
  at::Tensor base = at::rand({32, 64, 56, 56}, at::kFloat);
  tsr_tensor* src_tsr = wrap(base);
  run_case("2. NCHW [32,64,56,56] float32 -> channels_last (24.5 MiB, 49 MiB moved)", base,
           base, src_tsr, TSR_CHANNELS_LAST, at::MemoryFormat::ChannelsLast, warmup, rounds,
           label);
  tsr_tensor_release(src_tsr);
}

}  // namespace bench
