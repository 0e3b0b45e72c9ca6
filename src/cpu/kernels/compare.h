// Comparison kernels on CPU tensors (torch.eq/ne/lt/le/gt/ge, allclose) and
// the two unary ops whose values compare with zero (abs, sign). No autograd
// (src/ops/compare.cpp does that).
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };

// a op b, broadcast, computed in torch.result_type(a, b) as torch does, as a
// bool tensor with the strides TensorIterator gives. NaN compares false
// except under Ne (IEEE).
Tensor compare(CompareOp op, const Tensor& a, const Tensor& b);
// torch.allclose: every |a - b| <= atol + rtol * |b| after broadcasting
// (NaNs equal only with equal_nan; infinities equal when identical).
// a and b of one dtype (torch's "Float did not match Double" otherwise).
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
// |a| in a's dtype (the most negative integer stays itself, as torch's
// wrapping abs); bool: torch's "\"abs_cpu\" not implemented for 'Bool'".
Tensor abs(const Tensor& a);
// torch.sign: -1, 0 or 1 in a's dtype (NaN gives 0, as torch 1.13 on the
// CPU); abs's backward.
Tensor sign(const Tensor& a);

}  // namespace tsr::kernels
