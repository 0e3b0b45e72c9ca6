// tsr_io_bench (issue 10, item 7): save and load throughput and compression
// ratio of tsr_save/tsr_load in the three modes (plain, zstd = format 0.1,
// zstd-planes = format 0.2) on real trained weights and on random data, at 1
// and 2 threads, side by side with memcpy of the same bytes; then the
// byte-plane transforms compared on the same data (the sign-bit rotation
// decision). Usage:
//
//   tsr_io_bench DATA_DIR [TMP_DIR] [ROUNDS] [codec | planes | open]
//
// DATA_DIR holds real_f32.safetensors and real_f16.safetensors made by
// bench/io/tfjs_to_safetensors.py (see bench/README.md); bf16 rows are the
// f32 weights rounded to bfloat16 by tsr_to_dtype. TMP_DIR (default /tmp)
// gets the files written. Throughput counts raw tensor bytes per second of
// wall time, best of ROUNDS (default 3); a save includes its fsyncs, a load
// reads a file just written (page cache) and verifies checksums. Last, the
// codec alone in memory, MB/s of wall and CPU time ("codec": only that;
// "planes": only zstd-planes tsr_save/tsr_load of the real weights, wall
// and CPU time; "open": only the 256 MB open + first tensor table).
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
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
#include "weight_set.h"
#include "io/posix_file.h"

