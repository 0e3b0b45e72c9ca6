// tsr_io_bench (issue 10, item 7): save and load throughput and compression
// ratio of tsr_save/tsr_load in the three modes (plain, zstd = format 0.1,
// zstd-planes = format 0.2) on real trained weights and on random data, at 1
// and 2 threads, side by side with memcpy of the same bytes; then the
// byte-plane transforms compared on the same data (the sign-bit rotation
// decision). Usage:
//
//   tsr_io_bench DATA_DIR [TMP_DIR] [ROUNDS]
//
// DATA_DIR holds real_f32.safetensors and real_f16.safetensors made by
// bench/io/tfjs_to_safetensors.py (see bench/README.md); bf16 rows are the
// f32 weights rounded to bfloat16 by tsr_to_dtype. TMP_DIR (default /tmp)
// gets the files written. Throughput counts raw tensor bytes per second of
// wall time, best of ROUNDS (default 3); a save includes its fsyncs, a load
// reads a file just written (page cache) and verifies checksums.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "io/chunked_codec.h"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(tsr_status st, const char* what) {
  if (st != TSR_OK) {
    std::fprintf(stderr, "%s: %s: %s\n", what, tsr_status_name(st), tsr_last_error_message());
    std::exit(1);
  }
}

struct Set {
  std::string label;
  std::vector<std::string> names;
  std::vector<tsr_tensor*> tensors;
  double bytes = 0;
};

Set load_set(const std::string& label, const std::string& path, tsr_dtype to) {
  tsr_tensor_map* m = nullptr;
  check(tsr_load(path.c_str(), nullptr, &m), path.c_str());
  Set s;
  s.label = label;
  for (int64_t i = 0; i < tsr_tensor_map_count(m); ++i) {
    tsr_tensor* t = nullptr;
    check(tsr_tensor_map_get(m, i, &t), "get");
    if (to != tsr_tensor_dtype(t)) {
      tsr_tensor* c = nullptr;
      check(tsr_to_dtype(t, to, &c), "to_dtype");
      tsr_tensor_release(t);
      t = c;
    }
    s.names.push_back(tsr_tensor_map_name(m, i));
    s.tensors.push_back(t);
    s.bytes += double(tsr_tensor_nbytes(t));
  }
  tsr_tensor_map_release(m);
  return s;
}

Set random_set(const std::string& label, int64_t numel, tsr_dtype dt) {
  tsr_generator* g = nullptr;
  check(tsr_generator_create(42, &g), "generator");
  tsr_tensor* t = nullptr;
  check(tsr_randn(1, &numel, TSR_FLOAT32, g, &t), "randn");
  tsr_generator_release(g);
  if (dt != TSR_FLOAT32) {
    tsr_tensor* c = nullptr;
    check(tsr_to_dtype(t, dt, &c), "to_dtype");
    tsr_tensor_release(t);
    t = c;
  }
  Set s;
  s.label = label;
  s.names.push_back("randn");
  s.tensors.push_back(t);
  s.bytes = double(tsr_tensor_nbytes(t));
  return s;
}

struct Result {
  double ratio = 0, save = 0, load = 0;  // raw / file bytes; MB/s
};

Result measure(const Set& s, const std::string& path, tsr_compression c, int rounds) {
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = c;
  std::vector<const char*> names;
  for (const auto& n : s.names) names.push_back(n.c_str());
  double best_save = 1e30, best_load = 1e30;
  for (int r = 0; r < rounds; ++r) {
    double t0 = now();
    check(tsr_save(path.c_str(), int64_t(names.size()), names.data(), s.tensors.data(), &o), "save");
    best_save = std::min(best_save, now() - t0);
    tsr_tensor_map* m = nullptr;
    t0 = now();
    check(tsr_load(path.c_str(), nullptr, &m), "load");
    best_load = std::min(best_load, now() - t0);
    tsr_tensor_map_release(m);
  }
  struct stat st;
  stat(path.c_str(), &st);
  Result res;
  res.ratio = s.bytes / double(st.st_size);
  res.save = s.bytes / best_save / 1e6;
  res.load = s.bytes / best_load / 1e6;
  unlink(path.c_str());
  return res;
}

