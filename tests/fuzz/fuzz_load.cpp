// libFuzzer target: tsr_load and tsr_open_file on arbitrary bytes, the way
// an attacker hands tessera a file. Each input is loaded twice, with checksum verification
// (the default) and without (so mutations get past the header checksum and
// reach the parser, the layout checks and the zstd frame walk). A load must
// either succeed, every tensor then readable, or fail with a message and
// nothing returned. Then it is opened lazily (tsr_open_file, both ways) and
// each tensor got alone (a view of the mapping, or one frame decompressed),
// with the same rule per call; anything else (a crash, a sanitizer report, a leak, an
// allocation past libFuzzer's RSS limit) is a finding.
//
// Run: fuzz_load -max_total_time=60 CORPUS_DIR (seeds: fuzz_seed_corpus).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include <tessera/tessera.h>

namespace {

// The input as a file: a memfd, reopened through /proc like any path.
const char* as_file(const uint8_t* data, size_t size) {
  static int fd = memfd_create("fuzz_load", 0);
  static char path[64];
  if (fd < 0 || ftruncate(fd, 0) != 0) __builtin_trap();
  for (size_t done = 0; done < size;) {
    const ssize_t w = pwrite(fd, data + done, size - done, off_t(done));
    if (w <= 0) __builtin_trap();
    done += size_t(w);
  }
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return path;
}

void read_everything(const tsr_tensor_map* m) {
  const int64_t n = tsr_tensor_map_count(m);
  for (int64_t i = 0; i < n; ++i) {
    tsr_tensor* t = nullptr;
    if (tsr_tensor_map_get(m, i, &t) != TSR_OK || !tsr_tensor_map_name(m, i)) __builtin_trap();
    std::vector<unsigned char> bytes(size_t(tsr_tensor_nbytes(t)));
    if (tsr_copy_to_buffer(t, bytes.data(), bytes.size(), nullptr) != TSR_OK) __builtin_trap();
    tsr_tensor_release(t);
  }
  for (int64_t i = 0; i < tsr_tensor_map_metadata_count(m); ++i)
    if (!tsr_tensor_map_metadata_key(m, i) || !tsr_tensor_map_metadata_value(m, i)) __builtin_trap();
}

// tsr_open_file, then every tensor by itself, and half of its rows: each
// get succeeds and is readable, or fails saying why and returns nothing.
void open_lazily(const char* path, int skip) {
  tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
  o.skip_checksums = skip;
  tsr_file* f = nullptr;
  if (tsr_open_file(path, &o, &f) != TSR_OK) {
    if (f != nullptr || tsr_last_error_message()[0] == '\0') __builtin_trap();
    return;
  }
  for (int64_t i = 0; i < tsr_file_count(f); ++i) {
    tsr_tensor* t = nullptr;
    int64_t ndim = 0;
    const int64_t* sizes = nullptr;
    if (!tsr_file_name(f, i) || tsr_file_tensor_info(f, i, nullptr, &ndim, &sizes) != TSR_OK)
      __builtin_trap();
    // The second half of dim 0's rows alone (tsr_file_get_slice: only the
    // chunks holding them), as for a whole tensor: readable or refused.
    if (ndim > 0) {
      if (tsr_file_get_slice(f, i, sizes[0] / 2, sizes[0], &t) == TSR_OK) {
        std::vector<unsigned char> rows(size_t(tsr_tensor_nbytes(t)));
        if (tsr_copy_to_buffer(t, rows.data(), rows.size(), nullptr) != TSR_OK) __builtin_trap();
        tsr_tensor_release(t);
      } else if (t != nullptr || tsr_last_error_message()[0] == '\0') {
        __builtin_trap();
      }
      t = nullptr;
    }
    if (tsr_file_get(f, i, &t) != TSR_OK) {
      if (t != nullptr || tsr_last_error_message()[0] == '\0') __builtin_trap();
      continue;
    }
    std::vector<unsigned char> bytes(size_t(tsr_tensor_nbytes(t)));
    if (tsr_copy_to_buffer(t, bytes.data(), bytes.size(), nullptr) != TSR_OK) __builtin_trap();
    tsr_tensor_release(t);
  }
  tsr_file_release(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = as_file(data, size);
  for (int skip : {0, 1}) {
    tsr_load_options o = TSR_LOAD_OPTIONS_INIT;
    o.skip_checksums = skip;
    tsr_tensor_map* m = nullptr;
    if (tsr_load(path, &o, &m) == TSR_OK) {
      read_everything(m);
      tsr_tensor_map_release(m);
    } else if (m != nullptr || tsr_last_error_message()[0] == '\0') {
      __builtin_trap();  // a failure must say why and return nothing
    }
    open_lazily(path, skip);
  }
  return 0;
}
