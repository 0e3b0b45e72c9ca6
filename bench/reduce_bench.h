// Reduction benchmarks (issue 12, item 7): sum, mean and max over each dim
// of a 2-D [4096,4096] and a 4-D [32,64,56,56] float32 tensor (contiguous
// and channels_last), tessera (C API) against libtorch 1.13 and a floor,
// a hand-written vectorized sum of the same bytes (what reading them costs);
// and softmax/log_softmax over the last dim of [4096,4096] and
// [32,64,56,56], which compute an exp per element, so for them the read
// floor is a lower bound, not a target.
#pragma once

namespace bench {

// threads: tessera (tsr_set_num_threads) and torch (at::set_num_threads)
// both use this many. With 1, CPU times are comparable; with more, only
// wall times are (the other threads' CPU time is not counted).
void bench_reductions(int warmup, int rounds, int threads);

}  // namespace bench
