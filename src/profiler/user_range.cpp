#include "profiler/user_range.h"

#include <memory>
#include <vector>

#include "core/error.h"
#include "profiler/recorder.h"

namespace tsr::profiler {

namespace {
// Scopes nest through a per-thread parent pointer, so a range must end on
// the thread that began it, innermost first: a per-thread stack.
thread_local std::vector<std::unique_ptr<Scope>> t_ranges;
}  // namespace

void range_begin(std::string name) {
  TSR_CHECK(!name.empty(), TSR_ERR_INVALID_ARGUMENT, "record_function: the name is empty");
  t_ranges.reserve(t_ranges.size() + 1);  // may throw before the scope starts timing
  t_ranges.push_back(std::make_unique<Scope>(std::move(name), std::vector<Tensor>{}, false, true));
}

void range_end() {
  TSR_CHECK(!t_ranges.empty(), TSR_ERR_INVALID_ARGUMENT,
            "record_function: no range is open on this thread (each end needs a begin on the same thread)");
  t_ranges.pop_back();
}

int64_t range_depth() { return int64_t(t_ranges.size()); }

}  // namespace tsr::profiler
