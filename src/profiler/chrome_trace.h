// torch.profiler's prof.export_chrome_trace(path): the events as Chrome
// Trace Event Format JSON ({"traceEvents": [{"ph": "X", ...}]}), which
// chrome://tracing and Perfetto (ui.perfetto.dev) open.
#pragma once

#include <string>

#include "profiler/recorder.h"

namespace tsr::profiler {

// The JSON text: one complete ("ph": "X") event per recorded event, sorted
// by start, ts/dur in microseconds (fractions keep the nanoseconds), pid the
// process id, tid the OS thread id, args with the inputs' sizes, strides and
// memory formats (record_shapes), device, bytes allocated (profile_memory)
// and whether it is a backward node.
std::string chrome_trace_json(const Result& r);
// Writes it to path atomically (io::AtomicWriter: a temporary in the same
// directory, renamed over path), so a failure leaves no file and any old
// file as it was. TSR_ERR_IO with the path and the system's reason.
void export_chrome_trace(const Result& r, const std::string& path);

}  // namespace tsr::profiler
