// tsr_io_torch_bench: the torch.save row of bench/io (issue 10, item 7).
// The same data sets as tsr_io_bench (read with tsr_load, wrapped with
// torch::from_blob), saved with libtorch C++'s torch::save (a vector of
// tensors into one archive: the C++ side of torch.save) and read back with
// torch::load, beside tessera's plain tsr_save/tsr_load of the same
// tensors, at 1 and 2 threads (at::set_num_threads / tsr_set_num_threads).
// MB/s of raw tensor bytes per second of wall time, best of ROUNDS; torch's
// save has no fsync, tessera's does (its atomic replacement).
//   tsr_io_torch_bench DATA_DIR [TMP_DIR] [ROUNDS]
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "weight_set.h"

namespace {

using io_bench::check;
using io_bench::now;

torch::Dtype torch_dtype(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT32: return torch::kFloat32;
    case TSR_BFLOAT16: return torch::kBFloat16;
    case TSR_FLOAT16: return torch::kFloat16;
    default: std::fprintf(stderr, "unexpected dtype\n"); std::exit(1);
  }
}

// A weight set with torch views of the same memory.
struct Set : io_bench::WeightSet {
  std::vector<torch::Tensor> views;
};

Set load_set(const std::string& label, const std::string& path, tsr_dtype to) {
  Set s;
  static_cast<io_bench::WeightSet&>(s) = io_bench::load_weight_set(label, path, to);
  for (tsr_tensor* t : s.tensors)
    s.views.push_back(torch::from_blob(tsr_tensor_data_ptr(t), {tsr_tensor_numel(t)},
                                       torch::TensorOptions().dtype(torch_dtype(to))));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [TMP_DIR] [ROUNDS]\n", argv[0]);
    return 2;
  }
  const std::string data = argv[1];
  const std::string tmp = argc > 2 ? argv[2] : "/tmp";
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string tpath = tmp + "/tsr_io_torch_" + std::to_string(getpid()) + ".pt";
  const std::string spath = tmp + "/tsr_io_torch_" + std::to_string(getpid()) + ".safetensors";
  std::vector<Set> sets;
  sets.push_back(load_set("real f32", data + "/real_f32.safetensors", TSR_FLOAT32));
  sets.push_back(load_set("real f32->bf16", data + "/real_f32.safetensors", TSR_BFLOAT16));
  sets.push_back(load_set("real f16", data + "/real_f16.safetensors", TSR_FLOAT16));
  std::printf("| data | MB | thr | torch::save / torch::load MB/s | tsr_save / tsr_load plain MB/s "
              "| tessera/torch save, load |\n|---|---|---|---|---|---|\n");
  for (const Set& s : sets)
    for (int thr : {1, 2}) {
      at::set_num_threads(thr);
      check(tsr_set_num_threads(thr), "threads");
      double ts = 1e30, tl = 1e30, ss = 1e30, sl = 1e30;
      std::vector<const char*> names;
      for (const auto& n : s.names) names.push_back(n.c_str());
      for (int r = 0; r < rounds; ++r) {
        double t0 = now();
        torch::save(s.views, tpath);
        ts = std::min(ts, now() - t0);
        t0 = now();
        std::vector<torch::Tensor> back;
        torch::load(back, tpath);
        tl = std::min(tl, now() - t0);
        t0 = now();
        check(tsr_save(spath.c_str(), int64_t(names.size()), names.data(), s.tensors.data(), nullptr),
              "save");
        ss = std::min(ss, now() - t0);
        tsr_tensor_map* m = nullptr;
        t0 = now();
        check(tsr_load(spath.c_str(), nullptr, &m), "load");
        sl = std::min(sl, now() - t0);
        tsr_tensor_map_release(m);
      }
      std::printf("| %s | %.1f | %d | %.0f / %.0f | %.0f / %.0f | %.2f, %.2f |\n", s.label.c_str(),
                  s.bytes / 1e6, thr, s.bytes / ts / 1e6, s.bytes / tl / 1e6, s.bytes / ss / 1e6,
                  s.bytes / sl / 1e6, ts / ss, tl / sl);
      std::fflush(stdout);
    }
  unlink(tpath.c_str());
  unlink(spath.c_str());
  for (Set& s : sets)
    for (tsr_tensor* t : s.tensors) tsr_tensor_release(t);
  return 0;
}
