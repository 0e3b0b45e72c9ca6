// User ranges of the profiler (torch.profiler.record_function): a named
// event around any code, opened and closed by calls rather than by a C++
// scope, so that C and the bindings can bracket their own work. Ops run
// inside a range are its children (its "self" time excludes them).
#pragma once

#include <string>

namespace tsr::profiler {

// Opens a range named name on the calling thread. Outside a session the
// range records nothing but still has to be closed (begin/end stay paired
// whether or not a session runs in between).
void range_begin(std::string name);
// Closes the calling thread's innermost range; TSR_ERR_INVALID_ARGUMENT
// when the thread has none open.
void range_end();
// Ranges open on the calling thread.
int64_t range_depth();

}  // namespace tsr::profiler
