// Per-call cost of small operations (issue item 13, part 3): one view op and
// one small tsr_empty through tessera's C API against the same op through
// libtorch's C++ API, in the same process, in ns per call.
#pragma once

namespace bench {

// Each sample is a batch of `batch` calls (op + release); prints the median
// and min over `rounds` batches, divided by `batch`.
void bench_call_costs(int warmup, int rounds, int batch);

}  // namespace bench
