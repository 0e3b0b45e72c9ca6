// Indexing kernels against libtorch (issue 33's benchmarks): boolean-mask
// select, index_put_ by mask and by index, scatter_add into 1M bins, sort
// and topk of 16M float32.
#pragma once

namespace bench {

void bench_indexing(int warmup, int rounds, int threads);

}  // namespace bench