namespace {

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

using Set = io_bench::WeightSet;
using io_bench::check;
using io_bench::now;

Set load_set(const std::string& label, const std::string& path, tsr_dtype to) {
  return io_bench::load_weight_set(label, path, to);
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

// tsr_save / tsr_load of the set in one mode: MB/s of wall time (best
// round) and of process CPU time (that round's, all threads).
struct Result {
  double ratio = 0, save = 0, load = 0;  // raw / file bytes; MB/s
  double save_cpu = 0, load_cpu = 0;
};

Result measure(const Set& s, const std::string& path, tsr_compression c, int rounds) {
  tsr_save_options o = TSR_SAVE_OPTIONS_INIT;
  o.compression = c;
  std::vector<const char*> names;
  for (const auto& n : s.names) names.push_back(n.c_str());
  double sw = 1e30, sc = 0, lw = 1e30, lc = 0;
  for (int r = 0; r < rounds; ++r) {
    unlink(path.c_str());  // untimed: see fresh_file_note
    double t0 = now(), c0 = cpu_now();
    check(tsr_save(path.c_str(), int64_t(names.size()), names.data(), s.tensors.data(), &o), "save");
    double w = now() - t0, cp = cpu_now() - c0;
    if (w < sw) sw = w, sc = cp;
    tsr_tensor_map* m = nullptr;
    t0 = now(), c0 = cpu_now();
    check(tsr_load(path.c_str(), nullptr, &m), "load");
    w = now() - t0, cp = cpu_now() - c0;
    if (w < lw) lw = w, lc = cp;
    tsr_tensor_map_release(m);
  }
  struct stat st;
  stat(path.c_str(), &st);
  unlink(path.c_str());
  Result res;
  res.ratio = s.bytes / double(st.st_size);
  res.save = s.bytes / sw / 1e6;
  res.save_cpu = s.bytes / sc / 1e6;
  res.load = s.bytes / lw / 1e6;
  res.load_cpu = s.bytes / lc / 1e6;
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

// Printed above the tables: why each timed save writes a new file.
const char* const fresh_file_note =
    "Every save (tessera's and raw write alike) writes a new file: the previous one is "
    "removed before the clock starts. Replacing a file also frees the old one's blocks, "
    "which on this machine's ext4 (mounted with `discard`) costs about 4 ms per save, "
    "whatever the writer.";

// The floor for a save and a load of the set's bytes: one write() of all of
// them from one buffer into a new file, fsync, close; and one read() of
// that file (just written: page cache) into a buffer. MB/s, best of rounds.
struct RawIo {
  double write = 0, read = 0;
};
RawIo raw_io(const Set& s, const std::string& path, int rounds) {
  std::vector<char> src(size_t(s.bytes)), dst(size_t(s.bytes), 1);
  size_t at = 0;
  for (tsr_tensor* t : s.tensors) {
    const size_t n = size_t(tsr_tensor_nbytes(t));
    std::memcpy(src.data() + at, tsr_tensor_data_ptr(t), n);
    at += n;
  }
  auto all = [&](auto op, char* p) {  // write() or read() until every byte moved
    for (size_t k = 0; k < src.size();) {
      const ssize_t got = op(p + k, src.size() - k);
      if (got <= 0) {
        std::perror("raw io");
        std::exit(1);
      }
      k += size_t(got);
    }
  };
  double bw = 1e30, br = 1e30;
  for (int r = 0; r < rounds; ++r) {
    unlink(path.c_str());
    double t0 = now();
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    all([&](char* p, size_t n) { return write(fd, p, n); }, src.data());
    if (fsync(fd) != 0 || close(fd) != 0) std::exit(1);
    bw = std::min(bw, now() - t0);
    t0 = now();
    fd = open(path.c_str(), O_RDONLY);
    all([&](char* p, size_t n) { return read(fd, p, n); }, dst.data());
    close(fd);
    br = std::min(br, now() - t0);
  }
  unlink(path.c_str());
  return {s.bytes / bw / 1e6, s.bytes / br / 1e6};
}

// Issue 10's "mmap open + first tensor < 1 ms for a 256 MB file": a plain
// file of 64 float32 tensors of 4 MiB; tsr_open_file + tsr_file_get of the
// first tensor + a read of its first element + release, from the page cache
// ("warm") and with the file's pages dropped first (posix_fadvise
// DONTNEED: "cold", reading the disk), beside tsr_load of the whole file.
void open_first_tensor_table(const std::string& path, int rounds) {
  constexpr int kTensors = 64;
  constexpr int64_t kNumel = int64_t(1) << 20;
  std::vector<tsr_tensor*> ts;
  std::vector<std::string> names;
  for (int i = 0; i < kTensors; ++i) {
    tsr_tensor* t = nullptr;
    check(tsr_full(1, &kNumel, 0.5 + i, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &t), "full");
    ts.push_back(t);
    char name[32];
    std::snprintf(name, sizeof name, "layer%02d.weight", i);
    names.push_back(name);
  }
  std::vector<const char*> cnames;
  for (const auto& n : names) cnames.push_back(n.c_str());
  check(tsr_save(path.c_str(), kTensors, cnames.data(), ts.data(), nullptr), "save 256 MB");
  for (tsr_tensor* t : ts) tsr_tensor_release(t);
  auto drop_pages = [&] {
    const int fd = open(path.c_str(), O_RDONLY);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  };
  tsr_load_options trusted = TSR_LOAD_OPTIONS_INIT;
  trusted.skip_checksums = 1;
  auto open_first = [&](const tsr_load_options* opts) {
    const double t0 = now();
    tsr_file* f = nullptr;
    check(tsr_open_file(path.c_str(), opts, &f), "open_file");
    tsr_tensor* t = nullptr;
    check(tsr_file_get(f, 0, &t), "file_get");
    volatile float first = *static_cast<const float*>(tsr_tensor_data_ptr(t));
    (void)first;
    tsr_tensor_release(t);
    tsr_file_release(f);
    return now() - t0;
  };
  auto load_all = [&] {
    const double t0 = now();
    tsr_tensor_map* m = nullptr;
    check(tsr_load(path.c_str(), nullptr, &m), "load 256 MB");
    tsr_tensor_map_release(m);
    return now() - t0;
  };
  std::vector<double> warm, cold, warm_trusted, cold_trusted, load_warm, load_cold;
  for (int r = 0; r < std::max(rounds, 5); ++r) {
    warm.push_back(open_first(nullptr));
    warm_trusted.push_back(open_first(&trusted));
    load_warm.push_back(load_all());
    drop_pages();
    cold.push_back(open_first(nullptr));
    drop_pages();
    cold_trusted.push_back(open_first(&trusted));
    drop_pages();
    load_cold.push_back(load_all());
  }
  auto median_ms = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return 1e3 * v[v.size() / 2];
  };
  std::printf("\nOpen a 256 MiB plain file (64 float32 tensors of 4 MiB) and get its first "
              "tensor (tsr_open_file + tsr_file_get + read one element + release: a view of "
              "the mapping), beside tsr_load of the whole file (checksums verified); ms, "
              "median of %d; warm = page cache, cold = the file's pages dropped "
              "(posix_fadvise DONTNEED)\n\n| | warm ms | cold ms |\n|---|---|---|\n",
              std::max(rounds, 5));
  std::printf("| tsr_open_file + first tensor (its 4 MiB checksummed) | %.3f | %.3f |\n",
              median_ms(warm), median_ms(cold));
  std::printf("| the same, skip_checksums | %.3f | %.3f |\n", median_ms(warm_trusted),
              median_ms(cold_trusted));
  std::printf("| tsr_load, all 64 tensors | %.1f | %.1f |\n", median_ms(load_warm),
              median_ms(load_cold));
  unlink(path.c_str());
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

// The codec alone, in memory (encode into a buffer; decode from a file in
// the page cache): MB/s of wall and of process CPU time (all threads).
struct CodecSpeed {
  double enc_wall = 0, enc_cpu = 0, dec_wall = 0, dec_cpu = 0;
};
CodecSpeed codec_speed(const Set& s, const std::string& path, int rounds) {
  namespace pl = tsr::io::planes;
  // Every tensor through one encode_many, as tsr_save encodes them: the
  // chunks of many small tensors in one parallel pass.
  std::vector<pl::EncodeInput> in;
  for (tsr_tensor* x : s.tensors) {
    pl::EncodeOptions opt;
    opt.transform = pl::default_transform(tsr_tensor_dtype(x));
    in.push_back(pl::EncodeInput{tsr_tensor_data_ptr(x), size_t(tsr_tensor_nbytes(x)),
                                 size_t(tsr_tensor_element_size(x)), opt});
  }
  std::string all;
  std::vector<uint64_t> stored_len(s.tensors.size());
  double ew = 1e30, ec = 1e30, dw = 1e30, dc = 1e30;
  for (int r = 0; r < rounds; ++r) {
    all.clear();
    double w0 = now(), c0 = cpu_now();
    pl::encode_many(
        in, [&](const void* d, size_t n) { all.append(static_cast<const char*>(d), n); },
        [&](size_t i, const pl::Encoded& e) { stored_len[i] = e.length; });
    ew = std::min(ew, now() - w0);
    ec = std::min(ec, cpu_now() - c0);
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(all.data(), 1, all.size(), f);
  std::fclose(f);
  tsr::io::ReadFile rf(path);
  std::vector<char> dst(size_t(s.bytes));
  for (int r = 0; r < rounds; ++r) {
    double w0 = now(), c0 = cpu_now();
    uint64_t off = 0, at = 0;
    for (size_t i = 0; i < s.tensors.size(); ++i) {
      tsr_tensor* x = s.tensors[i];
      const uint64_t n = uint64_t(tsr_tensor_nbytes(x));
      pl::Index ix = pl::read_index(rf, off, stored_len[i], n,
                                    size_t(tsr_tensor_element_size(x)), "t");
      pl::decode_range(rf, off, ix, 0, n, dst.data() + at, "t", true);
      off += stored_len[i];
      at += n;
    }
    dw = std::min(dw, now() - w0);
    dc = std::min(dc, cpu_now() - c0);
  }
  unlink(path.c_str());
  return {s.bytes / ew / 1e6, s.bytes / ec / 1e6, s.bytes / dw / 1e6, s.bytes / dc / 1e6};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [TMP_DIR] [ROUNDS] [codec | planes | open]\n", argv[0]);
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

  if (argc > 4 && std::strcmp(argv[4], "planes") == 0) {  // zstd-planes save/load alone
    std::printf("zstd-planes tsr_save / tsr_load alone: raw MB/s of wall time (best of %d) and "
                "of CPU time (all threads, same round)\n\n| data | MB | thr | ratio | save wall | "
                "save cpu | load wall | load cpu |\n|---|---|---|---|---|---|---|---|\n", rounds);
    for (size_t k = 0; k < 3; ++k)
      for (int thr : {1, 2}) {
        check(tsr_set_num_threads(thr), "threads");
        const Result q = measure(sets[k], path, TSR_COMPRESSION_ZSTD_PLANES, rounds);
        std::printf("| %s | %.1f | %d | %.3fx | %.0f | %.0f | %.0f | %.0f |\n", sets[k].label.c_str(),
                    sets[k].bytes / 1e6, thr, q.ratio, q.save, q.save_cpu, q.load,
                    q.load_cpu);
        std::fflush(stdout);
      }
    return 0;
  }
  if (argc > 4 && std::strcmp(argv[4], "open") == 0) {  // the 256 MB open table only
    open_first_tensor_table(path, rounds);
    return 0;
  }
  const bool codec_only = argc > 4 && std::strcmp(argv[4], "codec") == 0;  // the last table only
  if (!codec_only) {
  std::printf("Throughput: raw MB/s, best of %d; ratio = raw bytes / file bytes. %s\n\n",
              rounds, fresh_file_note);
  std::printf("| data | MB | thr | memcpy MB/s | raw write+fsync / read | plain save / load | "
              "plain / raw: save, load | zstd 0.1: ratio, save / load "
              "| zstd-planes 0.2: ratio, save / load | planes/zstd: ratio, save, load |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Set& s : sets)
    for (int thr : {1, 2}) {
      check(tsr_set_num_threads(thr), "threads");
      const double mc = memcpy_mbs(s, rounds);
      const RawIo raw = raw_io(s, path, rounds);
      const Result p = measure(s, path, TSR_COMPRESSION_NONE, rounds);
      const Result z = measure(s, path, TSR_COMPRESSION_ZSTD, rounds);
      const Result q = measure(s, path, TSR_COMPRESSION_ZSTD_PLANES, rounds);
      std::printf("| %s | %.1f | %d | %.0f | %.0f / %.0f | %.0f / %.0f | %.2f, %.2f | %.3fx, %.0f / "
                  "%.0f | %.3fx, %.0f / %.0f | %.2f, %.2f, %.2f |\n",
                  s.label.c_str(), s.bytes / 1e6, thr, mc, raw.write, raw.read, p.save, p.load,
                  p.save / raw.write, p.load / raw.read, z.ratio, z.save, z.load,
                  q.ratio, q.save, q.load, q.ratio / z.ratio, q.save / z.save, q.load / z.load);
      std::fflush(stdout);
    }

  using tsr::io::planes::Transform;
  check(tsr_set_num_threads(1), "threads");
  std::printf("\nByte-plane transforms, 1 MiB chunks: ratio at the zstd-planes default (level "
              "1, minMatch 7, windowLog 13, hashLog 8, targetLength 64 for planes) and at zstd level 3\n\n");
  std::printf("| data | no planes, default | planes, default | planes + sign rotation, default "
              "| no planes, L3 | planes, L3 | planes + sign rotation, L3 |\n"
              "|---|---|---|---|---|---|---|\n");
  for (const Set& s : sets) {
    std::printf("| %s", s.label.c_str());
    for (int level : {0, 3})
      for (Transform t : {Transform::kNone, Transform::kPlanes, Transform::kPlanesSignRot})
        std::printf(" | %.3fx", transform_ratio(s, t, level));
    std::printf(" |\n");
  }
    open_first_tensor_table(path, rounds);
  }  // !codec_only
  std::printf("\nThe zstd-planes codec alone (no file writes; encode: every tensor in one "
              "encode_many pass, as tsr_save; decode: tensor by tensor, each one's chunks in "
              "parallel, reading the page cache and checking each chunk's XXH3): MB/s of wall "
              "time and of CPU time (all threads)\n\n");
  std::printf("| data | thr | encode wall | encode cpu | decode wall | decode cpu |\n"
              "|---|---|---|---|---|---|\n");
  for (const Set& s : sets)
    for (int thr : {1, 2}) {
      check(tsr_set_num_threads(thr), "threads");
      const CodecSpeed c = codec_speed(s, path, rounds);
      std::printf("| %s | %d | %.0f | %.0f | %.0f | %.0f |\n", s.label.c_str(), thr, c.enc_wall,
                  c.enc_cpu, c.dec_wall, c.dec_cpu);
      std::fflush(stdout);
    }
  for (Set& s : sets)
    for (tsr_tensor* t : s.tensors) tsr_tensor_release(t);
  return 0;
}
