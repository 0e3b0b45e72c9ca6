// torch.profiler's prof.key_averages(group_by_input_shape).table(sort_by,
// row_limit): events averaged per name (and per input shapes when grouped
// by them and they were recorded), in torch's columns and number formats.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profiler/recorder.h"

namespace tsr::profiler {

// sort_by: "self_cpu_time_total", "cpu_time_total", "cpu_time" (average),
// "count", "cpu_memory_usage", "self_cpu_memory_usage",
// "cuda_memory_usage", "self_cuda_memory_usage" (descending; ties keep the
// order of first appearance); empty: "self_cpu_time_total". row_limit < 0:
// every row. Another key: TSR_ERR_INVALID_ARGUMENT.
// group_by_input_shape: rows per (name, input shapes) with an "Input Shapes"
// column, when the session recorded shapes.
std::string table(const Result& r, std::string_view sort_by, int64_t row_limit, bool group_by_input_shape);

}  // namespace tsr::profiler
