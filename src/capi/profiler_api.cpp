// C API: the profiler (profiler.h) over src/profiler/.
#include <tessera/profiler.h>

#include <cstdlib>
#include <cstring>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/struct_size.h"
#include "profiler/chrome_trace.h"
#include "profiler/recorder.h"
#include "profiler/table.h"
#include "profiler/user_range.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_profiler_result {
  std::shared_ptr<profiler::Result> result;
};

namespace {
tsr_profiler_options defaults() {
  tsr_profiler_options o{};
  o.struct_size = sizeof o;
  o.record_shapes = false;
  o.profile_memory = false;
  o.activities = TSR_PROFILER_ACTIVITY_CPU | TSR_PROFILER_ACTIVITY_CUDA;
  return o;
}
const profiler::Result& result_of(const tsr_profiler_result* r) { return *require(r, "result")->result; }
}  // namespace

TSR_EXTERN void tsr_profiler_options_init(tsr_profiler_options* o) {
  if (o) *o = defaults();
}

TSR_EXTERN tsr_status tsr_profiler_start(const tsr_profiler_options* o) {
  return guarded([&] {
    tsr_profiler_options opts = defaults();
    if (o)
      opts = read_struct(o, opts, TSR_FIRST_VERSION_SIZE(tsr_profiler_options, record_shapes), "options",
                         "tsr_profiler_options");
    const uint32_t known = TSR_PROFILER_ACTIVITY_CPU | TSR_PROFILER_ACTIVITY_CUDA;
    TSR_CHECK((opts.activities & ~known) == 0, TSR_ERR_INVALID_ARGUMENT, "options.activities: unknown bits ",
              opts.activities & ~known, " (only TSR_PROFILER_ACTIVITY_CPU | TSR_PROFILER_ACTIVITY_CUDA)");
    TSR_CHECK(opts.activities & TSR_PROFILER_ACTIVITY_CPU, TSR_ERR_UNSUPPORTED,
              "options.activities must include TSR_PROFILER_ACTIVITY_CPU: tessera times device work per op, "
              "so a session records the ops (torch can also list kernels alone)");
    profiler::start({opts.record_shapes, opts.profile_memory, (opts.activities & TSR_PROFILER_ACTIVITY_CUDA) != 0});
  });
}

TSR_EXTERN tsr_status tsr_profiler_stop(tsr_profiler_result** out) {
  return guarded([&] {
    require(out, "out");
    auto box = std::make_unique<tsr_profiler_result>();
    box->result = profiler::stop();
    *out = box.release();
  });
}

namespace {
tsr_status table_text(const tsr_profiler_result* r, const char* sort_by, int64_t row_limit,
                      bool group_by_input_shape, char** text) {
  return guarded([&] {
    const profiler::Result& res = result_of(r);
    require(text, "text");
    const std::string s = profiler::table(res, sort_by ? sort_by : "", row_limit, group_by_input_shape);
    char* p = static_cast<char*>(std::malloc(s.size() + 1));
    TSR_CHECK(p, TSR_ERR_OUT_OF_MEMORY, "out of memory for a table of ", s.size(), " bytes");
    std::memcpy(p, s.c_str(), s.size() + 1);
    *text = p;
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_profiler_table(const tsr_profiler_result* r, const char* sort_by, int64_t row_limit,
                                         char** text) {
  return table_text(r, sort_by, row_limit, true, text);
}

TSR_EXTERN tsr_status tsr_profiler_key_averages_table(const tsr_profiler_result* r, bool group_by_input_shape,
                                                      const char* sort_by, int64_t row_limit, char** text) {
  return table_text(r, sort_by, row_limit, group_by_input_shape, text);
}

TSR_EXTERN tsr_status tsr_profiler_export_chrome_trace(const tsr_profiler_result* r, const char* path) {
  return guarded([&] {
    const profiler::Result& res = result_of(r);
    require(path, "path");
    profiler::export_chrome_trace(res, path);
  });
}

TSR_EXTERN int64_t tsr_profiler_result_num_events(const tsr_profiler_result* r) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(result_of(r).events.size()); });
}

TSR_EXTERN void tsr_profiler_result_release(tsr_profiler_result* r) { delete r; }

TSR_EXTERN tsr_status tsr_profiler_record_function_begin(const char* name) {
  return guarded([&] { profiler::range_begin(require(name, "name")); });
}

TSR_EXTERN tsr_status tsr_profiler_record_function_end(void) {
  return guarded([&] { profiler::range_end(); });
}
