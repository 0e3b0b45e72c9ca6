// What tsr_io_bench and tsr_io_torch_bench share: a wall clock, a status
// check that exits with the message, and a file's tensors loaded as one
// named set converted to one dtype.
#pragma once

#include <tessera/tessera.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace io_bench {

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void check(tsr_status st, const char* what) {
  if (st != TSR_OK) {
    std::fprintf(stderr, "%s: %s: %s\n", what, tsr_status_name(st), tsr_last_error_message());
    std::exit(1);
  }
}

// The tensors of the file at path, each converted to `to` (owned here:
// released by the process's exit), and their bytes in that dtype.
struct WeightSet {
  std::string label;
  std::vector<std::string> names;
  std::vector<tsr_tensor*> tensors;
  double bytes = 0;
};

inline WeightSet load_weight_set(const std::string& label, const std::string& path, tsr_dtype to) {
  tsr_tensor_map* m = nullptr;
  check(tsr_load(path.c_str(), nullptr, &m), path.c_str());
  WeightSet s;
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

}  // namespace io_bench
