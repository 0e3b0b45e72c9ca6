// Scans (cumsum, cumprod) and the product reduction on CPU tensors, no
// autograd. torch 1.13's CPU rules: integer and bool inputs give int64
// unless a dtype is asked for; the input is converted to the result dtype
// first; scans accumulate in ATen's CPU accumulation type (double for
// float32/float64, float for bfloat16, int64 for integers); prod multiplies
// in the result dtype. Results are C-contiguous. float16 (and bfloat16 for
// prod) is refused as torch 1.13's CPU kernels refuse it.
#pragma once

#include <optional>

#include "core/tensor.h"

namespace tsr::kernels {

enum class ScanOp { kSum, kProd };

// The dtype cumsum/cumprod/prod give: `dtype` if given, else int64 for
// integers and bool, else the input's.
tsr_dtype scan_result_dtype(tsr_dtype input, std::optional<tsr_dtype> dtype);
// Checks a result dtype against the CPU kernel's list (TSR_ERR_DTYPE_MISMATCH
// with torch's "\"cumsum_out_cpu\" not implemented for 'Half'" message).
void check_scan_dtype(ScanOp op, tsr_dtype result);
void check_prod_dtype(tsr_dtype result);

// Inclusive scan of t along dim (wrapped by the caller; 0 for a 0-dim t),
// converted to `result` first; reverse scans from the end (the backward of
// cumsum).
Tensor scan(const Tensor& t, int64_t dim, ScanOp op, tsr_dtype result, bool reverse);

// Product over dim (keepdim sizes when keepdim), or over every element when
// all is set (a 0-dim result; 1 for an empty t).
Tensor prod(const Tensor& t, bool all, int64_t dim, bool keepdim, tsr_dtype result);

}  // namespace tsr::kernels
