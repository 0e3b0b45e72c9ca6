// Memory formats and contiguity: PyTorch's rules from c10/core/TensorImpl.cpp
// and c10/core/MemoryFormat.h, ported as written (size-1 dims ignored, empty
// tensors contiguous, ambiguous layouts resolved toward NCHW).
#pragma once

#include <tessera/types.h>

#include "core/inline_vector.h"
#include "core/shape.h"

namespace tsr {

// Throws TSR_ERR_INVALID_ARGUMENT for values outside the enum.
void check_memory_format(int fmt);

bool is_contiguous_strides(const Shape& sizes, const Shape& strides);
bool is_channels_last_contiguous(const Shape& sizes, const Shape& strides);     // 4-D
bool is_channels_last_3d_contiguous(const Shape& sizes, const Shape& strides);  // 5-D
// is_contiguous(memory_format); PRESERVE is TSR_ERR_INVALID_ARGUMENT.
bool is_contiguous_as(const Shape& sizes, const Shape& strides, tsr_memory_format fmt);
bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides);
// c10's is_channels_last_strides_2d / _3d (the "strides like" heuristics).
bool is_channels_last_strides_2d(const Shape& sizes, const Shape& strides);
bool is_channels_last_strides_3d(const Shape& sizes, const Shape& strides);
tsr_memory_format suggest_memory_format(const Shape& sizes, const Shape& strides);

// Strides of a fresh tensor in fmt (CONTIGUOUS / CHANNELS_LAST on 4-D /
// CHANNELS_LAST_3D on 5-D); other combinations TSR_ERR_INVALID_ARGUMENT with
// PyTorch's "required rank 4 tensor to use channels_last format".
Shape strides_for_format(const Shape& sizes, tsr_memory_format fmt);
// TensorIterator's reorder_dimensions: t's dims ordered innermost first by
// the operands' strides (each of `sizes`' length; 0 = broadcast, ignored);
// the first operand that orders two dims decides, equal strides put the
// smaller size inner, undecided dims keep C order (a stable insertion sort).
// The operands' strides inline: up to 4 operands allocate nothing.
using OperandStrides = InlineVector<Shape, 4>;
SmallVector<size_t, 6> dim_order(const Shape& sizes, const OperandStrides& strides);
// ATen's infer_dense_strides: dense strides that keep the dim order of
// `strides` (what empty_like(preserve_format) gives a non-dense input).
Shape infer_dense_strides(const Shape& sizes, const Shape& strides);
// Strides empty_like(t, fmt) gives, fmt may be PRESERVE (ATen's empty_like).
Shape strides_like(const Shape& sizes, const Shape& strides, tsr_memory_format fmt);

}  // namespace tsr
