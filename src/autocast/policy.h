// Autocast's op policy: for each op (by tessera's op name, which is torch's
// aten name where one exists) and device type, how an autocast region casts
// its floating inputs. The lists are torch 1.13's (aten/src/ATen/
// autocast_mode.cpp, AutocastCPU and AutocastCUDA), checked against torch by
// tests/golden/gen_autocast.py; docs/AMP.md prints them.
#pragma once

#include <string_view>

#include <tessera/types.h>

namespace tsr::autocast {

enum class CastPolicy {
  None,            // runs in the dtypes it is given
  LowerPrecision,  // floating inputs to the region's dtype (lower_precision_fp)
  Float32,         // float16/bfloat16 inputs to float32 (fp32, fp32_set_opt_dtype)
  Promote,         // floating inputs to the widest among them (promote)
  Banned,          // refused inside a region (binary_cross_entropy on CUDA)
};

CastPolicy policy(std::string_view op, tsr_device_type device_type);

}  // namespace tsr::autocast
