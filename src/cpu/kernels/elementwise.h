// Elementwise kernels on CPU tensors: broadcasting binary ops, unary ops,
// in-place accumulation. No autograd, no version bumps (the ops layer does
// those). Output layouts follow TensorIterator's rules so results have the
// strides PyTorch gives (e.g. channels_last in, channels_last out).
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

enum class BinaryOp { Add, Sub, Mul, Div };
enum class UnaryOp { Relu, Exp, Log, Neg };

Tensor zeros(const Shape& sizes, tsr_dtype dtype);

// Strides TensorIterator gives a fresh output of `shape` computed from
// inputs with these sizes/strides (inputs may be broadcast).
// The operands of an elementwise op, without a heap allocation for up to 4.
using TensorRefs = SmallVector<const Tensor*, 4>;

Shape output_strides(const Shape& shape, const TensorRefs& inputs);

// The dtype binary()/unary() give (torch.result_type, with integer
// division and exp/log of integers giving float32), or torch's
// TSR_ERR_DTYPE_MISMATCH for what they refuse on every device: a bool
// operand of Sub, Neg or Relu of bool.
tsr_dtype binary_result_dtype(BinaryOp op, const Tensor& a, const Tensor& b);
tsr_dtype unary_result_dtype(UnaryOp op, tsr_dtype input);
// a op b with broadcasting; result dtype = promote_types (Div of integers:
// float32). Inputs of another dtype are converted first.
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
// a * s / a + s in a's dtype (a floating) — also used by backward formulas.
Tensor mul_scalar(const Tensor& a, double s);
Tensor add_scalar(const Tensor& a, double s);
// Unary op; Exp/Log of integer inputs give float32.
Tensor unary(UnaryOp op, const Tensor& a);
// grad * (x > 0): ReLU's backward (ATen threshold_backward).
Tensor relu_backward(const Tensor& grad, const Tensor& result);
// dst += alpha * src, src already expanded to dst's sizes, converted to
// dst's dtype. Element by element in order, so an overlapping dst
// (expand/unfold views of a gradient) accumulates correctly.
void add_into(const Tensor& dst, const Tensor& src, double alpha);
void scale_inplace(const Tensor& dst, double s);

}  // namespace tsr::kernels
