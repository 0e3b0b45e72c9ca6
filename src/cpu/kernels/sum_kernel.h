// The loops of sum (and mean): an input reduced over `mask` into an
// accumulator with keepdim sizes and the strides of reduce_plan.h, in the
// accumulation type: float for float16/bfloat16/float32 (ATen's, cascade
// summed), double for float64, int64 wrapping modulo 2^64 for integers and
// bool. Large reductions are split across threads (parallel_for.h) so that
// the result does not depend on the thread count.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// The accumulator's dtype for an input dtype.
tsr_dtype sum_acc_dtype(tsr_dtype d);
Tensor accumulate_sum(const Tensor& t, const std::vector<bool>& mask);

}  // namespace tsr::kernels
