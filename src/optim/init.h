// torch.nn.init of PyTorch 1.13: gains, fans and the in-place initializers,
// drawing from a tessera Generator (Philox: torch's distributions, not its
// numbers).
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "core/generator.h"
#include "core/tensor.h"

namespace tsr::init {

// calculate_gain(nonlinearity, param); param nullopt is Python's None.
double calculate_gain(std::string_view nonlinearity, std::optional<double> param);
// _calculate_fan_in_and_fan_out: (fan_in, fan_out).
std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t);

// Each writes t once (one copy_, one version bump) under no_grad; on failure
// t and g are as before.
void uniform_(const Tensor& t, double a, double b, Generator& g);
void normal_(const Tensor& t, double mean, double std, Generator& g);
void zeros_(const Tensor& t);
void kaiming_uniform_(const Tensor& t, double a, std::string_view mode, std::string_view nonlinearity,
                      Generator& g);
void xavier_uniform_(const Tensor& t, double gain, Generator& g);

}  // namespace tsr::init
