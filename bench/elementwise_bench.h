// Elementwise benchmarks (issue 12, items 1 and 7): binary, scalar and
// unary ops over contiguous float32/float16/bfloat16 tensors and a + b.t(),
// tessera (C API) against libtorch 1.13 and a floor, on one thread.
#pragma once

namespace bench {

void bench_elementwise(int warmup, int rounds);

}  // namespace bench
