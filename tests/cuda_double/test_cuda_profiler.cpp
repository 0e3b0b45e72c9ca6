// The profiler's CUDA activity on the emulated CUDA device (the plugin's
// host code over the runtime double, kernels run by the grid emulator in
// stream order): each op on a CUDA tensor gets a device time from timing
// events around its launches, the table gains torch's CUDA columns and
// sort keys, and the chrome trace puts the device times on their own
// track. Public headers only; the plugin comes through $TSR_CUDA_PLUGIN.
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct T {
  tsr_tensor* h = nullptr;
  ~T() { tsr_tensor_release(h); }
};
struct R {
  tsr_profiler_result* h = nullptr;
  ~R() { tsr_profiler_result_release(h); }
};

#define ASSERT_OK(call) ASSERT_EQ((call), TSR_OK) << #call << ": " << tsr_last_error_message()

std::string table(const tsr_profiler_result* r, const char* sort_by) {
  char* text = nullptr;
  EXPECT_EQ(tsr_profiler_table(r, sort_by, -1, &text), TSR_OK) << tsr_last_error_message();
  std::string s = text ? text : "";
  tsr_free_string(text);
  return s;
}

// The names of the table's rows, top to bottom.
std::vector<std::string> row_names(const std::string& table) {
  std::vector<std::string> names;
  std::istringstream in(table);
  std::string line;
  int rules = 0;
  while (std::getline(in, line)) {
    if (line.rfind("----", 0) == 0) {
      ++rules;
      continue;
    }
    if (rules != 2) continue;  // between the header's rule and the last
    const size_t a = line.find_first_not_of(' ');
    const size_t b = line.find("  ", a);
    names.push_back(line.substr(a, b - a));
  }
  return names;
}

// The cells of the row named name (split at runs of two spaces).
std::vector<std::string> row_cells(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    size_t i = line.find_first_not_of(' ');
    while (i != std::string::npos && i < line.size()) {
      const size_t end = line.find("  ", i);
      cells.push_back(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
      if (end == std::string::npos) break;
      i = line.find_first_not_of(' ', end);
    }
    if (!cells.empty() && cells[0] == name) return cells;
  }
  return {};
}

// "12.345us", "1.234ms", "1.000s" in microseconds.
double microseconds(const std::string& cell) {
  const double v = std::stod(cell);
  if (cell.size() > 2 && cell.compare(cell.size() - 2, 2, "ms") == 0) return v * 1e3;
  if (cell.size() > 2 && cell.compare(cell.size() - 2, 2, "us") == 0) return v;
  return v * 1e6;
}

class CudaProfiler : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(tsr_cuda_init());
    std::vector<float> v(64 * 64);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 7) - 3.0f;
    const int64_t sizes[2] = {64, 64};
    T host;
    ASSERT_OK(tsr_from_data(v.data(), v.size() * sizeof(float), 2, sizes, TSR_FLOAT32, &host.h));
    ASSERT_OK(tsr_to_device(host.h, TSR_DEVICE_CUDA, 0, 0, &a_.h));
    ASSERT_OK(tsr_set_requires_grad(a_.h, true));
  }
  // Forward and backward of sum(relu(a @ a) * a) on the device.
  void run_model() {
    T mm, r, m, s;
    ASSERT_OK(tsr_matmul(a_.h, a_.h, &mm.h));
    ASSERT_OK(tsr_relu(mm.h, &r.h));
    ASSERT_OK(tsr_mul(r.h, a_.h, &m.h));
    ASSERT_OK(tsr_sum(m.h, 0, nullptr, false, &s.h));
    ASSERT_OK(tsr_backward(s.h, nullptr, false));
  }
  T a_;
};

