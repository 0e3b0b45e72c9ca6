// What conv_bench.cpp and layers_bench.cpp share: tessera views of torch's
// buffers, a comparison of results, and the interleaved timing of
// tessera/torch contender pairs.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "bench_util.h"

namespace conv_bench {

// A tessera tensor over t's memory (float32; t keeps ownership).
tsr_tensor* wrap(const at::Tensor& t);
// max |t - ref| over ref's elements, t read with its own strides.
double max_abs_diff(tsr_tensor* t, const at::Tensor& ref);
// Times contenders given as pairs (tessera, torch), interleaved, and prints
// each median and each pair's paired ratio; with fwd_flops > 0 also GFLOP/s
// (the first pair counted as a forward, later pairs as three times it).
void time_pairs(const std::vector<bench::Contender>& cs, int warmup, int rounds, double fwd_flops = 0);
// Batch norm and max pooling of the Fashion CNN's activations.
void bench_fashion_layers(int warmup, int rounds);

}  // namespace conv_bench