double memcpy_mbs(const Set& s, int rounds) {
  std::vector<char> dst(size_t(s.bytes));
  double best = 1e30;
  for (int r = 0; r < rounds + 1; ++r) {  // the first touches dst's pages
    double t0 = now();
    size_t at = 0;
    for (tsr_tensor* t : s.tensors) {
      const size_t n = size_t(tsr_tensor_nbytes(t));
      std::memcpy(dst.data() + at, tsr_tensor_data_ptr(t), n);
      at += n;
    }
    asm volatile("" : : "r"(dst.data()) : "memory");
    if (r > 0) best = std::min(best, now() - t0);
  }
  return s.bytes / best / 1e6;
}

// Raw / stored bytes of the set through the codec with one transform and level.
double transform_ratio(const Set& s, tsr::io::planes::Transform t, int level) {
  double stored = 0;
  for (tsr_tensor* x : s.tensors) {
    tsr::io::planes::EncodeOptions opt;
    opt.transform = t;
    opt.level = level;
    const size_t n = size_t(tsr_tensor_nbytes(x));
    stored += double(tsr::io::planes::encode(tsr_tensor_data_ptr(x), n,
                                             size_t(tsr_tensor_element_size(x)), opt,
                                             [](const void*, size_t) {})
                         .length);
  }
  return s.bytes / stored;
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
  const std::string path = tmp + "/tsr_io_bench_" + std::to_string(getpid()) + ".safetensors";

  std::vector<Set> sets;
  sets.push_back(load_set("real f32", data + "/real_f32.safetensors", TSR_FLOAT32));
  sets.push_back(load_set("real f32->bf16", data + "/real_f32.safetensors", TSR_BFLOAT16));
  sets.push_back(load_set("real f16", data + "/real_f16.safetensors", TSR_FLOAT16));
  sets.push_back(random_set("randn f32", int64_t(8) << 20, TSR_FLOAT32));
  sets.push_back(random_set("randn bf16", int64_t(8) << 20, TSR_BFLOAT16));

  std::printf("Throughput: raw MB/s, best of %d; ratio = raw bytes / file bytes.\n\n", rounds);
  std::printf("| data | MB | thr | memcpy MB/s | plain save / load | zstd 0.1: ratio, save / load "
              "| zstd-planes 0.2: ratio, save / load | planes/zstd: ratio, save, load |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Set& s : sets)
    for (int thr : {1, 2}) {
      check(tsr_set_num_threads(thr), "threads");
      const double mc = memcpy_mbs(s, rounds);
      const Result p = measure(s, path, TSR_COMPRESSION_NONE, rounds);
      const Result z = measure(s, path, TSR_COMPRESSION_ZSTD, rounds);
      const Result q = measure(s, path, TSR_COMPRESSION_ZSTD_PLANES, rounds);
      std::printf("| %s | %.1f | %d | %.0f | %.0f / %.0f | %.3fx, %.0f / %.0f | %.3fx, %.0f / %.0f "
                  "| %.2f, %.2f, %.2f |\n",
                  s.label.c_str(), s.bytes / 1e6, thr, mc, p.save, p.load, z.ratio, z.save, z.load,
                  q.ratio, q.save, q.load, q.ratio / z.ratio, q.save / z.save, q.load / z.load);
      std::fflush(stdout);
    }

  using tsr::io::planes::Transform;
  check(tsr_set_num_threads(1), "threads");
  std::printf("\nByte-plane transforms, 1 MiB chunks: ratio at zstd level 1 (the "
              "zstd-planes default) and 3\n\n");
  std::printf("| data | no planes L1 | planes L1 | planes + sign rotation L1 | no planes L3 "
              "| planes L3 | planes + sign rotation L3 |\n|---|---|---|---|---|---|---|\n");
  for (const Set& s : sets) {
    std::printf("| %s", s.label.c_str());
    for (int level : {1, 3})
      for (Transform t : {Transform::kNone, Transform::kPlanes, Transform::kPlanesSignRot})
        std::printf(" | %.3fx", transform_ratio(s, t, level));
    std::printf(" |\n");
  }
  for (Set& s : sets)
    for (tsr_tensor* t : s.tensors) tsr_tensor_release(t);
  return 0;
}
