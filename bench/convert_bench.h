// Copy kernels at memory bandwidth (issue 12, items 3 and 5): dtype
// conversions, materialized broadcasts, transposes, channels_last, a 5-D
// permute and a step-2 slice, each timed for tessera (C API, tsr_copy_ into
// a preallocated destination), libtorch (dst.copy_(src)) and memcpy of the
// case's larger tensor, with ratios; once on one thread for both libraries
// and once on one thread per core. Each case's rounds are spread over
// several sets of freshly allocated buffers ("placements"), whose lowest
// and highest ratio are printed too.
#pragma once

namespace bench {

void bench_conversions(int warmup, int rounds);

}  // namespace bench