TEST_F(CudaProfiler, TableHasTorchsCudaColumnsAndTotal) {
  ASSERT_OK(tsr_profiler_start(nullptr));  // the default activities: CPU and CUDA
  run_model();
  R r;
  ASSERT_OK(tsr_profiler_stop(&r.h));
  const std::string t = table(r.h, "cuda_time_total");
  if (std::getenv("TSR_TEST_PRINT")) std::printf("%s", t.c_str());
  for (const char* header : {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"})
    EXPECT_NE(t.find(header), std::string::npos) << header << " missing in\n" << t;
  EXPECT_NE(t.find("Self CUDA time total: "), std::string::npos) << t;
  // The header order is torch 1.13's.
  EXPECT_LT(t.find("CPU time avg"), t.find("Self CUDA"));
  EXPECT_LT(t.find("Self CUDA"), t.find("CUDA total"));
  EXPECT_LT(t.find("CUDA total"), t.find("# of Calls"));
  // Rows descend by CUDA total (column 8).
  const std::vector<std::string> rows = row_names(t);
  ASSERT_GT(rows.size(), 5u) << t;
  double previous = 1e300;
  for (const std::string& name : rows) {
    const double total = microseconds(row_cells(t, name).at(8));
    EXPECT_LE(total, previous) << name << " in\n" << t;
    previous = total;
  }
}

TEST_F(CudaProfiler, NestedOpsSplitSelfFromTotalDeviceTime) {
  ASSERT_OK(tsr_profiler_start(nullptr));
  run_model();
  R r;
  ASSERT_OK(tsr_profiler_stop(&r.h));
  // A leaf op's self device time is its total; a backward node's total
  // includes the matmuls it runs, and its self time excludes them.
  const std::string t = table(r.h, "cuda_time_total");
  const std::vector<std::string> matmul = row_cells(t, "aten::matmul"), mm_backward = row_cells(t, "MmBackward0");
  ASSERT_EQ(matmul.size(), 11u) << t;
  ASSERT_EQ(mm_backward.size(), 11u) << t;
  // Columns: name, self CPU %, self CPU, CPU total %, CPU total, CPU avg,
  // self CUDA, self CUDA %, CUDA total, CUDA avg, calls.
  EXPECT_EQ(matmul[6], matmul[8]) << t;
  EXPECT_GT(microseconds(matmul[8]), 0.0) << t;
  EXPECT_LT(microseconds(mm_backward[6]), microseconds(mm_backward[8])) << t;
  // Its total holds its two matmuls (two of the three aten::matmul calls).
  EXPECT_GT(microseconds(mm_backward[8]), 0.0) << t;
  // Every sort key over the device columns gives every row.
  for (const char* key : {"self_cuda_time_total", "cuda_time"})
    EXPECT_EQ(row_names(table(r.h, key)).size(), row_names(t).size()) << key;
}

TEST_F(CudaProfiler, CpuOnlyActivitiesRecordNoDeviceTime) {
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  EXPECT_EQ(o.activities, uint32_t(TSR_PROFILER_ACTIVITY_CPU | TSR_PROFILER_ACTIVITY_CUDA));
  o.activities = TSR_PROFILER_ACTIVITY_CPU;
  ASSERT_OK(tsr_profiler_start(&o));
  run_model();
  R r;
  ASSERT_OK(tsr_profiler_stop(&r.h));
  const std::string t = table(r.h, nullptr);
  EXPECT_EQ(t.find("CUDA total"), std::string::npos) << t;
  EXPECT_EQ(t.find("Self CUDA time total"), std::string::npos) << t;
  EXPECT_NE(t.find("aten::matmul"), std::string::npos) << t;  // the op itself is recorded
}

TEST_F(CudaProfiler, ChromeTraceHasADeviceTrack) {
  ASSERT_OK(tsr_profiler_start(nullptr));
  run_model();
  R r;
  ASSERT_OK(tsr_profiler_stop(&r.h));
  const std::string path = ::testing::TempDir() + "tessera_cuda_trace.json";
  ASSERT_OK(tsr_profiler_export_chrome_trace(r.h, path.c_str()));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  std::remove(path.c_str());
  EXPECT_NE(json.find("\"cat\":\"kernel\""), std::string::npos);
  EXPECT_NE(json.find("\"cat\":\"cpu_op\""), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"CUDA 0\""), std::string::npos);
  EXPECT_NE(json.find("\"pid\":4294967296"), std::string::npos);  // 2^32 + device 0
}

TEST_F(CudaProfiler, ActivitiesErrorsStartNothing) {
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  o.activities = TSR_PROFILER_ACTIVITY_CUDA;
  EXPECT_EQ(tsr_profiler_start(&o), TSR_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsr_last_error_message()).find("TSR_PROFILER_ACTIVITY_CPU"), std::string::npos);
  o.activities = 8;
  EXPECT_EQ(tsr_profiler_start(&o), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tsr_last_error_message()).find("unknown bits 8"), std::string::npos);
  R r;
  EXPECT_EQ(tsr_profiler_stop(&r.h), TSR_ERR_INVALID_ARGUMENT);  // nothing was started
  EXPECT_EQ(r.h, nullptr);
}

}  // namespace
